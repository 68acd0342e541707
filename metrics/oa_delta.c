/*
 * Report-pair deltas into an accumulator (see oa_delta.h).
 */
#include "metrics/oa_delta.h"

#include <string.h>

#include "metrics/little_endian.h"

void gpm_oa_delta_add(const struct gpm_oa_decoder *dec,
		      const struct gpm_oa_report *start,
		      const struct gpm_oa_report *end,
		      struct gpm_accumulator *acc)
{
	const struct gpm_oa_format *fmt = dec->format;
	uint64_t ts0 = start->value[GPM_ACC_GPU_TIME];
	uint64_t ts1 = end->value[GPM_ACC_GPU_TIME];
	uint64_t ts = fmt->header_bits == 32 ? gpm_oa_delta_u32(ts0, ts1)
					     : gpm_oa_delta_u64(ts0, ts1);

	acc->slot[GPM_ACC_GPU_TIME] += ts;

	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		const uint64_t *v0 = start->value + grp->slot;
		const uint64_t *v1 = end->value + grp->slot;
		uint64_t *sum = acc->slot + grp->slot;

		switch (grp->width) {
		case 32:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u32(v0[i], v1[i]);
			break;
		case 40:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u40(v0[i], v1[i]);
			break;
		default:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u64(v0[i], v1[i]);
			break;
		}
	}
}

/* The same as gpm_oa_delta_u40() on 40-bit values, without the branch. */
#define U40_MASK (((uint64_t)1 << 40) - 1)

/*
 * One group's deltas from raw bytes. Only sum is written, and restrict
 * says it overlaps neither report: without that the compiler would check
 * for overlap at run time before every vectorized loop.
 */
static void add_raw_u32(uint64_t *restrict sum, const unsigned char *start,
			const unsigned char *end, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		sum[i] += gpm_oa_delta_u32(gpm__le32_load(start + 4 * i),
					   gpm__le32_load(end + 4 * i));
}

static void add_raw_u40(uint64_t *restrict sum, const unsigned char *start,
			const unsigned char *start_high, const unsigned char *end,
			const unsigned char *end_high, unsigned count)
{
	for (unsigned i = 0; i < count; i++) {
		uint64_t v0 = gpm__le32_load(start + 4 * i) | (uint64_t)start_high[i] << 32;
		uint64_t v1 = gpm__le32_load(end + 4 * i) | (uint64_t)end_high[i] << 32;

		sum[i] += (v1 - v0) & U40_MASK;
	}
}

static void add_raw_u64(uint64_t *restrict sum, const unsigned char *start,
			const unsigned char *end, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		sum[i] += gpm_oa_delta_u64(gpm__le64_load(start + 8 * i),
					   gpm__le64_load(end + 8 * i));
}

void gpm_oa_delta_add_raw(const struct gpm_oa_decoder *dec, const void *start,
			  const void *end, struct gpm_accumulator *acc)
{
	const struct gpm_oa_format *fmt = dec->format;
	const unsigned char *s = start, *e = end;
	uint64_t ts = fmt->header_bits == 32
		? gpm_oa_delta_u32(gpm__le32_load(s + fmt->ts_offset),
				   gpm__le32_load(e + fmt->ts_offset))
		: gpm_oa_delta_u64(gpm__le64_load(s + fmt->ts_offset),
				   gpm__le64_load(e + fmt->ts_offset));

	acc->slot[GPM_ACC_GPU_TIME] += ts;

	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		uint64_t *sum = acc->slot + grp->slot;

		switch (grp->width) {
		case 32:
			add_raw_u32(sum, s + grp->offset, e + grp->offset, grp->count);
			break;
		case 40:
			add_raw_u40(sum, s + grp->offset, s + grp->high_offset,
				    e + grp->offset, e + grp->high_offset, grp->count);
			break;
		default:
			add_raw_u64(sum, s + grp->offset, e + grp->offset, grp->count);
			break;
		}
	}
}

void gpm_oa_delta_clear(const struct gpm_oa_decoder *dec,
			struct gpm_accumulator *acc)
{
	const struct gpm_oa_format *fmt = dec->format;

	acc->slot[GPM_ACC_GPU_TIME] = 0;
	for (unsigned g = 0; g < fmt->n_groups; g++)
		memset(acc->slot + fmt->group[g].slot, 0,
		       fmt->group[g].count * sizeof(acc->slot[0]));
}

/*
 * Runs. Counters are taken a block at a time, and each block goes through
 * every report of the run with its previous values and wrap counts held
 * in registers; blocks are whole vector registers wide.
 */
#define RUN_LANES 16

#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Four u32 fields a vector. The compiler's vectors spell the loops out
 * for any target: the compare of a lane yields -1 where true, and with
 * the sign bit flipped on load an unsigned compare is a signed one, which
 * every vector unit has.
 */
typedef int32_t gpm__v4 __attribute__((vector_size(16)));
#define V4_GROUPS (RUN_LANES / 4)

