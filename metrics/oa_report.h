/*
 * OA reports: one raw report's bytes <-> its fields.
 *
 * The format table says where the fields sit; a decoder adds what depends
 * on the platform rather than the format (the A32u40 layout spans Gen8 to
 * Gen12, whose dword0 bits differ): the reason field's width, the
 * context-valid bit, the timestamp's width, and what a clear valid bit
 * means. gpm_oa_decoder_init() fills these from the graphics version;
 * callers may override any of them afterwards.
 *
 * Decoding and encoding are exact inverses over the bytes the format
 * defines, so the simulated OA unit and the fake kernel build their reports
 * with the same table the daemon decodes them with.
 */
#ifndef GPM_OA_REPORT_H
#define GPM_OA_REPORT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/accumulator.h"
#include "metrics/little_endian.h"
#include "metrics/oa_format.h"

/* Why the OA unit wrote a report: dword0 bits 19 and up, Gen8 and later. */
enum gpm_oa_reason {
	GPM_OA_REASON_TIMER = 1 << 0,
	GPM_OA_REASON_TRIGGER1 = 1 << 1,
	GPM_OA_REASON_TRIGGER2 = 1 << 2,
	GPM_OA_REASON_CTX_SWITCH = 1 << 3,
	GPM_OA_REASON_GO_TRANSITION = 1 << 4,   /* GPU entering RC6 */
	GPM_OA_REASON_CLOCK_RATIO = 1 << 5,     /* Gen9 and later */
	GPM_OA_REASON_MMIO_TRIGGER = 1 << 6,    /* Gen12 and later */
};

#define GPM_OA_REASON_SHIFT 19

/* The context ID of no context: what i915 writes into squashed reports,
 * and what gpm_oa_report_context() answers for idle time. */
#define GPM_OA_CTX_NONE 0xffffffffu

struct gpm_oa_decoder {
	const struct gpm_oa_format *format;
	/* Timestamp ticks = timestamp field & ts_mask, wrapping at ts_mask +
	 * 1: the field as the OA unit wrote it, in ticks of the OA timestamp
	 * frequency the kernel reports (see oa_report.c on DG2 and MTL). */
	uint64_t ts_mask;
	unsigned reason_width;          /* bits at GPM_OA_REASON_SHIFT; 0: none */
	uint32_t ctx_valid_mask;        /* the ctx-valid bit in dword0; 0: none */
	/* Before Xe_HP the OA unit clears the valid bit only while the GPU is
	 * idle; from Xe_HP on it sets it only in the report of a context
	 * switching in, so a clear bit says nothing about the ctx field. */
	bool ctx_invalid_means_idle;
	/* The reports carry a context ID; Haswell's carry none, and i915
	 * isolates one context there by the OA unit's per-context mode
	 * (GEN7_OACONTROL_PER_CTX_ENABLE, gen7_oa_enable(), Linux 6.12). */
	bool has_context;
};

/*
 * Fills dec for reports of format fmt on a GPU of graphics IP version
 * graphics_version (times 100: 750 HSW, 1200 TGL, 1255 DG2, 2000 LNL).
 * -EINVAL for a version without an OA unit. A synthetic format decodes
 * the same on every device: no reason or valid bits, ctx and timestamp as
 * written.
 */
int gpm_oa_decoder_init(struct gpm_oa_decoder *dec, const struct gpm_oa_format *fmt,
			unsigned graphics_version);

struct gpm_oa_report {
	/* dword0 (qword0 for 64-bit headers) less the reason and ctx-valid
	 * bits: the report ID, or the ID an MI_REPORT_PERF_COUNT wrote. */
	uint64_t report_id;
	uint32_t reason;                /* enum gpm_oa_reason bits */
	uint32_t ctx_id;                /* the context ID field as written */
	bool ctx_valid;                 /* true where the platform has no valid bit */
	uint64_t timestamp;             /* ticks, see struct gpm_oa_decoder */
	/* The raw fields in the accumulator's layout: GPM_ACC_GPU_TIME holds
	 * the timestamp field as written, GPM_ACC_GPU_CLOCK the GPU ticks,
	 * then the A, B, C or PEC counters (40-bit ones whole). Slots the
	 * format lacks are left untouched by decode and ignored by encode. */
	uint64_t value[GPM_ACC_SLOTS];
};

/*
 * Decodes the report at bytes (any alignment, at least the format's size).
 * -EMSGSIZE if size is smaller than a report.
 */
int gpm_oa_report_decode(const struct gpm_oa_decoder *dec, const void *bytes,
			 size_t size, struct gpm_oa_report *report);

/*
 * The timestamp ticks of the report at bytes, which must hold a whole
 * report: all that INTERVAL windows need of most reports, read inline.
 */
