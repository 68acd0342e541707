/*
 * A device's usage stream: its usage source read for any number of
 * subscribers, each at an interval of its own (1 s unless it asks for
 * another), independent of the OA stream and of who owns the OA unit.
 *
 * Subscribers' frames fall on a grid of their interval on the monotonic
 * clock, so subscribers of one interval share each reading: two clients
 * at 1 s cost one look through /proc a second, not two. Each subscriber
 * keeps its previous reading and gets the difference (gpd_usage_diff).
 * The monitor also sums every interval it reads once into totals (engine
 * busy seconds, energy, each process's engine time), which /metrics
 * exposes as counters and frames carry per process.
 *
 * The source is opened by the first reading and closed when the last
 * subscriber leaves.
 */
#ifndef GPD_USAGE_MONITOR_H
#define GPD_USAGE_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/error.h"
#include "daemon/usage.h"
#include "daemon/usage_source.h"

#define GPD_USAGE_DEFAULT_INTERVAL_NS 1000000000ull
/* Each reading may look through every process's files: not faster. */
#define GPD_USAGE_MIN_INTERVAL_NS 100000000ull
#define GPD_USAGE_MAX_INTERVAL_NS 3600000000000ull

struct gpd_usage_monitor;
struct gpd_usage_subscription;

struct gpd_usage_subscriber_ops {
	/* One interval; f is valid during the call. The subscriber may
	 * unsubscribe from here. */
	void (*frame)(void *user, const struct gpd_usage_frame *f);
};

/* Takes ownership of source. */
int gpd_usage_monitor_create(uv_loop_t *loop, struct gpd_usage_source *source,
			     struct gpd_usage_monitor **out);

/* Ends every subscription (without a last frame), destroys the source
 * and frees the monitor once the loop has closed its handles. */
void gpd_usage_monitor_close(struct gpd_usage_monitor *m);

const struct gpd_usage_layout *
gpd_usage_monitor_layout(const struct gpd_usage_monitor *m);

/* Every interval read so far, summed (see usage.h). */
const struct gpd_usage_totals *
gpd_usage_monitor_totals(const struct gpd_usage_monitor *m);

/* 0 for an interval gpd_usage_subscribe takes (0: the default), else
 * -EINVAL with err saying which it takes. */
int gpd_usage_check_interval(uint64_t interval_ns, struct gpd_error *err);

/* Frames every interval_ns (0: the default), with per-process rows when
 * processes is set. The first frame may cover less than an interval, up
 * to the grid. -EINVAL (err says why) for an interval out of range. */
int gpd_usage_subscribe(struct gpd_usage_monitor *m, uint64_t interval_ns,
			bool processes, const struct gpd_usage_subscriber_ops *ops,
			void *user, struct gpd_usage_subscription **out,
			struct gpd_error *err);

/* A frame now, from the last one (off the grid): the last of a
 * subscriber that ends before its next, so that its frames cover all the
 * time it was subscribed. None when no time passed since the last. */
void gpd_usage_flush(struct gpd_usage_subscription *s);

/* No frame follows. */
void gpd_usage_unsubscribe(struct gpd_usage_subscription *s);

uint64_t gpd_usage_subscription_interval(const struct gpd_usage_subscription *s);

#endif
