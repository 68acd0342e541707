/*
 * A raw WebSocket client of the gpuperf protocol, for what libgpuperf
 * never does: sending malformed or out-of-place messages, another path or
 * subprotocol, watching close codes, and timing frames at the socket
 * (bench_ws). libwebsockets on a libuv loop of its own, with calls that
 * run the loop until what they wait for arrives (or a timeout passes), so
 * a test reads top to bottom.
 */
#ifndef GPD_TEST_WS_CLIENT_H
#define GPD_TEST_WS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto/gpuperf.pb-c.h"

struct lws_context;
struct wsc;

struct wsc_ctx {
	uv_loop_t loop;
	struct lws_context *lws;
	uv_timer_t timer;
	bool timed_out;
};

/* ca_file: the PEM certificate a wss:// server must present; NULL for
 * none. 0 or -1. */
int wsc_ctx_init(struct wsc_ctx *ctx, const char *ca_file);

/* Closes what is still open and frees the context. */
void wsc_ctx_fini(struct wsc_ctx *ctx);

/* Runs the loop for ms milliseconds. */
void wsc_pump(struct wsc_ctx *ctx, unsigned ms);

struct wsc_options {
	const char *protocol;           /* NULL: gpuperf.v1; "" none */
	const char *path;               /* NULL: /ws */
	const char *bearer;             /* Authorization: Bearer ..., or NULL */
	/* Messages go here instead of the inbox; env is freed after. */
	void (*on_message)(struct wsc *c, const Gpuperf__Envelope *env,
			   uint64_t recv_ns, void *user);
	void *user;
};

/* url: ws://HOST:PORT, wss://HOST:PORT or unix:PATH. Connects in the
 * background; NULL on a bad url. */
struct wsc *wsc_connect(struct wsc_ctx *ctx, const char *url,
			const struct wsc_options *options);

/* Waits for the upgrade; false if it failed or ms passed. */
bool wsc_wait_open(struct wsc *c, unsigned ms);

bool wsc_is_open(const struct wsc *c);
bool wsc_is_closed(const struct wsc *c);

/* CLOCK_MONOTONIC ns when the client saw the connection end; 0 while
 * open. */
uint64_t wsc_closed_ns(const struct wsc *c);

/* Waits for the connection to end; its close code (1000...), 0 when it
 * ended without a close frame, -1 when ms passed first. */
int wsc_wait_closed(struct wsc *c, unsigned ms);

/* Queues env, or raw bytes as one binary (or text) message. */
int wsc_send(struct wsc *c, const Gpuperf__Envelope *env);
int wsc_send_raw(struct wsc *c, const void *data, size_t len, bool binary);

/* The next message (free with wsc_free_message), NULL after ms. */
Gpuperf__Envelope *wsc_next(struct wsc *c, unsigned ms);

/* The next message of kind, dropping others on the way; NULL after ms. */
Gpuperf__Envelope *wsc_next_kind(struct wsc *c, Gpuperf__Envelope__KindCase kind,
				 unsigned ms);

void wsc_free_message(Gpuperf__Envelope *env);

/* Closes (if open) and frees. */
void wsc_close(struct wsc *c);

/* CLOCK_MONOTONIC, ns. */
uint64_t wsc_now_ns(void);

#endif