static inline uint64_t gpm_oa_report_timestamp(const struct gpm_oa_decoder *dec,
					       const void *bytes)
{
	const struct gpm_oa_format *fmt = dec->format;
	const unsigned char *p = (const unsigned char *)bytes + fmt->ts_offset;
	uint64_t ts = fmt->header_bits == 32 ? gpm__le32_load(p) : gpm__le64_load(p);

	return ts & dec->ts_mask;
}

/*
 * Decodes only the header of the report at bytes: report_id, reason,
 * ctx_id, ctx_valid, timestamp and value[GPM_ACC_GPU_TIME]; the counter
 * slots are left as they were. Windowing needs no more of a report whose
 * deltas are taken from its bytes (gpm_oa_delta_add_raw()). -EMSGSIZE if
 * size is smaller than a report.
 */
static inline int gpm_oa_report_decode_header(const struct gpm_oa_decoder *dec,
					      const void *bytes, size_t size,
					      struct gpm_oa_report *report)
{
	const struct gpm_oa_format *fmt = dec->format;
	const unsigned char *b = bytes;

	if (size < fmt->size)
		return -EMSGSIZE;

	uint64_t id = fmt->header_bits == 32 ? gpm__le32_load(b) : gpm__le64_load(b);
	uint64_t reason_mask = (((uint64_t)1 << dec->reason_width) - 1)
			       << GPM_OA_REASON_SHIFT;
	report->report_id = id & ~(reason_mask | dec->ctx_valid_mask);
	report->reason = (uint32_t)((id & reason_mask) >> GPM_OA_REASON_SHIFT);
	report->ctx_valid = !dec->ctx_valid_mask || (id & dec->ctx_valid_mask);
	report->ctx_id = gpm__le32_load(b + fmt->ctx_offset);

	const unsigned char *t = b + fmt->ts_offset;
	uint64_t ts = fmt->header_bits == 32 ? gpm__le32_load(t) : gpm__le64_load(t);
	report->value[GPM_ACC_GPU_TIME] = ts;
	report->timestamp = ts & dec->ts_mask;
	return 0;
}

/*
 * Writes report as the format's size bytes at bytes; bytes no field covers
 * are zero. report->timestamp is derived and not used. -EMSGSIZE if size is
 * too small; -ERANGE if a value does not fit its field (a reason beyond the
 * platform's reason bits, a 32-bit counter above 2^32 - 1...); -EINVAL if
 * report_id has bits where the reason or the ctx-valid bit go.
 */
int gpm_oa_report_encode(const struct gpm_oa_decoder *dec,
			 const struct gpm_oa_report *report, void *bytes, size_t size);

/*
 * What gpm_oa_report_encode() writes, for fields the caller knows fit
 * (a model's own reports): nothing is checked, and each counter of value
 * (slots as in struct gpm_oa_report) is cut to its field's width. bytes
 * holds the format's size.
 */
void gpm_oa_report_write(const struct gpm_oa_decoder *dec, uint64_t report_id,
			 uint32_t reason, uint32_t ctx_id, bool ctx_valid,
			 uint64_t timestamp, const uint64_t *value, void *bytes);

/*
 * The context a report says is running, for per-context accounting. In
 * this order:
 * - an MMIO-triggered report (Gen12+) carries a marker, not a context, in
 *   its ctx field: the context stays `running`;
 * - ctx 0xffffffff is no context, GPM_OA_CTX_NONE: i915 writes it into
 *   reports whose valid bit is clear (squashing, below IP 12.55) and into
 *   the ids of contexts a filtered stream hides, whatever the valid bit;
 * - a clear valid bit where ctx_invalid_means_idle (before Xe_HP: Gen8 to
 *   Gen12.0, also unsquashed as xe delivers them) is idle: GPM_OA_CTX_NONE;
 * - otherwise the ctx field: on Xe_HP and later a clear bit only says the
 *   report is not a switch-in, and HSW has no valid bit at all.
 */
static inline uint32_t gpm_oa_report_context(const struct gpm_oa_decoder *dec,
					     const struct gpm_oa_report *report,
					     uint32_t running)
{
	if (report->reason & GPM_OA_REASON_MMIO_TRIGGER)
		return running;
	if (report->ctx_id == GPM_OA_CTX_NONE)
		return GPM_OA_CTX_NONE;
	if (!report->ctx_valid && dec->ctx_invalid_means_idle)
		return GPM_OA_CTX_NONE;
	return report->ctx_id;
}

/*
 * Whether the report may be i915 submitting the running context again:
 * before Xe_HP that writes a context-switch report without the valid bit
 * (docs/oa-reference.md §2.5 quirk 6), which gpm_oa_report_context() reads
 * as going idle, as IGT's reader does. Only the report after it tells: the
 * context that ran before it again, and it was a resubmission.
 */
static inline bool gpm_oa_report_may_resubmit(const struct gpm_oa_decoder *dec,
					      const struct gpm_oa_report *report)
{
	return dec->ctx_invalid_means_idle && !report->ctx_valid &&
	       (report->reason & GPM_OA_REASON_CTX_SWITCH);
}

#endif
