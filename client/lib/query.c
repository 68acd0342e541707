/*
 * The performance-query layer: GL_INTEL_performance_query's view of the
 * catalog (queries are metric sets, numbered across devices) over a
 * subscription that only delivers marked windows.
 *
 * The data block lays the counters out in the set's order, each at the
 * next offset aligned to its own size, as Mesa lays out its Intel
 * performance queries; the block's size is rounded up to 8 so blocks can
 * be stored back to back.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

struct gpc_query {
	struct gpc_client *client;
	struct gpc_query *next;
	const struct gpc_device *device;
	const struct gpc_metric_set *set;
	struct gpc_subscription *sub;
	bool begun;                     /* BEGIN sent, END not yet */
	bool ended;                     /* some window has ended */
	bool have_data;                 /* the last window's frame arrived */
	size_t data_size;
	unsigned char *data;
};

static size_t data_type_size(enum gpc_data_type type)
{
	switch (type) {
	case GPC_DATA_UINT64:
	case GPC_DATA_DOUBLE:
		return 8;
	case GPC_DATA_BOOL32:
	case GPC_DATA_UINT32:
	case GPC_DATA_FLOAT:
		break;
	}
	return 4;
}

static size_t align_up(size_t offset, size_t alignment)
{
	return (offset + alignment - 1) / alignment * alignment;
}

/* The counter's offset; *end gets the offset after it. */
static size_t counter_offset(const struct gpc_metric_set *set, size_t index,
			     size_t *end)
{
	size_t offset = 0;

	for (size_t i = 0;; i++) {
		size_t size = data_type_size(set->counters[i].data_type);
		offset = align_up(offset, size);
		if (i == index) {
			*end = offset + size;
			return offset;
		}
		offset += size;
	}
}

static size_t block_size(const struct gpc_metric_set *set)
{
	size_t end = 0;

	if (set->n_counters)
		counter_offset(set, set->n_counters - 1, &end);
	return align_up(end, 8);
}

/* Query id -> device and set; false for an id out of range. */
static bool find_query(const struct gpc_client *c, unsigned id,
		       const struct gpc_device **device,
		       const struct gpc_metric_set **set)
{
	const struct gpc_device *devices;
	size_t n = gpc_devices(c, &devices);
	unsigned first = 1;

	if (!id)
		return false;
	for (size_t d = 0; d < n; d++) {
		if (id < first + devices[d].n_metric_sets) {
			*device = &devices[d];
			*set = &devices[d].metric_sets[id - first];
			return true;
		}
		first += (unsigned)devices[d].n_metric_sets;
	}
	return false;
}

int gpc_query_first_id(const struct gpc_client *c, unsigned *query_id)
{
	const struct gpc_device *device;
	const struct gpc_metric_set *set;

	if (!find_query(c, 1, &device, &set))
		return -ENOENT;
	*query_id = 1;
	return 0;
}

int gpc_query_next_id(const struct gpc_client *c, unsigned query_id,
		      unsigned *next_id)
{
	const struct gpc_device *device;
	const struct gpc_metric_set *set;

	if (!find_query(c, query_id, &device, &set))
		return -EINVAL;
	if (!find_query(c, query_id + 1, &device, &set))
		return -ENOENT;
	*next_id = query_id + 1;
	return 0;
}

int gpc_query_id_by_name(const struct gpc_client *c, const char *device_name,
			 const char *metric_set, unsigned *query_id)
{
	const struct gpc_device *devices;
	size_t n = gpc_devices(c, &devices);
	unsigned first = 1;

	for (size_t d = 0; d < n; d++) {
		const struct gpc_device *dev = &devices[d];
		bool wanted = device_name ? !strcmp(dev->name, device_name) : d == 0;
		const struct gpc_metric_set *set =
			wanted ? gpc_find_metric_set(dev, metric_set) : NULL;
		if (set) {
			*query_id = first + (unsigned)(set - dev->metric_sets);
			return 0;
		}
		first += (unsigned)dev->n_metric_sets;
	}
	return -ENOENT;
}

int gpc_query_info(const struct gpc_client *c, unsigned query_id,
		   struct gpc_query_info *info)
{
	const struct gpc_device *device;
	const struct gpc_metric_set *set;

	if (!find_query(c, query_id, &device, &set))
		return -EINVAL;
	info->name = set->name;
	info->symbol = set->symbol;
	info->device = device->name;
	info->data_size = block_size(set);
	info->n_counters = (unsigned)set->n_counters;
	return 0;
}

int gpc_query_counter_info(const struct gpc_client *c, unsigned query_id,
			   unsigned counter_id,
			   struct gpc_query_counter_info *info)
{
	const struct gpc_device *device;
	const struct gpc_metric_set *set;
	size_t end;

	if (!find_query(c, query_id, &device, &set) || !counter_id ||
	    counter_id > set->n_counters)
		return -EINVAL;
	const struct gpc_counter *counter = &set->counters[counter_id - 1];
	info->name = counter->name;
	info->symbol = counter->symbol;
	info->description = counter->description;
	info->units = counter->units;
	info->offset = counter_offset(set, counter_id - 1, &end);
	info->size = end - info->offset;
	info->type = counter->type;
	info->data_type = counter->data_type;
	info->raw_max = 0;
	if (counter->has_max_value && counter->max_value > 0 &&
	    counter->max_value < 18446744073709551616.0)
		info->raw_max = (uint64_t)llround(counter->max_value);
	return 0;
}

