/*
 * A subscription's insides: what subscription.c sums the device's report
 * pairs into (through the gpd_device_subscriber it embeds), open to tests.
 */
#ifndef GPD_SUBSCRIPTION_INTERNAL_H
#define GPD_SUBSCRIPTION_INTERNAL_H

#include "daemon/device.h"
#include "daemon/subscription.h"
#include "metrics/accumulator.h"
#include "metrics/oa_report.h"

/* One context's accumulation inside the open window. */
struct gpd_context_acc {
	uint32_t ctx_id;
	uint32_t reports;
	uint64_t ticks;
	struct gpm_accumulator acc;
};

/* The contexts of the open window, in the order they first ran in it. */
struct gpd_context_sums {
	struct gpd_context_acc *rows;
	size_t n, cap;
};

/* A window being summed: the interval one or the mark one. */
struct gpd_window {
	bool open;                      /* spans at least one pair (of any
					 * context: a filtered window may hold
					 * none of its own) */
	bool partial;                   /* began after its aligned start, or
					 * was cut before its deadline */
	bool within_mark;               /* an interval window inside a mark */
	uint64_t start_ts, end_ts;      /* extended ticks */
	uint32_t reports;
	uint32_t reports_lost;
	uint32_t buffers_lost;
	struct gpm_accumulator acc;
};

enum gpd_mark_state {
	GPD_MARK_IDLE,
	GPD_MARK_OPEN,                  /* begun; pairs after begin_ts count */
	GPD_MARK_CLOSING,               /* ended; waiting for a report past end_ts */
};

/*
 * The interval windows of subscriptions that sum the same pairs into the
 * same windows: equal window length, context filter and per-context
 * choice on one device, nothing setting one apart (a mark, a duration, a
 * passive follower). Each pair is summed once, here, for all of them;
 * when a window closes each member evaluates its own counters from it.
 * A subscription joins at a window's end, where its own window and this
 * one both begin empty, and leaves with the window so far when a mark
 * begins (at the next pair) or the device is reconfigured.
 */
struct gpd_shared_window {
	struct gpd_pair_sink sink;              /* on the device's list */
	struct gpd_device *device;
	uint64_t window_ticks;
	bool ctx_filter;
	uint32_t ctx_id;
	bool per_context;

	uint64_t deadline;
	/* With per-context rows each pair is summed into its context's row
	 * alone, and the window's sums are the rows' added up when it is
	 * handed out (folded: from then on into both). */
	struct gpd_window window;
	struct gpd_context_sums contexts;
	bool folded;
	/* Pairs taken and not summed yet, as one run: each began where the
	 * one before ended and ended as far on, so their reports lie stride
	 * apart from first, and gpm_oa_delta_add_run() sums them at a
	 * fraction of a pair's cost each. They go into the context row
	 * (SHARED_NO_ROW: none) and, with to_window, the window's sums. The
	 * sums are whole once shared_window() has run. */
	struct {
		const struct gpm_oa_decoder *dec;
		const unsigned char *first, *last;
		size_t stride, n_reports;
		size_t row;
		bool to_window;
	} run;

	struct gpd_subscription **members;
	size_t n_members, cap_members;
	bool leaving;                   /* a member's mark began */
	/* While a window is handed out: the member being handed it (a
	 * member leaving from its frame callback moves it). */
	bool emitting;
	size_t emit_at;
};

struct gpd_subscription {
	struct gpd_device_subscriber base;      /* on the device's list */
	struct gpd_device *device;
	const struct gpd_subscriber_ops *ops;
	void *user;
	enum gpd_role role;

	/* Requested counters by symbol (NULL: all), resolved against the set
	 * the device runs: index[i] is the set's counter for frame value i. */
	char **requested;
	size_t n_requested;
	const struct gpm_metric_set *set;
	unsigned *index;
	const char **symbols;
	size_t n_counters;
	uint64_t evaluations;           /* a second: see subscription.h */
	struct gpd_evaluation_budget *budget;   /* it is counted in; or NULL */
	bool no_frames;
	uint64_t own_window_ns;

	bool ctx_filter;
	uint32_t ctx_id;
	bool kernel_ctx_filter;
	bool raw;
	bool per_context;

	/* The window and duration asked for, and in ticks of the clock of
	 * ticks_frequency: the stream's OA unit's, which a set of another
	 * unit changes. */
	uint64_t window_ns, duration_ns;
	uint64_t ticks_frequency;
	uint64_t window_ticks;          /* 0: frames at end marks only */
	uint64_t deadline;              /* the interval window ends here */
	struct gpd_window window;
	uint64_t last_cpu_end_ns;       /* the last interval frame's */

	uint64_t duration_ticks;        /* 0: until unsubscribed */
	uint64_t duration_end_ts;       /* first pair + duration_ticks */
	bool ended;                     /* its duration is covered */

	enum gpd_mark_state mark_state;
	uint64_t mark_begin_ts, mark_end_ts;
	struct gpd_window mark;
	struct gpd_context_sums mark_contexts;  /* with per-context rows */

	struct gpd_context_sums contexts;
	/* The windows it shares while it does, which then hold its interval
	 * window and contexts instead of the fields above; or NULL. */
	struct gpd_shared_window *shared;

	/* Scratch for frames: values of the whole set, then the subscribed
	 * ones, then per-context rows. */
	struct gpm_value *set_values;
	struct gpm_value *values;
	struct gpm_value *context_values;
	size_t cap_context_values;
	struct gpd_context_row *rows;
	size_t cap_rows;
};

#endif
