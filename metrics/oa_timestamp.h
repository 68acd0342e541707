/*
 * Extending OA report timestamps to 64 bits.
 *
 * A 32-bit report timestamp wraps every 2^32 ticks (about 3.7 minutes at
 * 19.2 MHz; DG2's 31-bit one twice as often). Windows, intervals and marks
 * need one monotonic time line, so each timestamp is extended by adding its
 * distance from the previous one, taken modulo the wrap.
 */
#ifndef GPM_OA_TIMESTAMP_H
#define GPM_OA_TIMESTAMP_H

#include <stdbool.h>
#include <stdint.h>

struct gpm_oa_ts_extender {
	uint64_t mask;                  /* timestamps wrap at mask + 1 */
	uint64_t last;                  /* the last timestamp seen, as given */
	uint64_t extended;              /* its extended value */
	bool started;
};

/* mask: the decoder's ts_mask (all ones, 2^n - 1). */
void gpm_oa_ts_extender_init(struct gpm_oa_ts_extender *ext, uint64_t mask);

/*
 * Returns ts on the 64-bit time line. The first timestamp maps to itself;
 * each later one moves forward by (ts - last) mod (mask + 1), so a wrap
 * between two reports is taken as such, and a timestamp never goes back
 * (an earlier one reads as a nearly full wrap forward; the line stops at
 * 2^64 - 1 rather than wrap). Gaps longer than one wrap, as after a lost
 * buffer, cannot be told apart and count once.
 */
static inline uint64_t gpm_oa_ts_extend(struct gpm_oa_ts_extender *ext,
					uint64_t ts)
{
	ts &= ext->mask;
	if (!ext->started) {
		ext->started = true;
		ext->extended = ts;
	} else {
		uint64_t step = (ts - ext->last) & ext->mask;

		/* Only full 64-bit timestamps can get here, from garbage:
		 * staying at the end keeps the time line monotonic. */
		ext->extended = step > UINT64_MAX - ext->extended ? UINT64_MAX
								   : ext->extended + step;
	}
	ext->last = ts;
	return ext->extended;
}

#endif