/* A value as its data type, clamped to what the type holds. */
static void store(unsigned char *at, enum gpc_data_type type, double v)
{
	if (isnan(v))
		v = 0;
	switch (type) {
	case GPC_DATA_BOOL32: {
		uint32_t b = v != 0;
		memcpy(at, &b, sizeof(b));
		break;
	}
	case GPC_DATA_UINT32: {
		uint32_t u = v <= 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX :
			     (uint32_t)v;
		memcpy(at, &u, sizeof(u));
		break;
	}
	case GPC_DATA_UINT64: {
		uint64_t u = v <= 0 ? 0 : v >= 18446744073709551615.0 ?
			     UINT64_MAX : (uint64_t)v;
		memcpy(at, &u, sizeof(u));
		break;
	}
	case GPC_DATA_FLOAT: {
		float f = (float)v;
		memcpy(at, &f, sizeof(f));
		break;
	}
	case GPC_DATA_DOUBLE:
		memcpy(at, &v, sizeof(v));
		break;
	}
}

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct gpc_query *q = user;
	const struct gpc_subscription_info *info = gpc_subscription_info(sub);
	size_t end;

	if (!f->mark)
		return;
	memset(q->data, 0, q->data_size);
	/* Frame values follow the subscription's counters, which name the
	 * set's; a counter the frame lacks stays 0. */
	for (size_t i = 0; i < f->n_values && i < info->n_counters; i++) {
		const struct gpc_counter *counter =
			gpc_find_counter(q->set, info->counters[i]);
		if (!counter)
			continue;
		size_t index = (size_t)(counter - q->set->counters);
		store(q->data + counter_offset(q->set, index, &end),
		      counter->data_type, f->values[i]);
	}
	q->have_data = true;
}

/* drm_fd < 0: the device's whole stream; else context of that file. */
static int create(struct gpc_client *c, unsigned query_id, int drm_fd,
		  uint32_t context, struct gpc_query **out,
		  struct gpc_error *err)
{
	const struct gpc_device *device;
	const struct gpc_metric_set *set;
	struct gpc_subscription_cbs cbs = { .frame = on_frame };

	*out = NULL;
	if (!find_query(c, query_id, &device, &set)) {
		gpc__error_set(err, -EINVAL, "no query %u", query_id);
		return -EINVAL;
	}
	struct gpc_query *q = calloc(1, sizeof(*q));
	if (q) {
		q->data_size = block_size(set);
		q->data = calloc(1, q->data_size ? q->data_size : 1);
	}
	if (!q || !q->data) {
		free(q);
		gpc__error_set(err, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	q->client = c;
	q->device = device;
	q->set = set;
	struct gpc_subscribe_options o = {
		.device = device->name,
		.metric_set = set->symbol,
	};
	int ret = drm_fd < 0 ?
		  gpc_subscribe_sync(c, &o, &cbs, q, &q->sub, err) :
		  gpc_subscribe_context(c, drm_fd, context, &o, &cbs, q,
					&q->sub, err);
	if (ret) {
		free(q->data);
		free(q);
		return ret;
	}
	q->next = c->queries;
	c->queries = q;
	*out = q;
	return 0;
}

int gpc_query_create(struct gpc_client *c, unsigned query_id,
		     struct gpc_query **out, struct gpc_error *err)
{
	return create(c, query_id, -1, 0, out, err);
}

int gpc_query_create_context(struct gpc_client *c, unsigned query_id,
			     int drm_fd, uint32_t context,
			     struct gpc_query **out, struct gpc_error *err)
{
	if (drm_fd < 0) {
		gpc__error_set(err, -EBADF, "fd %d is not a DRM file", drm_fd);
		return -EBADF;
	}
	return create(c, query_id, drm_fd, context, out, err);
}

int gpc_query_begin(struct gpc_query *q, struct gpc_error *err)
{
	if (q->begun) {
		gpc__error_set(err, -EBUSY, "the query has begun already");
		return -EBUSY;
	}
	int ret = gpc_mark_sync(q->sub, GPC_MARK_BEGIN, err);
	if (ret)
		return ret;
	q->begun = true;
	return 0;
}

int gpc_query_end(struct gpc_query *q, struct gpc_error *err)
{
	if (!q->begun) {
		gpc__error_set(err, -EINVAL, "the query has not begun");
		return -EINVAL;
	}
	q->have_data = false;
	int ret = gpc_mark_sync(q->sub, GPC_MARK_END, err);
	if (ret)
		return ret;
	q->begun = false;
	q->ended = true;
	return 0;
}

int gpc_query_get_data(struct gpc_query *q, unsigned flags, void *data,
		       size_t size, size_t *written)
{
	*written = 0;
	if (!q->ended)
		return -EINVAL;
	if (size < q->data_size)
		return -ENOBUFS;
	if (!q->have_data && !(flags & GPC_QUERY_WAIT))
		return -EAGAIN;
	if (!q->have_data) {
		int ret = gpc__client_wait(q->client, &q->have_data, 0, NULL);
		if (!q->have_data)
			return ret ? ret : -ECANCELED;
	}
	memcpy(data, q->data, q->data_size);
	*written = q->data_size;
	return 0;
}

static void free_query(struct gpc_query *q)
{
	free(q->data);
	free(q);
}

void gpc_query_destroy(struct gpc_query *q)
{
	if (!q)
		return;
	for (struct gpc_query **p = &q->client->queries; *p; p = &(*p)->next) {
		if (*p == q) {
			*p = q->next;
			break;
		}
	}
	gpc_unsubscribe(q->sub);
	free_query(q);
}

void gpc__queries_free(struct gpc_client *c)
{
	/* Their subscriptions go with the client's. */
	while (c->queries) {
		struct gpc_query *q = c->queries;
		c->queries = q->next;
		free_query(q);
	}
}