static inline gpm__v4 load_flipped(const unsigned char *p)
{
	gpm__v4 v;

	memcpy(&v, p, sizeof(v));
	return v ^ (gpm__v4){ INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
}

static inline void add_counts(uint32_t *wraps, const gpm__v4 *w, unsigned groups)
{
	for (unsigned g = 0; g < groups; g++)
		for (unsigned l = 0; l < 4; l++)
			wraps[4 * g + l] = (uint32_t)-w[g][l];
}

/* Into wraps, for each of 4 * groups u32 fields at p, the reports after
 * the first where it is below its value in the report before: the pairs
 * where it wrapped. */
static inline void count_u32_wraps_v4(const unsigned char *p, size_t stride,
				      size_t n, unsigned groups, uint32_t *wraps)
{
	gpm__v4 prev[V4_GROUPS], w[V4_GROUPS];

	for (unsigned g = 0; g < groups; g++) {
		prev[g] = load_flipped(p + 16 * g);
		w[g] = (gpm__v4){ 0, 0, 0, 0 };
	}
	for (size_t k = 1; k < n; k++) {
		const unsigned char *q = p + k * stride;

		for (unsigned g = 0; g < groups; g++) {
			gpm__v4 v = load_flipped(q + 16 * g);

			w[g] += v < prev[g];
			prev[g] = v;
		}
	}
	add_counts(wraps, w, groups);
}

/*
 * The same for 40-bit fields, low dwords at p and high bytes at high. The
 * high bytes move once every 2^32 counts: while none of the block's does,
 * a pair wraps just where its low dword does. A pair where one does is
 * taken lane by lane: it wraps when its high bytes' difference, less the
 * borrow out of the low dwords', goes negative.
 */
static inline void count_u40_wraps_v4(const unsigned char *p,
				      const unsigned char *high, size_t stride,
				      size_t n, unsigned groups, uint32_t *wraps)
{
	gpm__v4 prev[V4_GROUPS], w[V4_GROUPS];
	uint32_t slow[RUN_LANES] = { 0 };

	for (unsigned g = 0; g < groups; g++) {
		prev[g] = load_flipped(p + 16 * g);
		w[g] = (gpm__v4){ 0, 0, 0, 0 };
	}
	for (size_t k = 1; k < n; k++) {
		const unsigned char *q = p + k * stride;
		const unsigned char *q_high = high + k * stride;
		const unsigned char *p_high = q_high - stride;

		if (__builtin_expect(memcmp(q_high, p_high, 4 * groups) != 0, 0)) {
			for (unsigned j = 0; j < 4 * groups; j++) {
				uint32_t v = gpm__le32_load(q + 4 * j);
				uint32_t before = (uint32_t)prev[j / 4][j % 4] ^
						  0x80000000u;
				int32_t high_delta = (int32_t)q_high[j] -
						     (int32_t)p_high[j] -
						     (int32_t)(v < before);

				slow[j] += (uint32_t)high_delta >> 31;
			}
			for (unsigned g = 0; g < groups; g++)
				prev[g] = load_flipped(q + 16 * g);
			continue;
		}
		for (unsigned g = 0; g < groups; g++) {
			gpm__v4 v = load_flipped(q + 16 * g);

			w[g] += v < prev[g];
			prev[g] = v;
		}
	}
	add_counts(wraps, w, groups);
	for (unsigned j = 0; j < 4 * groups; j++)
		wraps[j] += slow[j];
}
#endif

/* Reports after the first where each of `lanes` u32 fields at p is below
 * its value in the report before: the pairs where it wrapped. */
static inline void count_u32_wraps(const unsigned char *p, size_t stride, size_t n,
				   unsigned lanes, uint32_t *wraps)
{
	uint32_t prev[RUN_LANES], w[RUN_LANES];

#ifdef V4_GROUPS
	if (lanes % 4 == 0) {
		count_u32_wraps_v4(p, stride, n, lanes / 4, wraps);
		return;
	}
#endif
	for (unsigned j = 0; j < lanes; j++) {
		prev[j] = gpm__le32_load(p + 4 * j);
		w[j] = 0;
	}
	for (size_t k = 1; k < n; k++) {
		const unsigned char *q = p + k * stride;

		for (unsigned j = 0; j < lanes; j++) {
			uint32_t v = gpm__le32_load(q + 4 * j);

			w[j] += v < prev[j];
			prev[j] = v;
		}
	}
	memcpy(wraps, w, lanes * sizeof(w[0]));
}

/* The same for 40-bit fields, low dwords at p and high bytes at high: a
 * pair wraps when its high bytes' difference, less the borrow out of the
 * low dwords', goes negative. */
static inline void count_u40_wraps(const unsigned char *p, const unsigned char *high,
				   size_t stride, size_t n, unsigned lanes,
				   uint32_t *wraps)
{
	uint32_t prev[RUN_LANES], prev_high[RUN_LANES], w[RUN_LANES];

#ifdef V4_GROUPS
	if (lanes % 4 == 0) {
		count_u40_wraps_v4(p, high, stride, n, lanes / 4, wraps);
		return;
	}
#endif
	for (unsigned j = 0; j < lanes; j++) {
		prev[j] = gpm__le32_load(p + 4 * j);
		prev_high[j] = high[j];
		w[j] = 0;
	}
	for (size_t k = 1; k < n; k++) {
		const unsigned char *q = p + k * stride, *q_high = high + k * stride;

		for (unsigned j = 0; j < lanes; j++) {
			uint32_t v = gpm__le32_load(q + 4 * j), v_high = q_high[j];
			int32_t high_delta = (int32_t)v_high - (int32_t)prev_high[j] -
					     (int32_t)(v < prev[j]);

			w[j] += (uint32_t)high_delta >> 31;
			prev[j] = v;
			prev_high[j] = v_high;
		}
	}
	memcpy(wraps, w, lanes * sizeof(w[0]));
}

/* Lanes for the next block of a group with left counters to go. */
static unsigned block_lanes(unsigned left)
{
	return left >= 16 ? 16 : left >= 8 ? 8 : left >= 4 ? 4 : 1;
}

static void run_u32(uint64_t *sum, const unsigned char *first, size_t stride,
		    size_t n, unsigned count)
{
	const unsigned char *last = first + (n - 1) * stride;
	uint32_t wraps[GPM_ACC_SLOTS];

	for (unsigned i = 0, lanes; i < count; i += lanes) {
		const unsigned char *p = first + 4 * i;

		/* Spelled out so each count_u32_wraps() call has constant
		 * lanes once inlined. */
		switch (lanes = block_lanes(count - i)) {
		case 16:
			count_u32_wraps(p, stride, n, 16, wraps + i);
			break;
		case 8:
			count_u32_wraps(p, stride, n, 8, wraps + i);
			break;
		case 4:
			count_u32_wraps(p, stride, n, 4, wraps + i);
			break;
		default:
			count_u32_wraps(p, stride, n, 1, wraps + i);
			break;
		}
	}
	for (unsigned i = 0; i < count; i++)
		sum[i] += (uint64_t)gpm__le32_load(last + 4 * i) -
			  gpm__le32_load(first + 4 * i) + ((uint64_t)wraps[i] << 32);
}

static void run_u40(uint64_t *sum, const unsigned char *first,
		    const unsigned char *first_high, size_t stride, size_t n,
		    unsigned count)
{
	const unsigned char *last = first + (n - 1) * stride;
	const unsigned char *last_high = first_high + (n - 1) * stride;
	uint32_t wraps[GPM_ACC_SLOTS];

	for (unsigned i = 0, lanes; i < count; i += lanes) {
		const unsigned char *p = first + 4 * i, *high = first_high + i;

		switch (lanes = block_lanes(count - i)) {
		case 16:
			count_u40_wraps(p, high, stride, n, 16, wraps + i);
			break;
		case 8:
			count_u40_wraps(p, high, stride, n, 8, wraps + i);
			break;
		case 4:
			count_u40_wraps(p, high, stride, n, 4, wraps + i);
			break;
		default:
			count_u40_wraps(p, high, stride, n, 1, wraps + i);
			break;
		}
	}
	for (unsigned i = 0; i < count; i++) {
		uint64_t v0 = gpm__le32_load(first + 4 * i) | (uint64_t)first_high[i] << 32;
		uint64_t v1 = gpm__le32_load(last + 4 * i) | (uint64_t)last_high[i] << 32;

		sum[i] += v1 - v0 + ((uint64_t)wraps[i] << 40);
	}
}

/* 64-bit fields wrap only mod 2^64, as the sum does: last - first. */
static void run_u64(uint64_t *sum, const unsigned char *first, size_t stride,
		    size_t n, unsigned count)
{
	add_raw_u64(sum, first, first + (n - 1) * stride, count);
}

void gpm_oa_delta_add_run(const struct gpm_oa_decoder *dec, const void *first,
			  size_t stride, size_t n, struct gpm_accumulator *acc)
{
	const struct gpm_oa_format *fmt = dec->format;
	const unsigned char *b = first;
	uint64_t ts = 0;

	if (n < 2)
		return;

	/* Pair by pair: the run may wrap the field more than once. */
	for (size_t k = 1; k < n; k++) {
		const unsigned char *s = b + (k - 1) * stride + fmt->ts_offset;
		const unsigned char *e = s + stride;
		uint64_t delta = fmt->header_bits == 32
			? gpm_oa_delta_u32(gpm__le32_load(s), gpm__le32_load(e))
			: gpm_oa_delta_u64(gpm__le64_load(s), gpm__le64_load(e));

		ts += delta;
	}
	acc->slot[GPM_ACC_GPU_TIME] += ts;

	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		uint64_t *sum = acc->slot + grp->slot;

		switch (grp->width) {
		case 32:
			run_u32(sum, b + grp->offset, stride, n, grp->count);
			break;
		case 40:
			run_u40(sum, b + grp->offset, b + grp->high_offset, stride, n,
				grp->count);
			break;
		default:
			run_u64(sum, b + grp->offset, stride, n, grp->count);
			break;
		}
	}
}
