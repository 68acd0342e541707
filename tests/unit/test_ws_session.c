/*
 * Sessions over WebSockets, seen from a real client socket: a frame goes
 * out as soon as it is made, not on a later turn of the daemon's loop.
 *
 * The daemon (a stepped sim) and its server run on a thread of their own;
 * the test's client (ws_client.h) on the main thread. The frame is made
 * inside a callback of the daemon's loop that then holds the loop until
 * the client has seen it (or gave up): whatever waits for the loop's next
 * turn cannot arrive.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/sim/sim_source.h"
#include "tests/integration/ws_client.h"
#include "tests/unit/test_util.h"

#define K(x) GPUPERF__ENVELOPE__KIND_##x
#define WINDOW_NS 10000000ull

struct served {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	struct gpd_server server;
	uv_async_t advance, stop;
	sem_t advanced;                 /* the frames were made */
	sem_t release;                  /* the loop may go on */
	pthread_t thread;
};

static void on_advance(uv_async_t *a)
{
	struct served *sv = a->data;
	gpd_sim_source_advance(sv->daemon.registry.devices[0]->source,
			       5 * WINDOW_NS);
	sem_post(&sv->advanced);
	sem_wait(&sv->release);
}

static void on_stop(uv_async_t *a)
{
	struct served *sv = a->data;
	uv_close((uv_handle_t *)&sv->advance, NULL);
	uv_close((uv_handle_t *)&sv->stop, NULL);
	gpd_server_stop(&sv->server);
	gpd_daemon_stop(&sv->daemon);
}

static void *serve_thread(void *arg)
{
	struct served *sv = arg;
	uv_run(&sv->loop, UV_RUN_DEFAULT);
	return NULL;
}

static void serve(struct served *sv, char *url, size_t size)
{
	static const char *devices[] = { "sim" };
	static const char *const listen[] = { "127.0.0.1:0" };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1, .seed = 3,
		.sim_stepped = true,
	};
	struct gpd_server_options o = { .listen = listen, .n_listen = 1 };
	struct gpd_error err = { 0 };
	memset(sv, 0, sizeof(*sv));
	gpd_log_set_level(GPD_LOG_ERROR);
	ck_assert_int_eq(uv_loop_init(&sv->loop), 0);
	ck_assert_msg(gpd_daemon_init(&sv->daemon, &sv->loop, &opts, &err) == 0,
		      "%s", err.message);
	ck_assert_msg(gpd_server_init(&sv->server, &sv->loop,
				      &sv->daemon.registry, &o, &err) == 0,
		      "%s", err.message);
	ck_assert_msg(gpd_server_listen(&sv->server, &err) == 0, "%s",
		      err.message);
	int port = 0;
	ck_assert_int_eq(sscanf(sv->server.url, "http://127.0.0.1:%d/", &port), 1);
	snprintf(url, size, "ws://127.0.0.1:%d", port);
	sem_init(&sv->advanced, 0, 0);
	sem_init(&sv->release, 0, 0);
	uv_async_init(&sv->loop, &sv->advance, on_advance);
	sv->advance.data = sv;
	uv_async_init(&sv->loop, &sv->stop, on_stop);
	sv->stop.data = sv;
	ck_assert_int_eq(pthread_create(&sv->thread, NULL, serve_thread, sv), 0);
}

static void unserve(struct served *sv)
{
	uv_async_send(&sv->stop);
	pthread_join(sv->thread, NULL);
	uv_run(&sv->loop, UV_RUN_DEFAULT);
	gpd_server_fini(&sv->server);
	gpd_daemon_fini(&sv->daemon);
	ck_assert_int_eq(uv_loop_close(&sv->loop), 0);
	sem_destroy(&sv->advanced);
	sem_destroy(&sv->release);
}

START_TEST(a_frame_goes_out_as_it_is_made)
{
	struct served sv;
	char url[64];
	serve(&sv, url, sizeof(url));
	struct wsc_ctx ctx;
	ck_assert_int_eq(wsc_ctx_init(&ctx, NULL), 0);
	struct wsc *c = wsc_connect(&ctx, url, NULL);
	ck_assert_ptr_nonnull(c);
	Gpuperf__Envelope *hello = wsc_next_kind(c, K(HELLO), 10000);
	ck_assert_ptr_nonnull(hello);
	wsc_free_message(hello);

	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.window_ns = WINDOW_NS;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 1;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	ck_assert_int_eq(wsc_send(c, &env), 0);
	Gpuperf__Envelope *reply = wsc_next_kind(c, K(SUBSCRIBED), 10000);
	ck_assert_ptr_nonnull(reply);
	wsc_free_message(reply);

	/* Frames are made, and the daemon's loop is held from then on. */
	uv_async_send(&sv.advance);
	sem_wait(&sv.advanced);
	Gpuperf__Envelope *frame = wsc_next_kind(c, K(FRAME), 10000);
	sem_post(&sv.release);
	ck_assert_msg(frame, "the frame waited for the daemon's loop");
	ck_assert_uint_eq(frame->frame->subscription_id, 1);
	wsc_free_message(frame);

	wsc_close(c);
	wsc_ctx_fini(&ctx);
	unserve(&sv);
}
END_TEST

static Suite *ws_session_suite(void)
{
	Suite *s = suite_create("ws_session");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_frame_goes_out_as_it_is_made);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(ws_session_suite)
