/*
 * libgpuperf's insides, shared by its files:
 *
 *   client.c        lifecycle, Hello, routing of messages, waiting
 *   transport.c     libwebsockets on the client's loop: connect, send,
 *                   receive, and the shutdown libwebsockets needs
 *   catalog.c       the Hello's devices, sets and counters as public structs
 *   error.c         codes and messages
 *   subscription.c  subscriptions, frames, events, marks
 *   usage.c         usage subscriptions and their frames
 *   recording.c     recordings and their bytes
 *   snapshot.c      snapshots of a flight recorder and their bytes
 *   query.c         the performance-query layer
 */
#ifndef GPC_CLIENT_INTERNAL_H
#define GPC_CLIENT_INTERNAL_H

#include "client/include/gpuperf.h"
#include "proto/gpuperf.pb-c.h"

struct lws;
struct lws_context;

/* A reply awaited by request id. */
enum gpc__request_kind {
	GPC__REQUEST_AUTH,
	GPC__REQUEST_SUBSCRIBE,
	GPC__REQUEST_UNSUBSCRIBE,
	GPC__REQUEST_MARK,
	GPC__REQUEST_RECONFIGURE,
	GPC__REQUEST_RECORD,
	GPC__REQUEST_STOP_RECORDING,
	GPC__REQUEST_SUBSCRIBE_USAGE,
	GPC__REQUEST_SNAPSHOT,
};

struct gpc__request {
	struct gpc__request *next;
	uint64_t id;
	enum gpc__request_kind kind;
	void *target;                   /* subscription, recording or
					 * snapshot; NULL
					 * once its handle is gone */
	gpc_done_cb cb;
	void *user;
};

/* A packed message waiting for the socket, LWS_PRE bytes of room first. */
struct gpc__out {
	struct gpc__out *next;
	size_t len;
	unsigned char buf[];
};

/* The Hello's contents as public structs, pointing into the message. */
struct gpc__catalog {
	Gpuperf__Envelope *hello;
	struct gpc_server_info server;
	size_t n_devices;
	struct gpc_device *devices;
	/* One allocation for every array below the devices. */
	void *storage;
};

enum gpc__state {
	GPC__CONNECTING,                /* transport or Hello pending */
	GPC__AUTHENTICATING,            /* lowering the role */
	GPC__CONNECTED,
	GPC__DISCONNECTED,              /* ended; waiting to be closed */
	GPC__CLOSING,
};

struct gpc_client {
	uv_loop_t *loop;
	uv_loop_t own_loop;
	bool owns_loop;
	enum gpc__state state;

	/* Options, with their strings copied. */
	struct gpc_connect_options options;
	char *host, *unix_path, *token, *tls_ca_file;

	gpc_connect_cb connect_cb;
	void *connect_user;
	gpc_done_cb disconnect_cb;
	void *disconnect_user;
	gpc_close_cb close_cb;
	void *close_user;

	uv_timer_t timer;               /* connect timeout, then shutdown */
	uv_timer_t wait_timer;          /* *_sync deadlines */
	unsigned open_handles;          /* of the two timers */
	bool wait_expired;
	bool stop_requested;
	bool destroy_started;          /* the first lws_context_destroy ran */
	bool freed;                     /* own loop: teardown finished */
	unsigned dispatching;           /* depth of our callbacks */

	/* libwebsockets */
	struct lws_context *lws;
	struct lws *wsi;
	bool established;
	bool want_close;
	char address[256];
	char host_header[256];
	char bearer[1024];
	unsigned char *rx;
	size_t rx_len, rx_cap;
	bool rx_too_large;
	struct gpc__out *out_head, *out_tail;
	int peer_close_code;

	uint64_t next_request_id;
	struct gpc__request *requests;
	struct gpc_subscription *subscriptions;
	struct gpc_usage_subscription *usage_subscriptions;
	struct gpc_recording *recordings;
	struct gpc_snapshot *snapshots;
	struct gpc_query *queries;

	struct gpc__catalog catalog;
	/* Why the connection ended (or an Error of the server's own). */
	struct gpc_error ended;
	bool has_ended;
};

/* ---- error.c */

/* The daemon's ErrorCode as a negative errno. */
int gpc__server_code_to_errno(Gpuperf__ErrorCode code);

