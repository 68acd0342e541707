/*
 * What each request does: the protocol's requests turned into calls of
 * the subscription API and the recorder, and their replies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/device_registry.h"
#include "daemon/net/hello.h"
#include "daemon/net/session_internal.h"

/* Requests name at most this many counters (Intel's largest sets have a
 * few hundred). */
#define MAX_REQUESTED_COUNTERS 4096

static void reply(struct gpd_session *s, uint64_t request_id,
		  Gpuperf__Envelope *env)
{
	env->request_id = request_id;
	gpd_session_send(s, env);
}

static const char *or_null(const char *text)
{
	return text && *text ? text : NULL;
}

static struct gpd_session_sub *find_sub(struct gpd_session *s, uint32_t id,
					uint64_t request_id)
{
	for (struct gpd_session_sub *ss = s->subs; ss; ss = ss->next)
		if (ss->id == id)
			return ss;
	char message[128];
	snprintf(message, sizeof(message),
		 "this connection has no subscription %u", id);
	gpd_session_error(s, request_id, -ENOENT, message);
	return NULL;
}

void gpd_session_sub_free(struct gpd_session_sub *ss)
{
	struct gpd_session *s = ss->session;
	for (struct gpd_session_sub **p = &s->subs; *p; p = &(*p)->next) {
		if (*p == ss) {
			*p = ss->next;
			s->n_subs--;
			break;
		}
	}
	gpd_unsubscribe(ss->sub);
	free(ss);
}

void gpd_session_recording_free(struct gpd_session_recording *sr)
{
	struct gpd_session *s = sr->session;
	for (struct gpd_session_recording **p = &s->recordings; *p;
	     p = &(*p)->next) {
		if (*p == sr) {
			*p = sr->next;
			s->n_recordings--;
			break;
		}
	}
	gpd_recorder_destroy(sr->recorder);
	free(sr);
}

static void handle_auth(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	const Gpuperf__Auth *a = env->auth;
	char why[256];
	/* Each Auth answers with a Hello: a client that could repeat it would
	 * make the daemon queue Hellos without end. */
	if (s->auth_requested) {
		gpd_session_fail(s, env->request_id,
				 GPUPERF__ERROR_CODE__INVALID_ARGUMENT,
				 GPD_CLOSE_POLICY_VIOLATION,
				 "this connection has sent its Auth already; open "
				 "another connection for another token or role");
		return;
	}
	s->auth_requested = true;
	int ret = gpd_session_authenticate(s, a->token, strlen(a->token), a->role,
					   why, sizeof(why));
	if (ret) {
		gpd_session_fail(s, env->request_id, gpd_session_refusal_code(ret),
				 GPD_CLOSE_POLICY_VIOLATION, "%s", why);
		return;
	}
	gpd_session_send_hello(s, env->request_id);
}

static struct gpd_passed_fd *find_passed(struct gpd_session *s, uint32_t id)
{
	for (unsigned i = 0; i < s->n_passed; i++)
		if (s->passed[i].id == id)
			return &s->passed[i];
	return NULL;
}

