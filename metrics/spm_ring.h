/*
 * AMD's streaming performance monitor (SPM): counters sampled every N
 * shader clocks into a ring in GPU memory, decoded by the rules PAL
 * documents for it (struct SpmTraceLayout and SpmCounterData in
 * inc/core/palPerfExperiment.h, client interface 810 and later):
 *
 *   - the trace data holds the hardware's write pointer (a DWORD at
 *     wrPtrOffset) and the ring of maxNumSamples samples, sampleStride
 *     bytes apart, from sampleOffset;
 *   - the write pointer counts units of wrPtrGranularity bytes from
 *     sampleOffset and says where the next sample would go; the RLC writes
 *     whole samples, so it always lands on a sample (PAL asserts both);
 *   - the hardware wraps and overwrites the oldest sample. The last
 *     sample slot's timestamp is zeroed before the trace starts: zero
 *     there means the ring did not wrap, the samples run from the first
 *     slot to the write pointer; non-zero means it did, every slot holds a
 *     sample and the oldest is at the write pointer;
 *   - a sample starts with its 64-bit timestamp (radv reads it so:
 *     ac_sqtt_dump_spm() in Mesa's src/amd/common/ac_rgp.c);
 *   - a counter is 16 bits at byte offsetLo of the sample, or 32 bits as
 *     two 16-bit halves, the low at offsetLo and the high at offsetHi;
 *   - a sample is made of segments, the global one first and then one
 *     per shader engine, each of whole 32-byte lines (sixteen 16-bit
 *     counters); gpm_spm_segment_offset() finds a counter's bytes.
 *
 * Pure: bytes in, samples out. Every size and offset is checked against
 * the bytes there are.
 */
#ifndef GPM_SPM_RING_H
#define GPM_SPM_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPM_SPM_LINE_BYTES 32

struct gpm_spm_counter {
	uint32_t offset_lo;             /* bytes into a sample */
	uint32_t offset_hi;             /* the high half's, when is_32bit */
	bool is_32bit;
};

struct gpm_spm_layout {
	uint32_t wr_ptr_offset;         /* bytes into the trace data */
	uint32_t wr_ptr_granularity;    /* bytes per unit of the pointer */
	uint32_t sample_offset;         /* bytes into the trace data */
	uint32_t sample_stride;         /* bytes from one sample to the next */
	uint32_t max_samples;           /* slots in the ring */
	size_t n_counters;
	const struct gpm_spm_counter *counters;
};

/*
 * The byte offset in a sample of 16-bit slot `slot` of segment `segment`
 * (0: global, 1 + i: shader engine i), for a sample whose segments have
 * segment_lines[0 .. n_segments) lines; -1 when there is no such slot.
 */
int64_t gpm_spm_segment_offset(const uint32_t *segment_lines,
			       unsigned n_segments, unsigned segment,
			       uint32_t slot);

struct gpm_spm_samples {
	size_t n_samples, n_counters;
	uint64_t *timestamps;           /* n_samples, oldest first */
	uint32_t *values;               /* n_samples x n_counters */
	bool wrapped;                   /* the ring went round at least once */
};

/*
 * Decodes len bytes of trace data laid out as layout says. 0; -EINVAL
 * with why for a layout the data cannot hold (a ring past its end, a
 * counter past its sample, a zero stride or granularity); -EBADMSG with
 * why for a write pointer past the ring or inside a sample; -ENOMEM.
 * out owns its arrays (gpm_spm_samples_fini).
 */
int gpm_spm_decode(const struct gpm_spm_layout *layout, const uint8_t *data,
		   size_t len, struct gpm_spm_samples *out, char *why,
		   size_t size);

void gpm_spm_samples_fini(struct gpm_spm_samples *samples);

/*
 * Where a reader of a live ring is: the slot it reads next and the
 * timestamp of the sample it read last. Zeroed, it has read nothing.
 */
struct gpm_spm_cursor {
	bool started;
	uint32_t next_slot;
	uint64_t last_timestamp;
};

/*
 * The samples written since the cursor's last read, oldest first, and
 * the cursor moved past them. The first read takes what gpm_spm_decode
 * would. A later one takes the slots from the cursor to the write
 * pointer, unless the slot before the cursor no longer holds the sample
 * read last: then the hardware came round to the reader, and the whole
 * ring is taken, oldest at the write pointer. Whether samples were lost
 * in between, only their timestamps tell (the ring holds exactly the
 * new ones when a whole ring's worth came). Errors as gpm_spm_decode's;
 * the cursor stays where it was.
 */
int gpm_spm_read_new(const struct gpm_spm_layout *layout, const uint8_t *data,
		     size_t len, struct gpm_spm_cursor *cursor,
		     struct gpm_spm_samples *out, char *why, size_t size);

#endif
