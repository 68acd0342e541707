/*
 * Finding the Intel GPUs of the machine with libdrm, and making a source
 * for each: i915 or xe, whichever driver runs the card.
 */
#ifndef GPD_DISCOVERY_H
#define GPD_DISCOVERY_H

#include <stddef.h>

#include <uv.h>

#include "daemon/drm/card.h"
#include "daemon/source.h"
#include "daemon/usage_source.h"

/* A card's OA source, and its usage source (NULL when it has none). */
struct gpd_drm_card_sources {
	struct gpd_source *source;
	struct gpd_usage_source *usage;
};

/*
 * The sources of the card at node, of kind GPD_SOURCE_I915 or
 * GPD_SOURCE_XE. 0, or a negative code with err filled. A card whose
 * usage cannot be read gets a warning and no usage source.
 */
int gpd_drm_source_create(uv_loop_t *loop, enum gpd_source_kind kind,
			  const char *node, const struct gpd_drm_roots *roots,
			  struct gpd_drm_card_sources *out, struct gpd_error *err);

/*
 * The sources of every Intel GPU that i915 or xe drives: *cards is a
 * malloc'ed array of *n (0 when there are none). A card that cannot be
 * used is skipped with a warning saying why. 0, or -ENOMEM.
 */
int gpd_drm_discover(uv_loop_t *loop, const struct gpd_drm_roots *roots,
		     struct gpd_drm_card_sources **cards, size_t *n);

#endif
