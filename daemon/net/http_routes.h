/*
 * The HTTP endpoints the daemon answers itself: /healthz, /metrics, and /
 * when no --web-root is given (a short page that says how to get the UI).
 * Anything else under them is 404; only GET is served.
 */
#ifndef GPD_NET_HTTP_ROUTES_H
#define GPD_NET_HTTP_ROUTES_H

#include <stdbool.h>
#include <stddef.h>

#include <libwebsockets.h>

#define GPD_HTTP_PROTOCOL "http"
/* RFC 9110's "not for this server" and RFC 6585's "too many requests";
 * libwebsockets 4.1 has no names for them. */
#define GPD_HTTP_MISDIRECTED_REQUEST 421
#define GPD_HTTP_TOO_MANY_REQUESTS 429

int gpd_http_callback(struct lws *wsi, enum lws_callback_reasons reason,
		      void *user, void *in, size_t len);

size_t gpd_http_pss_size(void);

/* Whether the request's Host names this server (gpd_origin_host_allowed
 * for the address it arrived on); copies the Host into host. */
bool gpd_http_host_allowed(struct lws *wsi, char *host, size_t size);

/* 0 for a request whose Host names this server (copied into host);
 * otherwise answers 421 and returns 1, which ends an HTTP request
 * (LWS_CALLBACK_FILTER_HTTP_CONNECTION). */
int gpd_http_refuse_host(struct lws *wsi, char *host, size_t size);

#endif
