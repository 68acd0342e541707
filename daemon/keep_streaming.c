/*
 * A device kept streaming by a passive subscription of the daemon's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "daemon/device.h"
#include "daemon/keep_streaming.h"
#include "daemon/log.h"
#include "daemon/subscription.h"

struct gpd_keeper {
	struct gpd_device *dev;
	struct gpd_subscription *sub;
	char metric_set[128];
	uint64_t period_ns;
	/* Putting the configuration back waits for the loop: the news that
	 * clients left comes from inside the device's callbacks. */
	uv_timer_t restore;
};

static void on_frame(void *user, const struct gpd_frame *frame)
{
}

static void restore(uv_timer_t *timer)
{
	struct gpd_keeper *k = timer->data;
	struct gpd_error err = { 0 };
	const struct gpm_metric_set *set = gpd_device_find_set(k->dev, k->metric_set);
	unsigned exponent = gpd_exponent_for_period(&k->dev->source->info,
						    k->period_ns);
	if (k->dev->open && k->dev->set == set && k->dev->exponent == exponent)
		return;
	if (gpd_reconfigure(k->sub, k->metric_set, k->period_ns, &err))
		gpd_warn("%s: cannot go back to streaming %s: %s",
			 k->dev->source->name, k->metric_set, err.message);
	else
		gpd_info("%s: every client left; streaming %s again",
			 k->dev->source->name, k->metric_set);
}

static void on_others_left(void *user)
{
	struct gpd_keeper *k = user;
	uv_timer_start(&k->restore, restore, 0, 0);
}

static const struct gpd_subscriber_ops keeper_ops = {
	.frame = on_frame,
	.others_left = on_others_left,
};

int gpd_keeper_start(const struct gpd_device_registry *devices,
		     struct gpd_device *dev, const char *metric_set,
		     uint64_t period_ns, struct gpd_keeper **out,
		     struct gpd_error *err)
{
	struct gpd_keeper *k = calloc(1, sizeof(*k));
	if (!k)
		return gpd_fail(err, -ENOMEM, "out of memory");
	k->dev = dev;
	snprintf(k->metric_set, sizeof(k->metric_set), "%s", metric_set);
	k->period_ns = period_ns;
	struct gpd_subscribe_request req = {
		.device = dev->source->name,
		.metric_set = metric_set,
		.sampling_period_ns = period_ns,
		.role = GPD_ROLE_CONTROLLER,
		.passive = true,
	};
	int ret = gpd_subscribe(devices, &req, &keeper_ops, k, &k->sub, err);
	if (ret) {
		free(k);
		return ret;
	}
	/* What the device granted is what to go back to. */
	k->period_ns = gpd_exponent_to_ns(&dev->source->info, dev->exponent);
	uv_timer_init(dev->loop, &k->restore);
	k->restore.data = k;
	*out = k;
	return 0;
}

static void on_closed(uv_handle_t *handle)
{
	free(handle->data);
}

void gpd_keeper_stop(struct gpd_keeper *k)
{
	if (!k)
		return;
	gpd_unsubscribe(k->sub);
	uv_timer_stop(&k->restore);
	uv_close((uv_handle_t *)&k->restore, on_closed);
}
