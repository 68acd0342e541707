/*
 * What flows to a client unasked: frames and stream events of its
 * subscriptions, and the bytes of its recordings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/net/hello.h"
#include "daemon/net/proto_codec.h"
#include "daemon/net/session_internal.h"

static void drop_frame(struct gpd_session *s)
{
	s->counter_frames_dropped.since_last++;
	s->counter_frames_dropped.total++;
	s->server->counter_frames_dropped++;
}

static bool reserve_rows(struct gpd_session *s, size_t n)
{
	if (n <= s->cap_rows)
		return true;
	Gpuperf__ContextRow *rows = realloc(s->rows, n * sizeof(*rows));
	if (rows)
		s->rows = rows;
	Gpuperf__ContextRow **ptrs = realloc(s->row_ptrs, n * sizeof(*ptrs));
	if (ptrs)
		s->row_ptrs = ptrs;
	if (!rows || !ptrs)
		return false;
	s->cap_rows = n;
	return true;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct gpd_session_sub *ss = user;
	struct gpd_session *s = ss->session;
	if (s->closing)
		return;
	/* The frame closing a Mark answers a request, and the last one
	 * ends the subscription: never dropped. */
	enum gpd_message_class class = f->from_mark || f->last ?
				       GPD_MESSAGE_CONTROL : GPD_MESSAGE_FRAME;
	if (class == GPD_MESSAGE_FRAME && !gpd_send_queue_frame_fits(&s->queue)) {
		drop_frame(s);
		return;
	}
	size_t nv = f->n_values, nc = f->n_contexts;
	double *values = gpd_session_scratch_values(s, nv * (1 + nc) + 1);
	if (!values || !reserve_rows(s, nc)) {
		drop_frame(s);
		return;
	}
	for (size_t i = 0; i < nv; i++)
		values[i] = gpm_value_as_double(f->values[i]);
	for (size_t c = 0; c < nc; c++) {
		const struct gpd_context_row *src = &f->contexts[c];
		Gpuperf__ContextRow *row = &s->rows[c];
		double *row_values = values + nv * (1 + c);
		gpuperf__context_row__init(row);
		row->idle = src->ctx_id == GPD_CTX_IDLE;
		row->ctx_id = row->idle ? 0 : src->ctx_id;
		row->reports = src->reports;
		row->gpu_time_ns = src->gpu_time_ns;
		for (size_t i = 0; i < nv; i++)
			row_values[i] = gpm_value_as_double(src->values[i]);
		row->n_values = nv;
		row->values = row_values;
		if (src->raw) {
			row->n_raw = GPM_ACC_SLOTS;
			row->raw = (uint64_t *)src->raw->slot;
		}
		s->row_ptrs[c] = row;
	}
	Gpuperf__Frame m = GPUPERF__FRAME__INIT;
	m.subscription_id = ss->id;
	m.device = ss->device->source->name;
	m.gpu_start_ns = f->gpu_start_ns;
	m.gpu_end_ns = f->gpu_end_ns;
	m.cpu_start_ns = f->cpu_start_ns;
	m.cpu_end_ns = f->cpu_end_ns;
	m.boottime_case = GPUPERF__FRAME__BOOTTIME_CPU_START_BOOTTIME_NS;
	m.cpu_start_boottime_ns = gpd_boottime_at(f->cpu_start_ns);
	m.reports = f->reports;
	m.lost_reports = f->lost_reports;
	m.buffer_lost = f->buffer_lost;
	m.mark = f->from_mark;
	m.partial = f->partial;
	m.last = f->last;
	m.within_mark = f->within_mark;
	m.n_values = nv;
	m.values = values;
	if (f->raw) {
		m.n_raw = GPM_ACC_SLOTS;
		m.raw = (uint64_t *)f->raw->slot;
	}
	m.n_contexts = nc;
	m.contexts = s->row_ptrs;
	m.frames_dropped = s->counter_frames_dropped.since_last;
	m.frames_dropped_total = s->counter_frames_dropped.total;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = f->from_mark ? ss->mark_request_id : ss->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_FRAME;
	env.frame = &m;
	if (class == GPD_MESSAGE_CONTROL) {
		gpd_session_send(s, &env);
		return;
	}
	struct gpd_message *msg = gpd_proto_pack(&s->queue, class, &env);
	if (!msg || gpd_session_queue(s, msg)) {
		drop_frame(s);
		return;
	}
	s->counter_frames_dropped.since_last = 0;
}

