/*
 * Sessions over WebSockets: libwebsockets callbacks of "gpuperf.v1".
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/net/http_routes.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "daemon/net/ws_session.h"

#define MAX_HEADER 1024

struct ws_pss {
	struct lws *wsi;
	struct gpd_session *session;
	char *bearer;                   /* the Authorization header */
	unsigned char *rx;
	size_t rx_len, rx_cap;
	bool rx_text;
	bool rx_refused;                /* the rest of this message is ignored */
	bool close_sent;
	bool close_timed;               /* closing: bounded in time */
	bool in_callback;               /* lws is calling us about this wsi */
	bool writing;                   /* taking messages off the queue */
	bool write_failed;              /* the socket refused a write */
};

/* A session the daemon closes keeps its subscriptions, snapshots and
 * slot until the connection goes; a client that no longer reads would
 * keep them for ever: it gets this long to take what is left. */
#define CLOSING_TIMEOUT_S 10

size_t gpd_ws_pss_size(void)
{
	return sizeof(struct ws_pss);
}

static struct gpd_listener *listener_of(struct lws *wsi)
{
	return lws_vhost_user(lws_get_vhost(wsi));
}

/* Writes the next queued message; false when none waits or the socket
 * refused it (the connection is then ended from its next callback). */
static bool write_next(struct ws_pss *pss)
{
	pss->writing = true;
	struct gpd_message *m = gpd_session_pop(pss->session);
	pss->writing = false;
	if (!m)
		return false;
	int n = lws_write(pss->wsi, m->data, m->len, LWS_WRITE_BINARY);
	free(m);
	if (n < 0)
		pss->write_failed = true;
	return n >= 0;
}

/*
 * Whether the frame just queued may be written at once rather than from
 * the next writeable callback. Asking for that callback costs four
 * epoll_ctl calls through lws and libuv 1.44 (each change of the events
 * watched takes the socket out of epoll and puts it back), four times
 * what the write itself costs: with hundreds of clients each taking a
 * frame every window, that was most of the daemon's time. lws 4.1 takes
 * writes from outside its callbacks on a connection of its own (not a
 * stream of an h2 connection, which it mediates): what the socket does not
 * take it keeps in order and sends as the socket drains, as from inside
 * one. Only a frame that waits behind nothing: replies, events and
 * recording bytes keep the loop's pace, so a burst of them still shows
 * as unread in the queue, against the client's share. Not while lws is
 * calling us about this connection (it may be writing itself), nor once
 * the session is closing (the close frame goes out from the callback).
 */
static bool may_write_frame_now(const struct ws_pss *pss)
{
	const struct gpd_session *s = pss->session;
	return s && !s->closing && s->queue.head && s->queue.head == s->queue.tail &&
	       s->queue.head->class == GPD_MESSAGE_FRAME && !pss->in_callback &&
	       !pss->writing && !pss->close_sent && !pss->write_failed &&
	       lws_get_network_wsi(pss->wsi) == pss->wsi &&
	       !lws_partial_buffered(pss->wsi);
}

static void wake(void *user)
{
	struct ws_pss *pss = user;
	if (pss->session && pss->session->closing && !pss->close_timed) {
		pss->close_timed = true;
		lws_set_timeout(pss->wsi, PENDING_TIMEOUT_CLOSE_SEND,
				CLOSING_TIMEOUT_S);
	}
	if (pss->writing)
		return;         /* its caller asks for the callback after */
	if (may_write_frame_now(pss))
		write_next(pss);
	if (pss->write_failed || !pss->session || pss->session->closing ||
	    !gpd_send_queue_empty(&pss->session->queue))
		lws_callback_on_writable(pss->wsi);
}

static void detach(void *user)
{
	struct ws_pss *pss = user;
	pss->session = NULL;
}

/* h1 has the path in GET_URI, h2 (ws over h2, RFC 8441) in :path. */
static bool path_is_ws(struct lws *wsi)
{
	char path[64];
	int n = lws_hdr_copy(wsi, path, sizeof(path), WSI_TOKEN_GET_URI);
	if (n <= 0)
		n = lws_hdr_copy(wsi, path, sizeof(path), WSI_TOKEN_HTTP_COLON_PATH);
	if (n <= 0)
		return false;
	path[strcspn(path, "?")] = '\0';
	return !strcmp(path, GPD_WS_PATH);
}

