/*
 * The test client: libwebsockets' client on an own libuv loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libwebsockets.h>

#include "tests/integration/ws_client.h"

struct out_msg {
	struct out_msg *next;
	size_t len;
	bool binary;
	unsigned char buf[];            /* LWS_PRE, then len bytes */
};

struct in_msg {
	struct in_msg *next;
	Gpuperf__Envelope *env;
};

struct wsc {
	struct wsc_ctx *ctx;
	struct wsc_options options;
	char host[128];
	char path[128];
	char protocol[64];
	char bearer[512];
	struct lws *wsi;
	bool open, closed, failed;
	int close_code;
	uint64_t closed_ns;             /* the close frame, or the end */
	unsigned char *rx;
	size_t rx_len, rx_cap;
	struct out_msg *out_head, *out_tail;
	struct in_msg *in_head, *in_tail;
	bool want_close;
};

uint64_t wsc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void deliver(struct wsc *c)
{
	uint64_t now = wsc_now_ns();
	Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, c->rx_len, c->rx);
	c->rx_len = 0;
	if (!env)
		return;
	if (c->options.on_message) {
		c->options.on_message(c, env, now, c->options.user);
		gpuperf__envelope__free_unpacked(env, NULL);
		return;
	}
	struct in_msg *m = malloc(sizeof(*m));
	if (!m) {
		gpuperf__envelope__free_unpacked(env, NULL);
		return;
	}
	m->next = NULL;
	m->env = env;
	if (c->in_tail)
		c->in_tail->next = m;
	else
		c->in_head = m;
	c->in_tail = m;
}

static void receive(struct wsc *c, struct lws *wsi, const void *in, size_t len)
{
	if (lws_is_first_fragment(wsi))
		c->rx_len = 0;
	if (c->rx_len + len > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 65536;
		while (cap < c->rx_len + len)
			cap *= 2;
		unsigned char *rx = realloc(c->rx, cap);
		if (!rx)
			return;
		c->rx = rx;
		c->rx_cap = cap;
	}
	memcpy(c->rx + c->rx_len, in, len);
	c->rx_len += len;
	if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi))
		deliver(c);
}

