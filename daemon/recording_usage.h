/*
 * The usage beside a recording's Perfetto trace: the device's usage
 * stream (engines, clocks, power, processes: what gpuperf top shows), read
 * while the recording runs and written on tracks under the trace's device
 * track (metrics/usage_trace.h, the tracks gpuperf stream's traces have),
 * on a packet sequence of its own. The counters' sequence stays exactly
 * what the recording's replay gives; a recording file holds no usage.
 *
 * The stream is read from the trace's first report, when its device track
 * is known, to the recording's end, at an interval of its own: frames fall
 * on the usage stream's grid, so a gpuperf top at the same interval shows
 * the same values. A device without a usage stream gets, instead, an
 * instant event on the usage track that says why.
 */
#ifndef GPD_RECORDING_USAGE_H
#define GPD_RECORDING_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/device.h"
#include "daemon/recorder.h"
#include "metrics/trace_writer.h"

struct gpd_recording_usage;

struct gpd_recording_usage_options {
	struct gpd_device *dev;
	/* 0: the usage stream's default; checked before
	 * (gpd_usage_check_interval). */
	uint64_t interval_ns;
	enum gpd_recorder_processes processes;
	/* Where the sequence's bytes go: the trace's. */
	gpm_trace_write_fn write;
	void *ctx;
	/* Writing failed (err: a negative errno) after start: the owner
	 * ends the recording. */
	void (*failed)(void *ctx, int err);
};

/* Allocates it; nothing is read or written before gpd_recording_usage_
 * start. 0 or -ENOMEM. */
int gpd_recording_usage_create(const struct gpd_recording_usage_options *o,
			      struct gpd_recording_usage **out);

/* The trace's device track is known: the usage stream is read from now
 * on, or the note is written. 0 or a negative errno. */
int gpd_recording_usage_start(struct gpd_recording_usage *u,
			     uint64_t device_track);

/* Writes the usage from the last frame to now, stops reading and writes
 * what is gathered: no frame after this. 0 or a negative errno. */
int gpd_recording_usage_finish(struct gpd_recording_usage *u);

void gpd_recording_usage_destroy(struct gpd_recording_usage *u);

/* The interval of the usage tracks; 0 when the device has no usage
 * stream, and then the note says why. */
uint64_t gpd_recording_usage_interval_ns(const struct gpd_recording_usage *u);
const char *gpd_recording_usage_note(const struct gpd_recording_usage *u);

#endif
