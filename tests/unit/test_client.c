/*
 * libgpuperf's client against a real gpuperfd on the sim GPU: roles, the
 * daemon's errors as codes and messages, reconfiguring with the event it
 * sends every subscriber, recordings byte for byte, and handles ended
 * from inside their own callbacks.
 *
 * The daemon is $GPM_BUILD_DIR/gpuperfd (default build), started once for
 * the whole suite on a Unix socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/include/gpuperf.h"
#include "tests/unit/test_daemon_process.h"
#include "tests/unit/test_util.h"

static struct test_daemon daemon_proc;

static struct gpc_client *connect_as(enum gpc_role role)
{
	struct gpc_connect_options o = { .unix_path = daemon_proc.socket_path,
					 .role = role };
	struct gpc_client *c = NULL;
	struct gpc_error err;

	int ret = gpc_connect_sync(&o, &c, &err);
	ck_assert_msg(ret == 0, "connect: %s", err.message);
	return c;
}

static struct gpc_subscription *subscribe(struct gpc_client *c,
					  const char *set,
					  const struct gpc_subscription_cbs *cbs,
					  void *user)
{
	struct gpc_subscribe_options o = { .metric_set = set,
					   .window_ns = 50000000 };
	struct gpc_subscription *sub;
	struct gpc_error err;

	int ret = gpc_subscribe_sync(c, &o, cbs, user, &sub, &err);
	ck_assert_msg(ret == 0, "subscribe: %s", err.message);
	return sub;
}

START_TEST(test_roles)
{
	struct gpc_client *c = connect_as(GPC_ROLE_ANY);
	/* The Unix socket is trusted: a controller without a token. */
	ck_assert_int_eq(gpc_server_info(c)->role, GPC_ROLE_CONTROLLER);
	ck_assert_str_eq(gpc_server_info(c)->version, GPC_VERSION);
	ck_assert_uint_gt(gpc_server_info(c)->limits.max_subscriptions, 0);
	gpc_close_sync(c);

	c = connect_as(GPC_ROLE_VIEWER);
	ck_assert_int_eq(gpc_server_info(c)->role, GPC_ROLE_VIEWER);
	ck_assert(gpc_is_connected(c));
	gpc_close_sync(c);
}
END_TEST

START_TEST(test_refusals)
{
	struct gpc_client *c = connect_as(GPC_ROLE_VIEWER);
	struct gpc_subscribe_options o = { .metric_set = "NoSuchSet" };
	struct gpc_subscription *sub;
	struct gpc_error err;

	ck_assert_int_eq(gpc_subscribe_sync(c, &o, NULL, NULL, &sub, &err),
			 -ENOENT);
	ck_assert_ptr_null(sub);
	ck_assert_int_eq(err.server, GPC_SERVER_NOT_FOUND);
	ck_assert_msg(strstr(err.message, "NoSuchSet"), "%s", err.message);

	const char *counters[] = { "GpuTime", "NoSuchCounter" };
	o.metric_set = "RenderBasic";
	o.counters = counters;
	o.n_counters = 2;
	ck_assert_int_eq(gpc_subscribe_sync(c, &o, NULL, NULL, &sub, &err),
			 -ENOENT);
	ck_assert_msg(strstr(err.message, "NoSuchCounter"), "%s", err.message);

	o.n_counters = 0;
	o.window_ns = 1000;     /* below the daemon's minimum */
	ck_assert_int_eq(gpc_subscribe_sync(c, &o, NULL, NULL, &sub, &err),
			 -EINVAL);
	ck_assert_int_eq(err.server, GPC_SERVER_INVALID_ARGUMENT);
	ck_assert_str_eq(gpc_strerror(-EINVAL), strerror(EINVAL));
	ck_assert_str_eq(gpc_strerror(-ECONNREFUSED),
			 "cannot connect to the daemon");
	gpc_close_sync(c);
}
END_TEST

struct events {
	int config_changed;
	int frames;
};

