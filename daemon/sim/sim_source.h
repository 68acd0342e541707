/*
 * The sim source: the simulated OA unit driven by the daemon's clock.
 */
#ifndef GPD_SIM_SOURCE_H
#define GPD_SIM_SOURCE_H

#include <stdint.h>

#include <uv.h>

#include "daemon/source.h"
#include "metrics/metrics_db.h"

struct gpd_sim_source_options {
	const char *platform;           /* NULL: the virtual GPU */
	uint64_t seed;
	size_t buffer_size;             /* 0: 16 MiB, like i915 */
	unsigned index;                 /* names it sim<index> */
};

/* -ENOENT when the platform is unknown or has no metric file loaded, with
 * err saying which --metrics-dir to add. */
int gpd_sim_source_create(uv_loop_t *loop, const struct gpm_metrics_db *db,
			  const struct gpd_sim_source_options *opts,
			  struct gpd_source **out, struct gpd_error *err);

#endif
