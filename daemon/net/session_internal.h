/*
 * A session's insides, shared by session.c (lifecycle, queue, input),
 * session_requests.c (what each request does) and session_streams.c
 * (frames, events and recording bytes on their way out).
 */
#ifndef GPD_NET_SESSION_INTERNAL_H
#define GPD_NET_SESSION_INTERNAL_H

#include "daemon/device.h"
#include "daemon/net/session.h"
#include "daemon/recorder.h"
#include "daemon/snapshot.h"

struct gpd_session_sub {
	struct gpd_session *session;
	struct gpd_session_sub *next;
	uint32_t id;
	uint64_t request_id;            /* of the Subscribe: frames echo it */
	uint64_t mark_request_id;       /* of the Mark END awaiting its frame */
	struct gpd_device *device;
	struct gpd_subscription *sub;
};

struct gpd_session_recording {
	struct gpd_session *session;
	struct gpd_session_recording *next;
	uint32_t id;
	uint64_t request_id;            /* of the StartRecording */
	uint64_t stop_request_id;       /* of the StopRecording, 0 before */
	struct gpd_recorder *recorder;
};

extern const struct gpd_subscriber_ops gpd_session_sub_ops;
extern const struct gpd_recorder_sink_ops gpd_session_recording_ops;

/* Runs a decoded request of an authenticated session. */
void gpd_session_dispatch(struct gpd_session *s, const Gpuperf__Envelope *env);

/* Authenticates with an Auth request (or a header's token): 0 with the
 * role set and an authenticated slot taken; -EACCES for a token the
 * server does not know, -EAGAIN when its address has given too many
 * wrong ones lately (net/auth_brake.h), -EBUSY when it has no room; why
 * says which in words for the client. */
int gpd_session_authenticate(struct gpd_session *s, const char *token,
			     size_t len, Gpuperf__Role wanted,
			     char *why, size_t size);

/* The error code of a refused authentication (gpd_session_authenticate). */
Gpuperf__ErrorCode gpd_session_refusal_code(int code);

/* What one client may leave unread: an equal part of --send-budget among
 * the connections, but never less than a Hello and 256 KiB. */
size_t gpd_session_share(const struct gpd_server *server);

/* Queues m (taking it) within the session's share and the server's
 * budget. A frame or recording bytes over the share are refused
 * (-ENOBUFS, m freed) for the caller to count or stop; a reply or event
 * over it drops the session, as a budget overrun drops the slowest reader
 * of all: their queues are freed, they are told why and closed. -ENOBUFS
 * too when s is closing. */
int gpd_session_queue(struct gpd_session *s, struct gpd_message *m);

/* Queues Hello as the reply to request_id (0: unasked). */
void gpd_session_send_hello(struct gpd_session *s, uint64_t request_id);

/* Ends the session once the queue has gone out. */
void gpd_session_close(struct gpd_session *s, enum gpd_close_code code);

void gpd_session_sub_free(struct gpd_session_sub *ss);
void gpd_session_recording_free(struct gpd_session_recording *sr);

/* session_usage.c: SubscribeUsage; Unsubscribe of a usage subscription
 * (false when id is none); the end of them all. */
void gpd_session_subscribe_usage(struct gpd_session *s,
				 const Gpuperf__Envelope *env);
bool gpd_session_unsubscribe_usage(struct gpd_session *s, uint32_t id);
void gpd_session_usage_free_all(struct gpd_session *s);
/* What this session sees of the processes using a GPU. */
Gpuperf__ProcessVisibility gpd_session_process_visibility(const struct gpd_session *s);
/* session_snapshots.c: a Snapshot request; queuing what the client can
 * take of the snapshots in flight (after each message it took); freeing
 * one. */
void gpd_session_handle_snapshot(struct gpd_session *s,
				 const Gpuperf__Envelope *env);
void gpd_session_pump_snapshots(struct gpd_session *s);
void gpd_session_snapshot_free(struct gpd_session_snapshot *ss);

/* The session's scratch for n doubles; NULL on ENOMEM. */
double *gpd_session_scratch_values(struct gpd_session *s, size_t n);

#endif