static int writeable(struct wsc *c, struct lws *wsi)
{
	struct out_msg *m = c->out_head;
	if (m) {
		c->out_head = m->next;
		if (!c->out_head)
			c->out_tail = NULL;
		int n = lws_write(wsi, m->buf + LWS_PRE, m->len,
				  m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
		free(m);
		if (n < 0)
			return -1;
	}
	if (c->out_head) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	if (c->want_close) {
		lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
		return -1;
	}
	return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason,
		    void *user, void *in, size_t len)
{
	struct wsc *c = lws_get_opaque_user_data(wsi);
	if (!c)
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	switch (reason) {
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
		if (c->bearer[0]) {
			unsigned char **p = in, *end = *p + len;
			if (lws_add_http_header_by_token(wsi,
					WSI_TOKEN_HTTP_AUTHORIZATION,
					(unsigned char *)c->bearer,
					(int)strlen(c->bearer), p, end))
				return -1;
		}
		return 0;
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		c->open = true;
		if (c->out_head)
			lws_callback_on_writable(wsi);
		return 0;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		receive(c, wsi, in, len);
		return 0;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		return writeable(c, wsi);
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		if (len >= 2) {
			const unsigned char *b = in;
			c->close_code = b[0] << 8 | b[1];
		}
		c->closed_ns = wsc_now_ns();
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		c->failed = true;
		c->closed = true;
		c->wsi = NULL;
		return 0;
	case LWS_CALLBACK_CLIENT_CLOSED:
		c->closed = true;
		c->wsi = NULL;
		if (!c->closed_ns)
			c->closed_ns = wsc_now_ns();
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
	{ "gpuperf-test-client", callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

int wsc_ctx_init(struct wsc_ctx *ctx, const char *ca_file)
{
	memset(ctx, 0, sizeof(*ctx));
	lws_set_log_level(LLL_ERR, NULL);
	if (uv_loop_init(&ctx->loop))
		return -1;
	uv_timer_init(&ctx->loop, &ctx->timer);
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	void *loops[1] = { &ctx->loop };
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_LIBUV |
		       LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.foreign_loops = loops;
	info.pcontext = &ctx->lws;
	info.client_ssl_ca_filepath = ca_file;
	info.fd_limit_per_thread = 1024;
	ctx->lws = lws_create_context(&info);
	return ctx->lws ? 0 : -1;
}

static void on_timeout(uv_timer_t *t)
{
	struct wsc_ctx *ctx = t->data;
	ctx->timed_out = true;
}

/* Runs the loop until done(arg) or ms pass; returns done(arg). */
static bool pump_until(struct wsc_ctx *ctx, bool (*done)(void *arg), void *arg,
		       unsigned ms)
{
	ctx->timed_out = false;
	ctx->timer.data = ctx;
	uv_timer_start(&ctx->timer, on_timeout, ms, 0);
	bool ok;
	while (!(ok = done && done(arg)) && !ctx->timed_out)
		uv_run(&ctx->loop, UV_RUN_ONCE);
	uv_timer_stop(&ctx->timer);
	return ok;
}

void wsc_pump(struct wsc_ctx *ctx, unsigned ms)
{
	pump_until(ctx, NULL, NULL, ms);
}

void wsc_ctx_fini(struct wsc_ctx *ctx)
{
	uv_close((uv_handle_t *)&ctx->timer, NULL);
	if (ctx->lws)
		lws_context_destroy(ctx->lws);
	uv_run(&ctx->loop, UV_RUN_DEFAULT);
	/* The second destroy finishes what the loop started. */
	if (ctx->lws)
		lws_context_destroy(ctx->lws);
	if (uv_loop_close(&ctx->loop))
		fprintf(stderr, "ws_client: handles left open at exit\n");
}

struct wsc *wsc_connect(struct wsc_ctx *ctx, const char *url,
			const struct wsc_options *options)
{
	struct wsc *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ctx = ctx;
	if (options)
		c->options = *options;
	struct lws_client_connect_info ci;
	memset(&ci, 0, sizeof(ci));
	ci.context = ctx->lws;
	int port = 0;
	if (!strncmp(url, "unix:", 5)) {
		snprintf(c->host, sizeof(c->host), "+%s", url + 5);
		snprintf(c->path, sizeof(c->path), "localhost");
	} else {
		bool tls = !strncmp(url, "wss://", 6);
		if (!tls && strncmp(url, "ws://", 5)) {
			free(c);
			return NULL;
		}
		const char *hp = url + (tls ? 6 : 5);
		const char *colon = strrchr(hp, ':');
		if (!colon || (size_t)(colon - hp) >= sizeof(c->host)) {
			free(c);
			return NULL;
		}
		memcpy(c->host, hp, (size_t)(colon - hp));
		port = atoi(colon + 1);
		if (tls)
			ci.ssl_connection = LCCSCF_USE_SSL;
		snprintf(c->path, sizeof(c->path), "%s", c->host);
	}
	const char *protocol = c->options.protocol ? c->options.protocol
						   : "gpuperf.v1";
	snprintf(c->protocol, sizeof(c->protocol), "%s", protocol);
	if (c->options.bearer)
		snprintf(c->bearer, sizeof(c->bearer), "Bearer %s",
			 c->options.bearer);
	ci.address = c->host;
	ci.port = port;
	ci.host = c->path;
	ci.path = c->options.path ? c->options.path : "/ws";
	ci.protocol = c->protocol[0] ? c->protocol : NULL;
	ci.local_protocol_name = protocols[0].name;
	ci.opaque_user_data = c;
	ci.pwsi = &c->wsi;
	/* ws over h2 needs more than this client does. */
	ci.alpn = "http/1.1";
	if (!lws_client_connect_via_info(&ci)) {
		c->failed = true;
		c->closed = true;
	}
	return c;
}

static bool opened(void *arg)
{
	struct wsc *c = arg;
	return c->open || c->closed;
}

bool wsc_wait_open(struct wsc *c, unsigned ms)
{
	pump_until(c->ctx, opened, c, ms);
	return c->open && !c->closed;
}

bool wsc_is_open(const struct wsc *c)
{
	return c->open && !c->closed;
}

bool wsc_is_closed(const struct wsc *c)
{
	return c->closed;
}

uint64_t wsc_closed_ns(const struct wsc *c)
{
	return c->closed ? c->closed_ns : 0;
}

static bool ended(void *arg)
{
	return ((struct wsc *)arg)->closed;
}

int wsc_wait_closed(struct wsc *c, unsigned ms)
{
	if (!pump_until(c->ctx, ended, c, ms))
		return -1;
	return c->close_code;
}

int wsc_send_raw(struct wsc *c, const void *data, size_t len, bool binary)
{
	struct out_msg *m = malloc(sizeof(*m) + LWS_PRE + len);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->len = len;
	m->binary = binary;
	memcpy(m->buf + LWS_PRE, data, len);
	if (c->out_tail)
		c->out_tail->next = m;
	else
		c->out_head = m;
	c->out_tail = m;
	if (c->wsi && c->open)
		lws_callback_on_writable(c->wsi);
	return 0;
}

int wsc_send(struct wsc *c, const Gpuperf__Envelope *env)
{
	size_t len = gpuperf__envelope__get_packed_size(env);
	unsigned char *buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	gpuperf__envelope__pack(env, buf);
	int ret = wsc_send_raw(c, buf, len, true);
	free(buf);
	return ret;
}

static bool has_message(void *arg)
{
	struct wsc *c = arg;
	return c->in_head || c->closed;
}

Gpuperf__Envelope *wsc_next(struct wsc *c, unsigned ms)
{
	pump_until(c->ctx, has_message, c, ms);
	struct in_msg *m = c->in_head;
	if (!m)
		return NULL;
	c->in_head = m->next;
	if (!c->in_head)
		c->in_tail = NULL;
	Gpuperf__Envelope *env = m->env;
	free(m);
	return env;
}

Gpuperf__Envelope *wsc_next_kind(struct wsc *c, Gpuperf__Envelope__KindCase kind,
				 unsigned ms)
{
	uint64_t deadline = wsc_now_ns() + (uint64_t)ms * 1000000ull;
	for (;;) {
		uint64_t now = wsc_now_ns();
		if (now >= deadline)
			return NULL;
		Gpuperf__Envelope *env = wsc_next(c, (unsigned)((deadline - now) / 1000000ull) + 1);
		if (!env)
			return NULL;
		if (env->kind_case == kind)
			return env;
		gpuperf__envelope__free_unpacked(env, NULL);
	}
}

void wsc_free_message(Gpuperf__Envelope *env)
{
	if (env)
		gpuperf__envelope__free_unpacked(env, NULL);
}

void wsc_close(struct wsc *c)
{
	if (!c)
		return;
	if (c->wsi && !c->closed) {
		c->want_close = true;
		lws_rx_flow_control(c->wsi, 1);
		lws_callback_on_writable(c->wsi);
		pump_until(c->ctx, ended, c, 2000);
	}
	if (c->wsi && !c->closed) {
		/* Still not closed: detach so a late callback finds nothing. */
		lws_set_opaque_user_data(c->wsi, NULL);
	}
	while (c->out_head) {
		struct out_msg *m = c->out_head;
		c->out_head = m->next;
		free(m);
	}
	while (c->in_head) {
		struct in_msg *m = c->in_head;
		c->in_head = m->next;
		wsc_free_message(m->env);
		free(m);
	}
	free(c->rx);
	free(c);
}
