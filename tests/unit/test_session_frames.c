/*
 * What a client is told of the frames it lost by reading too slowly: each
 * kind of frame (counters' Frames, UsageFrames) counts its own drops, so
 * a stream's view never shows another stream's losses as its own. And
 * its Hello, with the configuration of the moment.
 * A session of an in-process server on a sim daemon, read by the test
 * when it chooses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "daemon/subscription.h"
#include "tests/unit/test_util.h"

#define K(x) GPUPERF__ENVELOPE__KIND_##x

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	struct gpd_server server;
	uv_timer_t tick;
	struct gpd_session *session;
	uint64_t next_request_id;
};

static void wake(void *user)
{
}

static void on_tick(uv_timer_t *t)
{
	uv_stop(t->loop);
}

static void fixture_start(struct fixture *fx)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1, .seed = 5,
	};
	struct gpd_error err = { 0 };
	memset(fx, 0, sizeof(*fx));
	gpd_log_set_level(GPD_LOG_ERROR);
	ck_assert_int_eq(uv_loop_init(&fx->loop), 0);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	/* One frame queued at most: the next one is dropped. */
	struct gpd_server_options o = { .queue_frames = 1 };
	ck_assert_msg(gpd_server_init(&fx->server, &fx->loop,
				      &fx->daemon.registry, &o, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx->loop, &fx->tick);
	struct gpd_session_transport t = { .wake = wake };
	struct gpd_session_peer peer = { .trusted = true, .address = "127.0.0.1" };
	ck_assert_int_eq(gpd_session_create(&fx->server, &t, &peer, NULL,
					    &fx->session), 0);
}

static void fixture_stop(struct fixture *fx)
{
	gpd_session_destroy(fx->session);
	uv_close((uv_handle_t *)&fx->tick, NULL);
	gpd_server_stop(&fx->server);
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_server_fini(&fx->server);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

/* Runs the loop for about ms. */
static void run_for(struct fixture *fx, unsigned ms)
{
	uv_timer_start(&fx->tick, on_tick, ms, 0);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
}

static void send_request(struct fixture *fx, Gpuperf__Envelope *env)
{
	env->request_id = ++fx->next_request_id;
	size_t len = gpuperf__envelope__get_packed_size(env);
	uint8_t *buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	gpuperf__envelope__pack(env, buf);
	gpd_session_receive(fx->session, buf, len);
	free(buf);
}

/* The next message the session queued, or NULL. */
static Gpuperf__Envelope *next_message(struct fixture *fx)
{
	struct gpd_message *m = gpd_session_pop(fx->session);
	if (!m)
		return NULL;
	Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, m->len, m->data);
	free(m);
	ck_assert_ptr_nonnull(env);
	return env;
}

/* Reads until a message of kind (running the loop for up to 10 s);
 * what comes before it is dropped. */
static Gpuperf__Envelope *read_until(struct fixture *fx,
				     Gpuperf__Envelope__KindCase kind)
{
	for (int i = 0; i < 500; i++) {
		Gpuperf__Envelope *env;
		while ((env = next_message(fx))) {
			if (env->kind_case == kind)
				return env;
			gpuperf__envelope__free_unpacked(env, NULL);
		}
		run_for(fx, 20);
	}
	ck_abort_msg("no message of kind %d within 10 s", kind);
	return NULL;
}

static uint32_t subscribe_usage(struct fixture *fx)
{
	Gpuperf__SubscribeUsage r = GPUPERF__SUBSCRIBE_USAGE__INIT;
	r.interval_ns = 100000000;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(SUBSCRIBE_USAGE);
	env.subscribe_usage = &r;
	send_request(fx, &env);
	Gpuperf__Envelope *reply = read_until(fx, K(USAGE_SUBSCRIBED));
	uint32_t id = reply->usage_subscribed->subscription_id;
	gpuperf__envelope__free_unpacked(reply, NULL);
	return id;
}