static void count_event(struct gpc_subscription *sub,
			const struct gpc_event *e, void *user)
{
	struct events *ev = user;

	if (e->kind == GPC_EVENT_CONFIG_CHANGED)
		ev->config_changed++;
}

static void count_frame(struct gpc_subscription *sub,
			const struct gpc_frame *f, void *user)
{
	struct events *ev = user;

	ev->frames++;
	ck_assert_uint_eq(f->n_values, gpc_subscription_info(sub)->n_counters);
}

struct done {
	bool done;
	int code;
	enum gpc_server_error server;
};

static void mark_done(struct gpc_client *c, const struct gpc_error *err,
		      void *user)
{
	struct done *d = user;

	d->done = true;
	d->code = err ? err->code : 0;
	d->server = err ? err->server : GPC_SERVER_NONE;
}

START_TEST(test_reconfigure)
{
	struct gpc_client *controller = connect_as(GPC_ROLE_CONTROLLER);
	struct gpc_client *viewer = connect_as(GPC_ROLE_VIEWER);
	struct events seen = { 0 };
	struct gpc_subscription_cbs cbs = { .frame = count_frame,
					    .event = count_event };
	struct gpc_subscription *sub = subscribe(controller, "RenderBasic",
						 &cbs, &seen);
	struct gpc_subscription *watch = subscribe(viewer, "RenderBasic",
						   NULL, NULL);
	struct done d = { 0 };

	/* A viewer may not change the device. */
	ck_assert_int_eq(gpc_reconfigure(watch, "ComputeBasic", 0, mark_done,
					 &d), 0);
	while (!d.done)
		gpc_run(viewer, 10);
	ck_assert_int_eq(d.code, -EPERM);
	ck_assert_int_eq(d.server, GPC_SERVER_PERMISSION_DENIED);

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(gpc_reconfigure(sub, "ComputeBasic", 0, mark_done,
					 &d), 0);
	while (!d.done)
		gpc_run(controller, 10);
	ck_assert_int_eq(d.code, 0);
	ck_assert_str_eq(gpc_subscription_info(sub)->metric_set, "ComputeBasic");
	gpc_run(controller, 300);
	ck_assert_int_ge(seen.config_changed, 1);
	ck_assert_int_gt(seen.frames, 0);
	gpc_unsubscribe(sub);
	gpc_close_sync(viewer);
	gpc_close_sync(controller);
}
END_TEST

struct recorded {
	bool started, stopped;
	uint64_t next_offset, bytes;
	bool in_order;
	struct gpc_recording_summary summary;
	int error;
};

static void rec_started(struct gpc_recording *rec, const struct gpc_error *err,
			void *user)
{
	struct recorded *r = user;

	ck_assert_ptr_null(err);
	r->started = true;
	ck_assert_str_eq(gpc_recording_info(rec)->metric_set, "RenderBasic");
}

static void rec_data(struct gpc_recording *rec, uint64_t offset,
		     const void *data, size_t len, void *user)
{
	struct recorded *r = user;

	r->in_order &= offset == r->next_offset;
	r->next_offset = offset + len;
	r->bytes += len;
}

static void rec_stopped(struct gpc_recording *rec,
			const struct gpc_recording_summary *summary,
			const struct gpc_error *err, void *user)
{
	struct recorded *r = user;

	r->stopped = true;
	r->error = err ? err->code : 0;
	if (summary) {
		r->summary = *summary;
		r->summary.reason = NULL;
	}
}