static void handle_subscribe(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	const Gpuperf__Subscribe *r = env->subscribe;
	char message[256];
	if (s->n_subs >= s->server->options.max_subscriptions) {
		snprintf(message, sizeof(message),
			 "this connection has its maximum of %u subscriptions; "
			 "unsubscribe one first",
			 s->server->options.max_subscriptions);
		gpd_session_error(s, env->request_id, -ENOBUFS, message);
		return;
	}
	if (r->window_ns && r->window_ns < GPD_SESSION_MIN_WINDOW_NS) {
		snprintf(message, sizeof(message),
			 "window_ns %llu is below the minimum of %llu ns",
			 (unsigned long long)r->window_ns,
			 GPD_SESSION_MIN_WINDOW_NS);
		gpd_session_error(s, env->request_id, -EINVAL, message);
		return;
	}
	if (r->n_counters > MAX_REQUESTED_COUNTERS) {
		gpd_session_error(s, env->request_id, -EINVAL,
				  "a subscription names at most 4096 counters");
		return;
	}
	/* A passed DRM file names its device. */
	struct gpd_passed_fd *passed = NULL;
	if (r->context_filter_case ==
	    GPUPERF__SUBSCRIBE__CONTEXT_FILTER_PASSED_CONTEXT) {
		passed = find_passed(s, r->passed_context->fd_id);
		if (!passed) {
			snprintf(message, sizeof(message),
				 "this connection passed no DRM file %u, or used "
				 "it already: pass the file (Hello.fd_socket), "
				 "then subscribe with the id the daemon answered",
				 r->passed_context->fd_id);
			gpd_session_error(s, env->request_id, -ENOENT, message);
			return;
		}
		if (r->device && r->device[0] && strcmp(r->device, passed->device)) {
			snprintf(message, sizeof(message),
				 "DRM file %u was passed for device %s, not %s",
				 passed->id, passed->device, r->device);
			gpd_session_error(s, env->request_id, -EINVAL, message);
			return;
		}
	}
	const char *device = passed ? passed->device : or_null(r->device);
	struct gpd_device *dev = gpd_device_registry_find(s->server->devices,
							  device);
	struct gpd_session_sub *ss = calloc(1, sizeof(*ss));
	if (!ss) {
		gpd_session_error(s, env->request_id, -ENOMEM, "out of memory");
		return;
	}
	ss->session = s;
	ss->id = s->next_sub_id++;
	ss->request_id = env->request_id;
	ss->device = dev;
	struct gpd_subscribe_request req = {
		.device = device,
		.metric_set = or_null(r->metric_set),
		.sampling_period_ns = r->sampling_period_ns,
		.window_ns = r->window_ns,
		.counters = r->n_counters ? (const char *const *)r->counters : NULL,
		.n_counters = r->n_counters,
		.ctx_filter = r->context_filter_case ==
			      GPUPERF__SUBSCRIBE__CONTEXT_FILTER_CTX_ID,
		.ctx_id = r->ctx_id,
		.kernel_ctx_filter = passed != NULL,
		.ctx_fd = passed ? passed->fd : -1,
		.ctx_handle = passed ? r->passed_context->handle : 0,
		.raw = r->raw,
		.per_context = r->per_context,
		.duration_ns = r->duration_ns,
		.role = s->role,
		.budget = &s->evaluations,
	};
	struct gpd_error err = { 0 };
	if (gpd_subscribe(s->server->devices, &req, &gpd_session_sub_ops, ss,
			  &ss->sub, &err)) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		free(ss);
		return;
	}
	/* The device holds the file now, for this stream alone. */
	if (passed) {
		*passed = s->passed[--s->n_passed];
		s->server->n_passed_fds--;
	}
	ss->next = s->subs;
	s->subs = ss;
	s->n_subs++;

	const char *const *symbols;
	size_t n = gpd_subscription_counters(ss->sub, &symbols);
	Gpuperf__Subscribed m = GPUPERF__SUBSCRIBED__INIT;
	m.subscription_id = ss->id;
	m.device = dev->source->name;
	m.metric_set = (char *)dev->set->symbol_name;
	m.sampling_period_ns = gpd_device_period_ns(dev, dev->exponent);
	m.window_ns = r->window_ns;
	m.n_counters = n;
	m.counters = (char **)symbols;
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBED;
	out.subscribed = &m;
	reply(s, env->request_id, &out);
}

static void handle_unsubscribe(struct gpd_session *s,
			       const Gpuperf__Envelope *env)
{
	uint32_t id = env->unsubscribe->subscription_id;
	Gpuperf__Unsubscribed m = GPUPERF__UNSUBSCRIBED__INIT;
	m.subscription_id = id;
	if (!gpd_session_unsubscribe_usage(s, id)) {
		struct gpd_session_sub *ss = find_sub(s, id, env->request_id);
		if (!ss)
			return;
		gpd_session_sub_free(ss);
	}
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_UNSUBSCRIBED;
	out.unsubscribed = &m;
	reply(s, env->request_id, &out);
}

