/*
 * Triggers of the daemon's own configuration (--trigger): a condition
 * over a device's windows that, each time it fires, saves a snapshot of
 * the device's flight recorder around that moment into the --trigger-dir
 * directory, and tells the device's subscribers (a TRIGGER_FIRED event).
 *
 * A watch is a passive subscription of the daemon's own, as a viewer: it
 * follows what the device streams, and the condition waits while the set
 * streamed lacks its counter. The directory holds at most
 * --trigger-dir-max bytes of the watches' files (trigger-*.i915perf):
 * the oldest go first to make room for a new snapshot, and a snapshot
 * larger than the whole cap is not written, which the event says.
 */
#ifndef GPD_TRIGGER_WATCH_H
#define GPD_TRIGGER_WATCH_H

#include <stdint.h>

#include "daemon/error.h"

struct gpd_device;
struct gpd_device_registry;
struct gpd_trigger_watch;

/* Where the watches write, shared by all of them; it outlives them. */
struct gpd_trigger_dir {
	const char *path;
	uint64_t max_bytes;
	uint64_t before_ns, after_ns;
};

/* Watches `text` on dev, one of devices, writing into dir. 0, or a
 * negative code with err saying what to fix (an expression that cannot
 * be read or whose units are not the counter's, with its column; a
 * counter the set streamed lacks). */
int gpd_trigger_watch_start(const struct gpd_device_registry *devices,
			    struct gpd_device *dev, const char *text,
			    const struct gpd_trigger_dir *dir,
			    struct gpd_trigger_watch **out,
			    struct gpd_error *err);

void gpd_trigger_watch_stop(struct gpd_trigger_watch *w);

#endif
