/*
 * Subscriptions: asking for frames, receiving them and the stream's
 * events, marking query windows, reconfiguring the device.
 *
 * A handle may be freed from inside any of its callbacks (by
 * gpc_unsubscribe or by closing the client), so nothing here touches a
 * subscription after calling back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

/* What a *_sync call waits for. */
struct sync_wait {
	bool done;
	bool failed;
	struct gpc_error err;
};

struct gpc_subscription {
	struct gpc_client *client;
	struct gpc_subscription *next;
	struct gpc_subscription_cbs cbs;
	void *user;
	bool granted;
	struct gpc_subscription_info info;
	struct sync_wait *sync;         /* a gpc_subscribe_sync waiting */
	Gpuperf__Envelope *subscribed;  /* info's device and window */
	Gpuperf__Envelope *config;      /* the newest metric set, period and
					 * counters, when they changed since */
	struct gpc_context_row *rows;   /* a frame's contexts */
	size_t cap_rows;
};

static void unlink_subscription(struct gpc_subscription *sub)
{
	struct gpc_client *c = sub->client;

	for (struct gpc_subscription **p = &c->subscriptions; *p; p = &(*p)->next) {
		if (*p == sub) {
			*p = sub->next;
			break;
		}
	}
	gpc__client_forget_target(c, sub);
}

static void free_subscription(struct gpc_subscription *sub)
{
	if (sub->subscribed)
		gpuperf__envelope__free_unpacked(sub->subscribed, NULL);
	if (sub->config)
		gpuperf__envelope__free_unpacked(sub->config, NULL);
	free(sub->rows);
	free(sub);
}

int gpc__subscribe(struct gpc_client *c, const struct gpc_subscribe_options *o,
		   const Gpuperf__PassedContext *passed,
		   const struct gpc_subscription_cbs *cbs, void *user,
		   struct gpc_subscription **out)
{
	Gpuperf__Subscribe m = GPUPERF__SUBSCRIBE__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	struct gpc_subscription *sub = calloc(1, sizeof(*sub));

	*out = NULL;
	if (!sub)
		return -ENOMEM;
	sub->client = c;
	if (cbs)
		sub->cbs = *cbs;
	sub->user = user;
	/* protobuf-c takes char *; the strings are only read. */
	m.device = (char *)(o->device ? o->device : "");
	m.metric_set = (char *)(o->metric_set ? o->metric_set : "");
	m.sampling_period_ns = o->sampling_period_ns;
	m.window_ns = o->window_ns;
	m.n_counters = o->n_counters;
	m.counters = (char **)o->counters;
	if (passed) {
		m.context_filter_case =
			GPUPERF__SUBSCRIBE__CONTEXT_FILTER_PASSED_CONTEXT;
		m.passed_context = (Gpuperf__PassedContext *)passed;
	} else if (o->filter_context) {
		m.context_filter_case = GPUPERF__SUBSCRIBE__CONTEXT_FILTER_CTX_ID;
		m.ctx_id = o->context_id;
	}
	m.raw = o->raw;
	m.per_context = o->per_context;
	m.duration_ns = o->duration_ns;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBE;
	env.subscribe = &m;
	int64_t id = gpc__client_request(c, &env, GPC__REQUEST_SUBSCRIBE, sub,
					 NULL, NULL);
	if (id < 0) {
		free(sub);
		return (int)id;
	}
	sub->next = c->subscriptions;
	c->subscriptions = sub;
	*out = sub;
	return 0;
}

int gpc_subscribe(struct gpc_client *c, const struct gpc_subscribe_options *o,
		  const struct gpc_subscription_cbs *cbs, void *user,
		  struct gpc_subscription **out)
{
	return gpc__subscribe(c, o, NULL, cbs, user, out);
}

int gpc_subscribe_sync(struct gpc_client *c,
		       const struct gpc_subscribe_options *o,
		       const struct gpc_subscription_cbs *cbs, void *user,
		       struct gpc_subscription **out, struct gpc_error *err)
{
	return gpc__subscribe_sync(c, o, NULL, cbs, user, out, err);
}

int gpc__subscribe_sync(struct gpc_client *c,
			const struct gpc_subscribe_options *o,
			const Gpuperf__PassedContext *passed,
			const struct gpc_subscription_cbs *cbs, void *user,
			struct gpc_subscription **out, struct gpc_error *err)
{
	struct sync_wait wait = { 0 };
	struct gpc_subscription *sub;

	int ret = gpc__subscribe(c, o, passed, cbs, user, &sub);
	if (ret) {
		gpc__error_set(err, ret, "cannot subscribe: %s",
			       gpc_strerror(ret));
		return ret;
	}
	sub->sync = &wait;
	ret = gpc__client_wait(c, &wait.done, 0, err);
	if (!wait.done) {
		/* Not answered: the handle stays with the client, which
		 * frees it when closed. */
		sub->sync = NULL;
		*out = NULL;
		return ret ? ret : -ECANCELED;
	}
	if (wait.failed) {
		if (err)
			*err = wait.err;
		*out = NULL;
		return wait.err.code;
	}
	*out = sub;
	return 0;
}

