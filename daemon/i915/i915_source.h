/*
 * The i915 source: an OA stream of a card driven by i915, through the
 * i915 perf interface (docs/oa-reference.md §1).
 */
#ifndef GPD_I915_SOURCE_H
#define GPD_I915_SOURCE_H

#include <uv.h>

#include "daemon/drm/card.h"
#include "daemon/source.h"

/* node: the card's device node ("/dev/dri/card0"), opened now and kept
 * open; roots: where sysfs is. 0, or a negative code with err filled. */
int gpd_i915_source_create(uv_loop_t *loop, const char *node,
			   const struct gpd_drm_roots *roots,
			   struct gpd_source **out, struct gpd_error *err);

#endif
