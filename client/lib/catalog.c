/*
 * The catalog: what the daemon's Hello offers (devices, their metric sets
 * and counters, the connection's role and limits) as the public structs,
 * whose strings point into the kept Hello message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/lib/client_internal.h"

void gpc__configuration_from_proto(struct gpc_configuration *out,
				   const Gpuperf__Configuration *c)
{
	memset(out, 0, sizeof(*out));
	out->metric_set = "";
	out->metric_set_guid = "";
	if (!c)
		return;
	out->streaming = c->streaming;
	out->metric_set = c->metric_set;
	out->metric_set_guid = c->metric_set_guid;
	out->exponent = c->exponent;
	out->sampling_period_ns = c->sampling_period_ns;
	out->subscribers = c->subscribers;
	out->single_context = c->single_context;
}

static void load_counter(struct gpc_counter *out, const Gpuperf__Counter *c)
{
	out->symbol = c->symbol;
	out->name = c->name;
	out->description = c->description;
	out->group = c->group;
	out->units = c->units;
	out->semantic_type = c->semantic_type;
	/* The wire's enums and ours share their numbering; anything a later
	 * protocol adds reads as the most general kind. */
	out->type = c->type <= GPUPERF__COUNTER_TYPE__COUNTER_TYPE_TIMESTAMP ?
		    (enum gpc_counter_type)c->type : GPC_COUNTER_RAW;
	switch (c->data_type) {
	case GPUPERF__DATA_TYPE__DATA_TYPE_BOOL32:
		out->data_type = GPC_DATA_BOOL32;
		break;
	case GPUPERF__DATA_TYPE__DATA_TYPE_UINT32:
		out->data_type = GPC_DATA_UINT32;
		break;
	case GPUPERF__DATA_TYPE__DATA_TYPE_FLOAT:
		out->data_type = GPC_DATA_FLOAT;
		break;
	case GPUPERF__DATA_TYPE__DATA_TYPE_DOUBLE:
		out->data_type = GPC_DATA_DOUBLE;
		break;
	default:
		out->data_type = GPC_DATA_UINT64;
		break;
	}
	out->has_max_value = c->max_case == GPUPERF__COUNTER__MAX_MAX_VALUE;
	out->max_value = out->has_max_value ? c->max_value : 0;
	out->max_equation = c->max_case == GPUPERF__COUNTER__MAX_MAX_EQUATION ?
			    c->max_equation : NULL;
	out->device_max = c->device_max;
}

static void load_topology(struct gpc_topology *out, const Gpuperf__Topology *t)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	out->max_slices = t->max_slices;
	out->max_subslices = t->max_subslices;
	out->max_eus_per_subslice = t->max_eus_per_subslice;
	out->slice_mask = t->slice_mask;
	out->eu_count = t->eu_count;
	out->subslice_count = t->subslice_count;
	out->eu_threads = t->eu_threads;
}

/* Counts what the arrays below the devices need, so one allocation holds
 * them all. */
static size_t storage_size(const Gpuperf__Hello *h)
{
	size_t size = h->n_devices * sizeof(struct gpc_device);

	for (size_t d = 0; d < h->n_devices; d++) {
		const Gpuperf__Device *dev = h->devices[d];
		size += dev->n_sampling_periods * sizeof(struct gpc_sampling_period);
		size += dev->n_metric_sets * sizeof(struct gpc_metric_set);
		for (size_t s = 0; s < dev->n_metric_sets; s++)
			size += dev->metric_sets[s]->n_counters *
				sizeof(struct gpc_counter);
	}
	return size;
}

/* Hands out pieces of the storage; every piece's type has the same
 * alignment needs as the allocation provides. */
