/*
 * Kernel records into busy time per GPU (activity.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_activity/activity.h"
#include "cuda_activity/busy_union.h"

/* CUPTI fills buffers of this size; a kernel record is a few hundred
 * bytes, so one holds thousands of kernels. */
#define BUFFER_SIZE (1u << 20)

struct gpu {
	int ordinal;                    /* CUDA's device id in this process */
	char pci_bus_id[GCA_BUS_ID_MAX];
	struct gca_busy_union busy;
	/* Busy delivered but not reported yet: kernels delivered in a burst
	 * can cover more than one report's span, and a report never says
	 * more than its span, so the rest waits for the next. */
	uint64_t unreported_ns;
};

static struct {
	pthread_mutex_t lock;
	const struct gca_cuda_api *api;
	uint64_t last_ns;               /* CUPTI's clock at the last report */
	size_t dropped_reported;
	unsigned n_gpus;
	struct gpu gpus[GCA_MAX_GPUS];
	/* Kernels that could not be kept (more GPUs than a report holds,
	 * no memory): counted with CUPTI's drops. */
	uint64_t lost;
} rec = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_buffer_requested(uint8_t **buffer, size_t *size,
				size_t *max_records)
{
	/* CUPTI wants its buffers 8-byte aligned. */
	*buffer = aligned_alloc(8, BUFFER_SIZE);
	*size = *buffer ? BUFFER_SIZE : 0;
	*max_records = 0;               /* as many as fit */
}

/* The GPU of a CUDA device ordinal, added the first time it is seen;
 * NULL when a report could not hold another. Called locked. */
static struct gpu *gpu_of(uint32_t ordinal)
{
	for (unsigned i = 0; i < rec.n_gpus; i++)
		if (rec.gpus[i].ordinal == (int)ordinal)
			return &rec.gpus[i];
	if (rec.n_gpus == GCA_MAX_GPUS || ordinal > 0x7fffffff)
		return NULL;
	struct gpu *g = &rec.gpus[rec.n_gpus++];
	memset(g, 0, sizeof(*g));
	g->ordinal = (int)ordinal;
	gca_busy_union_init(&g->busy);
	int device;
	if (rec.api->device_get(&device, g->ordinal) ||
	    rec.api->device_get_pci_bus_id(g->pci_bus_id, sizeof(g->pci_bus_id),
					   device))
		g->pci_bus_id[0] = '\0';        /* reported as no GPU */
	g->pci_bus_id[sizeof(g->pci_bus_id) - 1] = '\0';
	return g;
}

static void on_buffer_completed(void *context, uint32_t stream_id,
				uint8_t *buffer, size_t size, size_t valid_size)
{
	pthread_mutex_lock(&rec.lock);
	void *record = NULL;
	while (rec.api && valid_size &&
	       !rec.api->activity_get_next_record(buffer, valid_size, &record)) {
		struct gca_kernel_record k;
		memcpy(&k, record, sizeof(k));
		/* A forced flush marks the records of kernels still running
		 * invalid: their time is lost, and counted. */
		if (k.kind == GCA_CUPTI_ACTIVITY_KIND_INVALID) {
			rec.lost++;
			continue;
		}
		if (k.kind != GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		    k.kind != GCA_CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		struct gpu *g = gpu_of(k.device_id);
		if (!g || k.end <= k.start ||
		    gca_busy_union_add(&g->busy, k.start, k.end))
			rec.lost++;
	}
	pthread_mutex_unlock(&rec.lock);
	free(buffer);
}

int gca_activity_start(const struct gca_cuda_api *api)
{
	pthread_mutex_lock(&rec.lock);
	rec.api = api;
	int ret = api->get_timestamp(&rec.last_ns);
	pthread_mutex_unlock(&rec.lock);
	if (!ret)
		ret = api->activity_register_callbacks(on_buffer_requested,
						       on_buffer_completed);
	if (!ret)
		ret = api->activity_enable(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	return ret;
}

int gca_activity_flush(struct gca_report *out)
{
	const struct gca_cuda_api *api = rec.api;
	/* Every buffer, the one being filled too: unforced, CUPTI keeps a
	 * buffer until it is full, which a process launching a kernel every
	 * few ms takes seconds to fill. */
	int ret = api->activity_flush_all(GCA_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	uint64_t now;
	if (!ret)
		ret = api->get_timestamp(&now);
	size_t dropped = 0;
	if (!ret && api->activity_get_num_dropped_records(NULL, 0, &dropped))
		dropped = rec.dropped_reported;
	if (ret)
		return ret;
	pthread_mutex_lock(&rec.lock);
	memset(out, 0, sizeof(*out));
	out->span_ns = now > rec.last_ns ? now - rec.last_ns : 0;
	rec.last_ns = now;
	out->records_dropped = (dropped >= rec.dropped_reported ?
				dropped - rec.dropped_reported : dropped) + rec.lost;
	rec.dropped_reported = dropped;
	rec.lost = 0;
	for (unsigned i = 0; i < rec.n_gpus; i++) {
		struct gpu *g = &rec.gpus[i];
		g->unreported_ns += gca_busy_union_take(&g->busy);
		if (!g->pci_bus_id[0])
			continue;
		struct gca_gpu_report *r = &out->gpus[out->n_gpus++];
		memcpy(r->pci_bus_id, g->pci_bus_id, sizeof(r->pci_bus_id));
		r->busy_ns = g->unreported_ns < out->span_ns ? g->unreported_ns :
			     out->span_ns;
		g->unreported_ns -= r->busy_ns;
	}
	pthread_mutex_unlock(&rec.lock);
	return 0;
}

void gca_activity_reset(void)
{
	pthread_mutex_lock(&rec.lock);
	for (unsigned i = 0; i < rec.n_gpus; i++)
		gca_busy_union_fini(&rec.gpus[i].busy);
	rec.api = NULL;
	rec.last_ns = 0;
	rec.dropped_reported = 0;
	rec.n_gpus = 0;
	rec.lost = 0;
	pthread_mutex_unlock(&rec.lock);
}
