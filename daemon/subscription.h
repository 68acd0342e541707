/*
 * The internal subscription API: how the network layer (and tests) ask a
 * device for frames.
 *
 * A device has one hardware configuration at a time (metric set, sampling
 * period, optional context filter); every subscriber shares it and gets its
 * own windows, counter subset and options. A controller may change the
 * configuration, which every subscriber is told about; a viewer may only
 * subscribe to what is configured (or configure an idle device).
 *
 * Context filters. A subscription naming a hardware context ID gets a
 * software filter on the system-wide stream, on reports that carry one
 * (not Haswell's). A subscription presenting a DRM file and a context of
 * it gets the kernel's filter: a single-context stream, the one
 * configuration of the unit, so it opens only on a device no other client
 * streams from, and while it runs every other subscription is refused;
 * nobody but the client that passed the context sees it. Passive
 * subscribers follow it and get the unit back when it ends, at once.
 */
#ifndef GPD_SUBSCRIPTION_H
#define GPD_SUBSCRIPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/error.h"
#include "daemon/event.h"
#include "metrics/accumulator.h"
#include "metrics/equation.h"

struct gpd_device;
struct gpd_device_registry;
struct gpd_subscription;

enum gpd_role {
	GPD_ROLE_VIEWER,
	GPD_ROLE_CONTROLLER,
};

/* What the subscriptions of one connection may cost together, in counter
 * evaluations a second (gpd_subscription_evaluations()). Its owner keeps
 * it while any of them lives; every change of what they cost, by their
 * own requests or by a configuration someone else asks for, is checked
 * against max before the device changes. */
struct gpd_evaluation_budget {
	uint64_t max;                   /* 0: no limit */
	uint64_t used;                  /* what its subscriptions cost now */
	uint64_t checking;              /* scratch: used, as a check would
					 * leave it */
};

struct gpd_subscribe_request {
	const char *device;             /* device name; NULL = the first */
	const char *metric_set;         /* symbol or guid; NULL = current/default */
	uint64_t sampling_period_ns;    /* 0 = current, or the default */
	uint64_t window_ns;             /* 0 = frames only at end marks */
	const char *const *counters;    /* symbols; NULL = every counter */
	size_t n_counters;
	bool ctx_filter;                /* only reports of ctx_id, a
					 * hardware context ID (software) */
	uint32_t ctx_id;
	/* The kernel's filter: a single-context stream of context ctx_handle
	 * (i915 GEM context handle, xe exec queue id) of the DRM file ctx_fd,
	 * which the device holds from a successful subscribe on, and closes
	 * when the stream ends; on failure the caller keeps it. */
	bool kernel_ctx_filter;
	int ctx_fd;
	uint32_t ctx_handle;
	bool raw;                       /* frames carry the summed raw deltas */
	bool per_context;               /* frames carry per-context rows,
					 * where reports name contexts */
	/* GPU time covered from the first report, the last window cut there
	 * and sent with `last`; 0: until unsubscribed. */
	uint64_t duration_ns;
	enum gpd_role role;
	/* Kept by the daemon for itself: it follows what runs, and the
	 * others_left callback says when only such subscribers are left. */
	bool passive;
	/* The connection's budget it is counted in; NULL: none. */
	struct gpd_evaluation_budget *budget;
	/* A subscriber that takes no frames (a recording) but evaluates the
	 * counters itself every own_window_ns (a Perfetto trace's windows),
	 * for the budget; 0: it evaluates none. */
	bool no_frames;
	uint64_t own_window_ns;
};

/* Per-context frames are counted as this many rows besides the window's
 * own: how many contexts a window holds is known only once it ran. */
#define GPD_EVALUATION_CONTEXT_ROWS 8

/* One context's share of a window. */
struct gpd_context_row {
	uint32_t ctx_id;                /* GPD_CTX_IDLE for idle/unknown */
	uint32_t reports;
	uint64_t gpu_time_ns;           /* time this context ran in the window */
	const struct gpm_value *values; /* subscribed counters, as in the frame */
	const struct gpm_accumulator *raw;      /* when requested */
};

