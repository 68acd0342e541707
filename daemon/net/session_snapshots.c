/*
 * Snapshots of a device's flight recorder for a client: the request
 * checked whole, the copy taken at once, and its bytes fed into the
 * connection's queue as the client reads them, so a snapshot never holds
 * more of the queue than SNAPSHOT_QUEUE_BYTES.
 *
 * The copies in transfer, every connection's together, hold at most the
 * server's snapshot_memory; a request past it is refused, and the
 * connections whose snapshots have not moved for STALLED_NS are closed to
 * give theirs back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/device_registry.h"
#include "daemon/log.h"
#include "daemon/net/proto_codec.h"
#include "daemon/net/session_internal.h"

/* The bytes of one SnapshotData. */
#define SNAPSHOT_CHUNK (64u << 10)
/* A snapshot's bytes queued for the client at once. */
#define SNAPSHOT_QUEUE_BYTES (1u << 20)
/* A snapshot whose client took nothing for this long gives way to a new
 * one when memory is short. */
#define STALLED_NS (30ull * 1000000000ull)
/* A to_cpu_ns this far ahead of the server's clock is the clocks' own
 * disagreement, not a wish for the future. */
#define CLOCK_SLACK_NS 50000000ull

struct gpd_session_snapshot {
	struct gpd_session *session;
	struct gpd_session_snapshot *next;
	uint32_t id;
	uint64_t request_id;
	struct gpd_snapshot snap;
	size_t segment;                 /* being sent */
	size_t offset;                  /* in that segment's recording */
	uint64_t moved_ns;              /* when a chunk last went out */
};

void gpd_session_snapshot_free(struct gpd_session_snapshot *ss)
{
	struct gpd_session *s = ss->session;
	for (struct gpd_session_snapshot **p = &s->snapshots; *p; p = &(*p)->next) {
		if (*p == ss) {
			*p = ss->next;
			s->n_snapshots--;
			break;
		}
	}
	s->server->snapshot_bytes -= ss->snap.size;
	gpd_snapshot_free(&ss->snap);
	free(ss);
}

static void send_done(struct gpd_session_snapshot *ss)
{
	Gpuperf__SnapshotDone m = GPUPERF__SNAPSHOT_DONE__INIT;
	m.snapshot_id = ss->id;
	m.bytes = ss->snap.size;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = ss->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SNAPSHOT_DONE;
	env.snapshot_done = &m;
	gpd_session_send(ss->session, &env);
}

/* Queues the next chunk; false when the queue has no room for it. */
static bool send_chunk(struct gpd_session_snapshot *ss)
{
	struct gpd_session *s = ss->session;
	const struct gpd_snapshot_segment *seg = &ss->snap.segments[ss->segment];
	size_t len = seg->size - ss->offset;
	if (len > SNAPSHOT_CHUNK)
		len = SNAPSHOT_CHUNK;
	Gpuperf__SnapshotData m = GPUPERF__SNAPSHOT_DATA__INIT;
	m.snapshot_id = ss->id;
	m.segment = (uint32_t)ss->segment;
	m.offset = ss->offset;
	m.data.len = len;
	m.data.data = ss->snap.data + seg->offset + ss->offset;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = ss->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SNAPSHOT_DATA;
	env.snapshot_data = &m;
	struct gpd_message *msg = gpd_proto_pack(&s->queue, GPD_MESSAGE_RECORDING,
						 &env);
	if (!msg || gpd_session_queue(s, msg))
		return false;
	ss->offset += len;
	ss->moved_ns = gpd_monotonic_ns();
	if (ss->offset == seg->size) {
		ss->segment++;
		ss->offset = 0;
	}
	return true;
}