static void handle_reconfigure(struct gpd_session *s,
			       const Gpuperf__Envelope *env)
{
	const Gpuperf__Reconfigure *r = env->reconfigure;
	struct gpd_session_sub *ss = find_sub(s, r->subscription_id,
					      env->request_id);
	if (!ss)
		return;
	if (s->role != GPD_ROLE_CONTROLLER) {
		char message[192];
		snprintf(message, sizeof(message),
			 "only a controller may reconfigure device %s; this "
			 "connection is a viewer: connect with a controller "
			 "token", ss->device->source->name);
		gpd_session_error(s, env->request_id, -EPERM, message);
		return;
	}
	struct gpd_error err = { 0 };
	if (gpd_reconfigure(ss->sub, or_null(r->metric_set),
			    r->sampling_period_ns, &err)) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		return;
	}
	struct gpd_device *dev = ss->device;
	const char *const *symbols;
	size_t n = gpd_subscription_counters(ss->sub, &symbols);
	Gpuperf__Reconfigured m = GPUPERF__RECONFIGURED__INIT;
	m.subscription_id = ss->id;
	m.metric_set = (char *)dev->set->symbol_name;
	m.sampling_period_ns = gpd_device_period_ns(dev, dev->exponent);
	m.n_counters = n;
	m.counters = (char **)symbols;
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_RECONFIGURED;
	out.reconfigured = &m;
	reply(s, env->request_id, &out);
}

static void handle_mark(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	const Gpuperf__Mark *r = env->mark;
	struct gpd_session_sub *ss = find_sub(s, r->subscription_id,
					      env->request_id);
	if (!ss)
		return;
	struct gpd_error err = { 0 };
	int ret;
	switch (r->kind) {
	case GPUPERF__MARK__KIND__BEGIN:
		ret = gpd_mark_begin(ss->sub, &err);
		break;
	case GPUPERF__MARK__KIND__END:
		ret = gpd_mark_end(ss->sub, &err);
		if (!ret)
			ss->mark_request_id = env->request_id;
		break;
	default:
		gpd_session_error(s, env->request_id, -EINVAL,
				  "a Mark is BEGIN or END");
		return;
	}
	if (ret) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		return;
	}
	Gpuperf__MarkAccepted m = GPUPERF__MARK_ACCEPTED__INIT;
	m.subscription_id = ss->id;
	m.kind = r->kind;
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_MARK_ACCEPTED;
	out.mark_accepted = &m;
	reply(s, env->request_id, &out);
}

/* A trace's usage tracks show what the connection's usage stream would. */
static enum gpd_recorder_processes recorder_processes(const struct gpd_session *s)
{
	switch (gpd_session_process_visibility(s)) {
	case GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_FULL:
		return GPD_RECORDER_PROCESSES_FULL;
	case GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_ANONYMOUS:
		return GPD_RECORDER_PROCESSES_ANONYMOUS;
	default:
		return GPD_RECORDER_PROCESSES_NONE;
	}
}

