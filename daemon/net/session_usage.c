/*
 * A session's usage subscriptions: SubscribeUsage, and each interval's
 * UsageFrame on its way out, with as much of the processes as the
 * connection may see (--process-details).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/device_registry.h"
#include "daemon/net/proto_codec.h"
#include "daemon/net/session_internal.h"

struct gpd_session_usage {
	struct gpd_session *session;
	struct gpd_session_usage *next;
	uint32_t id;
	uint64_t request_id;            /* of the SubscribeUsage */
	struct gpd_device *device;
	struct gpd_usage_subscription *sub;
	bool processes;
};

Gpuperf__ProcessVisibility gpd_session_process_visibility(const struct gpd_session *s)
{
	if (s->server->options.process_details == GPD_PROCESS_DETAILS_NONE)
		return GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_NONE;
	return gpd_server_process_details(s->server, s->role) ?
	       GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_FULL :
	       GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_ANONYMOUS;
}

/* Everything one frame's message points to, in one allocation. */
struct frame_parts {
	Gpuperf__UsageFrame m;
	Gpuperf__EngineUsage engines[GPD_USAGE_MAX_ENGINES];
	Gpuperf__EngineUsage *engine_ptrs[GPD_USAGE_MAX_ENGINES];
	char *classes[GPD_USAGE_MAX_CLASSES];
	Gpuperf__Gauge gauges[GPD_USAGE_MAX_GAUGES];
	Gpuperf__Gauge *gauge_ptrs[GPD_USAGE_MAX_GAUGES];
	/* Then, per process: its message, pointer, class shares, ids. */
};

struct process_parts {
	Gpuperf__ProcessUsage m;
	double class_busy[GPD_USAGE_MAX_CLASSES];
	uint64_t client_ids[GPD_USAGE_MAX_CLIENT_IDS];
};

static void fill_device(Gpuperf__UsageFrame *m, struct frame_parts *p,
			const struct gpd_usage_layout *layout,
			const struct gpd_usage_frame *f)
{
	for (unsigned i = 0; i < layout->n_engines; i++) {
		Gpuperf__EngineUsage *e = &p->engines[i];
		gpuperf__engine_usage__init(e);
		e->name = (char *)layout->engines[i].name;
		e->engine_class = (char *)layout->classes[layout->engines[i].class_index];
		if (!isnan(f->engines[i].busy)) {
			e->busy_share_case = GPUPERF__ENGINE_USAGE__BUSY_SHARE_BUSY;
			e->busy = f->engines[i].busy;
		}
		if (!isnan(f->engines[i].wait)) {
			e->wait_share_case = GPUPERF__ENGINE_USAGE__WAIT_SHARE_WAIT;
			e->wait = f->engines[i].wait;
		}
		if (!isnan(f->engines[i].sema)) {
			e->sema_share_case = GPUPERF__ENGINE_USAGE__SEMA_SHARE_SEMA;
			e->sema = f->engines[i].sema;
		}
		p->engine_ptrs[i] = e;
	}
	m->n_engines = layout->n_engines;
	m->engines = p->engine_ptrs;
	for (unsigned k = 0; k < layout->n_classes; k++)
		p->classes[k] = (char *)layout->classes[k];
	m->n_engine_classes = layout->n_classes;
	m->engine_classes = p->classes;
#define OPTIONAL(field, oneof, CASE, value)                                  \
	do {                                                                 \
		if (!isnan(value)) {                                         \
			m->oneof##_case = GPUPERF__USAGE_FRAME__##CASE;      \
			m->field = value;                                    \
		}                                                            \
	} while (0)
	OPTIONAL(actual_frequency_hz, actual_frequency,
		 ACTUAL_FREQUENCY_ACTUAL_FREQUENCY_HZ, f->actual_freq_hz);
	OPTIONAL(requested_frequency_hz, requested_frequency,
		 REQUESTED_FREQUENCY_REQUESTED_FREQUENCY_HZ, f->requested_freq_hz);
	OPTIONAL(min_frequency_hz, min_frequency,
		 MIN_FREQUENCY_MIN_FREQUENCY_HZ, f->min_freq_hz);
	OPTIONAL(max_frequency_hz, max_frequency,
		 MAX_FREQUENCY_MAX_FREQUENCY_HZ, f->max_freq_hz);
	OPTIONAL(rc6, rc6_share, RC6_SHARE_RC6, f->rc6);
	OPTIONAL(power_watts, power, POWER_POWER_WATTS, f->power_w);
	OPTIONAL(energy_joules, energy, ENERGY_ENERGY_JOULES, f->energy_j);
	OPTIONAL(temperature_celsius, temperature,
		 TEMPERATURE_TEMPERATURE_CELSIUS, f->temperature_c);
#undef OPTIONAL
	size_t n = 0;
	for (unsigned g = 0; g < layout->n_gauges; g++) {
		if (isnan(f->gauges[g]))
			continue;
		Gpuperf__Gauge *gauge = &p->gauges[n];
		gpuperf__gauge__init(gauge);
		gauge->name = (char *)layout->gauges[g].name;
		gauge->unit = (char *)layout->gauges[g].unit;
		gauge->value = f->gauges[g];
		p->gauge_ptrs[n++] = gauge;
	}
	m->n_gauges = n;
	m->gauges = p->gauge_ptrs;
	m->note = (char *)f->note;
}