void gpc__error_set(struct gpc_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void gpc__error_from_server(struct gpc_error *err, const Gpuperf__Error *e);

/* ---- transport.c */

/* Creates the libwebsockets context and starts connecting. */
int gpc__transport_start(struct gpc_client *c, struct gpc_error *err);

/* Queues env as one binary message. 0, -ENOTCONN, -ENOMEM. */
int gpc__transport_send(struct gpc_client *c, const Gpuperf__Envelope *env);

/* Closes the WebSocket (if open) but keeps libwebsockets for the close
 * that follows. */
void gpc__transport_abandon(struct gpc_client *c);

/* Closes the WebSocket (if open), then frees libwebsockets; calls
 * gpc__client_transport_gone() once all of it is gone. */
void gpc__transport_shutdown(struct gpc_client *c);

/* ---- client.c: what the transport reports */

void gpc__client_receive(struct gpc_client *c, const void *data, size_t len);
/* The connection ended; err says why (NULL: as asked). */
void gpc__client_transport_ended(struct gpc_client *c,
				 const struct gpc_error *err);
void gpc__client_transport_gone(struct gpc_client *c);

/* ---- client.c: requests */

/* Sends env with a fresh request id; remembers the request when kind is
 * not negative. Returns the id (> 0) or a negative errno. */
int64_t gpc__client_request(struct gpc_client *c, Gpuperf__Envelope *env,
			    int kind, void *target, gpc_done_cb cb, void *user);

/* Forgets target in every pending request (its handle is going away). */
void gpc__client_forget_target(struct gpc_client *c, const void *target);

/* Runs the loop until *done, the end of the connection, gpc_stop or
 * timeout_ms (0: none). 0, -ETIMEDOUT, -EDEADLK, or the end's error. */
int gpc__client_wait(struct gpc_client *c, const bool *done,
		     unsigned timeout_ms, struct gpc_error *err);

/* Brackets calls into the caller's code. */
void gpc__client_enter(struct gpc_client *c);
void gpc__client_leave(struct gpc_client *c);

/* ---- catalog.c */

/* Takes hello (a HELLO envelope) into the catalog. -ENOMEM. */
int gpc__catalog_load(struct gpc__catalog *cat, Gpuperf__Envelope *hello);
void gpc__catalog_fini(struct gpc__catalog *cat);
void gpc__configuration_from_proto(struct gpc_configuration *out,
				   const Gpuperf__Configuration *c);

/* ---- subscription.c */

/* gpc_subscribe(), with the kernel's context filter on a passed file when
 * passed is not NULL. */
int gpc__subscribe(struct gpc_client *c, const struct gpc_subscribe_options *o,
		   const Gpuperf__PassedContext *passed,
		   const struct gpc_subscription_cbs *cbs, void *user,
		   struct gpc_subscription **out);
/* The same, waiting for the answer as gpc_subscribe_sync(). */
int gpc__subscribe_sync(struct gpc_client *c,
			const struct gpc_subscribe_options *o,
			const Gpuperf__PassedContext *passed,
			const struct gpc_subscription_cbs *cbs, void *user,
			struct gpc_subscription **out, struct gpc_error *err);

void gpc__subscription_granted(struct gpc_subscription *sub,
			       Gpuperf__Envelope *env);
void gpc__subscription_refused(struct gpc_subscription *sub,
			       const struct gpc_error *err);
/* A frame or event for subscription id; unknown ids are dropped. */
void gpc__subscription_frame(struct gpc_client *c, const Gpuperf__Frame *f);
void gpc__subscription_event(struct gpc_client *c, Gpuperf__Envelope *env);
void gpc__subscription_reconfigured(struct gpc_subscription *sub,
				    Gpuperf__Envelope *env);
/* Frees every subscription (the client closes). */
void gpc__subscriptions_free(struct gpc_client *c);

/* ---- usage.c */

void gpc__usage_granted(struct gpc_usage_subscription *u,
			Gpuperf__Envelope *env);
void gpc__usage_refused(struct gpc_usage_subscription *u,
			const struct gpc_error *err);
/* A frame for subscription id; unknown ids are dropped. */
void gpc__usage_frame(struct gpc_client *c, const Gpuperf__UsageFrame *f);
void gpc__usage_free_all(struct gpc_client *c);

/* ---- recording.c */

void gpc__recording_started(struct gpc_recording *rec,
			    const Gpuperf__Envelope *env);
void gpc__recording_refused(struct gpc_recording *rec,
			    const struct gpc_error *err);
void gpc__recording_data(struct gpc_client *c, const Gpuperf__RecordingData *d);
void gpc__recording_stopped(struct gpc_client *c,
			    const Gpuperf__RecordingStopped *s);
/* The connection ended: every recording stops with err. */
void gpc__recordings_lost(struct gpc_client *c, const struct gpc_error *err);
void gpc__recordings_free(struct gpc_client *c);

/* ---- snapshot.c */

/* SnapshotStarted answering snap's request (takes env). */
void gpc__snapshot_started(struct gpc_snapshot *snap, Gpuperf__Envelope *env);
void gpc__snapshot_refused(struct gpc_snapshot *snap,
			   const struct gpc_error *err);
void gpc__snapshot_data(struct gpc_client *c, const Gpuperf__SnapshotData *d);
void gpc__snapshot_done(struct gpc_client *c, const Gpuperf__SnapshotDone *d);
/* The connection ended: every snapshot under way ends with err. */
void gpc__snapshots_lost(struct gpc_client *c, const struct gpc_error *err);
void gpc__snapshots_free(struct gpc_client *c);

/* ---- query.c */

void gpc__queries_free(struct gpc_client *c);

#endif
