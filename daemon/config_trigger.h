/*
 * The options of the daemon's own triggers: --trigger, --trigger-dir,
 * --trigger-dir-max, --trigger-before and --trigger-after. Expressions
 * are read when the configuration is; the devices they name, their
 * flight recorders, counters and the directory once the devices exist,
 * all of them before any watch starts.
 *
 *   --trigger [DEVICE=]EXPR
 *       a condition (metrics/trigger.h) over DEVICE's windows; without
 *       DEVICE=, over every device that keeps a flight recorder.
 *   --trigger-dir DIR           where their snapshots go
 *   --trigger-dir-max SIZE      the most their files take there (1Gi)
 *   --trigger-before D, --trigger-after D   the span saved (5s, 2s)
 */
#ifndef GPD_CONFIG_TRIGGER_H
#define GPD_CONFIG_TRIGGER_H

#include <stdint.h>

#include "daemon/error.h"

struct gpd_daemon;
struct gpd_options;

#define GPD_DEFAULT_TRIGGER_DIR_MAX (1ull << 30)
#define GPD_DEFAULT_TRIGGER_BEFORE_NS 5000000000ull
#define GPD_DEFAULT_TRIGGER_AFTER_NS 2000000000ull

struct gpd_trigger_spec {
	char device[64];                /* "" for every device */
	const char *expression;         /* into the text parsed */
};

/* One --trigger; -EINVAL with err pointing at the column. */
int gpd_trigger_spec_parse(const char *text, struct gpd_trigger_spec *out,
			   struct gpd_error *err);

/* Checks the triggers of d's options against the devices and the
 * directory, then starts watching. 0, or a negative code with err saying
 * what to fix; no watch runs then. */
int gpd_daemon_start_triggers(struct gpd_daemon *d, struct gpd_error *err);

/*
 * A reload's triggers (those of o, its strings copied), check then act:
 * the whole set is checked first and, only once every trigger can watch,
 * replaces the running one; a firing of a replaced trigger in flight is
 * still saved. An unchanged set is left as it runs. 0, or a negative
 * code with err saying what to fix (`FILE:LINE: ` before a trigger of the
 * configuration file); the running triggers are kept then.
 */
int gpd_daemon_reload_triggers(struct gpd_daemon *d,
			       const struct gpd_options *o,
			       struct gpd_error *err);

/* Stops every trigger, and every firing in flight that has not begun
 * writing (the daemon stops). */
void gpd_daemon_stop_triggers(struct gpd_daemon *d);

#endif