static Gpuperf__ShareSource share_source(enum gpd_usage_share_source s)
{
	switch (s) {
	case GPD_USAGE_SHARE_KERNEL_COUNTERS:
		return GPUPERF__SHARE_SOURCE__KERNEL_COUNTERS;
	case GPD_USAGE_SHARE_DRIVER_SAMPLED:
		return GPUPERF__SHARE_SOURCE__DRIVER_SAMPLED;
	case GPD_USAGE_SHARE_MEASURED_IN_PROCESS:
		return GPUPERF__SHARE_SOURCE__MEASURED_IN_PROCESS;
	case GPD_USAGE_SHARE_SIMULATED:
		return GPUPERF__SHARE_SOURCE__SIMULATED;
	}
	return GPUPERF__SHARE_SOURCE__SHARE_SOURCE_UNSPECIFIED;
}

static void fill_process(struct process_parts *pp,
			 const struct gpd_usage_layout *layout,
			 const struct gpd_usage_process_row *row, bool full)
{
	Gpuperf__ProcessUsage *m = &pp->m;
	gpuperf__process_usage__init(m);
	for (unsigned k = 0; k < layout->n_classes; k++)
		pp->class_busy[k] = row->class_busy[k];
	m->n_class_busy = layout->n_classes;
	m->class_busy = pp->class_busy;
	m->gpu_time_ns = row->gpu_time_ns;
	m->gpu_time_total_ns = row->gpu_time_total_ns;
	m->memory_bytes = row->memory_bytes;
	m->resident_bytes = row->resident_bytes;
	m->share_source = share_source(row->share_source);
	m->records_lost = row->records_lost;
	m->command = (char *)"";
	if (!full)
		return;
	m->pid = (uint32_t)row->pid;
	m->ppid = (uint32_t)row->ppid;
	m->command = (char *)row->command;
	unsigned listed = row->n_client_ids < GPD_USAGE_MAX_CLIENT_IDS ?
			  row->n_client_ids : GPD_USAGE_MAX_CLIENT_IDS;
	memcpy(pp->client_ids, row->client_ids, listed * sizeof(uint64_t));
	m->n_client_ids = listed;
	m->client_ids = pp->client_ids;
	m->clients = row->n_client_ids;
}

static void drop_frame(struct gpd_session *s)
{
	s->usage_frames_dropped.since_last++;
	s->usage_frames_dropped.total++;
	s->server->usage_frames_dropped++;
}

static void on_usage_frame(void *user, const struct gpd_usage_frame *f)
{
	struct gpd_session_usage *su = user;
	struct gpd_session *s = su->session;
	if (s->closing)
		return;
	if (!gpd_send_queue_frame_fits(&s->queue)) {
		drop_frame(s);
		return;
	}
	const struct gpd_usage_layout *layout =
		gpd_usage_monitor_layout(su->device->usage);
	Gpuperf__ProcessVisibility visibility = gpd_session_process_visibility(s);
	bool rows = su->processes && f->processes_read &&
		    visibility != GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_NONE;
	size_t n_rows = rows ? f->n_processes : 0;
	struct frame_parts *p = calloc(1, sizeof(*p) + n_rows *
				       (sizeof(struct process_parts) +
					sizeof(Gpuperf__ProcessUsage *)));
	if (!p) {
		drop_frame(s);
		return;
	}
	struct process_parts *pp = (struct process_parts *)(p + 1);
	Gpuperf__ProcessUsage **ptrs = (Gpuperf__ProcessUsage **)(pp + n_rows);
	Gpuperf__UsageFrame *m = &p->m;
	gpuperf__usage_frame__init(m);
	m->subscription_id = su->id;
	m->device = su->device->source->name;
	m->cpu_start_ns = f->start_ns;
	m->cpu_end_ns = f->end_ns;
	m->boottime_case = GPUPERF__USAGE_FRAME__BOOTTIME_CPU_START_BOOTTIME_NS;
	m->cpu_start_boottime_ns = gpd_boottime_at(f->start_ns);
	fill_device(m, p, layout, f);
	m->processes_note = (char *)"";
	if (su->processes) {
		m->process_visibility = visibility;
		m->processes_included = rows;
		m->processes_unreadable = f->processes_unreadable;
		m->processes_note = (char *)f->processes_note;
		bool full = visibility ==
			    GPUPERF__PROCESS_VISIBILITY__PROCESS_VISIBILITY_FULL;
		for (size_t i = 0; i < n_rows; i++) {
			fill_process(&pp[i], layout, &f->processes[i], full);
			ptrs[i] = &pp[i].m;
		}
		m->n_processes = n_rows;
		m->processes = ptrs;
	}
	m->frames_dropped = s->usage_frames_dropped.since_last;
	m->frames_dropped_total = s->usage_frames_dropped.total;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = su->request_id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_USAGE_FRAME;
	env.usage_frame = m;
	struct gpd_message *msg = gpd_proto_pack(&s->queue, GPD_MESSAGE_FRAME, &env);
	free(p);
	/* Through the session, so that the server's --send-budget counts it. */
	if (!msg || gpd_session_queue(s, msg)) {
		drop_frame(s);
		return;
	}
	s->usage_frames_dropped.since_last = 0;
}

