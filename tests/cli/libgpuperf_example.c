/*
 * A program of libgpuperf's users, built by test-client-lib.sh against the
 * installed header and shared library: it runs the client on its own
 * libuv loop with the asynchronous calls only, as an application with a
 * loop of its own would.
 *
 *   libgpuperf_example SOCKET SET FRAMES
 *
 * Connects to gpuperfd's Unix socket, subscribes to SET's first two
 * counters in windows of 50 ms, prints FRAMES frames as "frame N: VALUE
 * VALUE", then closes and lets the loop run dry. Exits 0 when all went so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuperf.h>

struct app {
	uv_loop_t loop;
	struct gpc_client *client;
	const char *set;
	int frames_wanted;
	int frames;
	int status;
	bool closed;
};

static void closed(void *user)
{
	struct app *app = user;

	app->closed = true;
}

static void finish(struct app *app, int status)
{
	app->status = status;
	gpc_close(app->client, closed, app);
}

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct app *app = user;

	if (app->frames >= app->frames_wanted)
		return;
	printf("frame %d: %g %g\n", ++app->frames, f->values[0], f->values[1]);
	if (app->frames == app->frames_wanted)
		finish(app, 0);
}

static void on_subscribed(struct gpc_subscription *sub,
			  const struct gpc_error *err, void *user)
{
	struct app *app = user;

	if (err) {
		fprintf(stderr, "subscribe: %s\n", err->message);
		finish(app, 1);
		return;
	}
	const struct gpc_subscription_info *info = gpc_subscription_info(sub);
	printf("subscribed to %s of %s: %s, %s\n", info->metric_set,
	       info->device, info->counters[0], info->counters[1]);
}

static void on_connected(struct gpc_client *c, const struct gpc_error *err,
			 void *user)
{
	struct app *app = user;
	struct gpc_subscription *sub;

	if (err) {
		fprintf(stderr, "connect: %s (%s)\n", err->message,
			gpc_strerror(err->code));
		finish(app, 1);
		return;
	}
	const struct gpc_device *device = gpc_find_device(c, NULL);
	const struct gpc_metric_set *set = gpc_find_metric_set(device, app->set);
	if (!set || set->n_counters < 2) {
		fprintf(stderr, "%s has no set %s\n", device->name, app->set);
		finish(app, 1);
		return;
	}
	const char *counters[] = { set->counters[0].symbol,
				   set->counters[1].symbol };
	struct gpc_subscribe_options o = {
		.metric_set = set->symbol,
		.window_ns = 50000000,
		.counters = counters,
		.n_counters = 2,
	};
	struct gpc_subscription_cbs cbs = {
		.subscribed = on_subscribed,
		.frame = on_frame,
	};
	if (gpc_subscribe(c, &o, &cbs, app, &sub) < 0)
		finish(app, 1);
}

int main(int argc, char **argv)
{
	struct app app = { .status = 1 };

	if (argc != 4)
		return 2;
	app.set = argv[2];
	app.frames_wanted = atoi(argv[3]);
	gpc_set_transport_log(NULL);
	uv_loop_init(&app.loop);
	struct gpc_connect_options o = {
		.unix_path = argv[1],
		.loop = &app.loop,
	};
	if (gpc_connect(&o, on_connected, &app, &app.client) < 0)
		return 1;
	uv_run(&app.loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&app.loop) || !app.closed) {
		fprintf(stderr, "the loop did not run dry\n");
		return 1;
	}
	return app.status;
}
