/*
 * A client's session of the gpuperf protocol, whatever carries it: its
 * role, its subscriptions and recordings, its outgoing queue, its request
 * rate. The transport (ws_session.c for WebSockets) hands in whole
 * messages and takes out the queued ones when the client can take them.
 *
 * A session never ends a subscription from inside a daemon callback: a
 * fatal problem only marks it closing, and the transport ends it.
 */
#ifndef GPD_NET_SESSION_H
#define GPD_NET_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/error.h"
#include "daemon/net/rate_limit.h"
#include "daemon/net/send_queue.h"
#include "daemon/net/server.h"
#include "proto/gpuperf.pb-c.h"

/* WebSocket close codes (RFC 6455), which say why a session ended. */
enum gpd_close_code {
	GPD_CLOSE_NORMAL = 1000,
	GPD_CLOSE_GOING_AWAY = 1001,
	GPD_CLOSE_PROTOCOL_ERROR = 1002,
	GPD_CLOSE_UNSUPPORTED_DATA = 1003,
	GPD_CLOSE_POLICY_VIOLATION = 1008,
	GPD_CLOSE_TOO_LARGE = 1009,
	GPD_CLOSE_INTERNAL_ERROR = 1011,
};

/* Per connection; Hello's Limits tells the client. */
#define GPD_SESSION_MAX_RECORDINGS 2
#define GPD_SESSION_MIN_WINDOW_NS 1000000ull
/* Recording bytes a client may leave unread before its recording stops. */
#define GPD_SESSION_RECORDING_BACKLOG (8u << 20)
/* Snapshots a connection may have in flight. */
#define GPD_SESSION_MAX_SNAPSHOTS 2
/* DRM files a connection may have passed and not yet used. */
#define GPD_SESSION_MAX_PASSED_FDS 4
#define GPD_SESSION_KEY_BYTES 16

struct gpd_session_transport {
	/* Messages wait in the queue. */
	void (*wake)(void *user);
	/* The session is being destroyed (the server may do it first). */
	void (*detach)(void *user);
	void *user;
	size_t headroom;                /* bytes before each message */
};

/* Where a client connects from. */
struct gpd_session_peer {
	bool trusted;                   /* a loopback listener or the Unix socket */
	bool unix_socket;
	const char *address;            /* its IP address; NULL when unknown */
};

/* A DRM file a client passed (fd_socket.c), waiting for the Subscribe
 * that names it: the daemon holds it for that alone. */
struct gpd_passed_fd {
	uint32_t id;
	int fd;
	const char *device;             /* the device it is a node of */
};

/* Frames of one kind dropped for a client that reads too slowly. */
struct gpd_frames_dropped {
	uint32_t since_last;            /* since the last one queued */
	uint64_t total;
};

struct gpd_session_sub;
struct gpd_session_recording;
struct gpd_session_usage;
struct gpd_session_snapshot;

struct gpd_session {
	struct gpd_server *server;
	struct gpd_session *next, **prev_next;  /* server->sessions */
	struct gpd_session_transport transport;
	bool trusted;                   /* arrived on a trusted listener */
	bool unix_socket;
	char peer[48];                  /* the client's address, "" if unknown */
	enum gpd_session_slot slot;     /* what it holds of the server's room */
	bool authenticated;
	bool auth_requested;            /* it sent its one Auth */
	/* The token it authenticated with (token_len 0: none), kept so that
	 * a reload that removes it ends the session. */
	char token[GPD_TOKEN_MAX];
	size_t token_len;
	enum gpd_role token_role;
	enum gpd_role role;
	bool closing;
	enum gpd_close_code close_code;
	struct gpd_send_queue queue;
	struct gpd_rate_limit rate;
	/* Refusals for the rate it may still get: a second's worth, back at
	 * a tenth of the rate. */
	struct gpd_rate_limit refusals;

	struct gpd_session_sub *subs;
	struct gpd_session_usage *usage;        /* usage subscriptions */
	unsigned n_subs;                        /* both kinds */
	/* Counter evaluations a second, of its subscriptions and
	 * recordings (--max-evaluations). */
	struct gpd_evaluation_budget evaluations;
	uint32_t next_sub_id;
	struct gpd_session_recording *recordings;
	unsigned n_recordings;
	uint32_t next_recording_id;
	struct gpd_session_snapshot *snapshots;        /* newest first */
	unsigned n_snapshots;
	uint32_t next_snapshot_id;

	/* Names the session on the fd socket (Unix-socket sessions). */
	bool has_key;
	uint8_t key[GPD_SESSION_KEY_BYTES];
	struct gpd_passed_fd passed[GPD_SESSION_MAX_PASSED_FDS];
	unsigned n_passed;
	uint32_t next_passed_id;

	/* Frames dropped for reading too slowly, counters' and usage's
	 * apart: each kind's frames say their own. */
	struct gpd_frames_dropped counter_frames_dropped, usage_frames_dropped;

	/* Scratch for building frames. */
	double *values;
	size_t cap_values;
	Gpuperf__ContextRow *rows;
	Gpuperf__ContextRow **row_ptrs;
	size_t cap_rows;
};

/* Creates a session for a client connecting from peer. bearer: the
 * Authorization header, NULL without one. Queues the Hello when the client
 * needs no (more) authentication, an Error when its header is refused or
 * the server has no room for it (gpd_admission_take). -ENOMEM. */
int gpd_session_create(struct gpd_server *server,
		       const struct gpd_session_transport *transport,
		       const struct gpd_session_peer *peer, const char *bearer,
		       struct gpd_session **out);

/* After the server's tokens were reloaded: a session whose token is no
 * longer in the file, or now has another role, is told why and closed.
 * True when it was. */
bool gpd_session_recheck_token(struct gpd_session *s);

/* Ends every subscription and recording and frees the session. */
void gpd_session_destroy(struct gpd_session *s);

/* One whole binary message from the client. */
void gpd_session_receive(struct gpd_session *s, const void *data, size_t len);

/* The transport refuses what the client sent (a text message, one over
 * max_message_bytes): an Error, then the session closes with close_code. */
void gpd_session_fail(struct gpd_session *s, uint64_t request_id,
		      Gpuperf__ErrorCode code, enum gpd_close_code close_code,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The next message to send, removed from the queue (free() it); NULL when
 * none waits. */
struct gpd_message *gpd_session_pop(struct gpd_session *s);

/* True once the session is closing and everything queued went out: the
 * transport closes the connection with s->close_code. */
bool gpd_session_done(const struct gpd_session *s);

/* Queues env (a reply or event, never dropped); a session whose queue is
 * full of them is closed. 0 or -ENOBUFS. */
int gpd_session_send(struct gpd_session *s, const Gpuperf__Envelope *env);

/* The session of a Unix-socket connection whose key is key; NULL if
 * none. */
struct gpd_session *gpd_session_by_key(struct gpd_server *server,
				       const uint8_t *key, size_t len);

/* Keeps fd, a node of device (checked), until a Subscribe names its id
 * (*id) or the session ends. 0, or -ENOBUFS with why in words when the
 * session holds its maximum; fd stays the caller's then. */
int gpd_session_keep_fd(struct gpd_session *s, int fd, const char *device,
			uint32_t *id, struct gpd_error *err);

/* Queues an Error reply to request_id; the session stays open. */
void gpd_session_error(struct gpd_session *s, uint64_t request_id, int code,
		       const char *message);

#endif
