/*
 * A device: one OA unit behind a source, owned by the daemon, and the
 * subscribers sharing its one hardware configuration.
 *
 * The device decodes each report once, extends its timestamp, and hands
 * every consecutive pair to each subscriber, which sums it into its own
 * windows. The stream opens with the first subscriber and closes a linger
 * time after the last one leaves, so other tools can have the unit.
 */
#ifndef GPD_DEVICE_H
#define GPD_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/clock.h"
#include "daemon/clock_map.h"
#include "daemon/error.h"
#include "daemon/event.h"
#include "daemon/flight_recorder.h"
#include "daemon/source.h"
#include "daemon/usage_monitor.h"
#include "metrics/metric_binding.h"
#include "metrics/metric_set.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"
#include "metrics/recording.h"

/* The sampling period used when nobody asked for one. */
#define GPD_DEFAULT_PERIOD_NS 1000000ull

/* The shortest period anyone may ask for unless the configuration lowers
 * it (--min-period): the kernel's own limit for unprivileged streams
 * (i915_oa_max_sample_rate, 100 kHz, in i915_perf.c). The hardware goes
 * down to about 80 ns, where decoding alone takes a core. */
#define GPD_DEFAULT_MIN_PERIOD_NS 10000ull

struct gpd_device_stats {
	uint64_t reports;               /* SAMPLE records decoded */
	uint64_t reports_lost;          /* REPORT_LOST records */
	uint64_t buffers_lost;          /* BUFFER_LOST records */
	uint64_t bad_records;           /* framing or decoding errors */
	uint64_t reconfigurations;
};

/* Sees a device's records as its source delivered them, before the device
 * decodes them (a recording takes them from here). */
struct gpd_record_tap {
	void (*records)(void *user, const void *data, size_t len);
	void *user;
	struct gpd_record_tap *next;
};

/* What a trigger of the daemon's watching the device counted, for
 * /metrics: one per expression, kept while a trigger of it watches (a
 * reload that keeps an expression keeps its counts). */
struct gpd_trigger_counts {
	struct gpd_trigger_counts *next;
	unsigned refs;
	char expression[256];
	uint64_t firings;               /* episodes the condition began */
	uint64_t saved;                 /* firings whose snapshot was written */
	/* Firings while the one before was still being saved: not saved. */
	uint64_t skipped;
	/* Firings whose snapshot could not be taken or written (nothing in
	 * the span, over the directory's cap, a write error). */
	uint64_t failed;
};

struct gpd_device;
struct gpd_device_subscriber;

/*
 * A subscriber as the device sees it. The subscription layer above embeds
 * one in each subscription; the device hands it decoded report pairs,
 * losses and events without knowing what it makes of them. The device
 * calls them inside a dispatch (gpd_device_dispatch_begin/end); a
 * subscriber that left during one is marked dead and released at its end.
 */
struct gpd_device_subscriber_ops {
	/* The delta from start to end, which ran on context ctx; the
	 * timestamps are extended ticks. */
	void (*pair)(struct gpd_device_subscriber *s,
		     const struct gpm_oa_decoder *dec,
		     const struct gpm_oa_report *start,
		     const struct gpm_oa_report *end, uint32_t ctx,
		     uint64_t start_ts, uint64_t end_ts);
	void (*loss)(struct gpd_device_subscriber *s, bool buffer_lost);
	/* Hands out what is summed so far (stream stopping or reconfiguring). */
	void (*flush)(struct gpd_device_subscriber *s);
	void (*event)(struct gpd_device_subscriber *s, enum gpd_event_kind kind,
		      const char *message);
	/* Frees a subscriber the device has let go of. */
	void (*release)(struct gpd_device_subscriber *s);
	/* Optional, for passive subscribers: every subscriber left is
	 * passive, this one among them. */
	void (*others_left)(struct gpd_device_subscriber *s);
};

