/*
 * Server-side recordings: a device's raw OA records, as the source
 * delivered them, written in IGT's i915-perf recording format (what
 * i915-perf-recorder writes and i915-perf-reader reads) and handed to a
 * sink as the file's bytes, in order; or, as a Perfetto trace, those same
 * records through the converter `gpuperf replay --format perfetto` uses
 * (metrics/oa_trace.h), so that a live trace and the replay of a
 * recording of the same stream are the same trace.
 *
 * A recorder holds a subscription of its own, which keeps the stream open
 * and tells it when the configuration changes under it (the header would
 * no longer describe the reports: the recording ends there). Timestamp
 * correlation points are taken from the reports themselves, before the
 * first, about once a second, and after the last, so every report lies
 * between two of them as IGT's reader requires. Each is followed by
 * gpuperf's CLOCKS record, CLOCK_MONOTONIC and CLOCK_BOOTTIME read
 * together, which places the trace on Perfetto's clock.
 *
 * A trace also shows the device's usage stream, from its first report to
 * its end, on a packet sequence of its own (recording_usage.h): a
 * recording holds no usage, so a replay's trace is the live trace's
 * other sequence, that of the counters and contexts, alone.
 */
#ifndef GPD_RECORDER_H
#define GPD_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/subscription.h"

struct gpd_device_registry;
struct gpd_recorder;

struct gpd_recorder_sink_ops {
	/* The next len bytes of the file, from offset. Non-zero refuses them:
	 * the recording stops with that as the reason. */
	int (*data)(void *user, uint64_t offset, const void *data, size_t len);
	/* The recording is complete (every byte was handed to data). reason
	 * is NULL when gpd_recorder_stop asked for it without one. The owner
	 * destroys the recorder from here or later. */
	void (*stopped)(void *user, uint64_t bytes, uint64_t reports,
			const char *reason);
};

enum gpd_recording_format {
	GPD_RECORDING_I915_PERF,
	GPD_RECORDING_PERFETTO,
};

/* What a recording's usage tracks show of the processes. */
enum gpd_recorder_processes {
	GPD_RECORDER_PROCESSES_NONE,
	GPD_RECORDER_PROCESSES_ANONYMOUS,       /* summed, unnamed */
	GPD_RECORDER_PROCESSES_FULL,
};

struct gpd_recorder_request {
	const char *device;             /* NULL: the first */
	const char *metric_set;         /* NULL: what runs or the default */
	uint64_t sampling_period_ns;    /* 0: what runs or the default */
	/* The file stays within it, closing records included; 0: no limit,
	 * else at least GPD_RECORDING_MIN_BYTES. */
	uint64_t max_bytes;
	enum gpd_role role;
	enum gpd_recording_format format;
	/* PERFETTO: the counters' window (0: GPD_RECORDER_DEFAULT_WINDOW_NS)
	 * and the counters (NULL: all), as in a subscription. */
	uint64_t window_ns;
	const char *const *counters;
	size_t n_counters;
	/* PERFETTO: the device's usage on tracks of the trace, every
	 * usage_interval_ns (0: the usage stream's default), with as much of
	 * the processes as the client may see; none with no_usage. */
	uint64_t usage_interval_ns;
	bool no_usage;
	enum gpd_recorder_processes processes;
	/* The connection's evaluation budget, which a Perfetto trace's
	 * windows are counted in (an IGT recording evaluates nothing);
	 * NULL: none. */
	struct gpd_evaluation_budget *budget;
};

/* A recording limit below this leaves no room for the file's header
 * (VERSION, DEVICE_INFO, the topology, a correlation) and one report. */
#define GPD_RECORDING_MIN_BYTES 4096u

#define GPD_RECORDER_DEFAULT_WINDOW_NS 10000000ull

/* Records one of devices. */
int gpd_recorder_start(const struct gpd_device_registry *devices,
		       const struct gpd_recorder_request *req,
		       const struct gpd_recorder_sink_ops *ops, void *user,
		       struct gpd_recorder **out, struct gpd_error *err);

/* Ends the recording: no record after this call is written; the trailer
 * goes out and ops->stopped follows on a later turn of the loop. reason:
 * NULL when the owner asked. Calling it again does nothing. */
void gpd_recorder_stop(struct gpd_recorder *r, const char *reason);

/* Frees the recorder (stopping it without further callbacks). */
void gpd_recorder_destroy(struct gpd_recorder *r);

/* What it records. */
const char *gpd_recorder_device(const struct gpd_recorder *r);
const char *gpd_recorder_metric_set(const struct gpd_recorder *r);
uint64_t gpd_recorder_period_ns(const struct gpd_recorder *r);
/* PERFETTO: the counters' window; 0 for I915_PERF. */
uint64_t gpd_recorder_window_ns(const struct gpd_recorder *r);
/* PERFETTO: the usage tracks' interval; 0 when the trace has none, and
 * then the note says why ("" when none was asked for). */
uint64_t gpd_recorder_usage_interval_ns(const struct gpd_recorder *r);
const char *gpd_recorder_usage_note(const struct gpd_recorder *r);

#endif
