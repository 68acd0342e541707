/*
 * Looking a device up by name.
 */
#include <string.h>

#include "daemon/device.h"
#include "daemon/device_registry.h"

struct gpd_device *gpd_device_registry_find(const struct gpd_device_registry *r,
					    const char *name)
{
	if (!r->n_devices)
		return NULL;
	if (!name || !*name)
		return r->devices[0];
	for (size_t i = 0; i < r->n_devices; i++)
		if (!strcmp(r->devices[i]->source->name, name))
			return r->devices[i];
	return NULL;
}