static void *carve(unsigned char **p, size_t size)
{
	void *piece = *p;
	*p += (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
	      sizeof(max_align_t);
	return piece;
}

static void load_device(struct gpc_device *out, const Gpuperf__Device *d,
			unsigned char **p)
{
	out->name = d->name;
	out->driver = d->driver;
	out->source = d->source;
	out->platform = d->platform;
	out->description = d->description;
	out->fixed_metric_set = d->fixed_metric_set;
	out->pci_id = d->pci_id;
	out->revision = d->revision;
	out->graphics_version = d->graphics_version;
	out->timestamp_frequency = d->timestamp_frequency;
	out->min_frequency = d->min_frequency;
	out->max_frequency = d->max_frequency;
	out->usage = d->usage;
	out->flight_recorder_bytes = d->flight_recorder_bytes;
	out->kernel_context_filter = d->kernel_context_filter;
	out->software_context_filter = d->software_context_filter;
	out->kernel_filters_reports = d->kernel_filters_reports;
	load_topology(&out->topology, d->topology);
	gpc__configuration_from_proto(&out->configuration, d->configuration);

	struct gpc_sampling_period *periods =
		carve(p, d->n_sampling_periods * sizeof(*periods));
	for (size_t i = 0; i < d->n_sampling_periods; i++) {
		periods[i].exponent = d->sampling_periods[i]->exponent;
		periods[i].period_ns = d->sampling_periods[i]->period_ns;
	}
	out->n_sampling_periods = d->n_sampling_periods;
	out->sampling_periods = periods;

	struct gpc_metric_set *sets = carve(p, d->n_metric_sets * sizeof(*sets));
	for (size_t s = 0; s < d->n_metric_sets; s++) {
		const Gpuperf__MetricSet *ms = d->metric_sets[s];
		struct gpc_counter *counters =
			carve(p, ms->n_counters * sizeof(*counters));
		for (size_t i = 0; i < ms->n_counters; i++)
			load_counter(&counters[i], ms->counters[i]);
		sets[s].guid = ms->guid;
		sets[s].symbol = ms->symbol;
		sets[s].name = ms->name;
		sets[s].oa_format = ms->oa_format;
		sets[s].n_counters = ms->n_counters;
		sets[s].counters = counters;
	}
	out->n_metric_sets = d->n_metric_sets;
	out->metric_sets = sets;
}

int gpc__catalog_load(struct gpc__catalog *cat, Gpuperf__Envelope *hello)
{
	const Gpuperf__Hello *h = hello->hello;
	/* Each carved piece may round up to the alignment. */
	size_t pieces = 1;
	for (size_t d = 0; d < h->n_devices; d++)
		pieces += 2 + h->devices[d]->n_metric_sets;
	size_t size = storage_size(h) + pieces * sizeof(max_align_t);
	unsigned char *storage = malloc(size);

	if (!storage) {
		gpuperf__envelope__free_unpacked(hello, NULL);
		return -ENOMEM;
	}
	gpc__catalog_fini(cat);
	cat->hello = hello;
	cat->storage = storage;
	unsigned char *p = storage;
	cat->devices = carve(&p, h->n_devices * sizeof(*cat->devices));
	for (size_t d = 0; d < h->n_devices; d++)
		load_device(&cat->devices[d], h->devices[d], &p);
	cat->n_devices = h->n_devices;

	struct gpc_server_info *s = &cat->server;
	memset(s, 0, sizeof(*s));
	s->version = h->server_version;
	s->role = h->role == GPUPERF__ROLE__ROLE_CONTROLLER ?
		  GPC_ROLE_CONTROLLER : GPC_ROLE_VIEWER;
	if (h->limits) {
		s->limits.max_message_bytes = h->limits->max_message_bytes;
		s->limits.max_requests_per_second =
			h->limits->max_requests_per_second;
		s->limits.max_subscriptions = h->limits->max_subscriptions;
		s->limits.max_recordings = h->limits->max_recordings;
		s->limits.queue_frames = h->limits->queue_frames;
		s->limits.max_connections = h->limits->max_connections;
		s->limits.min_window_ns = h->limits->min_window_ns;
		s->limits.min_usage_interval_ns =
			h->limits->min_usage_interval_ns;
		s->limits.process_visibility =
			(enum gpc_process_visibility)h->limits->process_visibility;
		s->limits.max_snapshots = h->limits->max_snapshots;
		s->limits.max_passed_fds = h->limits->max_passed_fds;
	}
	s->context_policy = h->context_policy;
	return 0;
}

void gpc__catalog_fini(struct gpc__catalog *cat)
{
	if (cat->hello)
		gpuperf__envelope__free_unpacked(cat->hello, NULL);
	free(cat->storage);
	memset(cat, 0, sizeof(*cat));
}

const struct gpc_server_info *gpc_server_info(const struct gpc_client *c)
{
	return c->catalog.hello ? &c->catalog.server : NULL;
}

size_t gpc_devices(const struct gpc_client *c,
		   const struct gpc_device **devices)
{
	*devices = c->catalog.devices;
	return c->catalog.n_devices;
}

const struct gpc_device *gpc_find_device(const struct gpc_client *c,
					 const char *name)
{
	for (size_t i = 0; i < c->catalog.n_devices; i++)
		if (!name || !strcmp(c->catalog.devices[i].name, name))
			return &c->catalog.devices[i];
	return NULL;
}

const struct gpc_metric_set *gpc_find_metric_set(const struct gpc_device *d,
						 const char *symbol_or_guid)
{
	for (size_t i = 0; i < d->n_metric_sets; i++) {
		const struct gpc_metric_set *s = &d->metric_sets[i];
		if (!strcmp(s->symbol, symbol_or_guid) ||
		    !strcasecmp(s->guid, symbol_or_guid))
			return s;
	}
	for (size_t i = 0; i < d->n_metric_sets; i++)
		if (!strcasecmp(d->metric_sets[i].symbol, symbol_or_guid))
			return &d->metric_sets[i];
	return NULL;
}

const struct gpc_counter *gpc_find_counter(const struct gpc_metric_set *s,
					   const char *symbol)
{
	for (size_t i = 0; i < s->n_counters; i++)
		if (!strcmp(s->counters[i].symbol, symbol))
			return &s->counters[i];
	for (size_t i = 0; i < s->n_counters; i++)
		if (!strcasecmp(s->counters[i].symbol, symbol))
			return &s->counters[i];
	return NULL;
}
