/*
 * The store of processes' own kernel time (process_activity.h): a small
 * array of processes, each with the GPUs it reported on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/process_activity.h"

struct gpu_sums {
	struct gpd_pci_address gpu;
	uint64_t busy_ns, span_ns;
};

struct process {
	int32_t pid;
	unsigned connections;
	size_t n_gpus;
	struct gpu_sums gpus[GPD_PROCESS_ACTIVITY_MAX_GPUS];
	uint64_t records_lost;
};

struct gpd_process_activity {
	struct process *processes;
	size_t n, cap;
};

int gpd_pci_address_parse(const char *text, struct gpd_pci_address *out)
{
	unsigned domain, bus, device, function;
	int end = 0;
	if (!text || strlen(text) > 16 ||
	    strspn(text, "0123456789abcdefABCDEF:.") != strlen(text) ||
	    sscanf(text, "%8x:%2x:%2x.%1x%n", &domain, &bus, &device, &function,
		   &end) != 4 || text[end] ||
	    device > 0x1f || function > 7)
		return -EINVAL;
	*out = (struct gpd_pci_address){ .domain = domain, .bus = (uint8_t)bus,
					 .device = (uint8_t)device,
					 .function = (uint8_t)function };
	return 0;
}

static bool same_gpu(const struct gpd_pci_address *x,
		     const struct gpd_pci_address *y)
{
	return x->domain == y->domain && x->bus == y->bus &&
	       x->device == y->device && x->function == y->function;
}

int gpd_process_activity_create(struct gpd_process_activity **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void gpd_process_activity_destroy(struct gpd_process_activity *a)
{
	if (!a)
		return;
	free(a->processes);
	free(a);
}

static struct process *find(const struct gpd_process_activity *a, int32_t pid)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->processes[i].pid == pid)
			return &a->processes[i];
	return NULL;
}

int gpd_process_activity_connect(struct gpd_process_activity *a, int32_t pid)
{
	struct process *p = find(a, pid);
	if (p) {
		p->connections++;
		return 0;
	}
	if (a->n == GPD_PROCESS_ACTIVITY_MAX_PROCESSES)
		return -ENOSPC;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		p = realloc(a->processes, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->processes = p;
		a->cap = cap;
	}
	p = &a->processes[a->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->connections = 1;
	return 0;
}

void gpd_process_activity_disconnect(struct gpd_process_activity *a,
				     int32_t pid)
{
	struct process *p = find(a, pid);
	if (!p || --p->connections)
		return;
	*p = a->processes[--a->n];
}

int gpd_process_activity_add(struct gpd_process_activity *a, int32_t pid,
			     const struct gpd_gpu_activity *gpus, size_t n,
			     const char **why)
{
	struct process *p = find(a, pid);
	if (!p)
		return -ENOENT;
	if (n > GPD_PROCESS_ACTIVITY_MAX_GPUS) {
		*why = "more GPUs than a report may hold";
		return -EINVAL;
	}
	/* Every GPU checked, and room found for the new ones, before any
	 * sum changes. */
	size_t new_gpus = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gpd_gpu_activity *g = &gpus[i];
		if (!g->span_ns || g->span_ns > GPD_PROCESS_ACTIVITY_MAX_SPAN_NS) {
			*why = "a span of 0 or over 60 s";
			return -EINVAL;
		}
		if (g->busy_ns > g->span_ns) {
			*why = "busy longer than its span";
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			if (same_gpu(&gpus[j].gpu, &g->gpu)) {
				*why = "a GPU twice";
				return -EINVAL;
			}
		bool known = false;
		for (size_t j = 0; j < p->n_gpus && !known; j++)
			known = same_gpu(&p->gpus[j].gpu, &g->gpu);
		new_gpus += !known;
	}
	if (p->n_gpus + new_gpus > GPD_PROCESS_ACTIVITY_MAX_GPUS) {
		*why = "more GPUs than a process may report on";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct gpu_sums *s = NULL;
		for (size_t j = 0; j < p->n_gpus && !s; j++)
			if (same_gpu(&p->gpus[j].gpu, &gpus[i].gpu))
				s = &p->gpus[j];
		if (!s) {
			s = &p->gpus[p->n_gpus++];
			*s = (struct gpu_sums){ .gpu = gpus[i].gpu };
		}
		/* Sums of at most 60 s a report: 2^64 ns is 584 years. */
		s->busy_ns += gpus[i].busy_ns;
		s->span_ns += gpus[i].span_ns;
	}
	return 0;
}

void gpd_process_activity_add_lost(struct gpd_process_activity *a,
				   int32_t pid, uint64_t records)
{
	struct process *p = find(a, pid);
	if (!p)
		return;
	p->records_lost = records > UINT64_MAX - p->records_lost ?
			  UINT64_MAX : p->records_lost + records;
}

uint64_t gpd_process_activity_records_lost(const struct gpd_process_activity *a,
					   int32_t pid)
{
	const struct process *p = a ? find(a, pid) : NULL;
	return p ? p->records_lost : 0;
}

bool gpd_process_activity_get(const struct gpd_process_activity *a,
			      int32_t pid, const struct gpd_pci_address *gpu,
			      uint64_t *busy_ns, uint64_t *span_ns)
{
	const struct process *p = a ? find(a, pid) : NULL;
	for (size_t j = 0; p && j < p->n_gpus; j++) {
		if (same_gpu(&p->gpus[j].gpu, gpu)) {
			*busy_ns = p->gpus[j].busy_ns;
			*span_ns = p->gpus[j].span_ns;
			return true;
		}
	}
	return false;
}
