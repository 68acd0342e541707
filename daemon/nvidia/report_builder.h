/*
 * From NVIDIA counter samples to the records every source delivers.
 *
 * A PM sample holds the counts of one interval [start, end]. The builder
 * keeps a running 64-bit total per counter and writes, for each sample, an
 * NVPM32u64 report (metrics/oa_format.c) stamped with the sample's end and
 * carrying the totals, framed as an i915 SAMPLE record. Consecutive reports
 * thus give back each sample's counts as plain u64 deltas, and everything
 * above the source treats them like OA reports.
 *
 * What the hardware gets wrong is handled here, once:
 * - a session's first sample spans the setup (SetConfig to Start): dropped;
 * - a sample that starts after the last ended is a gap: a BUFFER_LOST
 *   record, so that no delta spans it, then a report at the sample's
 *   start with the unchanged totals, so its own counts still count;
 * - a sample that starts before the last ended (a duplicate, or out of
 *   order) is dropped;
 * - but a start off by less than a sixteenth of the sample is the clock's
 *   jitter (seen every few seconds on an H200): the sample continues;
 * - CUPTI's values are doubles (averages are not whole numbers): the
 *   fraction carries into the next sample, so totals never drift.
 *
 * Sample times are CLOCK_REALTIME ns; reports count the daemon's clock,
 * CLOCK_MONOTONIC, in ticks of timestamp_frequency.
 */
#ifndef GPD_NVIDIA_REPORT_BUILDER_H
#define GPD_NVIDIA_REPORT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/oa_report.h"

/* GPU_CLOCK and the 32 PEC slots of NVPM32u64. */
#define GPD_NV_MAX_COUNTERS 33

/* The most bytes one sample turns into: loss, a start and an end report. */
#define GPD_NV_SAMPLE_RECORDS_MAX (8 + 2 * (8 + 288))

struct gpd_nv_sample {
	uint64_t start_ns, end_ns;      /* CLOCK_REALTIME */
	const double *values;           /* one per counter, in slot order */
};

struct gpd_nv_report_stats {
	uint64_t reports;               /* samples turned into reports */
	uint64_t setup_samples;         /* first samples of sessions, dropped */
	uint64_t gaps;                  /* samples after missing time */
	uint64_t gap_ns;                /* the time missing before them */
	uint64_t jitter;                /* samples a little off, kept */
	uint64_t out_of_order;          /* samples starting too early, dropped */
	uint64_t losses;                /* BUFFER_LOST records written */
};

struct gpd_nv_report_builder {
	struct gpm_oa_decoder encoder;
	uint64_t timestamp_frequency;
	unsigned n_counters;
	unsigned slot[GPD_NV_MAX_COUNTERS];
	uint64_t total[GPD_NV_MAX_COUNTERS];
	double fraction[GPD_NV_MAX_COUNTERS];
	int64_t clock_offset_ns;        /* CLOCK_MONOTONIC - CLOCK_REALTIME */
	bool skip_next;                 /* the next sample opens a session */
	bool need_start;                /* the next report needs a start report */
	bool have_last;
	uint64_t last_end_ns;
	struct gpm_oa_report report;    /* scratch */
	struct gpd_nv_report_stats stats;
};

/*
 * slots[i] is the accumulator slot counter i fills (GPU_CLOCK or a PEC);
 * timestamp_frequency is the device's. -EINVAL for more than
 * GPD_NV_MAX_COUNTERS counters or a slot NVPM32u64 lacks.
 */
int gpd_nv_report_builder_init(struct gpd_nv_report_builder *b,
			       const unsigned *slots, unsigned n_counters,
			       uint64_t timestamp_frequency);

/* A session starts: its first sample is dropped, and the first report
 * after it starts a new pair. clock_offset_ns converts its times. */
void gpd_nv_report_builder_restart(struct gpd_nv_report_builder *b,
				   int64_t clock_offset_ns);

/* Samples were lost in a way the times cannot show (an overflow, records
 * dropped on the way): writes a BUFFER_LOST record (8 bytes) into out and
 * makes the next report start a new pair. Returns 8. */
size_t gpd_nv_report_builder_loss(struct gpd_nv_report_builder *b,
				  unsigned char *out);

/* Writes the records for s into out, which has room for
 * GPD_NV_SAMPLE_RECORDS_MAX bytes; returns how many it wrote (0 when the
 * sample was dropped). */
size_t gpd_nv_report_builder_add(struct gpd_nv_report_builder *b,
				 const struct gpd_nv_sample *s,
				 unsigned char *out);

#endif