struct gpd_device_subscriber {
	const struct gpd_device_subscriber_ops *ops;
	struct gpd_device_subscriber *next;
	bool dead;                      /* left during a dispatch */
	/* Kept by the daemon for itself (/metrics, triggers, a device kept
	 * streaming): it follows what runs and asks for nothing. */
	bool passive;
	/* Its pairs are summed by a sink (below) for it and others: the
	 * device hands it none of its own (gpd_device_pairs_in_sink()). */
	bool pairs_in_sink;
};

/*
 * A sum of report pairs that several subscribers share (the subscription
 * layer's windows of equal length and filter): the device hands it each
 * pair and loss once, before its subscribers, and each flush after them,
 * so that a window it closes still holds what they hand out.
 */
struct gpd_pair_sink;
struct gpd_pair_sink_ops {
	/* As a subscriber's, with the reports as they came (the unit's
	 * bytes, of dec's format): a sink sums them without decoding. */
	void (*pair)(struct gpd_pair_sink *sink,
		     const struct gpm_oa_decoder *dec, const void *start,
		     const void *end, uint32_t ctx, uint64_t start_ts,
		     uint64_t end_ts);
	void (*loss)(struct gpd_pair_sink *sink, bool buffer_lost);
	/* The reports of the pairs handed so far are in a read that ends:
	 * a sink that kept pointers to them sums what it holds now. */
	void (*read_end)(struct gpd_pair_sink *sink);
	void (*flush)(struct gpd_pair_sink *sink);
	void (*release)(struct gpd_pair_sink *sink);
};

struct gpd_pair_sink {
	const struct gpd_pair_sink_ops *ops;
	struct gpd_pair_sink *next;
	bool dead;                      /* dropped during a dispatch */
};

/* What a device tells its owner (the daemon context, above it). */
struct gpd_device_owner {
	/* The device took reloaded metric definitions: the owner may free
	 * what no device uses any more. */
	void (*metrics_adopted)(void *user, struct gpd_device *dev);
	/* True while the owner shuts down: the device then keeps the
	 * definitions it has. */
	bool (*stopping)(void *user);
	void *user;
};

struct gpd_device {
	uv_loop_t *loop;
	struct gpd_device_owner owner;
	struct gpd_source *source;
	/* The usage stream; NULL for a device without one (a replay). */
	struct gpd_usage_monitor *usage;
	const struct gpm_metrics_file *metrics;         /* the platform's sets */
	/* Reloaded definitions, taken once nobody uses the current ones. */
	const struct gpm_metrics_file *next_metrics;
	struct gpm_device_vars vars;
	/* The stream's reports and its unit's clock: the source's own until
	 * a set of another unit streams (gpd_source_shape()). */
	struct gpd_stream_shape shape;
	struct gpm_oa_decoder decoder;

	/* Bindings are made the first time a set is configured. */
	struct gpm_binding *bindings;
	bool *bound;

	/* The hardware configuration; set is NULL while closed. */
	const struct gpm_metric_set *set;
	const struct gpm_binding *binding;
	unsigned exponent;
	/* The kernel's context filter of the configuration: context
	 * ctx_handle of the DRM file ctx_fd, which a client passed and the
	 * device holds (and closes when the stream ends). */
	bool ctx_filter;
	int ctx_fd;
	uint32_t ctx_handle;
	bool open;
	uint64_t linger_ms;
	/* No stream runs faster than this (0: any period the unit has). */
	uint64_t min_period_ns;
	uv_timer_t linger_timer;

	struct gpd_device_subscriber *subscribers;
	unsigned n_subscribers;
	struct gpd_pair_sink *sinks;
	/* Subscribers whose pairs a sink sums: when all are, no pair goes
	 * through the list of subscribers. */
	unsigned n_pairs_in_sink;
	/* Callbacks run: a subscriber leaving from one is unlinked and freed
	 * only when the outermost dispatch ends, so no loop or frame in
	 * flight touches freed memory. */
	unsigned dispatching;
	bool have_dead;
	struct gpd_record_tap *taps;

