/*
 * The sampler threads of an open nvidia source.
 *
 * Decoding PM samples costs a host core up to a third of its time at 1 kHz
 * with 15 counters (docs/nvidia-pm-sampling.md), far too much to do on the
 * daemon's event loop. The sampler thread runs the CUPTI session (or the
 * NVML reads) from setup to teardown and decodes. At 10 kHz in a DRAM-bound phase, CUPTI's decoding
 * alone took 62-72 us of every 100 us sample on an H200, and reading the
 * sample's times and values, building its records and emptying the image
 * another 25-30 us: one thread fell behind, its image filled, and CUPTI
 * lost samples. So a PM session has a second, evaluating thread: it reads
 * one counter data image's samples (times and values), turns them into
 * records with the report builder, empties the image and hands the
 * records to the loop through a locked buffer and a uv_async wake-up,
 * while the sampler thread decodes into the other image.
 *
 * Who owns what, when (every hand-over under the lock):
 * - the image being filled (filling): the sampler thread's; when it holds
 *   samples it is handed over (handed), unless the evaluating thread still
 *   holds the other one: then it is filled further, or, once full, the
 *   sampler thread waits for the other to come back;
 * - the handed image: the evaluating thread's until it sets handed to -1,
 *   empty again;
 * - the report builder, the batch and what publish() counts: whoever holds
 *   the turn: the evaluating thread while an image is handed, else the
 *   sampler thread, which waits for handed to be -1 (quiesce) before it
 *   writes a loss, restarts the builder or closes the session;
 * - stats: each thread copies only its own fields into it.
 * A telemetry (NVML) session has no evaluating thread: the sampler thread
 * holds the turn throughout.
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
	uint64_t evaluation_waits;      /* a full image waited for the other */
	struct gpd_nv_pm_stats pm;
};

struct gpd_nv_sampler {
	struct gpd_nv_sampler_config cfg;
	uv_async_t *wake;               /* the loop's; the thread only sends */
	pthread_t thread;
	bool running;
	pthread_t evaluator;            /* PM sessions only */
	bool evaluating;

	pthread_mutex_t lock;
	pthread_cond_t cond;            /* stop requests, setup done */
	pthread_cond_t handoff;         /* an image handed over or back */
	/* Under lock. */
	bool stop;
	bool stop_evaluating;
	int handed;                     /* the evaluating thread's image; -1 */
	int evaluation_error;           /* for the sampler thread; 0: none */
	char evaluation_why[256];
	bool setup_done;
	int setup_result;
	char setup_why[256];
	unsigned char *out;             /* records for the loop */
	size_t out_len, out_cap;
	struct gpd_nv_notice notices[GPD_NV_MAX_NOTICES];
	unsigned n_notices;
	struct gpd_nv_sampler_stats stats;

	/* The sampler thread's own. */
	struct gpd_nv_pm_session pm;    /* its images: see above */
	struct gpd_nv_telemetry telemetry;
	bool session_open;
	unsigned filling;               /* the image decoded into */
	/* Each overflow doubles the next session's hardware buffer. */
	unsigned buffer_doublings;
	struct gpd_nv_sampler_stats mine;       /* its fields of stats */

	/* The turn's (see above). */
	struct gpd_nv_report_builder builder;
	unsigned char *batch;
	size_t batch_len, batch_cap;
	uint64_t dropped_batches;
	uint64_t evaluate_ns_max;
	uint64_t reset_bytes;
};

/*
 * Starts the thread and waits until its session runs. Returns 0, or the
 * session's error (see gpd_nv_pm_session_open, gpd_nv_telemetry_open)
 * with why in words, the thread then gone.
 */
int gpd_nv_sampler_start(struct gpd_nv_sampler *s,
			 const struct gpd_nv_sampler_config *cfg,
			 uv_async_t *wake, char *why, size_t why_size);

/* Stops the threads and frees what they hold; s->stats are then the
 * last. */
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