static const struct gpd_usage_subscriber_ops session_usage_ops = {
	.frame = on_usage_frame,
};

void gpd_session_subscribe_usage(struct gpd_session *s,
				 const Gpuperf__Envelope *env)
{
	const Gpuperf__SubscribeUsage *r = env->subscribe_usage;
	char message[256];
	if (s->n_subs >= s->server->options.max_subscriptions) {
		snprintf(message, sizeof(message),
			 "this connection has its maximum of %u subscriptions; "
			 "unsubscribe one first",
			 s->server->options.max_subscriptions);
		gpd_session_error(s, env->request_id, -ENOBUFS, message);
		return;
	}
	struct gpd_device *dev = gpd_device_registry_find(
		s->server->devices, *r->device ? r->device : NULL);
	if (!dev) {
		snprintf(message, sizeof(message), "there is no device '%.64s'; "
			 "Hello lists the devices", r->device);
		gpd_session_error(s, env->request_id, -ENOENT, message);
		return;
	}
	if (!dev->usage) {
		gpd_device_no_usage_reason(dev, message, sizeof(message));
		gpd_session_error(s, env->request_id, -ENODEV, message);
		return;
	}
	struct gpd_session_usage *su = calloc(1, sizeof(*su));
	if (!su) {
		gpd_session_error(s, env->request_id, -ENOMEM, "out of memory");
		return;
	}
	su->session = s;
	su->id = s->next_sub_id++;
	su->request_id = env->request_id;
	su->device = dev;
	su->processes = r->processes;
	struct gpd_error err = { 0 };
	if (gpd_usage_subscribe(dev->usage, r->interval_ns, r->processes,
				&session_usage_ops, su, &su->sub, &err)) {
		gpd_session_error(s, env->request_id, err.code, err.message);
		free(su);
		return;
	}
	su->next = s->usage;
	s->usage = su;
	s->n_subs++;
	Gpuperf__UsageSubscribed m = GPUPERF__USAGE_SUBSCRIBED__INIT;
	m.subscription_id = su->id;
	m.device = dev->source->name;
	m.interval_ns = gpd_usage_subscription_interval(su->sub);
	m.description = (char *)gpd_usage_monitor_layout(dev->usage)->description;
	Gpuperf__Envelope out = GPUPERF__ENVELOPE__INIT;
	out.request_id = env->request_id;
	out.kind_case = GPUPERF__ENVELOPE__KIND_USAGE_SUBSCRIBED;
	out.usage_subscribed = &m;
	gpd_session_send(s, &out);
}

static void free_usage(struct gpd_session *s, struct gpd_session_usage **link)
{
	struct gpd_session_usage *su = *link;
	*link = su->next;
	s->n_subs--;
	gpd_usage_unsubscribe(su->sub);
	free(su);
}

bool gpd_session_unsubscribe_usage(struct gpd_session *s, uint32_t id)
{
	for (struct gpd_session_usage **p = &s->usage; *p; p = &(*p)->next) {
		if ((*p)->id == id) {
			free_usage(s, p);
			return true;
		}
	}
	return false;
}

void gpd_session_usage_free_all(struct gpd_session *s)
{
	while (s->usage)
		free_usage(s, &s->usage);
}
