/*
 * The HTTP endpoints the daemon answers itself: /healthz, /metrics, and /
 * when no --web-root is given (a short page that says how to get the UI).
 * Anything else under them is 404; only GET is served.
 */
#ifndef GPD_NET_HTTP_ROUTES_H
#define GPD_NET_HTTP_ROUTES_H

#include <stddef.h>

#include <libwebsockets.h>

#define GPD_HTTP_PROTOCOL "http"

int gpd_http_callback(struct lws *wsi, enum lws_callback_reasons reason,
		      void *user, void *in, size_t len);

size_t gpd_http_pss_size(void);

#endif
