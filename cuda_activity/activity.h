/*
 * A CUDA process's own kernel time, from CUPTI's activity records:
 * kernels are recorded as they complete, their intervals summed per GPU
 * as a union (busy_union.h), and every flush gives a report of each
 * GPU's busy ns within the span since the last one.
 *
 * CUPTI's buffer callbacks carry no user pointer, so there is one
 * recorder a process; the flush may run on any thread (CUPTI may also
 * complete buffers on its own), hence a lock.
 */
#ifndef GCA_ACTIVITY_H
#define GCA_ACTIVITY_H

#include <stdint.h>

#include "cuda_activity/cupti_activity_abi.h"

/* GPUs one process reports on, as the daemon takes them. */
#define GCA_MAX_GPUS 16
/* CUDA's PCI bus ids: "0000:3B:00.0". */
#define GCA_BUS_ID_MAX 32

struct gca_gpu_report {
	char pci_bus_id[GCA_BUS_ID_MAX];
	uint64_t busy_ns;
};

struct gca_report {
	uint64_t span_ns;               /* since the last report */
	uint64_t records_dropped;       /* by CUPTI, since the last report */
	unsigned n_gpus;                /* each GPU a kernel ever ran on */
	struct gca_gpu_report gpus[GCA_MAX_GPUS];
};

/* Asks CUPTI for kernel records through api (which must outlive the
 * recorder); the first report's span starts here. 0, or the CUPTI
 * result that refused. */
int gca_activity_start(const struct gca_cuda_api *api);

/* Flushes CUPTI's completed buffers and fills out with what they held
 * since the last flush: 0, or the CUPTI result that failed. */
int gca_activity_flush(struct gca_report *out);

/* Forgets everything (tests; a process has one recorder for its life). */
void gca_activity_reset(void);

#endif
