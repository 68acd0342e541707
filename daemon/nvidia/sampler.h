/*
 * The sampler thread of an open nvidia source.
 *
 * Decoding PM samples costs a host core up to a third of its time at 1 kHz
 * with 15 counters (docs/nvidia-pm-sampling.md), far too much to do on the
 * daemon's event loop. The thread runs the CUPTI session (or the NVML
 * reads), turns samples into records with the report builder, and hands
 * them to the loop through a locked buffer and a uv_async wake-up. It owns
 * every CUPTI and NVML call of the session, from setup to teardown.
 *
 * When the session breaks (the hardware buffer overflowed, the GPU was
 * taken by another profiler, a decode failed), the thread writes a
 * BUFFER_LOST record, closes it and opens a new one; while that fails it
 * says so once (busy elsewhere, or device lost) and tries again every
 * second, and says when it is back.
 *
 * Nothing the loop does holds the thread up: it takes the records by
 * swapping buffers under the lock, and when it falls that far behind, the
 * thread drops batches rather than wait for it.
 */
#ifndef GPD_NVIDIA_SAMPLER_H
#define GPD_NVIDIA_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/event.h"
#include "daemon/nvidia/counter_plan.h"
#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/pm_session.h"
#include "daemon/nvidia/report_builder.h"
#include "daemon/nvidia/telemetry.h"

struct gpd_nv_sampler_config {
	const struct gpd_nv_libs *libs;
	struct gpd_nv_plan plan;
	unsigned device_index;          /* CUDA device index */
	const char *pci_bus_id;         /* for NVML */
	uint64_t timestamp_frequency;   /* of the reports */
	const char *name;               /* "nvidia0", in messages */
	uint64_t retry_ns;              /* between attempts to reopen */
};

/* What the loop learns besides records. */
struct gpd_nv_notice {
	bool is_event;                  /* else only worth a log line */
	enum gpd_event_kind kind;
	char message[256];
};

#define GPD_NV_MAX_NOTICES 8

struct gpd_nv_sampler_stats {
	struct gpd_nv_report_stats reports;
	uint64_t sessions;              /* opened, the first included */
	uint64_t overflows;             /* hardware buffer overflows */
	uint64_t failures;              /* sessions that broke otherwise */
	uint64_t dropped_batches;       /* the loop fell behind */
	struct gpd_nv_pm_stats pm;
};

struct gpd_nv_sampler {
	struct gpd_nv_sampler_config cfg;
	uv_async_t *wake;               /* the loop's; the thread only sends */
	pthread_t thread;
	bool running;

	pthread_mutex_t lock;
	pthread_cond_t cond;            /* stop requests, setup done */
	/* Under lock. */
	bool stop;
	bool setup_done;
	int setup_result;
	char setup_why[256];
	unsigned char *out;             /* records for the loop */
	size_t out_len, out_cap;
	struct gpd_nv_notice notices[GPD_NV_MAX_NOTICES];
	unsigned n_notices;
	struct gpd_nv_sampler_stats stats;

	/* The thread's own. */
	struct gpd_nv_report_builder builder;
	struct gpd_nv_pm_session pm;
	struct gpd_nv_telemetry telemetry;
	bool session_open;
	/* Each overflow doubles the next session's hardware buffer. */
	unsigned buffer_doublings;
	unsigned char *batch;
	size_t batch_len, batch_cap;
	struct gpd_nv_sampler_stats mine;
};

/*
 * Starts the thread and waits until its session runs. Returns 0, or the
 * session's error (see gpd_nv_pm_session_open, gpd_nv_telemetry_open)
 * with why in words, the thread then gone.
 */
int gpd_nv_sampler_start(struct gpd_nv_sampler *s,
			 const struct gpd_nv_sampler_config *cfg,
			 uv_async_t *wake, char *why, size_t why_size);

/* Stops the thread and frees what it holds; s->stats are then the
 * thread's last. */
void gpd_nv_sampler_stop(struct gpd_nv_sampler *s);

/*
 * On the loop: takes the records produced so far by swapping *records
 * (a malloc'd buffer of *cap bytes, may be NULL) with the thread's, and
 * copies the notices and statistics. *len is the bytes of records.
 */
void gpd_nv_sampler_take(struct gpd_nv_sampler *s, unsigned char **records,
			 size_t *len, size_t *cap, struct gpd_nv_notice *notices,
			 unsigned *n_notices, struct gpd_nv_sampler_stats *stats);

#endif
