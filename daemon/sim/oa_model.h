/*
 * The simulated OA unit: a software model of Intel's OA hardware and of
 * what i915's read() makes of its buffer.
 *
 * The model is pure computation. It has no clock: its owner advances GPU
 * time by a number of OA timestamp ticks, and the model writes, into its
 * own OA buffer, every report the hardware would have written meanwhile:
 *
 * - periodic reports every 2^(exponent + 1) ticks, at multiples of the
 *   period (Haswell: half a period off, which is how IGT recognizes its
 *   periodic reports);
 * - context-switch reports (reason bit 3) carrying the incoming context,
 *   written a moment after the switch, so that a periodic report in
 *   between already shows the new context (docs/oa-reference.md §2.5);
 *   a resubmission of the running context writes one with the ctx-valid
 *   bit clear;
 * - GO-transition reports (reason bit 4) when the GPU goes idle into RC6.
 *
 * Counters follow the workload (workload.h) at rates fitted to the
 * configured metric set (rate_model.h), and are written cumulatively at
 * their report widths, so 32-bit fields wrap at 2^32, 40-bit A counters at
 * 2^40 and timestamps at the platform's timestamp width. Reports are
 * encoded with the daemon's own format table (metrics/oa_report.h).
 *
 * gpd_oa_model_read() then behaves as read() on an i915 perf stream fd
 * (docs/oa-reference.md §1.5): whole records only, each a
 * drm_i915_perf_record_header and a report; status records first
 * (BUFFER_LOST, after which the buffer is reset and everything pending is
 * gone; then REPORT_LOST); context IDs squashed to 0xffffffff where the
 * kernel squashes them; an optional single-context filter as with
 * CTX_HANDLE. Errors come back as the kernel's: -EAGAIN with nothing to
 * read, -ENOSPC when not even one record fits, -EIO while disabled.
 *
 * The same model backs the daemon's `sim` source and the tests' fake i915
 * kernel; whoever drives it owns all the timing.
 */
#ifndef GPD_SIM_OA_MODEL_H
#define GPD_SIM_OA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/sim/rate_model.h"
#include "daemon/sim/workload.h"
#include "metrics/device.h"
#include "metrics/metric_set.h"
#include "metrics/oa_report.h"

/* An exponent of no periodic sampling: a stream opened without
 * OA_EXPONENT, which only writes context-switch and idle reports. */
#define GPD_OA_MODEL_NOT_PERIODIC (-1)

/* The largest exponent i915 takes: a report per 32-bit timestamp wrap. */
#define GPD_OA_MODEL_MAX_EXPONENT 31

#define GPD_OA_MODEL_DEFAULT_BUFFER_SIZE (16u * 1024 * 1024)

struct gpd_oa_model_config {
	const struct gpm_device_info *dev;      /* required; copied */
	/* enum drm_i915_oa_format (10 A32u40_A4u32_B8_C8, 12 A24u40...,
	 * 5 HSW A45_B8_C8); 0 picks the device's general-purpose format for
	 * the set. */
	uint32_t oa_format;
	/* The layout to write, where oa_format cannot say it (xe's PEC
	 * formats); NULL: oa_format decides. */
	const struct gpm_oa_format *format;
	/* Period = 2^(exponent + 1) timestamp ticks: 0 (2 ticks) is the
	 * fastest the hardware goes; or GPD_OA_MODEL_NOT_PERIODIC. */
	int exponent;
	uint64_t seed;
	size_t buffer_size;             /* 0: 16 MiB; else a power of two, 128 KiB..16 MiB */
	/* The ring's memory, buffer_size bytes of zeros, lent for the
	 * model's life and zero again after (gpd_oa_buffer_init_lent); NULL:
	 * the model allocates its own. */
	unsigned char *buffer_mem;
	/* The configured metric set: the raw counters' rates are fitted to
	 * its equations at creation (the model keeps no reference to it).
	 * NULL gives moderate rates with nothing to fit. */
	const struct gpm_metric_set *set;
	/* The rates a model of this device and seed fitted to set before
	 * (gpd_oa_model_rates), used instead of fitting again; they must
	 * outlive the model. NULL fits. */
	const struct gpd_rate_model *rates;
	/* The timestamp at creation, in ticks (wrapped to the platform's
	 * timestamp width): lets tests start just before the wrap. */
	uint64_t start_timestamp;
	/* The raw counters' values at creation, GPM_ACC_SLOTS entries in
	 * accumulator layout (GPU_CLOCK, A, B, C...; GPU_TIME is ignored);
	 * NULL starts them at 0. Lets tests start just before a 40-bit wrap. */
	const uint64_t *initial_counters;
	struct gpd_workload_config workload;
	/* How long after a context switch its report lands: 0 gives 200 ns,
	 * a negative value none. */
	int64_t ctx_switch_report_delay_ns;
	/* A single-context stream (i915's CTX_HANDLE): read() forwards only
	 * this context's reports and their neighbours, as the kernel does. */
	bool filter_context;
	uint32_t filter_context_id;
};

struct gpd_oa_model;