START_TEST(each_kind_of_frame_counts_its_own_drops)
{
	struct fixture fx;
	fixture_start(&fx);
	gpuperf__envelope__free_unpacked(read_until(&fx, K(HELLO)), NULL);
	uint32_t usage = subscribe_usage(&fx);

	/* The client stops reading: usage frames past the one queued are
	 * dropped. Then it ends that stream, unread, and reads on. */
	unsigned long long usage_dropped = 0;
	for (int i = 0; i < 500 && usage_dropped < 3; i++) {
		run_for(&fx, 20);
		usage_dropped = fx.session->usage_frames_dropped.total;
	}
	ck_assert_uint_ge(usage_dropped, 3);
	Gpuperf__Unsubscribe u = GPUPERF__UNSUBSCRIBE__INIT;
	u.subscription_id = usage;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(UNSUBSCRIBE);
	env.unsubscribe = &u;
	send_request(&fx, &env);
	gpuperf__envelope__free_unpacked(read_until(&fx, K(UNSUBSCRIBED)), NULL);

	/* A counters' stream lost nothing: its frames say so. */
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = "RenderBasic";
	s.window_ns = 10000000;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	send_request(&fx, &env);
	Gpuperf__Envelope *frame = read_until(&fx, K(FRAME));
	ck_assert_uint_eq(frame->frame->frames_dropped, 0);
	ck_assert_uint_eq(frame->frame->frames_dropped_total, 0);
	gpuperf__envelope__free_unpacked(frame, NULL);

	/* The usage stream's next frame tells of its own (and of any its
	 * new subscription lost since, beside the counters' frames). */
	subscribe_usage(&fx);
	Gpuperf__Envelope *uf = read_until(&fx, K(USAGE_FRAME));
	ck_assert_uint_ge(uf->usage_frame->frames_dropped_total, usage_dropped);
	ck_assert_uint_eq(uf->usage_frame->frames_dropped_total,
			  fx.server.usage_frames_dropped);
	gpuperf__envelope__free_unpacked(uf, NULL);
	fixture_stop(&fx);
}
END_TEST

/* A Hello is assembled from descriptions packed once and each device's
 * configuration now: it reads as protobuf's own packing would, with the
 * configuration of the moment. */
START_TEST(the_hello_says_each_devices_configuration_now)
{
	struct fixture fx;
	fixture_start(&fx);
	gpuperf__envelope__free_unpacked(read_until(&fx, K(HELLO)), NULL);
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = "ComputeBasic";
	s.window_ns = 10000000;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	send_request(&fx, &env);
	gpuperf__envelope__free_unpacked(read_until(&fx, K(SUBSCRIBED)), NULL);

	struct gpd_session_transport t = { .wake = wake };
	struct gpd_session_peer peer = { .trusted = true, .address = "127.0.0.1" };
	struct gpd_session *other;
	ck_assert_int_eq(gpd_session_create(&fx.server, &t, &peer, NULL, &other), 0);
	struct gpd_message *m = gpd_session_pop(other);
	ck_assert_ptr_nonnull(m);
	Gpuperf__Envelope *hello = gpuperf__envelope__unpack(NULL, m->len, m->data);
	ck_assert_ptr_nonnull(hello);
	ck_assert_int_eq(hello->kind_case, K(HELLO));
	/* Nothing more and nothing less than protobuf would pack. */
	ck_assert_uint_eq(gpuperf__envelope__get_packed_size(hello), m->len);
	const Gpuperf__Hello *h = hello->hello;
	ck_assert_int_eq(h->role, GPUPERF__ROLE__ROLE_CONTROLLER);
	ck_assert_uint_eq(h->limits->max_evaluations_per_second, 1000000);
	ck_assert_str_eq(h->context_policy, GPD_CONTEXT_POLICY);
	ck_assert_uint_eq(h->n_devices, 1);
	const Gpuperf__Device *d = h->devices[0];
	ck_assert_str_eq(d->name, "sim0");
	ck_assert_uint_eq(d->n_metric_sets,
			  fx.daemon.registry.devices[0]->metrics->n_sets);
	ck_assert_ptr_nonnull(d->configuration);
	ck_assert(d->configuration->streaming);
	ck_assert_str_eq(d->configuration->metric_set, "ComputeBasic");
	ck_assert_uint_eq(d->configuration->subscribers, 1);
	gpuperf__envelope__free_unpacked(hello, NULL);
	free(m);
	gpd_session_destroy(other);
	fixture_stop(&fx);
}
END_TEST

static Suite *session_frames_suite(void)
{
	Suite *s = suite_create("session_frames");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, each_kind_of_frame_counts_its_own_drops);
	tcase_add_test(tc, the_hello_says_each_devices_configuration_now);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(session_frames_suite)