START_TEST(test_recording)
{
	struct gpc_client *c = connect_as(GPC_ROLE_ANY);
	struct recorded r = { .in_order = true };
	struct gpc_recording_options o = { .metric_set = "RenderBasic" };
	struct gpc_recording_cbs cbs = {
		.started = rec_started,
		.data = rec_data,
		.stopped = rec_stopped,
	};
	struct gpc_recording *rec;

	ck_assert_int_eq(gpc_record(c, &o, &cbs, &r, &rec), 0);
	ck_assert_ptr_null(gpc_recording_info(rec));
	while (!r.started)
		gpc_run(c, 10);
	gpc_run(c, 300);
	ck_assert_int_eq(gpc_recording_stop(rec), 0);
	ck_assert_int_eq(gpc_recording_stop(rec), -EALREADY);
	while (!r.stopped)
		gpc_run(c, 10);
	ck_assert_int_eq(r.error, 0);
	ck_assert(r.in_order);
	ck_assert_uint_gt(r.bytes, 1000);
	ck_assert_uint_eq(r.summary.bytes, r.bytes);
	ck_assert_uint_gt(r.summary.reports, 100);
	gpc_close_sync(c);
}
END_TEST

/* Handles ended from inside their callbacks: the library touches
 * nothing of them afterwards (ASan and valgrind would say). */
static void unsubscribe_in_frame(struct gpc_subscription *sub,
				 const struct gpc_frame *f, void *user)
{
	int *frames = user;

	(*frames)++;
	gpc_unsubscribe(sub);
}

static void stop_in_frame(struct gpc_subscription *sub,
			  const struct gpc_frame *f, void *user)
{
	gpc_stop(gpc_subscription_client(sub));
}

START_TEST(test_end_in_callbacks)
{
	struct gpc_client *c = connect_as(GPC_ROLE_ANY);
	int frames = 0;
	struct gpc_subscription_cbs cbs = { .frame = unsubscribe_in_frame };

	subscribe(c, "RenderBasic", &cbs, &frames);
	gpc_run(c, 300);
	ck_assert_int_eq(frames, 1);

	struct gpc_subscription_cbs stop = { .frame = stop_in_frame };
	subscribe(c, "RenderBasic", &stop, NULL);
	/* Returns at the first frame, long before the limit. */
	ck_assert_int_eq(gpc_run(c, 10000), 0);
	gpc_close_sync(c);
}
END_TEST

static void closed(void *user)
{
	*(bool *)user = true;
}

struct on_loop {
	struct gpc_client *client;
	bool connected, closed;
	int frames;
};

static void close_in_frame(struct gpc_subscription *sub,
			   const struct gpc_frame *f, void *user)
{
	struct on_loop *l = user;

	l->frames++;
	ck_assert_int_eq(gpc_close(l->client, closed, &l->closed), 0);
}

static void loop_connected(struct gpc_client *c, const struct gpc_error *err,
			   void *user)
{
	struct on_loop *l = user;
	struct gpc_subscribe_options o = { .window_ns = 20000000 };
	struct gpc_subscription_cbs cbs = { .frame = close_in_frame };
	struct gpc_subscription *sub;

	ck_assert_ptr_null(err);
	l->connected = true;
	ck_assert_int_eq(gpc_subscribe(c, &o, &cbs, l, &sub), 0);
}

START_TEST(test_caller_loop)
{
	uv_loop_t loop;
	struct on_loop l = { 0 };

	ck_assert_int_eq(uv_loop_init(&loop), 0);
	struct gpc_connect_options o = { .unix_path = daemon_proc.socket_path,
					 .loop = &loop };
	ck_assert_int_eq(gpc_connect(&o, loop_connected, &l, &l.client), 0);
	ck_assert_ptr_eq(gpc_loop(l.client), &loop);
	ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ck_assert(l.connected);
	ck_assert(l.closed);
	ck_assert_int_eq(l.frames, 1);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static Suite *client_suite(void)
{
	Suite *s = suite_create("client");
	TCase *t = tcase_create("client");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_roles);
	tcase_add_test(t, test_refusals);
	tcase_add_test(t, test_reconfigure);
	tcase_add_test(t, test_recording);
	tcase_add_test(t, test_end_in_callbacks);
	tcase_add_test(t, test_caller_loop);
	suite_add_tcase(s, t);
	return s;
}

/* gpuperfd on a Unix socket of its own, until the suite is done. */
GPM_TEST_DAEMON_MAIN(client_suite, daemon_proc, "-d", "sim")
