/*
 * The source interface: where a device's OA records come from.
 *
 * Every source (the simulated OA unit, a recording, i915, xe) hands its data
 * upward as i915 perf records, exactly as read() on an i915 perf stream
 * returns them: struct drm_i915_perf_record_header + report for samples,
 * bare headers for REPORT_LOST and BUFFER_LOST. A source whose kernel has no
 * record headers (xe) frames its reports that way, so nothing above a source
 * can tell them apart.
 */
#ifndef GPD_SOURCE_H
#define GPD_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/device_spec.h"
#include "daemon/error.h"
#include "daemon/event.h"
#include "metrics/device.h"
#include "metrics/metric_binding.h"
#include "metrics/oa_format.h"
#include "metrics/platform.h"

struct gpd_source;

/* What the device asks a source to stream. */
struct gpd_stream_config {
	const struct gpm_metric_set *set;
	const struct gpm_binding *binding;      /* set bound to this device */
	unsigned exponent;              /* period = 2^(exponent+1) ticks */
	/* The kernel's context filter: a single-context stream of context
	 * ctx_handle (an i915 GEM context handle, an xe exec queue id) of
	 * the DRM file ctx_fd, opened through that file, since the kernel
	 * looks the handle up in the file the ioctl arrives on. */
	bool ctx_filter;
	int ctx_fd;
	uint32_t ctx_handle;
};

/* Where a source delivers, set by the device before open. */
struct gpd_source_listener {
	/* Whole records, on the loop. */
	void (*records)(void *user, const void *data, size_t len);
	/* The unit's clock reads ts (as its reports stamp it) at CPU time
	 * cpu_ns (CLOCK_MONOTONIC), before the records written up to then
	 * are delivered: from a source that knows (the sim, which paces its
	 * unit by that clock), so that reports are placed at their true
	 * CPU time rather than by when they were read. */
	void (*clock)(void *user, uint64_t ts, uint64_t cpu_ns);
	/* The stream stopped or came back on its own (device lost, unit taken
	 * by another process, recovered, a replay reached its end). */
	void (*event)(void *user, enum gpd_event_kind kind,
		      const char *message);
	void *user;
};

/* How a stream of a metric set runs on a source: the layout of its
 * reports and the clock of the OA unit that writes them (they differ from
 * the source's own where the set counts on another unit: a media set on
 * an OAM unit, metrics/oa_unit.h). */
struct gpd_stream_shape {
	const struct gpm_oa_format *format;
	uint64_t timestamp_frequency;   /* Hz */
};

struct gpd_source_ops {
	/* Starts streaming cfg. 0, or a negative code with err filled. */
	int (*open)(struct gpd_source *src, const struct gpd_stream_config *cfg,
		    struct gpd_error *err);
	/* Switches metric set or period without closing; NULL or -EOPNOTSUPP
	 * when the source cannot, then the device closes and reopens. */
	int (*reconfigure)(struct gpd_source *src,
			   const struct gpd_stream_config *cfg,
			   struct gpd_error *err);
	void (*close)(struct gpd_source *src);
	void (*destroy)(struct gpd_source *src);
	/* The device's metric definitions were replaced (a reload): nothing
	 * kept of the old sets may be used again. NULL when nothing is. */
	void (*forget_sets)(struct gpd_source *src);
	/* The shape a stream of set would have; a negative code with err
	 * saying why when no unit of the device can stream it. NULL: every
	 * set streams as the source's format and info say. */
	int (*shape)(struct gpd_source *src, const struct gpm_metric_set *set,
		     struct gpd_stream_shape *out, struct gpd_error *err);
	/* Whether fd is a DRM node of this device, through which a stream
	 * with the kernel's context filter may open; 0, or a negative code
	 * with err saying why not. NULL: the source has no DRM node. */
	int (*check_drm_fd)(struct gpd_source *src, int fd,
			    struct gpd_error *err);
};

struct gpd_source {
	const struct gpd_source_ops *ops;
	enum gpd_source_kind kind;
	char name[64];                          /* "sim0", "card1", a file */
	/* Which GPU it is across restarts, for a fleet: the PCI slot
	 * ("0000:03:00.0"), an NVIDIA GPU's UUID; sim and replay make one
	 * up. "" where unknown (name stands in). */
	char device_id[64];
	/* The model when the platform's description does not say it
	 * ("NVIDIA H200"); "" otherwise. */
	char model[96];
	struct gpm_device_info info;
	const struct gpm_platform *platform;
	const struct gpm_oa_format *format;     /* what its reports are */
	/* A recording fixes the metric set and period it was made with. */
	const char *fixed_metric_set;           /* symbol; NULL if free */
	uint64_t fixed_period_ns;               /* 0 if free or unknown */
	/* The mean time between the reports it writes at context switches,
	 * beside its timer's, while busy; 0 where unknown (real GPUs: it is
	 * the workload's). Rings sized in time count them. */
	uint64_t context_switch_interval_ns;
	/* Why the device streams no counters at all (an AMD GPU), for
	 * whoever asks for a stream; NULL where it can. */
	const char *no_stream;
	struct gpd_source_listener listener;
	uv_loop_t *loop;
};

/* Period of an exponent on a device, as the kernel computes it. */
uint64_t gpd_exponent_to_ns(const struct gpm_device_info *info,
			    unsigned exponent);

/* The largest exponent whose period does not exceed period_ns (the
 * fastest, 0, if none does). */
unsigned gpd_exponent_for_period(const struct gpm_device_info *info,
				 uint64_t period_ns);

/* The same for an OA unit whose clock runs at frequency Hz. */
uint64_t gpd_exponent_to_ns_at(uint64_t frequency, unsigned exponent);
unsigned gpd_exponent_for_period_at(uint64_t frequency, uint64_t period_ns);

/* The shape a stream of set would have on src (its ops->shape, or the
 * source's format and clock). */
int gpd_source_shape(struct gpd_source *src, const struct gpm_metric_set *set,
		     struct gpd_stream_shape *out, struct gpd_error *err);

#endif