#define GPD_CTX_IDLE UINT32_MAX

/* The rules above, as Hello tells every client. */
#define GPD_CONTEXT_POLICY \
	"A subscription naming a hardware context id gets a software " \
	"filter on the device's system-wide stream, on devices whose reports " \
	"carry context ids (not Haswell), which per-context rows need " \
	"too: elsewhere frames carry none. A subscription presenting a DRM " \
	"file it passed and a context of that file gets the kernel's " \
	"filter: a stream of that context alone, the OA unit's one " \
	"configuration, which opens only while nobody else streams from the " \
	"device and refuses every other subscription while it runs; only " \
	"its client sees it, and every subscriber is told when the " \
	"configuration changes. On xe the context is an exec queue, and " \
	"the kernel does not filter its stream's reports: they count the " \
	"whole unit."

struct gpd_frame {
	uint64_t gpu_start_ns, gpu_end_ns;      /* GPU timestamps, in ns */
	uint64_t cpu_start_ns, cpu_end_ns;      /* CLOCK_MONOTONIC */
	uint32_t reports;                       /* reports summed */
	uint32_t lost_reports;                  /* REPORT_LOST seen */
	uint32_t buffer_lost;                   /* BUFFER_LOST seen */
	bool from_mark;                         /* closed by an end mark */
	bool partial;                           /* shorter than the window:
						 * the first, the last, or cut
						 * where a mark begins or ends */
	bool last;                              /* the duration is covered:
						 * none follows (it may be
						 * empty, saying only that) */
	bool within_mark;                       /* an interval window inside
						 * a mark */
	size_t n_values;
	const struct gpm_value *values;         /* in subscribed order */
	const struct gpm_accumulator *raw;      /* when requested */
	size_t n_contexts;
	const struct gpd_context_row *contexts; /* when requested */
};

struct gpd_subscriber_ops {
	void (*frame)(void *user, const struct gpd_frame *frame);
	void (*event)(void *user, const struct gpd_event *event);
	/* Optional, for passive subscriptions: every subscriber of the
	 * device but passive ones has left. It may come from inside a
	 * device callback: defer anything that reconfigures. */
	void (*others_left)(void *user);
};

/* Subscribes to one of devices; frames and events arrive on the loop. */
int gpd_subscribe(const struct gpd_device_registry *devices,
		  const struct gpd_subscribe_request *req,
		  const struct gpd_subscriber_ops *ops, void *user,
		  struct gpd_subscription **out, struct gpd_error *err);

void gpd_unsubscribe(struct gpd_subscription *sub);

/* Changes the device's metric set and/or sampling period (0 / NULL keep
 * the current one). Controllers only. Refused, changing nothing, when
 * what any subscription of the device would cost then is over its
 * connection's budget. */
int gpd_reconfigure(struct gpd_subscription *sub, const char *metric_set,
		    uint64_t sampling_period_ns, struct gpd_error *err);

/* Begin/end a query window: the frame for [begin, end] arrives after end
 * with from_mark set. */
int gpd_mark_begin(struct gpd_subscription *sub, struct gpd_error *err);
int gpd_mark_end(struct gpd_subscription *sub, struct gpd_error *err);

/* What a subscription costs, in counter evaluations a second: every
 * equation of its set (counters refer to each other) and every value its
 * frames carry, each window, for the window and its context rows. A
 * window shorter than the sampling period counts as one a period; frames
 * at marks only, as one a second; a subscriber without frames, its own
 * windows or nothing (see no_frames). */
uint64_t gpd_subscription_evaluations(const struct gpd_subscription *sub);

/* What a subscription receives: its counters, in frame order (each once:
 * a counter asked twice is sent once). */
size_t gpd_subscription_counters(const struct gpd_subscription *sub,
				 const char *const **symbols);

#endif
