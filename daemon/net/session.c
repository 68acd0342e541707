/*
 * A client's session: authentication, the outgoing queue, and the checks
 * every incoming message passes before its request runs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/net/hello.h"
#include "daemon/net/proto_codec.h"
#include "daemon/net/session_internal.h"

/* A client's share of the send budget is never less than a Hello and this
 * much besides: a client that reads can always be served. */
#define SHARE_ABOVE_HELLO (256u << 10)

/* Decoding may take this many times the message's size in memory; a
 * message needing more is refused as malformed. */
#define DECODE_MEMORY_FACTOR 16

static Gpuperf__Role proto_role(enum gpd_role role)
{
	return role == GPD_ROLE_CONTROLLER ? GPUPERF__ROLE__ROLE_CONTROLLER
					   : GPUPERF__ROLE__ROLE_VIEWER;
}

size_t gpd_session_share(const struct gpd_server *server)
{
	size_t share = server->options.send_budget /
		       (server->n_sessions ? server->n_sessions : 1);
	size_t floor = server->hello_bytes + SHARE_ABOVE_HELLO;
	return share > floor ? share : floor;
}

/* Queues m whatever the limits, counting it in the server's total. */
static int push(struct gpd_session *s, struct gpd_message *m)
{
	size_t len = m->len;
	int ret = gpd_send_queue_push(&s->queue, m);
	if (!ret)
		s->server->queued_bytes += len;
	return ret;
}

static void clear_queue(struct gpd_session *s)
{
	s->server->queued_bytes -= s->queue.bytes;
	gpd_send_queue_clear(&s->queue);
}

static void queue_error(struct gpd_session *s, uint64_t request_id,
			Gpuperf__ErrorCode code, const char *message);

/* A client that leaves more unread than its share is cut off: what waits
 * for it is freed, and it is told why in an Error it may never read. */
static void drop_slow_reader(struct gpd_session *s, size_t share)
{
	struct gpd_server *server = s->server;
	char message[256];
	snprintf(message, sizeof(message), "this connection left %zu bytes "
		 "unread, more than its share of %zu bytes of the server's "
		 "--send-budget: read what the server sends, or ask for less",
		 s->queue.bytes, share);
	gpd_log_throttled(&server->slow_reader_log, GPD_LOG_WARNING,
			  "dropping a client%s%s that reads too slowly: %zu bytes "
			  "unread, its share of --send-budget is %zu",
			  s->peer[0] ? " at " : "", s->peer, s->queue.bytes, share);
	if (!s->closing)
		server->slow_readers_dropped++;
	clear_queue(s);
	queue_error(s, 0, GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED, message);
	gpd_session_close(s, GPD_CLOSE_POLICY_VIOLATION);
}

/* The session holding the most unread bytes. */
static struct gpd_session *slowest_reader(struct gpd_server *server)
{
	struct gpd_session *slowest = server->sessions;
	for (struct gpd_session *s = server->sessions; s; s = s->next)
		if (s->queue.bytes > slowest->queue.bytes)
			slowest = s;
	return slowest;
}

int gpd_session_queue(struct gpd_session *s, struct gpd_message *m)
{
	struct gpd_server *server = s->server;
	size_t share = gpd_session_share(server);
	if (s->closing ||
	    (m->class != GPD_MESSAGE_CONTROL && s->queue.bytes + m->len > share)) {
		free(m);
		return -ENOBUFS;
	}
	int ret = push(s, m);
	if (ret)
		return ret;
	if (s->queue.bytes > share)
		drop_slow_reader(s, share);
	while (server->queued_bytes > server->options.send_budget) {
		struct gpd_session *slowest = slowest_reader(server);
		if (slowest->closing && slowest->queue.bytes <= server->hello_bytes)
			break;
		drop_slow_reader(slowest, share);
	}
	s->transport.wake(s->transport.user);
	return s->closing ? -ENOBUFS : 0;
}

int gpd_session_send(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	if (s->closing)
		return -ENOBUFS;
	struct gpd_message *m = gpd_proto_pack(&s->queue, GPD_MESSAGE_CONTROL, env);
	if (!m) {
		gpd_session_close(s, GPD_CLOSE_INTERNAL_ERROR);
		return -ENOMEM;
	}
	return gpd_session_queue(s, m);
}

void gpd_session_close(struct gpd_session *s, enum gpd_close_code code)
{
	if (s->closing)
		return;
	s->closing = true;
	s->close_code = code;
	s->transport.wake(s->transport.user);
}

