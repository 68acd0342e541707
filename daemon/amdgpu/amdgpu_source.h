/*
 * An AMD GPU as a device: amdgpu gives a daemon no stream of the GPU's
 * counters (its streaming performance monitor is programmed only by the
 * user-mode driver, through command buffers, for RGP captures), so the
 * device has no metric sets and refuses every stream in words. What it
 * has is the usage view: engines, clocks, power and processes
 * (amdgpu_usage.h).
 *
 * The card is found in sysfs, by the driver its device is bound to:
 * <sysfs>/class/drm/cardN/device/driver -> .../amdgpu.
 */
#ifndef GPD_AMDGPU_AMDGPU_SOURCE_H
#define GPD_AMDGPU_AMDGPU_SOURCE_H

#include <stddef.h>

#include <uv.h>

#include "daemon/drm/card.h"
#include "daemon/error.h"
#include "daemon/source.h"
#include "daemon/usage_source.h"
#include "metrics/metrics_db.h"

/* The platform of every AMD GPU (metrics/platform.c). */
#define GPD_AMDGPU_PLATFORM "amdgpu"

/*
 * The device of card ("card1") under roots->sysfs, and its usage
 * source. Its (empty) metric definitions are added to db when it has
 * none. 0; -ENODEV with err when the card is not there or not amdgpu's;
 * -ENOMEM.
 */
int gpd_amdgpu_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			     const char *card, const struct gpd_drm_roots *roots,
			     struct gpd_source **source,
			     struct gpd_usage_source **usage,
			     struct gpd_error *err);

/* The cards amdgpu drives, "card0"-style names in ascending order, into
 * names (a malloc'ed array of *n malloc'ed strings; free with
 * gpd_amdgpu_cards_free). 0, or -ENOMEM. */
int gpd_amdgpu_cards(const char *sysfs_root, char ***names, size_t *n);
void gpd_amdgpu_cards_free(char **names, size_t n);

#endif