/* Points info at the newest configuration the subscription was told. */
static void set_counters(struct gpc_subscription *sub, const char *metric_set,
			 uint64_t period_ns, size_t n, char **counters)
{
	sub->info.metric_set = metric_set;
	sub->info.sampling_period_ns = period_ns;
	sub->info.n_counters = n;
	sub->info.counters = (const char *const *)counters;
}

void gpc__subscription_granted(struct gpc_subscription *sub,
			       Gpuperf__Envelope *env)
{
	const Gpuperf__Subscribed *m = env->subscribed;

	sub->subscribed = env;
	sub->granted = true;
	sub->info.id = m->subscription_id;
	sub->info.device = m->device;
	sub->info.window_ns = m->window_ns;
	set_counters(sub, m->metric_set, m->sampling_period_ns, m->n_counters,
		     m->counters);
	if (sub->sync) {
		sub->sync->done = true;
		sub->sync = NULL;
	}
	if (sub->cbs.subscribed)
		sub->cbs.subscribed(sub, NULL, sub->user);
}

void gpc__subscription_refused(struct gpc_subscription *sub,
			       const struct gpc_error *err)
{
	unlink_subscription(sub);
	if (sub->sync) {
		sub->sync->done = true;
		sub->sync->failed = true;
		sub->sync->err = *err;
	}
	if (sub->cbs.subscribed)
		sub->cbs.subscribed(sub, err, sub->user);
	free_subscription(sub);
}

static struct gpc_subscription *find_granted(struct gpc_client *c, uint32_t id)
{
	for (struct gpc_subscription *sub = c->subscriptions; sub; sub = sub->next)
		if (sub->granted && sub->info.id == id)
			return sub;
	return NULL;
}

void gpc__subscription_frame(struct gpc_client *c, const Gpuperf__Frame *f)
{
	struct gpc_subscription *sub = find_granted(c, f->subscription_id);
	struct gpc_frame frame;

	if (!sub || !sub->cbs.frame)
		return;
	if (f->n_contexts > sub->cap_rows) {
		struct gpc_context_row *rows =
			realloc(sub->rows, f->n_contexts * sizeof(*rows));
		if (!rows)
			return;
		sub->rows = rows;
		sub->cap_rows = f->n_contexts;
	}
	for (size_t i = 0; i < f->n_contexts; i++) {
		const Gpuperf__ContextRow *src = f->contexts[i];
		sub->rows[i] = (struct gpc_context_row){
			.context_id = src->ctx_id,
			.idle = src->idle,
			.reports = src->reports,
			.gpu_time_ns = src->gpu_time_ns,
			.n_values = src->n_values,
			.values = src->values,
			.n_raw = src->n_raw,
			.raw = src->raw,
		};
	}
	frame = (struct gpc_frame){
		.device = f->device,
		.gpu_start_ns = f->gpu_start_ns,
		.gpu_end_ns = f->gpu_end_ns,
		.cpu_start_ns = f->cpu_start_ns,
		.cpu_end_ns = f->cpu_end_ns,
		.reports = f->reports,
		.lost_reports = f->lost_reports,
		.buffer_lost = f->buffer_lost,
		.mark = f->mark,
		.n_values = f->n_values,
		.values = f->values,
		.n_raw = f->n_raw,
		.raw = f->raw,
		.n_contexts = f->n_contexts,
		.contexts = sub->rows,
		.frames_dropped = f->frames_dropped,
		.frames_dropped_total = f->frames_dropped_total,
		.partial = f->partial,
		.last = f->last,
		.within_mark = f->within_mark,
		.has_boottime = f->boottime_case ==
				GPUPERF__FRAME__BOOTTIME_CPU_START_BOOTTIME_NS,
		.cpu_start_boottime_ns = f->cpu_start_boottime_ns,
	};
	sub->cbs.frame(sub, &frame, sub->user);
}

void gpc__subscription_event(struct gpc_client *c, Gpuperf__Envelope *env)
{
	const Gpuperf__StreamEvent *e = env->event;
	struct gpc_subscription *sub = find_granted(c, e->subscription_id);
	struct gpc_event event;

	if (!sub) {
		gpuperf__envelope__free_unpacked(env, NULL);
		return;
	}
	event.kind = (enum gpc_event_kind)e->kind;
	event.device = e->device;
	event.message = e->message;
	gpc__configuration_from_proto(&event.configuration, e->configuration);
	/* The subscription keeps what its counters now point into. */
	Gpuperf__Envelope *spare = env;
	if (e->kind == GPUPERF__STREAM_EVENT__KIND__CONFIG_CHANGED) {
		spare = sub->config;
		sub->config = env;
		set_counters(sub, event.configuration.metric_set,
			     event.configuration.sampling_period_ns,
			     e->n_counters, e->counters);
	}
	if (spare && spare != env)
		gpuperf__envelope__free_unpacked(spare, NULL);
	if (sub->cbs.event)
		sub->cbs.event(sub, &event, sub->user);
	if (spare == env)
		gpuperf__envelope__free_unpacked(env, NULL);
}