static void handle_start_recording(struct gpd_session *s,
				   const Gpuperf__Envelope *env)
{
	const Gpuperf__StartRecording *r = env->start_recording;
	if (s->n_recordings >= GPD_SESSION_MAX_RECORDINGS) {
		gpd_session_error(s, env->request_id, -ENOBUFS,
				  "this connection already records as much as "
				  "it may; stop a recording first");
		return;
	}
	struct gpd_session_recording *sr = calloc(1, sizeof(*sr));
	if (!sr) {
		gpd_session_error(s, env->request_id, -ENOMEM, "out of memory");
		return;
	}
	if (r->format != GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_I915_PERF &&
	    r->format != GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_PERFETTO) {
		gpd_session_error(s, env->request_id, -EINVAL,
				  "unknown recording format; ask for I915_PERF "
				  "or PERFETTO");
		free(sr);
		return;
	}
	sr->session = s;
	sr->id = s->next_recording_id++;
	sr->request_id = env->request_id;
	uint64_t limit = s->server->options.max_recording_bytes;
	struct gpd_recorder_request req = {
		.device = or_null(r->device),
		.metric_set = or_null(r->metric_set),
		.sampling_period_ns = r->sampling_period_ns,
		.max_bytes = r->max_bytes && r->max_bytes < limit ? r->max_bytes : limit,
		.role = s->role,
		.format = r->format == GPUPERF__RECORDING_FORMAT__RECORDING_FORMAT_PERFETTO ?
			  GPD_RECORDING_PERFETTO : GPD_RECORDING_I915_PERF,
		.window_ns = r->window_ns,
		.counters = (const char *const *)r->counters,
		.n_counters = r->n_counters,
		.usage_interval_ns = r->usage_interval_ns,
		.no_usage = r->no_usage,
		.processes = recorder_processes(s),
		.budget = &s->evaluations,
	};
	struct gpd_error err = { 0 };
	if (gpd_recorder_start(s->server->devices, &req,
			       &gpd_session_recording_ops, sr, &sr->recorder,
			       &err)) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		free(sr);
		return;
	}
	sr->next = s->recordings;
	s->recordings = sr;
	s->n_recordings++;
	Gpuperf__RecordingStarted m = GPUPERF__RECORDING_STARTED__INIT;
	m.recording_id = sr->id;
	m.device = (char *)gpd_recorder_device(sr->recorder);
	m.metric_set = (char *)gpd_recorder_metric_set(sr->recorder);
	m.sampling_period_ns = gpd_recorder_period_ns(sr->recorder);
	m.format = r->format;
	m.window_ns = gpd_recorder_window_ns(sr->recorder);
	m.usage_interval_ns = gpd_recorder_usage_interval_ns(sr->recorder);
	m.usage_note = (char *)gpd_recorder_usage_note(sr->recorder);
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_RECORDING_STARTED;
	out.recording_started = &m;
	reply(s, env->request_id, &out);
}

static void handle_stop_recording(struct gpd_session *s,
				  const Gpuperf__Envelope *env)
{
	uint32_t id = env->stop_recording->recording_id;
	for (struct gpd_session_recording *sr = s->recordings; sr; sr = sr->next) {
		if (sr->id == id && !sr->stop_request_id) {
			/* RecordingStopped follows the recording's last bytes. */
			sr->stop_request_id = env->request_id;
			gpd_recorder_stop(sr->recorder, NULL);
			return;
		}
	}
	char message[128];
	snprintf(message, sizeof(message),
		 "this connection has no running recording %u", id);
	gpd_session_error(s, env->request_id, -ENOENT, message);
}

static void handle_ping(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	Gpuperf__Pong m = GPUPERF__PONG__INIT;
	m.client_time_ns = env->ping->client_time_ns;
	m.server_time_ns = gpd_monotonic_ns();
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.kind_case = GPUPERF__ENVELOPE__KIND_PONG;
	out.pong = &m;
	reply(s, env->request_id, &out);
}

void gpd_session_dispatch(struct gpd_session *s, const Gpuperf__Envelope *env)
{
	switch (env->kind_case) {
	case GPUPERF__ENVELOPE__KIND_AUTH:
		handle_auth(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_SUBSCRIBE:
		handle_subscribe(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_UNSUBSCRIBE:
		handle_unsubscribe(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_RECONFIGURE:
		handle_reconfigure(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_MARK:
		handle_mark(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_START_RECORDING:
		handle_start_recording(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_STOP_RECORDING:
		handle_stop_recording(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_PING:
		handle_ping(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_SUBSCRIBE_USAGE:
		gpd_session_subscribe_usage(s, env);
		break;
	case GPUPERF__ENVELOPE__KIND_SNAPSHOT:
		gpd_session_handle_snapshot(s, env);
		break;
	default:
		/* The decoder lets only requests through. */
		gpd_session_error(s, env->request_id, -EPROTO,
				  "not a request");
		break;
	}
}
