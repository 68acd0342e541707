/*
 * The 64-bit OA timestamp extender (see oa_timestamp.h).
 */
#include "metrics/oa_timestamp.h"

void gpm_oa_ts_extender_init(struct gpm_oa_ts_extender *ext, uint64_t mask)
{
	ext->mask = mask;
	ext->last = 0;
	ext->extended = 0;
	ext->started = false;
}

uint64_t gpm_oa_ts_extend(struct gpm_oa_ts_extender *ext, uint64_t ts)
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