/* A browser's upgrade from a page that is not the daemon's own (any site
 * the user visits may try ws://127.0.0.1/ws), or naming another server as
 * its Host (DNS rebinding), gets a status and no session. */
static int refuse_foreign(struct lws *wsi)
{
	struct gpd_listener *l = listener_of(wsi);
	char host[256], origin[256];
	if (gpd_http_refuse_host(wsi, host, sizeof(host)))
		return -1;
	int n = lws_hdr_copy(wsi, origin, sizeof(origin), WSI_TOKEN_ORIGIN);
	if (!l->host[0] || (n <= 0 && !lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN)))
		return 0;
	if (n > 0 && gpd_origin_allowed(&l->server->origin, origin, host, l->tls))
		return 0;
	gpd_debug("refused a WebSocket opened from %s: not this server's page "
		  "(--allow-origin admits others)", n > 0 ? origin : "a long Origin");
	lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN,
			       "WebSockets to gpuperfd are opened from its own "
			       "pages; start it with --allow-origin ORIGIN to "
			       "admit another.");
	return -1;
}

static int filter(struct lws *wsi, struct ws_pss *pss)
{
	if (!path_is_ws(wsi))
		return 1;
	if (refuse_foreign(wsi))
		return -1;
	int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
	if (n > 0) {
		/* A header too long for any token reads as a wrong one. */
		size_t size = n < MAX_HEADER ? (size_t)n + 1 : 8;
		pss->bearer = malloc(size);
		if (!pss->bearer)
			return 1;
		if (n >= MAX_HEADER)
			strcpy(pss->bearer, "Bearer ");
		else if (lws_hdr_copy(wsi, pss->bearer, (int)size,
				      WSI_TOKEN_HTTP_AUTHORIZATION) < 0)
			pss->bearer[0] = '\0';
	}
	return 0;
}

static int established(struct lws *wsi, struct ws_pss *pss)
{
	struct gpd_listener *l = listener_of(wsi);
	struct gpd_session_transport t = {
		.wake = wake,
		.detach = detach,
		.user = pss,
		.headroom = LWS_PRE,
	};
	pss->wsi = wsi;
	char address[48] = "";
	struct gpd_session_peer peer = {
		.trusted = l->trusted,
		.unix_socket = !l->host[0],
	};
	if (!peer.unix_socket && lws_get_peer_simple(wsi, address, sizeof(address)))
		peer.address = address;
	int ret = gpd_session_create(l->server, &t, &peer, pss->bearer,
				     &pss->session);
	free(pss->bearer);
	pss->bearer = NULL;
	if (ret)
		return -1;
	if (!pss->session->authenticated)
		lws_set_timer_usecs(wsi, (lws_usec_t)l->server->options.auth_timeout_ms *
					 1000);
	return 0;
}

static bool rx_append(struct ws_pss *pss, const void *in, size_t len,
		      size_t max)
{
	if (len > max - pss->rx_len)
		return false;
	if (pss->rx_len + len > pss->rx_cap) {
		size_t cap = pss->rx_cap ? pss->rx_cap : 4096;
		while (cap < pss->rx_len + len)
			cap *= 2;
		if (cap > max)
			cap = max;
		unsigned char *rx = realloc(pss->rx, cap);
		if (!rx)
			return false;
		pss->rx = rx;
		pss->rx_cap = cap;
	}
	memcpy(pss->rx + pss->rx_len, in, len);
	pss->rx_len += len;
	return true;
}

static void receive(struct lws *wsi, struct ws_pss *pss, const void *in,
		    size_t len)
{
	struct gpd_session *s = pss->session;
	if (!s || s->closing)
		return;
	if (lws_is_first_fragment(wsi)) {
		pss->rx_len = 0;
		pss->rx_refused = false;
		pss->rx_text = !lws_frame_is_binary(wsi);
	}
	bool complete = lws_is_final_fragment(wsi) &&
			!lws_remaining_packet_payload(wsi);
	if (pss->rx_refused)
		return;
	if (pss->rx_text) {
		pss->rx_refused = true;
		gpd_session_fail(s, 0, GPUPERF__ERROR_CODE__MALFORMED,
				 GPD_CLOSE_UNSUPPORTED_DATA,
				 "text messages are not part of the protocol: "
				 "send each gpuperf.Envelope as one binary "
				 "message");
		return;
	}
	size_t max = s->server->options.max_message_bytes;
	if (!rx_append(pss, in, len, max)) {
		pss->rx_refused = true;
		gpd_session_fail(s, 0, GPUPERF__ERROR_CODE__TOO_LARGE,
				 GPD_CLOSE_TOO_LARGE,
				 "the message is larger than this server's limit "
				 "of %zu bytes (Hello.limits.max_message_bytes)",
				 max);
		return;
	}
	if (complete) {
		gpd_session_receive(s, pss->rx, pss->rx_len);
		pss->rx_len = 0;
	}
}

