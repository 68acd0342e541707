/*
 * The devices a daemon serves, as the layers above a device see them: the
 * list, and a lookup by name. The daemon context fills it; it hands it to
 * the subscription layer, the recorder and the server, which need nothing
 * else of the daemon.
 */
#ifndef GPD_DEVICE_REGISTRY_H
#define GPD_DEVICE_REGISTRY_H

#include <stddef.h>

struct gpd_device;
struct gpd_process_activity;

struct gpd_device_registry {
	struct gpd_device **devices;
	size_t n_devices;
	/* The kernel time processes report of themselves: the server adds
	 * to it, the NVIDIA usage sources read it. */
	struct gpd_process_activity *activity;
};

/* By name; a NULL or empty name gives the first device. NULL when there is
 * no such device. */
struct gpd_device *gpd_device_registry_find(const struct gpd_device_registry *r,
					    const char *name);

#endif
