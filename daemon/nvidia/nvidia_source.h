/*
 * The nvidia source: an NVIDIA GPU's counters through CUPTI PM sampling,
 * or its NVML telemetry, as NVPM32u64 records (metrics/nvidia/README.md).
 */
#ifndef GPD_NVIDIA_SOURCE_H
#define GPD_NVIDIA_SOURCE_H

#include <uv.h>

#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/sampler.h"
#include "daemon/process_activity.h"
#include "daemon/source.h"
#include "daemon/usage_source.h"
#include "metrics/metrics_db.h"

struct gpd_nvidia_source_options {
	unsigned index;                 /* CUDA device index */
	/* The libraries to use, which must outlive the source; NULL loads
	 * the real ones (tests pass fakes). */
	const struct gpd_nv_libs *libs;
	uint64_t retry_ms;              /* between reopen attempts; 0: 1 s */
};

/*
 * Creates the source of CUDA device opts->index. Adds the built-in GH100
 * metric definitions to db unless it has them. -ENOENT when the driver or
 * CUPTI is missing or the GPU has no metric definitions, -ENODEV when there
 * is no such device; err says what to do.
 */
int gpd_nvidia_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			     const struct gpd_nvidia_source_options *opts,
			     struct gpd_source **out, struct gpd_error *err);

/* How many CUDA devices there are; 0 without the driver or CUPTI, with
 * why saying which is missing. libs NULL loads the real libraries. */
unsigned gpd_nvidia_count_gpus(const struct gpd_nv_libs *libs, char *why,
			       size_t why_size);

/* The usage source of src's GPU, on src's libraries: destroy it before
 * src. -ENOMEM. */
int gpd_nvidia_source_usage(const struct gpd_source *src, const char *proc_root,
			    const struct gpd_process_activity *activity,
			    struct gpd_usage_source **out);

/* What the sampler thread did so far; false while the source is closed. */
bool gpd_nvidia_source_stats(const struct gpd_source *src,
			     struct gpd_nv_sampler_stats *stats);

#endif