static Gpuperf__StreamEvent__Kind event_kind(enum gpd_event_kind kind)
{
	switch (kind) {
	case GPD_EVENT_CONFIG_CHANGED:
		return GPUPERF__STREAM_EVENT__KIND__CONFIG_CHANGED;
	case GPD_EVENT_BUSY_ELSEWHERE:
		return GPUPERF__STREAM_EVENT__KIND__BUSY_ELSEWHERE;
	case GPD_EVENT_DEVICE_LOST:
		return GPUPERF__STREAM_EVENT__KIND__DEVICE_LOST;
	case GPD_EVENT_RECOVERED:
		return GPUPERF__STREAM_EVENT__KIND__RECOVERED;
	case GPD_EVENT_ENDED:
		return GPUPERF__STREAM_EVENT__KIND__ENDED;
	case GPD_EVENT_RESTARTED:
		return GPUPERF__STREAM_EVENT__KIND__RESTARTED;
	case GPD_EVENT_TRIGGER_FIRED:
		return GPUPERF__STREAM_EVENT__KIND__TRIGGER_FIRED;
	}
	return GPUPERF__STREAM_EVENT__KIND__KIND_UNSPECIFIED;
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct gpd_session_sub *ss = user;
	struct gpd_session *s = ss->session;
	Gpuperf__Configuration config;
	gpd_hello_configuration(ss->device, &config);
	Gpuperf__StreamEvent m = GPUPERF__STREAM_EVENT__INIT;
	m.kind = event_kind(ev->kind);
	m.device = ss->device->source->name;
	m.message = (char *)(ev->message ? ev->message : "");
	m.subscription_id = ss->id;
	m.configuration = &config;
	if (ev->kind == GPD_EVENT_CONFIG_CHANGED) {
		const char *const *symbols;
		m.n_counters = gpd_subscription_counters(ss->sub, &symbols);
		m.counters = (char **)symbols;
	}
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = ss->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_EVENT;
	env.event = &m;
	gpd_session_send(s, &env);
}

const struct gpd_subscriber_ops gpd_session_sub_ops = {
	.frame = on_frame,
	.event = on_event,
};

static int on_recording_data(void *user, uint64_t offset, const void *data,
			     size_t len)
{
	struct gpd_session_recording *sr = user;
	struct gpd_session *s = sr->session;
	if (s->closing)
		return -EPIPE;
	if (s->queue.recording_bytes + len > GPD_SESSION_RECORDING_BACKLOG)
		return -ENOBUFS;
	Gpuperf__RecordingData m = GPUPERF__RECORDING_DATA__INIT;
	m.recording_id = sr->id;
	m.offset = offset;
	m.data.len = len;
	m.data.data = (uint8_t *)data;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = sr->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_RECORDING_DATA;
	env.recording_data = &m;
	struct gpd_message *msg = gpd_proto_pack(&s->queue, GPD_MESSAGE_RECORDING,
						 &env);
	if (!msg || gpd_session_queue(s, msg))
		return -ENOBUFS;
	return 0;
}

static void on_recording_stopped(void *user, uint64_t bytes, uint64_t reports,
				 const char *reason)
{
	struct gpd_session_recording *sr = user;
	Gpuperf__RecordingStopped m = GPUPERF__RECORDING_STOPPED__INIT;
	m.recording_id = sr->id;
	m.bytes = bytes;
	m.reports = reports;
	m.reason = (char *)(reason ? reason : "");
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = sr->stop_request_id ? sr->stop_request_id : sr->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_RECORDING_STOPPED;
	env.recording_stopped = &m;
	gpd_session_send(sr->session, &env);
	/* The recorder calls this from the loop, outside any device
	 * callback, so it may go now. */
	gpd_session_recording_free(sr);
}

const struct gpd_recorder_sink_ops gpd_session_recording_ops = {
	.data = on_recording_data,
	.stopped = on_recording_stopped,
};
