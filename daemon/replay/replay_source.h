/*
 * The replay source: an IGT i915-perf recording played back as a live
 * stream, paced by its timestamps or as fast as possible.
 */
#ifndef GPD_REPLAY_SOURCE_H
#define GPD_REPLAY_SOURCE_H

#include <stdbool.h>

#include <uv.h>

#include "daemon/source.h"
#include "metrics/metrics_db.h"

struct gpd_replay_source_options {
	const char *path;
	bool loop;
	double speed;                   /* 0: as fast as possible */
	unsigned index;                 /* names it replay<index> */
};

int gpd_replay_source_create(uv_loop_t *loop, const struct gpm_metrics_db *db,
			     const struct gpd_replay_source_options *opts,
			     struct gpd_source **out, struct gpd_error *err);

#endif