void gpc__subscription_reconfigured(struct gpc_subscription *sub,
				    Gpuperf__Envelope *env)
{
	const Gpuperf__Reconfigured *m = env->reconfigured;

	if (sub->config)
		gpuperf__envelope__free_unpacked(sub->config, NULL);
	sub->config = env;
	set_counters(sub, m->metric_set, m->sampling_period_ns, m->n_counters,
		     m->counters);
}

const struct gpc_subscription_info *
gpc_subscription_info(const struct gpc_subscription *sub)
{
	return sub->granted ? &sub->info : NULL;
}

struct gpc_client *gpc_subscription_client(const struct gpc_subscription *sub)
{
	return sub->client;
}

void gpc_unsubscribe(struct gpc_subscription *sub)
{
	struct gpc_client *c = sub->client;

	unlink_subscription(sub);
	if (sub->granted) {
		Gpuperf__Unsubscribe m = GPUPERF__UNSUBSCRIBE__INIT;
		Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
		m.subscription_id = sub->info.id;
		env.kind_case = GPUPERF__ENVELOPE__KIND_UNSUBSCRIBE;
		env.unsubscribe = &m;
		/* Nothing waits for the answer; a disconnected client has
		 * nothing left to end. */
		gpc__client_request(c, &env, -1, NULL, NULL, NULL);
	}
	free_subscription(sub);
}

void gpc__subscriptions_free(struct gpc_client *c)
{
	while (c->subscriptions) {
		struct gpc_subscription *sub = c->subscriptions;
		c->subscriptions = sub->next;
		free_subscription(sub);
	}
}

int gpc_mark(struct gpc_subscription *sub, enum gpc_mark_kind kind,
	     gpc_done_cb cb, void *user)
{
	Gpuperf__Mark m = GPUPERF__MARK__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;

	if (!sub->granted)
		return -EINVAL;
	if (kind != GPC_MARK_BEGIN && kind != GPC_MARK_END)
		return -EINVAL;
	m.subscription_id = sub->info.id;
	m.kind = kind == GPC_MARK_BEGIN ? GPUPERF__MARK__KIND__BEGIN :
		 GPUPERF__MARK__KIND__END;
	env.kind_case = GPUPERF__ENVELOPE__KIND_MARK;
	env.mark = &m;
	int64_t id = gpc__client_request(sub->client, &env, GPC__REQUEST_MARK,
					 sub, cb, user);
	return id < 0 ? (int)id : 0;
}

static void sync_done(struct gpc_client *c, const struct gpc_error *err,
		      void *user)
{
	struct sync_wait *wait = user;

	wait->done = true;
	if (err) {
		wait->failed = true;
		wait->err = *err;
	}
}

/* How often a BEGIN the device cannot take yet is asked again. */
#define MARK_RETRY_MS 10

static int mark_once(struct gpc_subscription *sub, enum gpc_mark_kind kind,
		     struct gpc_error *err)
{
	struct sync_wait wait = { 0 };
	struct gpc_client *c = sub->client;

	int ret = gpc_mark(sub, kind, sync_done, &wait);
	if (ret) {
		gpc__error_set(err, ret, "cannot mark: %s", gpc_strerror(ret));
		return ret;
	}
	ret = gpc__client_wait(c, &wait.done, 0, err);
	if (!wait.done) {
		/* The answer may still come; nobody waits for it now. */
		for (struct gpc__request *req = c->requests; req; req = req->next)
			if (req->user == &wait)
				req->cb = NULL;
		return ret ? ret : -ECANCELED;
	}
	if (wait.failed) {
		if (err)
			*err = wait.err;
		return wait.err.code;
	}
	return 0;
}

int gpc_mark_sync(struct gpc_subscription *sub, enum gpc_mark_kind kind,
		  struct gpc_error *err)
{
	struct gpc_client *c = sub->client;
	uint64_t deadline = uv_now(c->loop) + c->options.timeout_ms;
	struct gpc_error e;

	for (;;) {
		int ret = mark_once(sub, kind, &e);
		/* A stream just opened has no report to begin at yet. */
		if (ret && kind == GPC_MARK_BEGIN &&
		    e.server == GPC_SERVER_UNAVAILABLE &&
		    uv_now(c->loop) < deadline &&
		    gpc__client_wait(c, NULL, MARK_RETRY_MS, NULL) == -ETIMEDOUT)
			continue;
		if (ret && err)
			*err = e;
		return ret;
	}
}

int gpc_reconfigure(struct gpc_subscription *sub, const char *metric_set,
		    uint64_t sampling_period_ns, gpc_done_cb cb, void *user)
{
	Gpuperf__Reconfigure m = GPUPERF__RECONFIGURE__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;

	if (!sub->granted)
		return -EINVAL;
	m.subscription_id = sub->info.id;
	m.metric_set = (char *)(metric_set ? metric_set : "");
	m.sampling_period_ns = sampling_period_ns;
	env.kind_case = GPUPERF__ENVELOPE__KIND_RECONFIGURE;
	env.reconfigure = &m;
	int64_t id = gpc__client_request(sub->client, &env,
					 GPC__REQUEST_RECONFIGURE, sub, cb, user);
	return id < 0 ? (int)id : 0;
}