/*
 * Creates a disabled model. -EINVAL for a config the kernel would refuse
 * (unknown format, format of another generation, exponent above 31, bad
 * buffer size) or a device the model cannot run (no OA unit, clocks of 0);
 * -ENOMEM. The formats of a generation are its general-purpose OA unit's,
 * OAR's from Xe_HP on and the media OAM unit's from MTL on.
 */
int gpd_oa_model_create(const struct gpd_oa_model_config *cfg,
			struct gpd_oa_model **out);

void gpd_oa_model_destroy(struct gpd_oa_model *model);

/* I915_PERF_IOCTL_ENABLE: zeroes the OA buffer, resets head and tail and
 * the status, and starts sampling. Enabling an enabled model does the
 * same, as the kernel's ioctl does. */
void gpd_oa_model_enable(struct gpd_oa_model *model);

/* I915_PERF_IOCTL_DISABLE: stops writing reports; reads fail with -EIO.
 * Time, the workload and the counters go on. */
void gpd_oa_model_disable(struct gpd_oa_model *model);

/* A GPU reset: the unit loses its programming and writes no more reports
 * until it is enabled again. Neither kernel notices: the stream stays
 * enabled and reads find only what was written before. */
void gpd_oa_model_reset_unit(struct gpd_oa_model *model);

bool gpd_oa_model_enabled(const struct gpd_oa_model *model);

/*
 * I915_PERF_IOCTL_CONFIG: switches to another metric set (refitting the
 * rates, or using rates fitted to it before, as in the config; counters
 * continue from where they are). -ENOMEM leaves the old rates in place.
 */
int gpd_oa_model_set_metric_set(struct gpd_oa_model *model,
				const struct gpm_metric_set *set,
				const struct gpd_rate_model *rates);

/* The raw counters' rates, as fitted to the model's set; valid while the
 * model lives and keeps its set. */
const struct gpd_rate_model *gpd_oa_model_rates(const struct gpd_oa_model *model);

/*
 * Advances GPU time by ticks timestamp ticks, writing every report due in
 * that time. How a stretch of time is cut into calls makes no difference
 * to the reports.
 */
void gpd_oa_model_advance(struct gpd_oa_model *model, uint64_t ticks);

/*
 * Advances GPU time by ticks for a reader that has fallen so far behind
 * that the buffer fills meanwhile: the unit overflows at once and writes
 * nothing more until the next read, which returns BUFFER_LOST and resets
 * the buffer as i915 does. What read() then returns is what advancing
 * would have left, without the work of writing reports that are lost.
 */
void gpd_oa_model_overrun(struct gpd_oa_model *model, uint64_t ticks);

/* Ticks the unit takes to fill its whole buffer at its period; UINT64_MAX
 * when not periodic. */
uint64_t gpd_oa_model_buffer_ticks(const struct gpd_oa_model *model);

/* read() on the stream fd; see the top of this file. Returns the bytes
 * copied or a negative errno. */
ssize_t gpd_oa_model_read(struct gpd_oa_model *model, void *buf, size_t len);

/* What poll() sees: the bytes a read of unlimited length would return now
 * (before context filtering); 0 when there is nothing to read. */
size_t gpd_oa_model_pending_bytes(const struct gpd_oa_model *model);

/*
 * The OA unit as xe's read() finds it (xe_oa.c __xe_oa_read(), which
 * reads and clears OASTATUS first): the status bits since the last call,
 * GPM_OA_XE_STATUS_*, cleared by the call. Unlike i915, xe leaves the
 * buffer as it is after an overflow.
 */
uint64_t gpd_oa_model_take_status(struct gpd_oa_model *model);

/*
 * xe_oa_append_reports(): whole reports as the unit wrote them, no record
 * headers, no context squashed; -ENOSPC when not even one fits, -EAGAIN
 * when none is there. A disabled unit's reports stay readable.
 */
ssize_t gpd_oa_model_read_reports(struct gpd_oa_model *model, void *buf,
				  size_t len);

/* Whole reports waiting in the buffer. */
size_t gpd_oa_model_pending_reports(const struct gpd_oa_model *model);

/* Whether the workload has the GPU idle (in RC6) now. */
bool gpd_oa_model_idle(const struct gpd_oa_model *model);

/* The current timestamp, in ticks, before wrapping (it starts at the
 * configured start_timestamp and only grows). */
uint64_t gpd_oa_model_time(const struct gpd_oa_model *model);

/* Period in ticks; 0 when not periodic. */
uint64_t gpd_oa_model_period(const struct gpd_oa_model *model);

/* The decoder of the model's reports: format and platform rules. */
const struct gpm_oa_decoder *gpd_oa_model_decoder(const struct gpd_oa_model *model);

/* Bytes of one SAMPLE record: header and report. */
size_t gpd_oa_model_record_size(const struct gpd_oa_model *model);

/* The workload's hardware context IDs. */
unsigned gpd_oa_model_n_contexts(const struct gpd_oa_model *model);
uint32_t gpd_oa_model_context_id(const struct gpd_oa_model *model, unsigned index);

#endif
