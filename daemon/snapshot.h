/*
 * Snapshots: what a device's flight recorder holds of a span of time, as
 * IGT i915-perf recordings (what i915-perf-reader and `gpuperf replay`
 * read), one per segment of the span: a recording describes one metric
 * set and period.
 *
 * A report's time is its CPU time (CLOCK_MONOTONIC, as frames give it),
 * placed by the ring's correlation points. Each recording holds the
 * segment's reports of the span with the loss records among them, a
 * correlation point before the first report and after the last, and the
 * ring's points in between. Where the ring had let go of part of a
 * segment that the span reaches into, the recording's first report follows
 * a BUFFER_LOST: nothing before it may be paired with it, and the reader
 * sees that something is missing.
 *
 * A snapshot is a copy, taken at once: the ring goes on recording.
 */
#ifndef GPD_SNAPSHOT_H
#define GPD_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/error.h"
#include "daemon/flight_recorder.h"

struct gpd_device;

struct gpd_snapshot_segment {
	char metric_set[128];           /* symbol */
	uint64_t period_ns;
	size_t offset, size;            /* its recording, in gpd_snapshot.data */
	uint64_t reports;
	uint64_t reports_lost, buffers_lost;    /* loss records in it */
	uint64_t cpu_start_ns, cpu_end_ns;      /* of its first and last report */
	bool truncated;                 /* begins after a BUFFER_LOST: the
					 * ring had let go of its past */
};

struct gpd_snapshot {
	unsigned char *data;            /* the recordings, one after another */
	size_t size;
	struct gpd_snapshot_segment *segments;  /* oldest first */
	size_t n_segments;
	/* The ring when the snapshot was taken. */
	struct gpd_flight_recorder_stats ring;
	uint64_t oldest_cpu_ns, newest_cpu_ns;  /* of the reports it holds */
};

/* The most memory a snapshot of dev's ring can take now. */
size_t gpd_snapshot_bound(const struct gpd_device *dev);

/*
 * The reports dev's ring holds whose CPU time lies in [from_cpu_ns,
 * to_cpu_ns] (to_cpu_ns 0: up to the newest). -ENODEV when dev keeps no
 * flight recorder; -ENODATA when the ring holds no report in the span
 * (err says what it holds); -ENOMEM.
 */
int gpd_snapshot_take(const struct gpd_device *dev, uint64_t from_cpu_ns,
		      uint64_t to_cpu_ns, struct gpd_snapshot *out,
		      struct gpd_error *err);

void gpd_snapshot_free(struct gpd_snapshot *s);

#endif