void gpd_session_pump_snapshots(struct gpd_session *s)
{
	bool woke = false;
	while (s->snapshots && !s->closing &&
	       s->queue.recording_bytes < SNAPSHOT_QUEUE_BYTES) {
		/* The oldest first, whole, as the client asked for them. */
		struct gpd_session_snapshot *ss = s->snapshots;
		while (ss->next)
			ss = ss->next;
		if (ss->segment == ss->snap.n_segments) {
			send_done(ss);
			gpd_session_snapshot_free(ss);
			continue;
		}
		if (!send_chunk(ss))
			break;
		woke = true;
	}
	if (woke)
		s->transport.wake(s->transport.user);
}

/* Closes connections whose snapshots stalled, for their memory. */
static void close_stalled(struct gpd_server *server, uint64_t now)
{
	for (struct gpd_session *s = server->sessions; s; s = s->next) {
		for (struct gpd_session_snapshot *ss = s->snapshots; ss;
		     ss = ss->next) {
			if (now - ss->moved_ns < STALLED_NS || s->closing)
				continue;
			gpd_warn("a client took nothing of its snapshot for %llu s "
				 "while another wants the memory; closing its "
				 "connection",
				 (unsigned long long)(STALLED_NS / 1000000000ull));
			gpd_session_fail(s, ss->request_id,
					 GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED,
					 GPD_CLOSE_POLICY_VIOLATION,
					 "this connection read nothing of its "
					 "snapshot for %llu s while memory was "
					 "short; it is closed",
					 (unsigned long long)(STALLED_NS / 1000000000ull));
			break;
		}
	}
}

/* The span asked for, in CLOCK_MONOTONIC; -EINVAL with words. */
static int resolve_span(const Gpuperf__Snapshot *r, uint64_t now,
			uint64_t *from, uint64_t *to, char *why, size_t size)
{
	if (r->last_ns && r->from_cpu_ns) {
		snprintf(why, size, "a Snapshot gives last_ns or from_cpu_ns, "
			 "not both");
		return -EINVAL;
	}
	if (r->to_cpu_ns > now + CLOCK_SLACK_NS) {
		snprintf(why, size, "to_cpu_ns lies %.3f s ahead of the "
			 "server's clock (CLOCK_MONOTONIC, as frames give "
			 "times); ask once that time has passed",
			 (double)(r->to_cpu_ns - now) / 1e9);
		return -EINVAL;
	}
	uint64_t end = r->to_cpu_ns ? r->to_cpu_ns : now;
	*to = r->to_cpu_ns;
	*from = r->from_cpu_ns;
	if (r->last_ns)
		*from = r->last_ns < end ? end - r->last_ns : 0;
	if (*to && *from > *to) {
		snprintf(why, size, "from_cpu_ns is after to_cpu_ns");
		return -EINVAL;
	}
	return 0;
}

static void send_started(struct gpd_session_snapshot *ss,
			 const struct gpd_device *dev)
{
	const struct gpd_snapshot *snap = &ss->snap;
	Gpuperf__SnapshotSegment *segs = calloc(snap->n_segments, sizeof(*segs));
	Gpuperf__SnapshotSegment **ptrs = calloc(snap->n_segments, sizeof(*ptrs));
	if (!segs || !ptrs) {
		free(segs);
		free(ptrs);
		gpd_session_close(ss->session, GPD_CLOSE_INTERNAL_ERROR);
		return;
	}
	for (size_t i = 0; i < snap->n_segments; i++) {
		const struct gpd_snapshot_segment *src = &snap->segments[i];
		Gpuperf__SnapshotSegment *seg = &segs[i];
		gpuperf__snapshot_segment__init(seg);
		seg->metric_set = (char *)src->metric_set;
		seg->sampling_period_ns = src->period_ns;
		seg->bytes = src->size;
		seg->reports = src->reports;
		seg->reports_lost = src->reports_lost;
		seg->buffers_lost = src->buffers_lost;
		seg->cpu_start_ns = src->cpu_start_ns;
		seg->cpu_end_ns = src->cpu_end_ns;
		seg->truncated = src->truncated;
		ptrs[i] = seg;
	}
	Gpuperf__SnapshotStarted m = GPUPERF__SNAPSHOT_STARTED__INIT;
	m.snapshot_id = ss->id;
	m.device = dev->source->name;
	m.n_segments = snap->n_segments;
	m.segments = ptrs;
	m.bytes = snap->size;
	m.ring_records_overwritten = snap->ring.records_overwritten;
	m.ring_bytes = snap->ring.capacity;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = ss->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SNAPSHOT_STARTED;
	env.snapshot_started = &m;
	gpd_session_send(ss->session, &env);
	free(segs);
	free(ptrs);
}

