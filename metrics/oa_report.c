/*
 * Decoding and encoding single OA reports (see oa_report.h).
 */
#include "metrics/oa_report.h"

#include <errno.h>
#include <string.h>

#include "metrics/little_endian.h"

/*
 * What the dword0 bits mean, by graphics IP version.
 *
 * The timestamp field is taken as written, at every version. On DG2 and
 * MTL/ARL (Wa_18013179988) and PVC (Wa_14015568240) the OA unit ignores
 * CTC_SHIFT and its timestamp runs faster than the command streamer's,
 * but the kernel already reports the OA unit's own clock: i915's
 * i915_perf_oa_timestamp_frequency() (I915_PARAM_OA_TIMESTAMP_FREQUENCY)
 * and xe's xe_oa_timestamp_frequency() (each OA unit's oa_timestamp_freq)
 * return the CS clock << (3 - CTC_SHIFT). The kernel's oa_exponent_to_ns()
 * turns 2 << exponent ticks of that clock into the period, and IGT's xe_oa
 * oa-exponents test expects exactly 2 << exponent between the raw
 * timestamps of two periodic reports. So raw ticks over that frequency are
 * the time. IGT's lib/i915/perf.c shifts the field right by one *and*
 * divides by that frequency, which halves GpuTime; Mesa shifts and divides
 * by the CS clock, which is right only while CTC_SHIFT makes the ratio two.
 */
static const struct {
	unsigned min_version, max_version;
	unsigned reason_width;
	uint32_t ctx_valid_mask;
	bool ctx_invalid_means_idle;
} platforms[] = {
	/* HSW: reasons undocumented, no valid bit. */
	{ 700, 799, 0, 0, false },
	/* Gen8 keeps the valid bit at 25, Gen9 moved it to 16. */
	{ 800, 899, 6, 1u << 25, true },
	{ 900, 1199, 6, 1u << 16, true },
	/* Gen12 added the MMIO-trigger reason. */
	{ 1200, 1249, 7, 1u << 16, true },
	{ 1250, 0xffff, 7, 1u << 16, false },
};

int gpm_oa_decoder_init(struct gpm_oa_decoder *dec, const struct gpm_oa_format *fmt,
			unsigned graphics_version)
{
	if (fmt->synthetic) {
		*dec = (struct gpm_oa_decoder){
			.format = fmt,
			.ts_mask = fmt->header_bits == 32 ? UINT32_MAX : UINT64_MAX,
		};
		return 0;
	}
	for (size_t i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++) {
		if (graphics_version < platforms[i].min_version ||
		    graphics_version > platforms[i].max_version)
			continue;
		dec->format = fmt;
		dec->ts_mask = fmt->header_bits == 32 ? UINT32_MAX : UINT64_MAX;
		dec->reason_width = platforms[i].reason_width;
		dec->ctx_valid_mask = platforms[i].ctx_valid_mask;
		dec->ctx_invalid_means_idle = platforms[i].ctx_invalid_means_idle;
		dec->has_context = graphics_version >= 800;
		return 0;
	}
	return -EINVAL;
}

static uint64_t reason_field_mask(const struct gpm_oa_decoder *dec)
{
	return (((uint64_t)1 << dec->reason_width) - 1) << GPM_OA_REASON_SHIFT;
}

static void store_header_word(unsigned char *p, unsigned bits, uint64_t v)
{
	if (bits == 32)
		gpm__le32_store(p, (uint32_t)v);
	else
		gpm__le64_store(p, v);
}

int gpm_oa_report_decode(const struct gpm_oa_decoder *dec, const void *bytes,
			 size_t size, struct gpm_oa_report *report)
{
	const struct gpm_oa_format *fmt = dec->format;
	const unsigned char *b = bytes;
	int ret = gpm_oa_report_decode_header(dec, bytes, size, report);

	if (ret)
		return ret;
	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		const unsigned char *p = b + grp->offset;
		const unsigned char *high = b + grp->high_offset;
		uint64_t *v = report->value + grp->slot;

		switch (grp->width) {
		case 32:
			for (unsigned i = 0; i < grp->count; i++)
				v[i] = gpm__le32_load(p + 4 * i);
			break;
		case 40:
			for (unsigned i = 0; i < grp->count; i++)
				v[i] = gpm__le32_load(p + 4 * i) | (uint64_t)high[i] << 32;
			break;
		default:
			for (unsigned i = 0; i < grp->count; i++)
				v[i] = gpm__le64_load(p + 8 * i);
			break;
		}
	}
	return 0;
}

static uint64_t width_max(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

/* Checks every field of report fits before any byte is written, so a
 * failed encode leaves the buffer as it was. */
static int check_encodable(const struct gpm_oa_decoder *dec,
			   const struct gpm_oa_report *report)
{
	const struct gpm_oa_format *fmt = dec->format;

	if (report->report_id & (reason_field_mask(dec) | dec->ctx_valid_mask))
		return -EINVAL;
	if (report->report_id > width_max(fmt->header_bits) ||
	    report->reason > width_max(dec->reason_width) ||
	    report->value[GPM_ACC_GPU_TIME] > width_max(fmt->header_bits))
		return -ERANGE;
	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];

		for (unsigned i = 0; i < grp->count; i++) {
			if (report->value[grp->slot + i] > width_max(grp->width))
				return -ERANGE;
		}
	}
	return 0;
}

void gpm_oa_report_write(const struct gpm_oa_decoder *dec, uint64_t report_id,
			 uint32_t reason, uint32_t ctx_id, bool ctx_valid,
			 uint64_t timestamp, const uint64_t *value, void *bytes)
{
	const struct gpm_oa_format *fmt = dec->format;
	unsigned char *b = bytes;

	memset(b, 0, fmt->size);
	uint64_t id = report_id | (uint64_t)reason << GPM_OA_REASON_SHIFT;
	if (ctx_valid)
		id |= dec->ctx_valid_mask;
	store_header_word(b, fmt->header_bits, id);
	store_header_word(b + fmt->ts_offset, fmt->header_bits, timestamp);
	gpm__le32_store(b + fmt->ctx_offset, ctx_id);

	/* A loop for each width, not a test for each counter: a fast
	 * period's reports are written tens of millions of times a second. */
	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		unsigned char *p = b + grp->offset;
		unsigned char *high = b + grp->high_offset;
		const uint64_t *v = value + grp->slot;
		/* A local: the byte stores could alias the format's count. */
		unsigned count = grp->count;

		switch (grp->width) {
		case 32:
			for (unsigned i = 0; i < count; i++)
				gpm__le32_store(p + 4 * i, (uint32_t)v[i]);
			break;
		case 40:
			for (unsigned i = 0; i < count; i++) {
				gpm__le32_store(p + 4 * i, (uint32_t)v[i]);
				high[i] = (unsigned char)(v[i] >> 32);
			}
			break;
		default:
			for (unsigned i = 0; i < count; i++)
				gpm__le64_store(p + 8 * i, v[i]);
			break;
		}
	}
}

int gpm_oa_report_encode(const struct gpm_oa_decoder *dec,
			 const struct gpm_oa_report *report, void *bytes, size_t size)
{
	int ret;

	if (size < dec->format->size)
		return -EMSGSIZE;
	ret = check_encodable(dec, report);
	if (ret)
		return ret;
	gpm_oa_report_write(dec, report->report_id, report->reason,
			    report->ctx_id, report->ctx_valid,
			    report->value[GPM_ACC_GPU_TIME], report->value, bytes);
	return 0;
}
