/*
 * The DRM clients of a card and the processes holding them, from DRM
 * fdinfo: what every DRM driver's usage source (i915, xe, amdgpu) reads
 * the same way. One client however many fds share it, counted under the
 * lowest pid that holds it; each client's counts held at the largest
 * seen, as Documentation/gpu/drm-usage-stats.rst asks of a reader.
 */
#ifndef GPD_DRM_DRM_CLIENTS_H
#define GPD_DRM_DRM_CLIENTS_H

#include <stddef.h>

#include "daemon/usage.h"

struct gpd_drm_client_max;

/* What a source keeps between readings: the clients' largest counts. */
struct gpd_drm_clients {
	struct gpd_drm_client_max *maxes;
	size_t n_maxes;
};

/* The class of an fdinfo engine key ("render", "gfx"); NULL: none. */
typedef const char *(*gpd_drm_fdinfo_class_fn)(const char *key);

/*
 * Fills r's clients and processes from the DRM files of driver on the
 * device at pdev found under proc_root, each engine key counted in the
 * layout's class fdinfo_class names; what could not be looked at is
 * said in r's processes_note. 0, or -ENOMEM.
 */
int gpd_drm_clients_read(struct gpd_drm_clients *clients,
			 const char *proc_root, const char *driver,
			 const char *pdev, const struct gpd_usage_layout *layout,
			 gpd_drm_fdinfo_class_fn fdinfo_class,
			 struct gpd_usage_reading *r);

void gpd_drm_clients_fini(struct gpd_drm_clients *clients);

#endif
