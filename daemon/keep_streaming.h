/*
 * Keeping a device streaming one configuration with nobody subscribed
 * (--keep-streaming), so that its flight recorder has a past to keep.
 *
 * The keeper is a passive subscription of the daemon's own: a controller
 * may change the configuration while it is connected, and the keeper
 * follows; once every client has left, it puts its configuration back.
 */
#ifndef GPD_KEEP_STREAMING_H
#define GPD_KEEP_STREAMING_H

#include <stdint.h>

#include "daemon/error.h"

struct gpd_device;
struct gpd_device_registry;
struct gpd_keeper;

/* Streams metric_set (a symbol) every period_ns (0: the device's
 * default) on dev, one of devices, from now on. */
int gpd_keeper_start(const struct gpd_device_registry *devices,
		     struct gpd_device *dev, const char *metric_set,
		     uint64_t period_ns, struct gpd_keeper **out,
		     struct gpd_error *err);

/* Lets the device go; its stream closes if nobody else subscribes. */
void gpd_keeper_stop(struct gpd_keeper *k);

#endif