	/* Decoding state, reset whenever the stream (re)starts. The last two
	 * reports as they came (report_bytes: in the read, or copied into
	 * bytes when it ends), and decoded whole once a subscriber of its
	 * own needs them (decoded[]). */
	const unsigned char *report_bytes[2];
	unsigned char bytes[2][GPM_OA_MAX_REPORT_SIZE];
	struct gpm_oa_report report[2];
	bool decoded[2];
	unsigned prev;
	bool have_prev;
	uint32_t running_ctx;
	/* The last report may have been its context submitted again (see
	 * gpm_oa_report_may_resubmit()); ctx_before it ran until then. */
	bool may_resubmit;
	uint32_t ctx_before;
	uint64_t prev_ts;               /* extended ticks */
	struct gpm_oa_ts_extender ts;
	struct gpd_clock_map clock;     /* report timestamps <-> CPU time */
	uint64_t read_ns;               /* when the records at hand came */
	bool read_has_sample;           /* ... and the newest report's */
	uint64_t read_newest_ts;        /* extended timestamp among them */
	/* When the source said its unit's clock read what, before the
	 * stream's first report placed the time line (listener.clock). */
	bool clock_pending;
	uint64_t clock_pending_ts, clock_pending_ns;
	unsigned char *partial;         /* a record split across deliveries */
	size_t partial_len;

	struct gpd_device_stats stats;
	/* The newest records, kept for snapshots; NULL without one. */
	struct gpd_flight_recorder *ring;
	/* The counts of the daemon's triggers on it. */
	struct gpd_trigger_counts *trigger_counts;
	bool closing;
};

/* Takes ownership of source. metrics: the definitions of its platform. */
int gpd_device_init(struct gpd_device *dev, uv_loop_t *loop,
		    struct gpd_source *source,
		    const struct gpm_metrics_file *metrics,
		    uint64_t linger_ms, const struct gpd_device_owner *owner);

/* Gives the device a usage stream from source (taken over). -ENOMEM. */
int gpd_device_set_usage_source(struct gpd_device *dev,
				struct gpd_usage_source *source);

/* Why a device without a usage stream (dev->usage NULL) has none, for a
 * person: "device replay0 has no usage stream: a replay has no engines,
 * clocks or processes". */
void gpd_device_no_usage_reason(const struct gpd_device *dev, char *buf,
				size_t size);

/* Closes the stream and the source; frees the device's memory once the
 * loop has closed its handles. */
void gpd_device_close(struct gpd_device *dev);

/* Switches to reloaded definitions of the device's platform: at once when
 * the stream is closed and nobody subscribes or records, otherwise when
 * that is next the case, so no subscriber sees its set change under it.
 * The owner hears of the switch (metrics_adopted). */
void gpd_device_replace_metrics(struct gpd_device *dev,
				const struct gpm_metrics_file *metrics);

/* The set named by symbol or guid; NULL if the platform has none. */
const struct gpm_metric_set *gpd_device_find_set(const struct gpd_device *dev,
						 const char *name);

/* The set used when a subscriber names none. */
const struct gpm_metric_set *gpd_device_default_set(const struct gpd_device *dev);

/* The binding of set to this device, made on first use; NULL on ENOMEM. */
const struct gpm_binding *gpd_device_binding(struct gpd_device *dev,
					     const struct gpm_metric_set *set);

/* Ticks <-> ns on the clock of the stream's OA unit. */
uint64_t gpd_device_ticks_to_ns(const struct gpd_device *dev, uint64_t ticks);
uint64_t gpd_device_ns_to_ticks(const struct gpd_device *dev, uint64_t ns);

/* The sampling period of exponent on the stream's OA unit. */
uint64_t gpd_device_period_ns(const struct gpd_device *dev, unsigned exponent);

/* How a stream of set would run here: its unit's clock and its reports'
 * layout; a negative code with err saying why when no unit can stream
 * it. */
int gpd_device_set_shape(struct gpd_device *dev, const struct gpm_metric_set *set,
			 struct gpd_stream_shape *out, struct gpd_error *err);

/* The CLOCK_MONOTONIC time of an extended GPU timestamp, and the reverse
 * for now; both need a report to have arrived (false before). */
bool gpd_device_cpu_time(const struct gpd_device *dev, uint64_t ts,
			 uint64_t *cpu_ns);
