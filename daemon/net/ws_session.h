/*
 * The WebSocket transport of sessions: the libwebsockets protocol
 * "gpuperf.v1" on /ws. It assembles each message from its fragments (up to
 * max_message_bytes), refuses text and oversized messages, and writes the
 * session's queue out as the socket drains.
 */
#ifndef GPD_NET_WS_SESSION_H
#define GPD_NET_WS_SESSION_H

#include <stddef.h>

#include <libwebsockets.h>

#define GPD_WS_PROTOCOL "gpuperf.v1"
#define GPD_WS_PATH "/ws"

int gpd_ws_callback(struct lws *wsi, enum lws_callback_reasons reason,
		    void *user, void *in, size_t len);

/* Its per-connection data. */
size_t gpd_ws_pss_size(void);

#endif
