/*
 * Recordings: the daemon writes the device's raw stream in IGT's
 * i915-perf format and sends the file's bytes, in order; the client hands
 * them to the caller as they come.
 *
 * As with subscriptions, nothing here touches a recording after calling
 * back: its handle may be gone by then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

struct gpc_recording {
	struct gpc_client *client;
	struct gpc_recording *next;
	struct gpc_recording_cbs cbs;
	void *user;
	bool started;
	bool stopping;
	uint64_t received;              /* bytes handed to the caller */
	struct gpc_recording_info info;
	char *device;
	char *metric_set;
	char *usage_note;
};

static void unlink_recording(struct gpc_recording *rec)
{
	struct gpc_client *c = rec->client;

	for (struct gpc_recording **p = &c->recordings; *p; p = &(*p)->next) {
		if (*p == rec) {
			*p = rec->next;
			break;
		}
	}
	gpc__client_forget_target(c, rec);
}

static void free_recording(struct gpc_recording *rec)
{
	free(rec->device);
	free(rec->metric_set);
	free(rec->usage_note);
	free(rec);
}

int gpc_record(struct gpc_client *c, const struct gpc_recording_options *o,
	       const struct gpc_recording_cbs *cbs, void *user,
	       struct gpc_recording **out)
{
	Gpuperf__StartRecording m = GPUPERF__START_RECORDING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	struct gpc_recording *rec = calloc(1, sizeof(*rec));

	*out = NULL;
	if (!rec)
		return -ENOMEM;
	rec->client = c;
	if (cbs)
		rec->cbs = *cbs;
	rec->user = user;
	/* protobuf-c takes char *; the strings are only read. */
	m.device = (char *)(o->device ? o->device : "");
	m.metric_set = (char *)(o->metric_set ? o->metric_set : "");
	m.sampling_period_ns = o->sampling_period_ns;
	m.max_bytes = o->max_bytes;
	m.format = o->format == GPC_RECORDING_PERFETTO ?
		   GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_PERFETTO :
		   GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_I915_PERF;
	m.window_ns = o->window_ns;
	m.counters = (char **)o->counters;
	m.n_counters = o->n_counters;
	m.usage_interval_ns = o->usage_interval_ns;
	m.no_usage = o->no_usage;
	env.kind_case = GPUPERF__ENVELOPE__KIND_START_RECORDING;
	env.start_recording = &m;
	int64_t id = gpc__client_request(c, &env, GPC__REQUEST_RECORD, rec,
					 NULL, NULL);
	if (id < 0) {
		free(rec);
		return (int)id;
	}
	rec->next = c->recordings;
	c->recordings = rec;
	*out = rec;
	return 0;
}

void gpc__recording_started(struct gpc_recording *rec,
			    const Gpuperf__Envelope *env)
{
	const Gpuperf__RecordingStarted *m = env->recording_started;

	rec->device = strdup(m->device);
	rec->metric_set = strdup(m->metric_set);
	rec->usage_note = strdup(m->usage_note);
	rec->started = true;
	rec->info.id = m->recording_id;
	rec->info.device = rec->device ? rec->device : "";
	rec->info.metric_set = rec->metric_set ? rec->metric_set : "";
	rec->info.sampling_period_ns = m->sampling_period_ns;
	rec->info.format = m->format == GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_PERFETTO ?
			   GPC_RECORDING_PERFETTO : GPC_RECORDING_I915_PERF;
	rec->info.window_ns = m->window_ns;
	rec->info.usage_interval_ns = m->usage_interval_ns;
	rec->info.usage_note = rec->usage_note ? rec->usage_note : "";
	if (rec->cbs.started)
		rec->cbs.started(rec, NULL, rec->user);
}

void gpc__recording_refused(struct gpc_recording *rec,
			    const struct gpc_error *err)
{
	unlink_recording(rec);
	if (rec->cbs.started)
		rec->cbs.started(rec, err, rec->user);
	free_recording(rec);
}

static struct gpc_recording *find_started(struct gpc_client *c, uint32_t id)
{
	for (struct gpc_recording *rec = c->recordings; rec; rec = rec->next)
		if (rec->started && rec->info.id == id)
			return rec;
	return NULL;
}

/* The daemon sends a file's bytes in order. Bytes anywhere else would be
 * written where the daemon chose, over what was written or far past it:
 * the recording ends there, the bytes unwritten. */
static void refuse_data(struct gpc_recording *rec, const Gpuperf__RecordingData *d)
{
	struct gpc_error err;

	gpc__error_set(&err, -EPROTO, "the daemon sent %zu bytes of recording "
		       "%u at offset %llu, but the next bytes are at %llu; the "
		       "recording is stopped there", d->data.len, rec->info.id,
		       (unsigned long long)d->offset,
		       (unsigned long long)rec->received);
	if (!rec->stopping)
		gpc_recording_stop(rec);
	unlink_recording(rec);
	if (rec->cbs.stopped)
		rec->cbs.stopped(rec, NULL, &err, rec->user);
	free_recording(rec);
}

void gpc__recording_data(struct gpc_client *c, const Gpuperf__RecordingData *d)
{
	struct gpc_recording *rec = find_started(c, d->recording_id);

	if (!rec)
		return;
	if (d->offset != rec->received) {
		refuse_data(rec, d);
		return;
	}
	rec->received += d->data.len;
	if (rec->cbs.data)
		rec->cbs.data(rec, d->offset, d->data.data, d->data.len,
			      rec->user);
}

void gpc__recording_stopped(struct gpc_client *c,
			    const Gpuperf__RecordingStopped *s)
{
	struct gpc_recording *rec = find_started(c, s->recording_id);
	struct gpc_recording_summary summary = {
		.bytes = s->bytes,
		.reports = s->reports,
		.reason = s->reason && s->reason[0] ? s->reason : NULL,
	};

	if (!rec)
		return;
	unlink_recording(rec);
	if (rec->cbs.stopped)
		rec->cbs.stopped(rec, &summary, NULL, rec->user);
	free_recording(rec);
}

void gpc__recordings_lost(struct gpc_client *c, const struct gpc_error *err)
{
	/* Those not yet started learn it through their request. */
	for (struct gpc_recording **p = &c->recordings; *p;) {
		struct gpc_recording *rec = *p;
		if (!rec->started) {
			p = &rec->next;
			continue;
		}
		unlink_recording(rec);
		if (rec->cbs.stopped)
			rec->cbs.stopped(rec, NULL, err, rec->user);
		free_recording(rec);
		p = &c->recordings;
	}
}

void gpc__recordings_free(struct gpc_client *c)
{
	while (c->recordings) {
		struct gpc_recording *rec = c->recordings;
		c->recordings = rec->next;
		free_recording(rec);
	}
}

const struct gpc_recording_info *
gpc_recording_info(const struct gpc_recording *rec)
{
	return rec->started ? &rec->info : NULL;
}

int gpc_recording_stop(struct gpc_recording *rec)
{
	Gpuperf__StopRecording m = GPUPERF__STOP_RECORDING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;

	if (rec->stopping)
		return -EALREADY;
	if (!rec->started)
		return -EINVAL;
	m.recording_id = rec->info.id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_STOP_RECORDING;
	env.stop_recording = &m;
	int64_t id = gpc__client_request(rec->client, &env,
					 GPC__REQUEST_STOP_RECORDING, rec,
					 NULL, NULL);
	if (id < 0)
		return (int)id;
	rec->stopping = true;
	return 0;
}