bool gpd_device_gpu_now(const struct gpd_device *dev, uint64_t *ts);

/* Why IGT's i915 perf recording format cannot hold the device's
 * reports, as words following "device NAME "; NULL when it can. */
const char *gpd_device_i915perf_misfit(const struct gpd_device *dev);

/* Keeps the newest bytes of the device's records from now on in a
 * flight recorder (at least GPD_FLIGHT_RECORDER_MIN_BYTES), sized to hold
 * asked_ns of them (0: sized in bytes). -EOPNOTSUPP for a device whose
 * reports IGT's recording format cannot hold, -EEXIST, -EINVAL, -ENOMEM;
 * err says so. */
int gpd_device_keep_flight_recorder(struct gpd_device *dev, uint64_t bytes,
				    uint64_t asked_ns, struct gpd_error *err);

/* The device's description as seen by one of its OA units whose
 * timestamps tick at timestamp_frequency (a media set's OAM unit; 0: the
 * source's own clock): what converts those ticks to the command
 * streamer's, as recordings correlate in them, and what a recording of
 * that unit's reports states. */
void gpd_device_unit_info(const struct gpd_device *dev,
			  uint64_t timestamp_frequency,
			  struct gpm_device_info *out);

/* The header of an IGT recording of this device streaming the set of
 * symbol metric_set and hardware config guid. */
void gpd_device_recording_info(const struct gpd_device *dev,
			       const char *metric_set, const char *guid,
			       struct gpm_recording_info *info);

/* A tap may remove itself from inside its callback. */
void gpd_device_add_tap(struct gpd_device *dev, struct gpd_record_tap *tap);
void gpd_device_remove_tap(struct gpd_device *dev, struct gpd_record_tap *tap);

/* One application's context, for the kernel's filter: the handle (i915
 * GEM context, xe exec queue) and the DRM file that owns it. */
struct gpd_device_context {
	int fd;
	uint32_t handle;
};

/* Used by the subscription code. ctx: a single-context stream of it, NULL
 * for a system-wide one; on success the device holds ctx->fd (closing
 * the one it held, unless the same) until the stream ends, on failure
 * the caller keeps it. */
int gpd_device_configure(struct gpd_device *dev,
			 const struct gpm_metric_set *set, unsigned exponent,
			 const struct gpd_device_context *ctx,
			 struct gpd_error *err);
void gpd_device_add_subscriber(struct gpd_device *dev,
			       struct gpd_device_subscriber *sub);
/* Lets go of sub and releases it; inside a dispatch, marks it dead and
 * does so when the dispatch ends. */
void gpd_device_drop_subscriber(struct gpd_device *dev,
				struct gpd_device_subscriber *sub);
void gpd_device_add_sink(struct gpd_device *dev, struct gpd_pair_sink *sink);
/* sub's pairs are summed by a sink from now on (or not any more). */
void gpd_device_pairs_in_sink(struct gpd_device *dev,
			      struct gpd_device_subscriber *sub, bool in_sink);
/* Lets go of sink and releases it; inside a dispatch, marks it dead and
 * does so when the dispatch ends. */
void gpd_device_drop_sink(struct gpd_device *dev, struct gpd_pair_sink *sink);
/* With no subscriber left, closes the stream (after the linger time);
 * with passive ones only, tells them (others_left). */
void gpd_device_release_if_idle(struct gpd_device *dev);
/* Tells every subscriber of dev an event that comes from above the device
 * (a trigger of the daemon's fired). */
void gpd_device_announce(struct gpd_device *dev, enum gpd_event_kind kind,
			 const char *message);
/* The counts of the triggers of expression on dev, made the first time
 * (zero) and held until put back; NULL when out of memory. */
struct gpd_trigger_counts *gpd_device_trigger_counts(struct gpd_device *dev,
						     const char *expression);
void gpd_device_trigger_counts_put(struct gpd_device *dev,
				   struct gpd_trigger_counts *counts);
/* Brackets code that calls subscribers back. */
void gpd_device_dispatch_begin(struct gpd_device *dev);
void gpd_device_dispatch_end(struct gpd_device *dev);

#endif
