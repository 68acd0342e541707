/*
 * A recording's OA stream as a Perfetto trace: the records of an i915-perf
 * recording in (samples, losses, correlation points, clocks), in file
 * order, and the trace's bytes out through a gpm_trace_writer.
 *
 * What the trace shows, on tracks under one per device:
 *   - the chosen counters of the metric set, one counter track each,
 *     grouped under a track for the set, with a value per window of
 *     `interval_ns` of GPU time (the windows of `gpuperf replay
 *     --interval`, with the same values), placed at the window's start;
 *     the window's report count on a track of its own;
 *   - per hardware context, a slice for each run of reports in which it
 *     ran (the runs of `gpuperf replay --per-context`), on a track per
 *     context under "GPU contexts";
 *   - OA_REPORT_LOST and OA_BUFFER_LOST as instant events on the device
 *     track, at the first report after them, their counts in the args;
 *   - the configuration (metric set, GUID, window) as an instant event at
 *     the first report.
 * Every correlation point becomes a clock snapshot of the GPU clock and
 * CLOCK_MONOTONIC, and CLOCK_BOOTTIME too once the recording has given
 * the two CPU clocks' offset (gpuperf's CLOCKS records).
 *
 * The trace depends only on the records, never on how they were read or
 * batched: the daemon feeds its own recording's bytes as it writes them
 * (gpm_oa_trace_records), the CLI the records its reader yields from the
 * file, and the two give the same bytes.
 */
#ifndef GPM_OA_TRACE_H
#define GPM_OA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metric_binding.h"
#include "metrics/oa_report.h"
#include "metrics/recording.h"
#include "metrics/trace_writer.h"

struct gpm_oa_trace_options {
	/* What the device track is called: "Tiger Lake GT2 (PCI 0x9a49)". */
	const char *device_label;
	uint32_t pci_id;
	uint64_t timestamp_frequency;   /* Hz */
	const struct gpm_oa_decoder *decoder;
	/* The set's counters evaluate through binding; counters[] are the
	 * indices of the chosen ones, in the order they are shown. */
	const struct gpm_binding *binding;
	const unsigned *counters;
	size_t n_counters;
	uint64_t interval_ns;           /* the counters' window */
	gpm_trace_write_fn write;
	void *ctx;
};

struct gpm_oa_trace;

/* Allocates the converter; the options' pointers must outlive it. 0,
 * -EINVAL (no decoder, binding or interval) or -ENOMEM. */
int gpm_oa_trace_create(const struct gpm_oa_trace_options *options,
			struct gpm_oa_trace **out);
void gpm_oa_trace_destroy(struct gpm_oa_trace *t);

/* The records, in order. Each returns 0 or the writer's negative errno,
 * after which every call fails the same way. */
int gpm_oa_trace_sample(struct gpm_oa_trace *t, const void *report,
			size_t size);
/* losses: enum gpm_oa_loss flags. */
int gpm_oa_trace_loss(struct gpm_oa_trace *t, unsigned losses);
int gpm_oa_trace_correlation(struct gpm_oa_trace *t,
			     const struct gpm_recording_correlation *c);
int gpm_oa_trace_clocks(struct gpm_oa_trace *t,
			const struct gpm_recording_clocks *c);

/*
 * Whole recording records, as a recording's bytes hold them (header,
 * size, payload; every record complete within data). Header records are
 * passed over: the options describe the device. -EBADMSG for a record cut
 * short or of the wrong size.
 */
int gpm_oa_trace_records(struct gpm_oa_trace *t, const void *data, size_t len);

/* Ends the open windows and runs, writes what is pending and flushes. */
int gpm_oa_trace_finish(struct gpm_oa_trace *t);

/* What a recording's device track is called: "Tiger Lake GT2 (PCI
 * 0x9a49)", from the platform's description and the PCI id. */
void gpm_oa_trace_label(char *buf, size_t size, const char *description,
			uint32_t pci_id);

/* Whether the GPU clock had to be taken for CLOCK_MONOTONIC: no
 * correlation point came before the first report. */
bool gpm_oa_trace_clock_guessed(const struct gpm_oa_trace *t);

/* Windows written so far. */
uint64_t gpm_oa_trace_windows(const struct gpm_oa_trace *t);

/* The device's track, under which the recorder puts the usage it writes
 * beside the trace (metrics/usage_trace.h); 0 until the first report
 * started the trace. */
uint64_t gpm_oa_trace_device_track(const struct gpm_oa_trace *t);

#endif
