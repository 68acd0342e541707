/*
 * Usage subscriptions: asking for a device's usage stream and turning its
 * frames into public structs.
 *
 * A handle may be freed from inside its callbacks (gpc_usage_unsubscribe,
 * closing the client), so nothing here touches one after calling back.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

struct sync_wait {
	bool done;
	bool failed;
	struct gpc_error err;
};

struct gpc_usage_subscription {
	struct gpc_client *client;
	struct gpc_usage_subscription *next;
	struct gpc_usage_cbs cbs;
	void *user;
	bool granted;
	struct gpc_usage_info info;
	struct sync_wait *sync;
	Gpuperf__Envelope *subscribed;  /* what info points into */
	/* A frame's arrays, kept between frames. */
	struct gpc_engine_usage *engines;
	size_t cap_engines;
	struct gpc_gauge *gauges;
	size_t cap_gauges;
	struct gpc_process_usage *processes;
	size_t cap_processes;
};

static void unlink_usage(struct gpc_usage_subscription *u)
{
	struct gpc_client *c = u->client;
	for (struct gpc_usage_subscription **p = &c->usage_subscriptions; *p;
	     p = &(*p)->next) {
		if (*p == u) {
			*p = u->next;
			break;
		}
	}
	gpc__client_forget_target(c, u);
}

static void free_usage(struct gpc_usage_subscription *u)
{
	if (u->subscribed)
		gpuperf__envelope__free_unpacked(u->subscribed, NULL);
	free(u->engines);
	free(u->gauges);
	free(u->processes);
	free(u);
}

int gpc_usage_subscribe(struct gpc_client *c, const struct gpc_usage_options *o,
			const struct gpc_usage_cbs *cbs, void *user,
			struct gpc_usage_subscription **out)
{
	Gpuperf__SubscribeUsage m = GPUPERF__SUBSCRIBE_USAGE__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	struct gpc_usage_subscription *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->client = c;
	if (cbs)
		u->cbs = *cbs;
	u->user = user;
	m.device = (char *)(o->device ? o->device : "");
	m.interval_ns = o->interval_ns;
	m.processes = o->processes;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBE_USAGE;
	env.subscribe_usage = &m;
	int64_t id = gpc__client_request(c, &env, GPC__REQUEST_SUBSCRIBE_USAGE,
					 u, NULL, NULL);
	if (id < 0) {
		free(u);
		return (int)id;
	}
	u->next = c->usage_subscriptions;
	c->usage_subscriptions = u;
	*out = u;
	return 0;
}

int gpc_usage_subscribe_sync(struct gpc_client *c,
			     const struct gpc_usage_options *o,
			     const struct gpc_usage_cbs *cbs, void *user,
			     struct gpc_usage_subscription **out,
			     struct gpc_error *err)
{
	struct sync_wait wait = { 0 };
	struct gpc_usage_subscription *u;

	int ret = gpc_usage_subscribe(c, o, cbs, user, &u);
	if (ret) {
		gpc__error_set(err, ret, "cannot subscribe: %s",
			       gpc_strerror(ret));
		return ret;
	}
	u->sync = &wait;
	ret = gpc__client_wait(c, &wait.done, 0, err);
	if (!wait.done) {
		u->sync = NULL;
		*out = NULL;
		return ret ? ret : -ECANCELED;
	}
	if (wait.failed) {
		if (err)
			*err = wait.err;
		*out = NULL;
		return wait.err.code;
	}
	*out = u;
	return 0;
}

void gpc__usage_granted(struct gpc_usage_subscription *u,
			Gpuperf__Envelope *env)
{
	const Gpuperf__UsageSubscribed *m = env->usage_subscribed;

	u->subscribed = env;
	u->granted = true;
	u->info.id = m->subscription_id;
	u->info.device = m->device;
	u->info.interval_ns = m->interval_ns;
	u->info.description = m->description;
	if (u->sync) {
		u->sync->done = true;
		u->sync = NULL;
	}
	if (u->cbs.subscribed)
		u->cbs.subscribed(u, NULL, u->user);
}

void gpc__usage_refused(struct gpc_usage_subscription *u,
			const struct gpc_error *err)
{
	unlink_usage(u);
	if (u->sync) {
		u->sync->done = true;
		u->sync->failed = true;
		u->sync->err = *err;
	}
	if (u->cbs.subscribed)
		u->cbs.subscribed(u, err, u->user);
	free_usage(u);
}

const struct gpc_usage_info *gpc_usage_info(const struct gpc_usage_subscription *u)
{
	return u->granted ? &u->info : NULL;
}

/* Grows *items to n; false on ENOMEM. */
static bool reserve(void **items, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return true;
	void *grown = realloc(*items, n * size);
	if (!grown)
		return false;
	*items = grown;
	*cap = n;
	return true;
}