void gpd_session_handle_snapshot(struct gpd_session *s,
				 const Gpuperf__Envelope *env)
{
	const Gpuperf__Snapshot *r = env->snapshot;
	struct gpd_server *server = s->server;
	char why[256];
	if (server->options.snapshots_need_controller &&
	    s->role != GPD_ROLE_CONTROLLER) {
		gpd_session_error(s, env->request_id, -EPERM,
				  "on this server only controllers take "
				  "snapshots (--snapshot-role controller); "
				  "connect with a controller token");
		return;
	}
	if (s->n_snapshots >= GPD_SESSION_MAX_SNAPSHOTS) {
		snprintf(why, sizeof(why), "this connection has %u snapshots "
			 "being sent; ask again after a SnapshotDone",
			 s->n_snapshots);
		gpd_session_error(s, env->request_id, -ENOBUFS, why);
		return;
	}
	uint64_t now = gpd_monotonic_ns(), from, to;
	int ret = resolve_span(r, now, &from, &to, why, sizeof(why));
	if (ret) {
		gpd_session_error(s, env->request_id, ret, why);
		return;
	}
	const char *name = r->device && *r->device ? r->device : NULL;
	struct gpd_device *dev = gpd_device_registry_find(server->devices, name);
	if (!dev) {
		snprintf(why, sizeof(why), "no device '%s'; list them with "
			 "'gpuperf devices'", name ? name : "");
		gpd_session_error(s, env->request_id, -ENODEV, why);
		return;
	}
	struct gpd_session_snapshot *ss = calloc(1, sizeof(*ss));
	struct gpd_error err = { 0 };
	if (!ss) {
		gpd_session_error(s, env->request_id, -ENOMEM, "out of memory");
		return;
	}
	/* While others are being sent, one that may not fit is refused
	 * before the ring is copied, not after. */
	bool may_not_fit = server->snapshot_bytes &&
			   server->snapshot_bytes + gpd_snapshot_bound(dev) >
				   server->options.snapshot_memory;
	if (!may_not_fit)
		ret = gpd_snapshot_take(dev, from, to, &ss->snap, &err);
	if (may_not_fit || (!ret && server->snapshot_bytes + ss->snap.size >
					    server->options.snapshot_memory)) {
		close_stalled(server, now);
		ret = gpd_fail(&err, -E2BIG, "snapshots being sent hold %.1f MB "
			       "and this one takes %.1f MB, more than the server "
			       "allows (%.1f MB, its --flight-recorder-memory); "
			       "ask again once they are sent, or for a shorter "
			       "span", (double)server->snapshot_bytes / 1e6,
			       (double)(may_not_fit ? gpd_snapshot_bound(dev)
						    : ss->snap.size) / 1e6,
			       (double)server->options.snapshot_memory / 1e6);
		gpd_snapshot_free(&ss->snap);
	}
	if (ret) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		free(ss);
		return;
	}
	server->snapshot_bytes += ss->snap.size;
	ss->session = s;
	ss->id = s->next_snapshot_id++;
	ss->request_id = env->request_id;
	ss->moved_ns = now;
	ss->next = s->snapshots;
	s->snapshots = ss;
	s->n_snapshots++;
	send_started(ss, dev);
	gpd_session_pump_snapshots(s);
}
