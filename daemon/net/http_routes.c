/*
 * /healthz, /metrics and the built-in page, over libwebsockets' HTTP.
 *
 * Every response goes out from HTTP_WRITEABLE, headers first, then the
 * body, so a /metrics answer that waits for a window's values is sent the
 * same way as one that does not. The body follows the headers in the same
 * callback when the socket takes more, in one write: a scrape's 70 KB
 * would otherwise wait for the loop once every chunk.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/net/http_routes.h"
#include "daemon/net/metrics_exporter.h"
#include "daemon/net/server.h"

enum response_state {
	RESPONSE_NONE,
	RESPONSE_WAITING,               /* for the exporter */
	RESPONSE_HEADERS,
	RESPONSE_BODY,
};

struct http_pss {
	struct lws *wsi;
	struct gpd_server *server;
	struct gpd_scrape scrape;
	enum response_state state;
	unsigned status;
	const char *content_type;
	char *body;                     /* LWS_PRE bytes, then the body */
	size_t len;
};

static const char builtin_page[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>gpuperfd</title></head><body>\n"
	"<h1>gpuperfd " GPUPERF_VERSION "</h1>\n"
	"<p>The web UI is not installed here: start gpuperfd with "
	"<code>--web-root DIR</code> pointing at its built files.</p>\n"
	"<ul>\n"
	"<li><code>/ws</code>: the gpuperf protocol (WebSocket, subprotocol "
	"<code>gpuperf.v1</code>, messages of proto/gpuperf.proto)</li>\n"
	"<li><a href=\"/metrics\"><code>/metrics</code></a>: Prometheus "
	"metrics</li>\n"
	"<li><a href=\"/healthz\"><code>/healthz</code></a>: health</li>\n"
	"</ul>\n</body></html>\n";

size_t gpd_http_pss_size(void)
{
	return sizeof(struct http_pss);
}

static struct gpd_listener *listener_of(struct lws *wsi)
{
	return lws_vhost_user(lws_get_vhost(wsi));
}

static void respond(struct http_pss *pss, unsigned status, const char *type,
		    const char *body, size_t len)
{
	free(pss->body);
	pss->body = malloc(LWS_PRE + len);
	pss->len = pss->body ? len : 0;
	if (pss->body)
		memcpy(pss->body + LWS_PRE, body, len);
	else
		status = HTTP_STATUS_INTERNAL_SERVER_ERROR;
	pss->status = status;
	pss->content_type = type;
	pss->state = RESPONSE_HEADERS;
	lws_callback_on_writable(pss->wsi);
}

static void respond_text(struct http_pss *pss, unsigned status,
			 const char *text)
{
	respond(pss, status, "text/plain; charset=utf-8", text, strlen(text));
}

static void scrape_done(struct gpd_scrape *scrape, const char *text, size_t len)
{
	struct http_pss *pss = (struct http_pss *)((char *)scrape -
						   offsetof(struct http_pss, scrape));
	respond(pss, HTTP_STATUS_OK, gpd_metrics_content_type(scrape->format),
		text, len);
}

static bool is_get(struct lws *wsi)
{
	char method[16];
	if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0)
		return true;
	int n = lws_hdr_copy(wsi, method, sizeof(method),
			     WSI_TOKEN_HTTP_COLON_METHOD);
	return n > 0 && !strcmp(method, "GET");
}

static bool get_path(struct lws *wsi, char *path, size_t size)
{
	int n = lws_hdr_copy(wsi, path, (int)size, WSI_TOKEN_GET_URI);
	if (n <= 0)
		n = lws_hdr_copy(wsi, path, (int)size, WSI_TOKEN_HTTP_COLON_PATH);
	if (n <= 0)
		return false;
	path[strcspn(path, "?")] = '\0';
	return true;
}

/* Untrusted listeners want a token for /metrics too: it tells what the
 * GPU runs. A token tried is braked per address as the WebSocket's are
 * (gpd_server_check_token): 0 with the scraper's role (a local one is a
 * controller, as on the WebSocket), or the status to refuse with, and
 * why. */
static unsigned authorize(struct lws *wsi, struct gpd_listener *l,
			  enum gpd_role *role, char *why, size_t size)
{
	*role = GPD_ROLE_CONTROLLER;
	if (l->trusted)
		return 0;
	char header[512], address[48] = "";
	const char *token;
	size_t len;
	if (lws_hdr_copy(wsi, header, sizeof(header),
			 WSI_TOKEN_HTTP_AUTHORIZATION) <= 0 ||
	    gpd_auth_parse_bearer(header, &token, &len)) {
		snprintf(why, size, "this address needs a token: send "
			 "`Authorization: Bearer TOKEN`");
		return HTTP_STATUS_UNAUTHORIZED;
	}
	lws_get_peer_simple(wsi, address, sizeof(address));
	int ret = gpd_server_check_token(l->server, address, token, len, role,
					 why, size);
	if (ret == -EAGAIN)
		return GPD_HTTP_TOO_MANY_REQUESTS;
	return ret ? HTTP_STATUS_UNAUTHORIZED : 0;
}

