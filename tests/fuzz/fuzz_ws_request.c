/*
 * Fuzzes what a client's bytes reach: the request decoder and the
 * dispatcher of a session, on a daemon with the sim device.
 *
 * Input: a sequence of messages, each a 16-bit little-endian length and
 * that many bytes (the last one takes whatever remains), handed to one
 * session in order, as a WebSocket connection would. Byte 0, before them,
 * picks the session: bit 0 trusted (else it must authenticate first),
 * bit 1 a bearer header with a known token, bit 2 a viewer. After the
 * messages the loop runs once, so frames, recordings' timers and the
 * unsubscriptions complete.
 *
 * Checked beyond memory safety: every queued message is a well-formed
 * Envelope of a server kind, and once the session says it is closing it
 * queues nothing more of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "tests/fuzz/fuzz_target.h"

#define VIEWER_TOKEN "fuzztoken-0123456789abcdefgh"
#define CONTROLLER_TOKEN "ctl-0123456789abcdefghijklmn"

static uv_loop_t loop;
static struct gpd_daemon daemon_ctx;
static struct gpd_server server;

static void wake(void *user)
{
}

static void setup(void)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 3,
		.sim_buffer_size = 128 * 1024,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_init(&loop);
	if (gpd_daemon_init(&daemon_ctx, &loop, &opts, &err)) {
		fprintf(stderr, "fuzz_ws_request: %s\n", err.message);
		abort();
	}
	char path[] = "/tmp/fuzz-tokens-XXXXXX";
	int fd = mkstemp(path);
	static const char tokens[] = VIEWER_TOKEN " viewer\n"
				     CONTROLLER_TOKEN " controller\n";
	if (fd < 0 || write(fd, tokens, sizeof(tokens) - 1) != sizeof(tokens) - 1)
		abort();
	close(fd);
	struct gpd_server_options so = {
		.token_file = path,
		.max_subscriptions = 4,
		.queue_frames = 8,
		.max_requests_per_second = 1000000,
	};
	if (gpd_server_init(&server, &loop, &daemon_ctx.registry, &so, &err)) {
		fprintf(stderr, "fuzz_ws_request: %s\n", err.message);
		abort();
	}
	daemon_ctx.server = &server;
	unlink(path);
}

/* Everything the session queued decodes as a server message. */
static void drain(struct gpd_session *s)
{
	struct gpd_message *m;
	while ((m = gpd_session_pop(s))) {
		Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, m->len, m->data);
		if (!env || env->kind_case < GPUPERF__ENVELOPE__KIND_HELLO)
			abort();
		gpuperf__envelope__free_unpacked(env, NULL);
		free(m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!daemon_ctx.loop)
		setup();
	if (!size)
		return 0;
	/* Each input starts with no wrong tokens held against its peer. */
	memset(&server.auth_brake, 0, sizeof(server.auth_brake));
	uint8_t mode = data[0];
	data++;
	size--;
	struct gpd_session_transport t = { .wake = wake };
	struct gpd_session *s;
	const char *bearer = mode & 2 ? (mode & 4 ? "Bearer " VIEWER_TOKEN
						  : "Bearer " CONTROLLER_TOKEN)
				      : NULL;
	struct gpd_session_peer peer = { .trusted = mode & 1, .address = "192.0.2.1" };
	if (gpd_session_create(&server, &t, &peer, bearer, &s))
		return 0;
	drain(s);
	while (size) {
		size_t len = size;
		if (size >= 2) {
			len = (size_t)data[0] | (size_t)data[1] << 8;
			data += 2;
			size -= 2;
			if (len > size)
				len = size;
		}
		bool was_closing = s->closing;
		gpd_session_receive(s, data, len);
		if (was_closing && !gpd_send_queue_empty(&s->queue))
			abort();
		drain(s);
		data += len;
		size -= len;
	}
	uv_run(&loop, UV_RUN_NOWAIT);
	drain(s);
	gpd_session_destroy(s);
	uv_run(&loop, UV_RUN_NOWAIT);
	return 0;
}
