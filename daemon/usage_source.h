/*
 * The usage source interface: where a device's usage readings come from
 * (usage.h says what a reading holds).
 *
 * Every source (the simulated GPU, i915 and xe through their PMUs, hwmon
 * and DRM fdinfo, NVIDIA through NVML) is read on demand: a reading is a
 * snapshot of cumulative counters, so nothing happens between two reads
 * that a source would have to hand up on its own, and one source serves
 * any number of subscribers at any intervals. The usage monitor above
 * (usage_monitor.h) decides when to read. What a source cannot read (no
 * PMU on an old kernel, no right to other users' files) is no failure:
 * the reading lacks that part and its note says why and what to do.
 */
#ifndef GPD_USAGE_SOURCE_H
#define GPD_USAGE_SOURCE_H

#include <stdbool.h>

#include "daemon/error.h"
#include "daemon/usage.h"

struct gpd_usage_source;

struct gpd_usage_source_ops {
	/* Fills r (cleared by the caller) with the counters now, and with
	 * the processes using the device when processes is set. Opens what
	 * it needs on first use. 0, or -ENOMEM with err filled. */
	int (*read)(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		    bool processes, struct gpd_error *err);
	/* Nobody reads for now: what read opened may be closed; the next
	 * read opens it again, as a new generation of counters. */
	void (*close)(struct gpd_usage_source *src);
	void (*destroy)(struct gpd_usage_source *src);
};

struct gpd_usage_source {
	const struct gpd_usage_source_ops *ops;
	struct gpd_usage_layout layout;
};

#endif