/* lws 4.1 keeps its LWS_WRITE_CLOSE (4) out of the public enum, and on a
 * libuv loop a callback returning -1 after lws_close_reason drops the
 * connection before the close frame is out (a debug-build self test of
 * the library closes twice). So the close frame goes out as a write of
 * its own, and the peer's answer, or 2 s, end the connection. */
#define LWS_WRITE_CLOSE_FRAME ((enum lws_write_protocol)4)

static int close_with(struct lws *wsi, struct ws_pss *pss,
		      enum gpd_close_code code)
{
	static const char reason[] = "see the Error message";
	unsigned char buf[LWS_PRE + 2 + sizeof(reason)];
	unsigned char *p = buf + LWS_PRE;
	pss->close_sent = true;
	p[0] = (unsigned char)(code >> 8);
	p[1] = (unsigned char)code;
	memcpy(p + 2, reason, sizeof(reason) - 1);
	if (lws_write(wsi, p, 2 + sizeof(reason) - 1, LWS_WRITE_CLOSE_FRAME) < 0)
		return -1;
	lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, 2);
	return 0;
}

static int writeable(struct lws *wsi, struct ws_pss *pss)
{
	struct gpd_session *s = pss->session;
	if (!s)
		return -1;
	if (pss->write_failed)
		return -1;
	if (pss->close_sent)
		return 0;
	if (gpd_session_done(s))
		return close_with(wsi, pss, s->close_code);
	if (!write_next(pss) && pss->write_failed)
		return -1;
	if (s->closing || !gpd_send_queue_empty(&s->queue))
		lws_callback_on_writable(wsi);
	return 0;
}

static void closed(struct ws_pss *pss)
{
	gpd_session_destroy(pss->session);
	pss->session = NULL;
	free(pss->rx);
	pss->rx = NULL;
	free(pss->bearer);
	pss->bearer = NULL;
}

static int dispatch(struct lws *wsi, enum lws_callback_reasons reason,
		    struct ws_pss *pss, void *in, size_t len)
{
	switch (reason) {
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		return filter(wsi, pss);
	case LWS_CALLBACK_ESTABLISHED:
		return established(wsi, pss);
	case LWS_CALLBACK_RECEIVE:
		receive(wsi, pss, in, len);
		return 0;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return writeable(wsi, pss);
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		/* The peer answers the close frame close_with() wrote, which
		 * lws does not know of: its echo would be a second close
		 * (chromium: "Close received after close"). Just hang up. */
		return pss->close_sent ? -1 : 0;
	case LWS_CALLBACK_TIMER:
		if (pss->session && !pss->session->authenticated)
			gpd_session_fail(pss->session, 0,
					 GPUPERF__ERROR_CODE__UNAUTHENTICATED,
					 GPD_CLOSE_POLICY_VIOLATION,
					 "no token within %g s: this address "
					 "needs one, as `Authorization: Bearer "
					 "TOKEN` or an Auth request",
					 pss->session->server->options.auth_timeout_ms / 1e3);
		return 0;
	case LWS_CALLBACK_CLOSED:
		/* Also for an upgrade the filter refused: pss is then
		 * zeroed but for the header copy. */
		closed(pss);
		return 0;
	default:
		return 0;
	}
}

int gpd_ws_callback(struct lws *wsi, enum lws_callback_reasons reason,
		    void *user, void *in, size_t len)
{
	struct ws_pss *pss = user;
	if (!pss)
		return dispatch(wsi, reason, pss, in, len);
	/* CLOSED is the last callback about pss: lws frees it after. */
	bool was = pss->in_callback;
	pss->in_callback = true;
	int ret = dispatch(wsi, reason, pss, in, len);
	if (reason != LWS_CALLBACK_CLOSED)
		pss->in_callback = was;
	return ret;
}
