/*
 * The WebSocket under a client: libwebsockets' client on the client's
 * libuv loop, one context per connection.
 *
 * Shutting libwebsockets down on a foreign loop takes three steps (see
 * platform-notes §1): close the WebSocket from its writeable callback,
 * destroy the context once from a timer (which starts closing its loop
 * handles, in stages: each close callback closes the next), and destroy it
 * again once every close has run; only the second call frees it, and it
 * unloads the event-library plugin whose code those close callbacks are.
 * The recipe waits for uv_run to return; a caller's loop may never run
 * dry, so the client looks instead for the moment no handle of the loop is
 * closing any more.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "client/lib/client_internal.h"

#define WS_PATH "/ws"
#define WS_PROTOCOL "gpuperf.v1"
/* A message from the daemon larger than this ends the connection: its
 * biggest, a Hello of Intel's largest metric files, is far smaller. */
#define MAX_MESSAGE_BYTES (64u << 20)

static int write_next(struct gpc_client *c, struct lws *wsi)
{
	struct gpc__out *m = c->out_head;

	if (m) {
		c->out_head = m->next;
		if (!c->out_head)
			c->out_tail = NULL;
		int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_BINARY);
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

static void receive(struct gpc_client *c, struct lws *wsi, const void *in,
		    size_t len)
{
	if (lws_is_first_fragment(wsi)) {
		c->rx_len = 0;
		c->rx_too_large = false;
	}
	if (!c->rx_too_large && len > MAX_MESSAGE_BYTES - c->rx_len)
		c->rx_too_large = true;
	if (!c->rx_too_large && c->rx_len + len > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 65536;
		while (cap < c->rx_len + len)
			cap *= 2;
		unsigned char *rx = realloc(c->rx, cap);
		if (!rx) {
			c->rx_too_large = true;
		} else {
			c->rx = rx;
			c->rx_cap = cap;
		}
	}
	if (!c->rx_too_large) {
		memcpy(c->rx + c->rx_len, in, len);
		c->rx_len += len;
	}
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return;
	if (c->rx_too_large) {
		struct gpc_error err;
		gpc__error_set(&err, -EMSGSIZE, "the daemon sent a message "
			       "larger than %u bytes", MAX_MESSAGE_BYTES);
		gpc__client_transport_ended(c, &err);
		return;
	}
	gpc__client_receive(c, c->rx, c->rx_len);
	c->rx_len = 0;
}

static void describe_address(const struct gpc_client *c, char *buf,
			     size_t size)
{
	if (c->unix_path)
		snprintf(buf, size, "unix:%s", c->unix_path);
	else
		snprintf(buf, size, "%s%s:%u", c->options.tls ? "https://" : "",
			 c->host, c->options.port);
}

static void connection_error(struct gpc_client *c, const char *why)
{
	struct gpc_error err;
	char where[300];

	describe_address(c, where, sizeof(where));
	/* libwebsockets words TLS failures after OpenSSL's error queue,
	 * which rarely names the cause; say what failed. */
	if (c->options.tls && why && strstr(why, "SSL"))
		gpc__error_set(&err, -ECONNREFUSED, "cannot connect to %s: the "
			       "TLS handshake failed (%s)", where, why);
	else
		gpc__error_set(&err, -ECONNREFUSED, "cannot connect to %s: %s",
			       where, why && *why ? why : "no answer");
	gpc__client_transport_ended(c, &err);
}

static void closed(struct gpc_client *c)
{
	struct gpc_error err;

	if (c->want_close) {
		gpc__client_transport_ended(c, NULL);
		return;
	}
	if (c->peer_close_code && c->peer_close_code != LWS_CLOSE_STATUS_NORMAL)
		gpc__error_set(&err, -ECONNRESET, "the daemon closed the "
			       "connection (WebSocket close code %d)",
			       c->peer_close_code);
	else
		gpc__error_set(&err, -ECONNRESET, "the daemon closed the "
			       "connection");
	gpc__client_transport_ended(c, &err);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason,
		    void *user, void *in, size_t len)
{
	struct gpc_client *c = lws_get_opaque_user_data(wsi);

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
		/* The daemon speaks first: its Hello, or an Error. */
		c->established = true;
		if (c->out_head || c->want_close)
			lws_callback_on_writable(wsi);
		return 0;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		receive(c, wsi, in, len);
		return 0;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		return write_next(c, wsi);
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		if (len >= 2) {
			const unsigned char *b = in;
			c->peer_close_code = b[0] << 8 | b[1];
		}
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		c->wsi = NULL;
		connection_error(c, in);
		return 0;
	case LWS_CALLBACK_CLIENT_CLOSED:
		c->wsi = NULL;
		closed(c);
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
	{ "gpuperf-client", callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

/*
 * libwebsockets 4.1 fails a Unix socket that nobody listens on inside
 * lws_client_connect_via_info and leaves a loop handle and some memory
 * behind; a plain connect first finds that out, and says why in errno's
 * words.
 */
static int probe_unix_socket(struct gpc_client *c, struct gpc_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(c->unix_path) >= sizeof(sa.sun_path)) {
		gpc__error_set(err, -ENAMETOOLONG, "cannot connect to unix:%s: "
			       "the path is too long", c->unix_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, c->unix_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		gpc__error_set(err, -errno, "socket: %s", strerror(errno));
		return -ECONNREFUSED;
	}
	int ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int saved = errno;
	close(fd);
	if (ret) {
		gpc__error_set(err, -ECONNREFUSED, "cannot connect to unix:%s: %s",
			       c->unix_path, strerror(saved));
		return -ECONNREFUSED;
	}
	return 0;
}

int gpc__transport_start(struct gpc_client *c, struct gpc_error *err)
{
	if (c->unix_path && probe_unix_socket(c, err))
		return err->code;

	struct lws_context_creation_info info;
	void *loops[1] = { c->loop };

	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_LIBUV;
	if (c->options.tls)
		info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.foreign_loops = loops;
	info.pcontext = &c->lws;
	info.client_ssl_ca_filepath = c->tls_ca_file;
	/* One connection: without a limit libwebsockets sizes its tables
	 * for the process's whole descriptor limit. */
	info.fd_limit_per_thread = 64;
	c->lws = lws_create_context(&info);
	if (!c->lws) {
		gpc__error_set(err, -ECONNREFUSED, "libwebsockets could not "
			       "start on the event loop; is the package "
			       "libwebsockets-evlib-uv installed?");
		return -ECONNREFUSED;
	}

	struct lws_client_connect_info ci;
	memset(&ci, 0, sizeof(ci));
	ci.context = c->lws;
	if (c->unix_path) {
		snprintf(c->address, sizeof(c->address), "+%s", c->unix_path);
		snprintf(c->host_header, sizeof(c->host_header), "localhost");
	} else {
		/* An IPv6 address comes bare or in brackets, as in a URL; the
		 * socket wants it bare, the Host header in brackets. */
		const char *host = c->host;
		size_t len = strlen(host);
		bool bracketed = len > 2 && host[0] == '[' && host[len - 1] == ']';

		if (bracketed)
			snprintf(c->address, sizeof(c->address), "%.*s",
				 (int)(len - 2), host + 1);
		else
			snprintf(c->address, sizeof(c->address), "%s", host);
		snprintf(c->host_header, sizeof(c->host_header),
			 !bracketed && strchr(host, ':') ? "[%s]" : "%s", host);
		ci.port = (int)c->options.port;
	}
	if (c->token)
		snprintf(c->bearer, sizeof(c->bearer), "Bearer %s", c->token);
	ci.address = c->address;
	ci.host = c->host_header;
	/* No Origin: the daemon holds one to the pages of its own origin, and
	 * a program is no web page. */
	ci.path = WS_PATH;
	ci.protocol = WS_PROTOCOL;
	ci.local_protocol_name = protocols[0].name;
	ci.opaque_user_data = c;
	ci.pwsi = &c->wsi;
	if (c->options.tls)
		ci.ssl_connection = LCCSCF_USE_SSL;
	/* WebSockets over h2 would need more than this client does. */
	ci.alpn = "http/1.1";
	if (!lws_client_connect_via_info(&ci)) {
		/* The failure was reported through the callback, or not at
		 * all; either way the connection is over. */
		c->wsi = NULL;
		if (c->state == GPC__CONNECTING)
			connection_error(c, "the connection could not start");
	}
	return 0;
}

int gpc__transport_send(struct gpc_client *c, const Gpuperf__Envelope *env)
{
	if (!c->wsi || c->want_close)
		return -ENOTCONN;
	size_t len = gpuperf__envelope__get_packed_size(env);
	struct gpc__out *m = malloc(sizeof(*m) + LWS_PRE + len);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->len = len;
	gpuperf__envelope__pack(env, m->buf + LWS_PRE);
	if (c->out_tail)
		c->out_tail->next = m;
	else
		c->out_head = m;
	c->out_tail = m;
	if (c->established)
		lws_callback_on_writable(c->wsi);
	return 0;
}

static void timer_closed(uv_handle_t *h)
{
	struct gpc_client *c = h->data;

	if (--c->open_handles == 0)
		gpc__client_transport_gone(c);
}

static void find_closing(uv_handle_t *h, void *arg)
{
	if (uv_is_closing(h))
		*(bool *)arg = true;
}

static void shutdown_step(uv_timer_t *t)
{
	struct gpc_client *c = t->data;
	bool closing = false;

	if (c->lws && !c->destroy_started) {
		c->destroy_started = true;
		lws_context_destroy(c->lws);
	}
	if (c->lws)
		uv_walk(c->loop, find_closing, &closing);
	if (c->lws && !closing)
		lws_context_destroy(c->lws);
	if (c->lws) {
		/* Not 0 ms: a timer due now runs again in the same turn of
		 * the loop, before any close could. */
		uv_timer_start(&c->timer, shutdown_step, 1, 0);
		return;
	}
	while (c->out_head) {
		struct gpc__out *m = c->out_head;
		c->out_head = m->next;
		free(m);
	}
	c->out_tail = NULL;
	uv_close((uv_handle_t *)&c->timer, timer_closed);
	uv_close((uv_handle_t *)&c->wait_timer, timer_closed);
}

void gpc__transport_shutdown(struct gpc_client *c)
{
	if (c->wsi && c->established && !c->want_close) {
		/* CLIENT_CLOSED comes back here with wsi cleared. */
		c->want_close = true;
		lws_callback_on_writable(c->wsi);
		return;
	}
	if (c->wsi && c->want_close)
		return;
	/* A connection still being made is closed by the destroy; its
	 * callbacks must not reach the client any more. */
	if (c->wsi)
		lws_set_opaque_user_data(c->wsi, NULL);
	c->wsi = NULL;
	c->want_close = true;
	uv_timer_stop(&c->timer);
	uv_timer_start(&c->timer, shutdown_step, 0, 0);
}

void gpc__transport_abandon(struct gpc_client *c)
{
	if (!c->wsi || c->want_close)
		return;
	c->want_close = true;
	if (c->established) {
		lws_callback_on_writable(c->wsi);
		return;
	}
	/* Not yet connected: the destroy at close ends it quietly. */
	lws_set_opaque_user_data(c->wsi, NULL);
	c->wsi = NULL;
}
