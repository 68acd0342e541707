/*
 * A subscription's frames as a Perfetto trace: what gpuperf stream and
 * gpuperf run write with --format perfetto.
 *
 * The tracks and events are those of every gpuperf trace
 * (metrics/trace_layout.h): the counters per window, at the window's GPU
 * time; the marked window (run's command) as a slice carrying its totals;
 * losses and dropped frames as instant events; a configuration change as
 * an instant event and a new group of counter tracks, so the trace goes
 * on where the table would have to stop; the device's usage frames, where
 * asked, on tracks of their own (metrics/usage_trace.h). Frames carry no
 * spans of contexts: context slices come with recordings (gpuperf record
 * --format perfetto). The GPU clock is related to the daemon's
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME from the frames' times about once a
 * second: the trace is on the daemon's clocks wherever it runs, and
 * lines up with a system trace of the daemon's machine.
 */
#ifndef GPUPERF_STREAM_TRACE_H
#define GPUPERF_STREAM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/include/gpuperf.h"
#include "metrics/trace_layout.h"
#include "metrics/trace_writer.h"
#include "metrics/usage_trace.h"

struct gpuperf_stream_trace {
	/* private */
	FILE *out;
	struct gpc_client *client;
	const struct gpc_subscription *sub;
	const char *mark_name;
	bool started;
	bool config_changed;            /* since the last frame */
	struct gpm_trace_writer writer;
	struct gpm_trace_layout layout;
	char **counter_symbols;         /* the layout's, to notice changes */
	size_t n_counters;
	bool *is_double;
	union gpm_trace_value *values;
	uint64_t last_snapshot_gpu_ns;
	uint64_t last_gpu_ns;           /* the windows' track's last time */
	uint64_t windows;               /* counter windows written */
	uint64_t frames, reports;       /* every frame written, marks too */
	uint64_t gpu_ns;                /* GPU time of the counter windows */
	uint64_t lost, buffers_lost, dropped;
	struct gpm_usage_trace usage;   /* after the first frame */
	uint64_t usage_frames;
};

/* out: where the trace goes; mark_name: the marked window's slice name
 * (NULL: "mark"). Nothing is written before the first frame of either
 * stream. */
void gpuperf_stream_trace_init(struct gpuperf_stream_trace *t, FILE *out,
			       struct gpc_client *client,
			       const struct gpc_subscription *sub,
			       const char *mark_name);

/* Writes a frame. 0, or a negative errno (of the write, or -ENOMEM). */
int gpuperf_stream_trace_frame(struct gpuperf_stream_trace *t,
			       const struct gpc_frame *frame);

/* Writes a usage frame of the device on the usage tracks. 0, or a
 * negative errno. */
int gpuperf_stream_trace_usage(struct gpuperf_stream_trace *t,
			       const struct gpc_usage_frame *frame);

/* The device's configuration changed: the next frame shows how. */
void gpuperf_stream_trace_config_changed(struct gpuperf_stream_trace *t);

/* Writes what is pending; 0 or the negative errno of the write. */
int gpuperf_stream_trace_finish(struct gpuperf_stream_trace *t);

/* A line on stderr about the losses seen, for the command cmd. */
void gpuperf_stream_trace_summary(const struct gpuperf_stream_trace *t,
				  const char *cmd);

void gpuperf_stream_trace_fini(struct gpuperf_stream_trace *t);

#endif
