/*
 * Snapshots of a device's flight recorder: the daemon copies what its ring
 * holds of a span at once and sends each segment's recording, in order;
 * the client hands the bytes to the caller as they come.
 *
 * As with recordings, nothing here touches a snapshot after calling back
 * its last callback: its handle is gone by then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

struct gpc_snapshot {
	struct gpc_client *client;
	struct gpc_snapshot *next;
	struct gpc_snapshot_cbs cbs;
	void *user;
	bool started;
	struct gpc_snapshot_info info;
	Gpuperf__Envelope *started_env;         /* the strings of info */
	struct gpc_snapshot_segment *segments;
};

static void unlink_snapshot(struct gpc_snapshot *snap)
{
	struct gpc_client *c = snap->client;

	for (struct gpc_snapshot **p = &c->snapshots; *p; p = &(*p)->next) {
		if (*p == snap) {
			*p = snap->next;
			break;
		}
	}
	gpc__client_forget_target(c, snap);
}

static void free_snapshot(struct gpc_snapshot *snap)
{
	if (snap->started_env)
		gpuperf__envelope__free_unpacked(snap->started_env, NULL);
	free(snap->segments);
	free(snap);
}

int gpc_snapshot(struct gpc_client *c, const struct gpc_snapshot_options *o,
		 const struct gpc_snapshot_cbs *cbs, void *user,
		 struct gpc_snapshot **out)
{
	Gpuperf__Snapshot m = GPUPERF__SNAPSHOT__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	struct gpc_snapshot *snap = calloc(1, sizeof(*snap));

	*out = NULL;
	if (!snap)
		return -ENOMEM;
	snap->client = c;
	if (cbs)
		snap->cbs = *cbs;
	snap->user = user;
	/* protobuf-c takes char *; the string is only read. */
	m.device = (char *)(o->device ? o->device : "");
	m.last_ns = o->last_ns;
	m.from_cpu_ns = o->from_cpu_ns;
	m.to_cpu_ns = o->to_cpu_ns;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SNAPSHOT;
	env.snapshot = &m;
	int64_t id = gpc__client_request(c, &env, GPC__REQUEST_SNAPSHOT, snap,
					 NULL, NULL);
	if (id < 0) {
		free(snap);
		return (int)id;
	}
	snap->next = c->snapshots;
	c->snapshots = snap;
	*out = snap;
	return 0;
}

void gpc__snapshot_started(struct gpc_snapshot *snap, Gpuperf__Envelope *env)
{
	const Gpuperf__SnapshotStarted *m = env->snapshot_started;
	struct gpc_error err;

	snap->started_env = env;
	snap->segments = calloc(m->n_segments ? m->n_segments : 1,
				sizeof(*snap->segments));
	if (!snap->segments) {
		gpc__error_set(&err, -ENOMEM, "out of memory");
		gpc__snapshot_refused(snap, &err);
		return;
	}
	for (size_t i = 0; i < m->n_segments; i++) {
		const Gpuperf__SnapshotSegment *src = m->segments[i];
		snap->segments[i] = (struct gpc_snapshot_segment){
			.metric_set = src->metric_set,
			.sampling_period_ns = src->sampling_period_ns,
			.bytes = src->bytes,
			.reports = src->reports,
			.reports_lost = src->reports_lost,
			.buffers_lost = src->buffers_lost,
			.cpu_start_ns = src->cpu_start_ns,
			.cpu_end_ns = src->cpu_end_ns,
			.truncated = src->truncated,
		};
	}
	snap->info = (struct gpc_snapshot_info){
		.id = m->snapshot_id,
		.device = m->device,
		.n_segments = m->n_segments,
		.segments = snap->segments,
		.bytes = m->bytes,
		.ring_records_overwritten = m->ring_records_overwritten,
		.ring_bytes = m->ring_bytes,
	};
	snap->started = true;
	if (snap->cbs.started)
		snap->cbs.started(snap, &snap->info, NULL, snap->user);
}

void gpc__snapshot_refused(struct gpc_snapshot *snap, const struct gpc_error *err)
{
	unlink_snapshot(snap);
	if (snap->cbs.started)
		snap->cbs.started(snap, NULL, err, snap->user);
	free_snapshot(snap);
}

static struct gpc_snapshot *find_started(struct gpc_client *c, uint32_t id)
{
	for (struct gpc_snapshot *snap = c->snapshots; snap; snap = snap->next)
		if (snap->started && snap->info.id == id)
			return snap;
	return NULL;
}

void gpc__snapshot_data(struct gpc_client *c, const Gpuperf__SnapshotData *d)
{
	struct gpc_snapshot *snap = find_started(c, d->snapshot_id);

	if (snap && d->segment < snap->info.n_segments && snap->cbs.data)
		snap->cbs.data(snap, d->segment, d->offset, d->data.data,
			       d->data.len, snap->user);
}

void gpc__snapshot_done(struct gpc_client *c, const Gpuperf__SnapshotDone *d)
{
	struct gpc_snapshot *snap = find_started(c, d->snapshot_id);

	if (!snap)
		return;
	unlink_snapshot(snap);
	if (snap->cbs.done)
		snap->cbs.done(snap, NULL, snap->user);
	free_snapshot(snap);
}

void gpc__snapshots_lost(struct gpc_client *c, const struct gpc_error *err)
{
	/* Those not yet started learn it through their request. */
	for (struct gpc_snapshot **p = &c->snapshots; *p;) {
		struct gpc_snapshot *snap = *p;
		if (!snap->started) {
			p = &snap->next;
			continue;
		}
		unlink_snapshot(snap);
		if (snap->cbs.done)
			snap->cbs.done(snap, err, snap->user);
		free_snapshot(snap);
		p = &c->snapshots;
	}
}

void gpc__snapshots_free(struct gpc_client *c)
{
	while (c->snapshots) {
		struct gpc_snapshot *snap = c->snapshots;
		c->snapshots = snap->next;
		free_snapshot(snap);
	}
}

void gpc_snapshot_abandon(struct gpc_snapshot *snap)
{
	unlink_snapshot(snap);
	free_snapshot(snap);
}

const struct gpc_snapshot_info *gpc_snapshot_info(const struct gpc_snapshot *snap)
{
	return snap->started ? &snap->info : NULL;
}
