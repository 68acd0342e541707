/*
 * The xe source: an OA stream of a card driven by xe, through
 * DRM_IOCTL_XE_OBSERVATION (docs/oa-reference.md §5).
 */
#ifndef GPD_XE_SOURCE_H
#define GPD_XE_SOURCE_H

#include <uv.h>

#include "daemon/drm/card.h"
#include "daemon/source.h"

/* node: the card's device node, opened now and kept open; roots: where
 * sysfs is. 0, or a negative code with err filled. */
int gpd_xe_source_create(uv_loop_t *loop, const char *node,
			 const struct gpd_drm_roots *roots,
			 struct gpd_source **out, struct gpd_error *err);

#endif