/* The names every sink uses (README, "Units, times and contexts"). */
static const char *share_source_name(Gpuperf__ShareSource s)
{
	switch (s) {
	case GPUPERF__SHARE_SOURCE__KERNEL_COUNTERS:
		return "kernel_counters";
	case GPUPERF__SHARE_SOURCE__DRIVER_SAMPLED:
		return "driver_sampled";
	case GPUPERF__SHARE_SOURCE__MEASURED_IN_PROCESS:
		return "measured_in_process";
	case GPUPERF__SHARE_SOURCE__SIMULATED:
		return "simulated";
	default:
		return "";
	}
}
static void load_engines(struct gpc_usage_subscription *u,
			 const Gpuperf__UsageFrame *f)
{
	for (size_t i = 0; i < f->n_engines; i++) {
		const Gpuperf__EngineUsage *e = f->engines[i];
		u->engines[i] = (struct gpc_engine_usage){
			.name = e->name,
			.engine_class = e->engine_class,
			.busy = e->busy_share_case ? e->busy : NAN,
			.wait = e->wait_share_case ? e->wait : NAN,
			.sema = e->sema_share_case ? e->sema : NAN,
		};
	}
	for (size_t i = 0; i < f->n_gauges; i++)
		u->gauges[i] = (struct gpc_gauge){
			.name = f->gauges[i]->name,
			.unit = f->gauges[i]->unit,
			.value = f->gauges[i]->value,
		};
	for (size_t i = 0; i < f->n_processes; i++) {
		const Gpuperf__ProcessUsage *p = f->processes[i];
		u->processes[i] = (struct gpc_process_usage){
			.pid = p->pid,
			.ppid = p->ppid,
			.command = p->command,
			.n_client_ids = p->n_client_ids,
			.client_ids = p->client_ids,
			.clients = p->clients,
			.n_class_busy = p->n_class_busy,
			.class_busy = p->class_busy,
			.gpu_time_ns = p->gpu_time_ns,
			.gpu_time_total_ns = p->gpu_time_total_ns,
			.memory_bytes = p->memory_bytes,
			.resident_bytes = p->resident_bytes,
			.share_source = share_source_name(p->share_source),
			.records_lost = p->records_lost,
		};
	}
}

void gpc__usage_frame(struct gpc_client *c, const Gpuperf__UsageFrame *f)
{
	struct gpc_usage_subscription *u;
	for (u = c->usage_subscriptions; u; u = u->next)
		if (u->granted && u->info.id == f->subscription_id)
			break;
	if (!u || !u->cbs.frame)
		return;
	if (!reserve((void **)&u->engines, &u->cap_engines, f->n_engines,
		     sizeof(*u->engines)) ||
	    !reserve((void **)&u->gauges, &u->cap_gauges, f->n_gauges,
		     sizeof(*u->gauges)) ||
	    !reserve((void **)&u->processes, &u->cap_processes,
		     f->n_processes, sizeof(*u->processes)))
		return;
	load_engines(u, f);
#define OR_NAN(oneof, field) (f->oneof##_case ? f->field : NAN)
	struct gpc_usage_frame frame = {
		.device = f->device,
		.cpu_start_ns = f->cpu_start_ns,
		.cpu_end_ns = f->cpu_end_ns,
		.n_engines = f->n_engines,
		.engines = u->engines,
		.n_engine_classes = f->n_engine_classes,
		.engine_classes = (const char *const *)f->engine_classes,
		.actual_frequency_hz = OR_NAN(actual_frequency, actual_frequency_hz),
		.requested_frequency_hz = OR_NAN(requested_frequency,
						 requested_frequency_hz),
		.min_frequency_hz = OR_NAN(min_frequency, min_frequency_hz),
		.max_frequency_hz = OR_NAN(max_frequency, max_frequency_hz),
		.rc6 = OR_NAN(rc6_share, rc6),
		.power_watts = OR_NAN(power, power_watts),
		.energy_joules = OR_NAN(energy, energy_joules),
		.temperature_celsius = OR_NAN(temperature, temperature_celsius),
		.n_gauges = f->n_gauges,
		.gauges = u->gauges,
		.processes_included = f->processes_included,
		.process_visibility = (enum gpc_process_visibility)f->process_visibility,
		.n_processes = f->n_processes,
		.processes = u->processes,
		.processes_unreadable = f->processes_unreadable,
		.processes_note = f->processes_note,
		.note = f->note,
		.frames_dropped = f->frames_dropped,
		.frames_dropped_total = f->frames_dropped_total,
		.has_boottime = f->boottime_case ==
				GPUPERF__USAGE_FRAME__BOOTTIME_CPU_START_BOOTTIME_NS,
		.cpu_start_boottime_ns = f->cpu_start_boottime_ns,
	};
#undef OR_NAN
	u->cbs.frame(u, &frame, u->user);
}

void gpc_usage_unsubscribe(struct gpc_usage_subscription *u)
{
	if (!u)
		return;
	struct gpc_client *c = u->client;
	unlink_usage(u);
	if (u->granted && gpc_is_connected(c)) {
		Gpuperf__Unsubscribe m = GPUPERF__UNSUBSCRIBE__INIT;
		Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
		m.subscription_id = u->info.id;
		env.kind_case = GPUPERF__ENVELOPE__KIND_UNSUBSCRIBE;
		env.unsubscribe = &m;
		gpc__client_request(c, &env, -1, NULL, NULL, NULL);
	}
	free_usage(u);
}

void gpc__usage_free_all(struct gpc_client *c)
{
	while (c->usage_subscriptions) {
		struct gpc_usage_subscription *u = c->usage_subscriptions;
		c->usage_subscriptions = u->next;
		free_usage(u);
	}
}