static void queue_error(struct gpd_session *s, uint64_t request_id,
			Gpuperf__ErrorCode code, const char *message)
{
	Gpuperf__Error e = GPUPERF__ERROR__INIT;
	e.code = code;
	e.message = (char *)message;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_ERROR;
	env.error = &e;
	gpd_session_send(s, &env);
}

void gpd_session_error(struct gpd_session *s, uint64_t request_id, int code,
		       const char *message)
{
	queue_error(s, request_id, gpd_proto_error_code(code), message);
}

void gpd_session_fail(struct gpd_session *s, uint64_t request_id,
		      Gpuperf__ErrorCode code, enum gpd_close_code close_code,
		      const char *fmt, ...)
{
	if (s->closing)
		return;
	char message[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	gpd_debug("closing a connection: %s", message);
	queue_error(s, request_id, code, message);
	gpd_session_close(s, close_code);
}

Gpuperf__ErrorCode gpd_session_refusal_code(int code)
{
	return code == -EBUSY ? GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED :
	       code == -EAGAIN ? GPUPERF__ERROR_CODE__RATE_LIMITED :
	       GPUPERF__ERROR_CODE__UNAUTHENTICATED;
}

/* Ends a session the server will not keep: a refused token, or no room.
 * 1013 (try again later) would say the latter better, but clients built
 * on libwebsockets 4.1 take it for a protocol error. */
static void refuse(struct gpd_session *s, int code, const char *why)
{
	gpd_session_fail(s, 0, gpd_session_refusal_code(code),
			 GPD_CLOSE_POLICY_VIOLATION, "%s", why);
}

void gpd_session_send_hello(struct gpd_session *s, uint64_t request_id)
{
	const struct gpd_server_options *o = &s->server->options;
	Gpuperf__Limits limits = GPUPERF__LIMITS__INIT;
	limits.max_message_bytes = o->max_message_bytes;
	limits.max_requests_per_second = o->max_requests_per_second;
	limits.max_subscriptions = o->max_subscriptions;
	limits.max_evaluations_per_second = o->max_evaluations;
	limits.max_recordings = GPD_SESSION_MAX_RECORDINGS;
	limits.queue_frames = o->queue_frames;
	limits.max_connections = o->max_connections;
	limits.min_window_ns = GPD_SESSION_MIN_WINDOW_NS;
	limits.min_usage_interval_ns = GPD_USAGE_MIN_INTERVAL_NS;
	limits.max_snapshots = o->snapshots_need_controller &&
			       s->role != GPD_ROLE_CONTROLLER ?
			       0 : GPD_SESSION_MAX_SNAPSHOTS;
	if (s->closing)
		return;
	limits.process_visibility = gpd_session_process_visibility(s);
	const char *fd_socket = s->has_key ? gpd_server_fd_socket(s->server)
					   : NULL;
	limits.max_passed_fds = fd_socket ? GPD_SESSION_MAX_PASSED_FDS : 0;
	struct gpd_message *m = gpd_hello_pack_session(s->server->hello,
						       &s->queue, request_id,
						       proto_role(s->role),
						       &limits, fd_socket, s->key,
						       sizeof(s->key));
	if (!m) {
		gpd_session_close(s, GPD_CLOSE_INTERNAL_ERROR);
		return;
	}
	gpd_session_queue(s, m);
}

int gpd_session_authenticate(struct gpd_session *s, const char *token,
			     size_t len, Gpuperf__Role wanted,
			     char *why, size_t size)
{
	enum gpd_role role;
	if (len) {
		int ret = gpd_server_check_token(s->server, s->peer, token, len,
						 &role, why, size);
		if (ret)
			return ret;
		memcpy(s->token, token, len);
		s->token_len = len;
		s->token_role = role;
	} else if (s->trusted) {
		/* Whoever can reach a loopback or Unix socket already runs
		 * on this machine. */
		role = GPD_ROLE_CONTROLLER;
	} else if (s->authenticated) {
		role = s->role;
	} else {
		snprintf(why, size, "this address needs a token: send it as "
			 "`Authorization: Bearer TOKEN` or in an Auth request");
		return -EACCES;
	}
	int ret = gpd_admission_take(s->server, s, s->unix_socket ? GPD_SLOT_UNIX
							      : GPD_SLOT_TCP,
				     why, size);
	if (ret)
		return ret;
	if (wanted == GPUPERF__ROLE__ROLE_VIEWER)
		role = GPD_ROLE_VIEWER;
	s->role = role;
	s->authenticated = true;
	return 0;
}

int gpd_session_create(struct gpd_server *server,
		       const struct gpd_session_transport *transport,
		       const struct gpd_session_peer *peer, const char *bearer,
		       struct gpd_session **out)
{
	struct gpd_session *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->server = server;
	s->transport = *transport;
	s->trusted = peer->trusted;
	s->unix_socket = peer->unix_socket;
	/* A key nobody else can guess: whoever holds it may hand this
	 * session files (fd_socket.c). */
	s->has_key = s->unix_socket &&
		     getrandom(s->key, sizeof(s->key), 0) == (ssize_t)sizeof(s->key);
	snprintf(s->peer, sizeof(s->peer), "%s", peer->address ? peer->address : "");
	s->role = GPD_ROLE_VIEWER;
	s->next_sub_id = 1;
	s->next_recording_id = 1;
	s->next_snapshot_id = 1;
	s->evaluations.max = server->options.max_evaluations;
	gpd_send_queue_init(&s->queue, transport->headroom,
			    server->options.queue_frames, SIZE_MAX);
	gpd_rate_limit_init(&s->rate, server->options.max_requests_per_second,
			    gpd_monotonic_ns());
	gpd_rate_limit_init_burst(&s->refusals,
				  (server->options.max_requests_per_second + 9) / 10,
				  server->options.max_requests_per_second,
				  gpd_monotonic_ns());
	s->next = server->sessions;
	if (s->next)
		s->next->prev_next = &s->next;
	s->prev_next = &server->sessions;
	server->sessions = s;
	server->n_sessions++;
	*out = s;

	const char *token = NULL;
	size_t len = 0;
	if (bearer && gpd_auth_parse_bearer(bearer, &token, &len)) {
		gpd_session_fail(s, 0, GPUPERF__ERROR_CODE__UNAUTHENTICATED,
				 GPD_CLOSE_POLICY_VIOLATION,
				 "the Authorization header is not `Bearer TOKEN`");
		return 0;
	}
	char why[256];
	if (len || s->trusted) {
		int ret = gpd_session_authenticate(s, token, len,
						   GPUPERF__ROLE__ROLE_UNSPECIFIED,
						   why, sizeof(why));
		if (ret) {
			refuse(s, ret, why);
			return 0;
		}
		gpd_session_send_hello(s, 0);
	} else if (gpd_admission_take(server, s, GPD_SLOT_WAITING, why,
				      sizeof(why))) {
		refuse(s, -EBUSY, why);
	}
	return 0;
}

bool gpd_session_recheck_token(struct gpd_session *s)
{
	enum gpd_role role;
	if (!s->token_len || s->closing)
		return false;
	bool kept = !gpd_auth_check(&s->server->auth, s->token, s->token_len,
				    &role);
	if (kept && role == s->token_role)
		return false;
	gpd_session_fail(s, 0, GPUPERF__ERROR_CODE__UNAUTHENTICATED,
			 GPD_CLOSE_POLICY_VIOLATION, kept ?
			 "the role of this connection's token changed in the "
			 "server's --token-file; connect again" :
			 "this connection's token was removed from the server's "
			 "--token-file; connect again with a current one");
	return true;
}

void gpd_session_destroy(struct gpd_session *s)
{
	if (!s)
		return;
	gpd_admission_release(s->server, s);
	while (s->subs)
		gpd_session_sub_free(s->subs);
	gpd_session_usage_free_all(s);
	while (s->recordings)
		gpd_session_recording_free(s->recordings);
	while (s->snapshots)
		gpd_session_snapshot_free(s->snapshots);
	clear_queue(s);
	for (unsigned i = 0; i < s->n_passed; i++)
		close(s->passed[i].fd);
	s->server->n_passed_fds -= s->n_passed;
	*s->prev_next = s->next;
	if (s->next)
		s->next->prev_next = s->prev_next;
	s->server->n_sessions--;
	if (s->transport.detach)
		s->transport.detach(s->transport.user);
	free(s->values);
	free(s->rows);
	free(s->row_ptrs);
	free(s);
}

struct gpd_session *gpd_session_by_key(struct gpd_server *server,
				       const uint8_t *key, size_t len)
{
	if (len != GPD_SESSION_KEY_BYTES)
		return NULL;
	for (struct gpd_session *s = server->sessions; s; s = s->next)
		if (s->has_key && !s->closing &&
		    !memcmp(s->key, key, GPD_SESSION_KEY_BYTES))
			return s;
	return NULL;
}

int gpd_session_keep_fd(struct gpd_session *s, int fd, const char *device,
			uint32_t *id, struct gpd_error *err)
{
	if (s->n_passed >= GPD_SESSION_MAX_PASSED_FDS)
		return gpd_fail(err, -ENOBUFS, "this connection holds its maximum "
				"of %u passed DRM files; subscribe with one first, "
				"or connect again", GPD_SESSION_MAX_PASSED_FDS);
	/* Each is a descriptor of the daemon's: connections together must
	 * not run it out of them. */
	if (s->server->n_passed_fds >= s->server->options.max_passed_fds)
		return gpd_fail(err, -ENOBUFS, "the daemon holds its maximum of "
				"%u passed DRM files for all connections "
				"(--max-passed-fds); subscribe with one you passed, "
				"or try again when others have",
				s->server->options.max_passed_fds);
	s->server->n_passed_fds++;
	struct gpd_passed_fd *p = &s->passed[s->n_passed++];
	p->id = ++s->next_passed_id;
	p->fd = fd;
	p->device = device;
	*id = p->id;
	return 0;
}

struct gpd_message *gpd_session_pop(struct gpd_session *s)
{
	struct gpd_message *m = gpd_send_queue_pop(&s->queue);
	if (m)
		s->server->queued_bytes -= m->len;
	/* The client takes messages: room for more of its snapshots. */
	if (m && s->snapshots)
		gpd_session_pump_snapshots(s);
	return m;
}

bool gpd_session_done(const struct gpd_session *s)
{
	return s->closing && gpd_send_queue_empty(&s->queue);
}

double *gpd_session_scratch_values(struct gpd_session *s, size_t n)
{
	if (n > s->cap_values) {
		double *v = realloc(s->values, n * sizeof(*v));
		if (!v)
			return NULL;
		s->values = v;
		s->cap_values = n;
	}
	return s->values;
}

void gpd_session_receive(struct gpd_session *s, const void *data, size_t len)
{
	if (s->closing)
		return;
	struct gpd_proto_allocator alloc;
	gpd_proto_allocator_init(&alloc, (len + 64) * DECODE_MEMORY_FACTOR);
	Gpuperf__Envelope *env;
	char why[256];
	int ret = gpd_proto_decode_request(&alloc, data, len, &env, why, sizeof(why));
	if (ret) {
		gpd_session_fail(s, env ? env->request_id : 0,
				 GPUPERF__ERROR_CODE__MALFORMED,
				 GPD_CLOSE_PROTOCOL_ERROR, "%s", why);
		gpd_proto_free_request(&alloc, env);
		return;
	}
	uint32_t rate = s->server->options.max_requests_per_second;
	uint64_t now = gpd_monotonic_ns();
	if (!gpd_rate_limit_take(&s->rate, now)) {
		/* A client that goes on sending after a second's worth of
		 * refusals is not listening to them. */
		if (!gpd_rate_limit_take(&s->refusals, now)) {
			gpd_session_fail(s, env->request_id,
					 GPUPERF__ERROR_CODE__RATE_LIMITED,
					 GPD_CLOSE_POLICY_VIOLATION,
					 "more than %u requests refused over the "
					 "limit of %u a second; closing", rate, rate);
		} else {
			char message[160];
			snprintf(message, sizeof(message),
				 "more than %u requests a second; this one was "
				 "not run, send it again later", rate);
			queue_error(s, env->request_id,
				    GPUPERF__ERROR_CODE__RATE_LIMITED, message);
		}
	} else if (!s->authenticated &&
		   env->kind_case != GPUPERF__ENVELOPE__KIND_AUTH) {
		/* Before authenticating, a client may only say who it is. */
		gpd_session_fail(s, env->request_id,
				 GPUPERF__ERROR_CODE__UNAUTHENTICATED,
				 GPD_CLOSE_POLICY_VIOLATION,
				 "this address needs a token: send it as "
				 "`Authorization: Bearer TOKEN` or in an Auth "
				 "request first");
	} else {
		gpd_session_dispatch(s, env);
	}
	gpd_proto_free_request(&alloc, env);
}
