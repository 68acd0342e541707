/*
 * Triggers of the daemon's own configuration (--trigger): a condition
 * over a device's windows that, each time it fires, saves a snapshot of
 * the device's flight recorder around that moment into the --trigger-dir
 * directory, and tells the device's subscribers (a TRIGGER_FIRED event).
 *
 * A watch is a passive subscription of the daemon's own, as a viewer: it
 * follows what the device streams, and the condition waits while the set
 * streamed lacks its counter. The snapshot of a firing is taken once
 * --trigger-after has passed and written off the loop (trigger_save.h),
 * within the directory's cap. A watch holds one firing at a time: one
 * that comes while the one before is still being saved is not saved,
 * which is said and counted (the device's gpd_trigger_counts).
 */
#ifndef GPD_TRIGGER_WATCH_H
#define GPD_TRIGGER_WATCH_H

#include <stdint.h>

#include "daemon/error.h"

struct gpd_device;
struct gpd_device_registry;
struct gpd_trigger_saver;
struct gpd_trigger_watch;

/* Where a watch writes, and the span it saves; the watch keeps a copy. */
struct gpd_trigger_dir {
	const char *path;
	uint64_t max_bytes;
	uint64_t before_ns, after_ns;
};

/* Whether `text` can watch dev: it reads, and where dev streams a set, the
 * set has its counter in a unit the expression may compare with. 0, or a
 * negative code with err saying what to fix (with the column where the
 * expression is wrong). Nothing changes. */
int gpd_trigger_watch_check(const struct gpd_device *dev, const char *text,
			    struct gpd_error *err);

/* Watches `text` on dev, one of devices, writing into dir through saver
 * (which outlives the watch). 0, or a negative code with err saying what
 * to fix, as gpd_trigger_watch_check, or a subscription's refusal. */
int gpd_trigger_watch_start(const struct gpd_device_registry *devices,
			    struct gpd_device *dev, const char *text,
			    const struct gpd_trigger_dir *dir,
			    struct gpd_trigger_saver *saver,
			    struct gpd_trigger_watch **out,
			    struct gpd_error *err);

/* Stops w now (the daemon stops): a firing waiting for its
 * --trigger-after is dropped; a snapshot being written is finished and
 * logged. The device may go once this returns. */
void gpd_trigger_watch_stop(struct gpd_trigger_watch *w);

/* Stops w watching (a reload replaced it); a firing of it in flight is
 * saved and announced as usual, and w freed after. Until then w is kept
 * in *retired, for gpd_trigger_watch_stop_retired. */
void gpd_trigger_watch_retire(struct gpd_trigger_watch *w,
			      struct gpd_trigger_watch **retired);

/* gpd_trigger_watch_stop for every watch still in *retired. */
void gpd_trigger_watch_stop_retired(struct gpd_trigger_watch **retired);

#endif
