/*
 * The Hello message: device descriptions built once, per-client parts
 * added at each connection.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/device.h"
#include "daemon/device_registry.h"
#include "daemon/net/hello.h"
#include "daemon/net/proto_codec.h"
#include "daemon/subscription.h"
#include "metrics/metric_binding.h"

#define N_EXPONENTS 32                  /* the kernel allows 0..31 */

/* Every allocation of the description tree, freed together. */
struct block {
	struct block *next;
	max_align_t data[];
};

struct gpd_hello {
	size_t n_devices;
	Gpuperf__Device **devices;
	struct gpd_device **device_of;          /* devices[i] describes this */
	/* Each description packed once, without its configuration, which
	 * every Hello appends: packing the descriptions, most of a Hello's
	 * bytes, was most of what opening a connection cost. */
	uint8_t **packed;
	size_t *packed_len;
	struct block *blocks;
};

static void *hello_alloc(struct gpd_hello *h, size_t size)
{
	struct block *b = calloc(1, sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = h->blocks;
	h->blocks = b;
	return b->data;
}

/* A copy of s that lives as long as the hello; NULL on ENOMEM. */
static char *hello_strdup(struct gpd_hello *h, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = hello_alloc(h, n);
	if (copy)
		memcpy(copy, s, n);
	return copy;
}

/* protobuf-c takes char *; the strings are only read. */
static char *str(const char *s)
{
	return (char *)(s ? s : "");
}

static Gpuperf__CounterType counter_type(enum gpm_counter_type t)
{
	switch (t) {
	case GPM_COUNTER_DURATION_NORM:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_DURATION_NORM;
	case GPM_COUNTER_DURATION_RAW:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_DURATION_RAW;
	case GPM_COUNTER_THROUGHPUT:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_THROUGHPUT;
	case GPM_COUNTER_RAW:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_RAW;
	case GPM_COUNTER_TIMESTAMP:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_TIMESTAMP;
	case GPM_COUNTER_EVENT:
	default:
		return GPUPERF__COUNTER_TYPE__COUNTER_TYPE_EVENT;
	}
}

static Gpuperf__DataType data_type(enum gpm_counter_data_type t)
{
	switch (t) {
	case GPM_DATA_BOOL32:
		return GPUPERF__DATA_TYPE__DATA_TYPE_BOOL32;
	case GPM_DATA_UINT32:
		return GPUPERF__DATA_TYPE__DATA_TYPE_UINT32;
	case GPM_DATA_FLOAT:
		return GPUPERF__DATA_TYPE__DATA_TYPE_FLOAT;
	case GPM_DATA_DOUBLE:
		return GPUPERF__DATA_TYPE__DATA_TYPE_DOUBLE;
	case GPM_DATA_UINT64:
	default:
		return GPUPERF__DATA_TYPE__DATA_TYPE_UINT64;
	}
}

static Gpuperf__Topology *describe_topology(struct gpd_hello *h,
					    const struct gpm_device_info *info)
{
	const struct gpm_topology *t = &info->topology;
	Gpuperf__Topology *m = hello_alloc(h, sizeof(*m));
	size_t slices = t->max_slices <= GPM_MAX_SLICES ? t->max_slices : GPM_MAX_SLICES;
	size_t subslices = t->max_subslices <= GPM_MAX_SUBSLICES ?
			   t->max_subslices : GPM_MAX_SUBSLICES;
	uint64_t *ss = hello_alloc(h, (slices ? slices : 1) * sizeof(*ss));
	size_t n_eu_masks = slices * subslices;
	uint32_t *eu = hello_alloc(h, (n_eu_masks ? n_eu_masks : 1) * sizeof(*eu));
	if (!m || !ss || !eu)
		return NULL;
	gpuperf__topology__init(m);
	m->max_slices = t->max_slices;
	m->max_subslices = t->max_subslices;
	m->max_eus_per_subslice = t->max_eus_per_subslice;
	m->slice_mask = t->slice_mask;
	unsigned n_subslices = 0;
	for (size_t s = 0; s < slices; s++) {
		ss[s] = t->subslice_mask[s];
		for (size_t k = 0; k < subslices; k++) {
			eu[s * subslices + k] = t->eu_mask[s][k];
			if (gpm_topology_has_subslice(t, (unsigned)s, (unsigned)k))
				n_subslices++;
		}
	}
	m->n_subslice_masks = slices;
	m->subslice_masks = ss;
	m->n_eu_masks = n_eu_masks;
	m->eu_masks = eu;
	m->eu_count = gpm_topology_eu_count(t);
	m->subslice_count = n_subslices;
	m->eu_threads = info->eu_threads_count;
	return m;
}

/* The counter's bound: a constant max equation is evaluated once for the
 * device; one that reads the window's counters goes out as its text, and
 * evaluated on peak_max's second at the highest frequency. */
static void describe_max(Gpuperf__Counter *c, const struct gpm_binding *b,
			 unsigned index, const struct gpm_value *peak_max)
{
	for (size_t i = 0; i < b->n_max; i++) {
		const struct gpm_binding_max *m = &b->max[i];
		if (m->counter != index)
			continue;
		if (!m->equation) {
			c->max_case = GPUPERF__COUNTER__MAX_MAX_VALUE;
			c->max_value = gpm_value_as_double(m->constant);
			c->device_max = c->max_value;
		} else {
			c->max_case = GPUPERF__COUNTER__MAX_MAX_EQUATION;
			c->max_equation = str(b->set->counters[index].max_equation);
			if (peak_max)
				c->device_max = gpm_value_as_double(peak_max[index]);
		}
		return;
	}
}

/* The bounds over one second of GPU time at the highest frequency, into
 * max (n_counters of them): the window's clocks, the only counter bounds
 * read, are then that frequency's. NULL when out of memory. */
static struct gpm_value *peak_second_max(const struct gpm_binding *b,
					 const struct gpm_device_info *info)
{
	size_t n = b->set->n_counters ? b->set->n_counters : 1;
	struct gpm_value *values = calloc(n, sizeof(*values));
	struct gpm_value *max = calloc(n, sizeof(*max));
	struct gpm_accumulator acc = { 0 };

	if (!values || !max) {
		free(values);
		free(max);
		return NULL;
	}
	/* A second of the set's unit's clock. */
	acc.slot[GPM_ACC_GPU_TIME] = b->vars.value[GPM_VAR_GPU_TIMESTAMP_FREQUENCY];
	acc.slot[GPM_ACC_GPU_CLOCK] = info->gpu_max_freq;
	gpm_binding_evaluate(b, &acc, values);
	gpm_binding_evaluate_max(b, &acc, values, max);
	free(values);
	return max;
}

static Gpuperf__MetricSet *describe_set(struct gpd_hello *h,
					struct gpd_device *dev,
					const struct gpm_metric_set *set)
{
	const struct gpm_binding *b = gpd_device_binding(dev, set);
	Gpuperf__MetricSet *m = hello_alloc(h, sizeof(*m));
	if (!b || !m)
		return NULL;
	gpuperf__metric_set__init(m);
	m->guid = str(set->hw_config_guid);
	m->symbol = str(set->symbol_name);
	m->name = str(set->name);
	m->oa_format = str(set->oa_format);
	struct gpd_stream_shape shape;
	struct gpd_error why = { 0 };
	if (gpd_device_set_shape(dev, set, &shape, &why))
		m->unavailable = str(hello_strdup(h, why.message));
	size_t n = 0;
	for (size_t i = 0; i < set->n_counters; i++)
		n += b->available[i];
	Gpuperf__Counter *counters = hello_alloc(h, (n ? n : 1) * sizeof(*counters));
	Gpuperf__Counter **ptrs = hello_alloc(h, (n ? n : 1) * sizeof(*ptrs));
	if (!counters || !ptrs)
		return NULL;
	struct gpm_value *peak_max = peak_second_max(b, &dev->source->info);
	size_t k = 0;
	for (size_t i = 0; i < set->n_counters; i++) {
		if (!b->available[i])
			continue;
		const struct gpm_counter *src = &set->counters[i];
		Gpuperf__Counter *c = &counters[k];
		gpuperf__counter__init(c);
		c->symbol = str(src->symbol_name);
		c->name = str(src->name);
		c->description = str(src->description);
		c->group = str(src->mdapi_group);
		c->units = str(src->units);
		c->semantic_type = str(src->semantic_type);
		c->type = counter_type(src->type);
		c->data_type = data_type(src->data_type);
		describe_max(c, b, (unsigned)i, peak_max);
		ptrs[k++] = c;
	}
	free(peak_max);
	m->n_counters = k;
	m->counters = ptrs;
	return m;
}

static Gpuperf__Device *describe_device(struct gpd_hello *h,
					struct gpd_device *dev)
{
	const struct gpd_source *src = dev->source;
	const struct gpm_device_info *info = &src->info;
	Gpuperf__Device *m = hello_alloc(h, sizeof(*m));
	Gpuperf__SamplingPeriod *periods = hello_alloc(h, N_EXPONENTS * sizeof(*periods));
	Gpuperf__SamplingPeriod **period_ptrs =
		hello_alloc(h, N_EXPONENTS * sizeof(*period_ptrs));
	size_t n_sets = dev->metrics->n_sets;
	Gpuperf__MetricSet **sets = hello_alloc(h, (n_sets ? n_sets : 1) * sizeof(*sets));
	if (!m || !periods || !period_ptrs || !sets)
		return NULL;
	gpuperf__device__init(m);
	m->name = str(src->name);
	m->pci_id = info->pci_id;
	m->revision = info->revision;
	m->source = str(gpd_source_kind_name(src->kind));
	m->driver = m->source;
	m->platform = str(src->platform->name);
	m->description = str(src->platform->description);
	m->graphics_version = info->graphics_version;
	m->timestamp_frequency = info->timestamp_frequency;
	m->min_frequency = info->gpu_min_freq;
	m->max_frequency = info->gpu_max_freq;
	m->fixed_metric_set = str(src->fixed_metric_set);
	m->usage = dev->usage != NULL;
	m->flight_recorder_bytes = dev->ring ? dev->ring->capacity : 0;
	m->kernel_context_filter = src->ops->check_drm_fd != NULL;
	/* xe hands an exec queue's stream over unfiltered
	 * (xe_oa_append_reports(), Linux 7.0). */
	m->kernel_filters_reports = m->kernel_context_filter &&
				    src->kind != GPD_SOURCE_XE;
	m->software_context_filter = dev->decoder.has_context;
	m->i915perf_refusal = str(gpd_device_i915perf_misfit(dev));
	m->topology = describe_topology(h, info);
	if (!m->topology)
		return NULL;
	/* The periods anyone may ask for: none below the floor. */
	uint64_t floor = src->fixed_period_ns ? 0 : dev->min_period_ns;
	size_t n_periods = 0;
	for (unsigned e = 0; e < N_EXPONENTS; e++) {
		uint64_t ns = gpd_exponent_to_ns(info, e);
		if (ns < floor)
			continue;
		Gpuperf__SamplingPeriod *p = &periods[n_periods];
		gpuperf__sampling_period__init(p);
		p->exponent = e;
		p->period_ns = ns;
		period_ptrs[n_periods++] = p;
	}
	m->n_sampling_periods = n_periods;
	m->sampling_periods = period_ptrs;
	m->min_sampling_period_ns = floor;
	for (size_t i = 0; i < n_sets; i++) {
		sets[i] = describe_set(h, dev, &dev->metrics->sets[i]);
		if (!sets[i])
			return NULL;
	}
	m->n_metric_sets = n_sets;
	m->metric_sets = sets;
	return m;
}

int gpd_hello_create(const struct gpd_device_registry *devices,
		     struct gpd_hello **out)
{
	struct gpd_hello *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	size_t n = devices->n_devices;
	h->devices = hello_alloc(h, (n ? n : 1) * sizeof(*h->devices));
	h->device_of = hello_alloc(h, (n ? n : 1) * sizeof(*h->device_of));
	if (!h->devices || !h->device_of) {
		gpd_hello_destroy(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		h->devices[i] = describe_device(h, devices->devices[i]);
		if (!h->devices[i]) {
			gpd_hello_destroy(h);
			return -ENOMEM;
		}
		h->device_of[i] = devices->devices[i];
	}
	h->n_devices = n;
	h->packed = hello_alloc(h, (n ? n : 1) * sizeof(*h->packed));
	h->packed_len = hello_alloc(h, (n ? n : 1) * sizeof(*h->packed_len));
	for (size_t i = 0; h->packed && h->packed_len && i < n; i++) {
		h->packed_len[i] = gpuperf__device__get_packed_size(h->devices[i]);
		h->packed[i] = hello_alloc(h, h->packed_len[i]);
		if (!h->packed[i])
			break;
		gpuperf__device__pack(h->devices[i], h->packed[i]);
	}
	if (!h->packed || !h->packed_len || (n && !h->packed[n - 1])) {
		gpd_hello_destroy(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void gpd_hello_destroy(struct gpd_hello *h)
{
	if (!h)
		return;
	while (h->blocks) {
		struct block *b = h->blocks;
		h->blocks = b->next;
		free(b);
	}
	free(h);
}

void gpd_hello_configuration(const struct gpd_device *dev,
			     Gpuperf__Configuration *c)
{
	gpuperf__configuration__init(c);
	c->subscribers = dev->n_subscribers;
	if (!dev->open || !dev->set)
		return;
	c->streaming = true;
	c->single_context = dev->ctx_filter;
	c->metric_set = str(dev->set->symbol_name);
	c->metric_set_guid = str(dev->set->hw_config_guid);
	c->exponent = dev->exponent;
	c->sampling_period_ns = gpd_device_period_ns(dev, dev->exponent);
}

struct gpd_message *gpd_hello_pack(struct gpd_hello *h,
				   const struct gpd_send_queue *q,
				   uint64_t request_id, Gpuperf__Role role,
				   const Gpuperf__Limits *limits)
{
	return gpd_hello_pack_session(h, q, request_id, role, limits, NULL,
				      NULL, 0);
}

/* The wire format's pieces for a Hello assembled around the packed
 * descriptions: a length-delimited field's key, and varints. */
static uint64_t field_key(const ProtobufCMessageDescriptor *d, const char *name)
{
	return (uint64_t)protobuf_c_message_descriptor_get_field_by_name(d, name)->id
	       << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* A length-delimited field of len bytes, its key and length written. */
static size_t field_size(uint64_t key, size_t len)
{
	return varint_size(key) + varint_size(len) + len;
}

static uint8_t *put_field_head(uint8_t *p, uint64_t key, size_t len)
{
	return put_varint(put_varint(p, key), len);
}

struct gpd_message *gpd_hello_pack_session(struct gpd_hello *h,
					   const struct gpd_send_queue *q,
					   uint64_t request_id,
					   Gpuperf__Role role,
					   const Gpuperf__Limits *limits,
					   const char *fd_socket,
					   const uint8_t *key, size_t key_len)
{
	uint64_t envelope_hello = field_key(&gpuperf__envelope__descriptor, "hello");
	uint64_t hello_devices = field_key(&gpuperf__hello__descriptor, "devices");
	uint64_t device_configuration =
		field_key(&gpuperf__device__descriptor, "configuration");
	size_t n = h->n_devices;
	Gpuperf__Configuration *configs = calloc(n ? n : 1, sizeof(*configs));
	size_t *config_len = calloc(n ? n : 1, sizeof(*config_len));
	if (!configs || !config_len) {
		free(configs);
		free(config_len);
		return NULL;
	}
	/* The Hello but its devices, then each device: its description as
	 * packed at creation and its configuration now (a field's place in
	 * a message is free). */
	Gpuperf__Hello hello = GPUPERF__HELLO__INIT;
	hello.protocol_version = GPUPERF__PROTOCOL_VERSION__PROTOCOL_VERSION;
	hello.server_version = GPUPERF_VERSION;
	hello.role = role;
	hello.limits = (Gpuperf__Limits *)limits;
	hello.context_policy = GPD_CONTEXT_POLICY;
	if (fd_socket && key) {
		hello.fd_socket = (char *)fd_socket;
		hello.session_key.data = (uint8_t *)key;
		hello.session_key.len = key_len;
	}
	size_t hello_len = gpuperf__hello__get_packed_size(&hello);
	for (size_t i = 0; i < n; i++) {
		gpd_hello_configuration(h->device_of[i], &configs[i]);
		config_len[i] = gpuperf__configuration__get_packed_size(&configs[i]);
		hello_len += field_size(hello_devices, h->packed_len[i] +
					field_size(device_configuration,
						   config_len[i]));
	}
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = request_id;
	size_t head_len = gpuperf__envelope__get_packed_size(&env);
	struct gpd_message *m = gpd_message_alloc(q, GPD_MESSAGE_CONTROL,
		head_len + field_size(envelope_hello, hello_len));
	if (m) {
		uint8_t *p = m->data;
		p += gpuperf__envelope__pack(&env, p);
		p = put_field_head(p, envelope_hello, hello_len);
		p += gpuperf__hello__pack(&hello, p);
		for (size_t i = 0; i < n; i++) {
			size_t config = field_size(device_configuration,
						   config_len[i]);
			p = put_field_head(p, hello_devices,
					   h->packed_len[i] + config);
			memcpy(p, h->packed[i], h->packed_len[i]);
			p += h->packed_len[i];
			p = put_field_head(p, device_configuration, config_len[i]);
			p += gpuperf__configuration__pack(&configs[i], p);
		}
	}
	free(configs);
	free(config_len);
	return m;
}