bool gpd_http_host_allowed(struct lws *wsi, char *host, size_t size)
{
	struct gpd_listener *l = listener_of(wsi);
	host[0] = '\0';
	/* No browser page reaches a Unix socket. */
	if (!l->host[0])
		return true;
	if (lws_hdr_copy(wsi, host, (int)size, WSI_TOKEN_HOST) <= 0 &&
	    lws_hdr_copy(wsi, host, (int)size, WSI_TOKEN_HTTP_COLON_AUTHORITY) <= 0)
		host[0] = '\0';
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	int fd = lws_get_socket_fd(wsi);
	return fd >= 0 && !getsockname(fd, (struct sockaddr *)&local, &len) &&
	       gpd_origin_host_allowed(&l->server->origin, host,
				       (struct sockaddr *)&local);
}

int gpd_http_refuse_host(struct lws *wsi, char *host, size_t size)
{
	if (gpd_http_host_allowed(wsi, host, size))
		return 0;
	lws_return_http_status(wsi, GPD_HTTP_MISDIRECTED_REQUEST,
			       "This request names another server as its Host. "
			       "Reach gpuperfd by its address, or start it with "
			       "--server-name NAME for the name you use.");
	return 1;
}

static int request(struct lws *wsi, struct http_pss *pss)
{
	struct gpd_listener *l = listener_of(wsi);
	char path[256];
	pss->wsi = wsi;
	pss->server = l->server;
	if (!is_get(wsi)) {
		/* A request body would follow; closing is the safe answer. */
		lws_return_http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, NULL);
		return -1;
	}
	if (!get_path(wsi, path, sizeof(path))) {
		respond_text(pss, HTTP_STATUS_BAD_REQUEST, "no path\n");
	} else if (!strcmp(path, "/healthz")) {
		respond_text(pss, HTTP_STATUS_OK, "ok\n");
	} else if (!strcmp(path, "/metrics")) {
		if (!l->server->exporter) {
			respond_text(pss, HTTP_STATUS_SERVICE_UNAVAILABLE,
				     "the daemon is shutting down\n");
			return 0;
		}
		char why[256];
		enum gpd_role role;
		unsigned refusal = authorize(wsi, l, &role, why, sizeof(why) - 1);
		if (refusal) {
			strcat(why, "\n");
			respond_text(pss, refusal, why);
			return 0;
		}
		char accept[512];
		if (lws_hdr_copy(wsi, accept, sizeof(accept), WSI_TOKEN_HTTP_ACCEPT) <= 0)
			accept[0] = '\0';
		pss->state = RESPONSE_WAITING;
		pss->scrape.format = gpd_metrics_format_accepted(accept);
		pss->scrape.process_details =
			gpd_server_process_details(l->server, role);
		pss->scrape.done = scrape_done;
		gpd_metrics_exporter_scrape(l->server->exporter, &pss->scrape);
	} else if (!l->server->options.web_root &&
		   (!strcmp(path, "/") || !strcmp(path, "/index.html"))) {
		respond(pss, HTTP_STATUS_OK, "text/html; charset=utf-8",
			builtin_page, sizeof(builtin_page) - 1);
	} else {
		respond_text(pss, HTTP_STATUS_NOT_FOUND, "not found\n");
	}
	return 0;
}

static int write_headers(struct lws *wsi, struct http_pss *pss)
{
	unsigned char buf[LWS_PRE + 1024];
	unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof(buf) - 1;
	if (lws_add_http_common_headers(wsi, pss->status, pss->content_type,
					pss->len, &p, end) ||
	    lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
					 (const unsigned char *)"no-store", 8,
					 &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	pss->state = RESPONSE_BODY;
	return 0;
}

/* What the socket does not take at once, libwebsockets keeps and sends
 * before it calls back again. */
static int write_body(struct lws *wsi, struct http_pss *pss)
{
	unsigned char *body = (unsigned char *)pss->body + LWS_PRE;
	if (lws_write(wsi, body, pss->len, LWS_WRITE_HTTP_FINAL) != (int)pss->len)
		return -1;
	free(pss->body);
	pss->body = NULL;
	pss->state = RESPONSE_NONE;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int gpd_http_callback(struct lws *wsi, enum lws_callback_reasons reason,
		      void *user, void *in, size_t len)
{
	struct http_pss *pss = user;
	switch (reason) {
	case LWS_CALLBACK_FILTER_HTTP_CONNECTION: {
		char host[256];
		return gpd_http_refuse_host(wsi, host, sizeof(host));
	}
	case LWS_CALLBACK_HTTP:
		return request(wsi, pss);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (pss->state == RESPONSE_HEADERS && write_headers(wsi, pss))
			return -1;
		if (pss->state != RESPONSE_BODY)
			return 0;
		if (lws_send_pipe_choked(wsi)) {
			lws_callback_on_writable(wsi);
			return 0;
		}
		return write_body(wsi, pss);
	case LWS_CALLBACK_CLOSED_HTTP:
		if (pss->state == RESPONSE_WAITING && pss->server &&
		    pss->server->exporter)
			gpd_metrics_exporter_cancel(pss->server->exporter,
						    &pss->scrape);
		free(pss->body);
		pss->body = NULL;
		pss->state = RESPONSE_NONE;
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}
