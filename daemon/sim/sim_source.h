/*
 * The sim source: the simulated OA unit driven by the daemon's clock.
 */
#ifndef GPD_SIM_SOURCE_H
#define GPD_SIM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/source.h"
#include "metrics/metrics_db.h"

/* The simulated unit's first timestamp: hardware timestamps do not start
 * at 0, and starting mid-range makes the 32-bit wrap come within minutes,
 * not hours. It is read at the CPU time the stream opened. */
#define GPD_SIM_FIRST_TIMESTAMP 0x80000000u

struct gpd_sim_source_options {
	/* NULL: the virtual GPU; "amd": the simulated AMD GPU, whose SPM
	 * unit its own source runs (spm_source.h). */
	const char *platform;
	uint64_t seed;
	size_t buffer_size;             /* 0: 16 MiB, like i915 */
	unsigned index;                 /* names it sim<index> */
	double load;                    /* the workload's load factor; 0: 1 */
	/* The unit runs only when gpd_sim_source_advance says, not with
	 * the clock: the time line of a fuzz target's sequences. */
	bool stepped;
	/* The mean time between the workload's context switches; 0: the
	 * workload's default. */
	uint64_t timeslice_ns;
};

/* -ENOENT when the platform is unknown or has no metric file loaded, with
 * err saying which --metrics-dir to add. "amd" adds its definitions to db
 * (gpd_spm_source_create). */
int gpd_sim_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			  const struct gpd_sim_source_options *opts,
			  struct gpd_source **out, struct gpd_error *err);

/* Runs the simulated unit of an open stream ns further and delivers what
 * it wrote, at once, as a poll timer firing ns late would. */
void gpd_sim_source_advance(struct gpd_source *src, uint64_t ns);

#endif
