/*
 * libgpuperf: a client of gpuperfd, the GPU performance-counter daemon.
 *
 * A client is one connection to one daemon: over TCP (optionally TLS) or
 * the daemon's Unix socket, with an optional bearer token. Once connected
 * it knows what the daemon offers (devices, their metric sets and
 * counters, the caller's role and limits). It subscribes to counters and
 * gets frames through a callback, marks query windows, records the raw
 * stream in IGT's i915-perf format, and fetches snapshots of a device's
 * flight recorder. The performance-query layer at the end
 * offers the view of GL_INTEL_performance_query on top of that.
 *
 * Event loops. A client runs on a libuv loop: its own (leave
 * gpc_connect_options.loop NULL) or the caller's. On its own loop nothing
 * happens between calls: the *_sync functions and gpc_run() run the loop
 * until what they wait for arrives. On the caller's loop every callback
 * comes from that loop while the caller runs it; the *_sync functions run
 * it too, so they must not be called from inside one of its callbacks.
 *
 * Errors. Functions return 0 (or a non-negative value) on success and a
 * negative errno value on failure; gpc_strerror() names it. Where a
 * request reaches the daemon and it refuses, the callback's struct
 * gpc_error carries the daemon's code and its message (which says what to
 * do). The daemon's codes map onto errno values:
 *
 *   UNAUTHENTICATED     -EACCES    PERMISSION_DENIED   -EPERM
 *   NOT_FOUND           -ENOENT    BUSY                -EBUSY
 *   INVALID_ARGUMENT    -EINVAL    RATE_LIMITED        -EAGAIN
 *   RESOURCE_EXHAUSTED  -ENOBUFS   UNAVAILABLE         -ENODEV
 *   MALFORMED           -EPROTO    TOO_LARGE           -EMSGSIZE
 *   INTERNAL            -EIO
 *
 * and the client's own: -ECONNREFUSED (nothing answered at the address,
 * or the TLS handshake failed), -ECONNRESET (the connection ended),
 * -ETIMEDOUT, -ENOTSUP (another protocol version), -ECANCELED (the client
 * was closed first), -ENOTCONN, -ENOMEM.
 *
 * Memory. Handles (client, subscription, recording, query) are allocated
 * by the functions that create them and freed by the ones that end them,
 * as each says. Strings and arrays handed to callbacks live until the
 * callback returns; those of the catalog (devices, sets, counters) until
 * the client is closed.
 *
 * Threads. A client and its handles belong to the thread running its loop.
 */
#ifndef GPUPERF_H
#define GPUPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPC_VERSION "0.1.0"
#define GPC_PROTOCOL_VERSION 1
#define GPC_DEFAULT_HOST "127.0.0.1"
#define GPC_DEFAULT_PORT 7890

/* ------------------------------------------------------------------ */
/* Errors                                                               */

/* The daemon's error codes (gpuperf.proto's ErrorCode). */
enum gpc_server_error {
	GPC_SERVER_NONE = 0,            /* the error is the client's own */
	GPC_SERVER_MALFORMED = 1,
	GPC_SERVER_TOO_LARGE = 2,
	GPC_SERVER_UNAUTHENTICATED = 3,
	GPC_SERVER_PERMISSION_DENIED = 4,
	GPC_SERVER_NOT_FOUND = 5,
	GPC_SERVER_BUSY = 6,
	GPC_SERVER_INVALID_ARGUMENT = 7,
	GPC_SERVER_RATE_LIMITED = 8,
	GPC_SERVER_RESOURCE_EXHAUSTED = 9,
	GPC_SERVER_UNAVAILABLE = 10,
	GPC_SERVER_INTERNAL = 11,
};

struct gpc_error {
	int code;                       /* a negative errno value */
	enum gpc_server_error server;   /* GPC_SERVER_NONE: not the daemon's */
	char message[512];              /* for a person: what, and what to do */
};

/* Words for a code of this library ("connection refused"). */
const char *gpc_strerror(int code);

/* libwebsockets logs process-wide to stderr unless told otherwise: emit
 * gets its errors (level 1) and warnings (level 2), each line ending in a
 * newline; NULL silences it. Errors reach the caller through struct
 * gpc_error either way. */
void gpc_set_transport_log(void (*emit)(int level, const char *line));

/* ------------------------------------------------------------------ */
/* Connecting                                                           */

struct gpc_client;

enum gpc_role {
	GPC_ROLE_ANY = 0,               /* whatever the token grants */
	GPC_ROLE_VIEWER = 1,            /* may subscribe to what runs */
	GPC_ROLE_CONTROLLER = 2,        /* may also change metric set, period */
};

struct gpc_connect_options {
	const char *host;               /* name or address; NULL: 127.0.0.1 */
	unsigned port;                  /* 0: 7890 */
	const char *unix_path;          /* the daemon's --unix socket instead */
	const char *token;              /* bearer token; NULL: none */
	bool tls;                       /* TLS (wss://) */
	const char *tls_ca_file;        /* PEM certificates to trust; NULL:
					 * the system's */
	enum gpc_role role;             /* at most this role */
	unsigned timeout_ms;            /* to connect and get Hello; 0: 10 s */
	uv_loop_t *loop;                /* the caller's loop; NULL: own */
};

typedef void (*gpc_connect_cb)(struct gpc_client *client,
			       const struct gpc_error *err, void *user);
/* A request's outcome: err is NULL when the daemon accepted it. */
typedef void (*gpc_done_cb)(struct gpc_client *client,
			    const struct gpc_error *err, void *user);
typedef void (*gpc_close_cb)(void *user);

/*
 * Starts connecting; *out is the client from now on. cb runs once: err
 * NULL when the daemon's Hello arrived (the catalog is then filled), else
 * why not (also when the transport cannot start). After an error the
 * client can only be closed. -EINVAL for bad options, or -ENOMEM.
 */
int gpc_connect(const struct gpc_connect_options *options, gpc_connect_cb cb,
		void *user, struct gpc_client **out);

/* Connects and waits for Hello. On failure *out is NULL, the client is
 * already freed and err (if not NULL) says why. */
int gpc_connect_sync(const struct gpc_connect_options *options,
		     struct gpc_client **out, struct gpc_error *err);

/* Called once when the connection ends without the caller closing it (the
 * daemon stopped or refused the client); the client must still be closed. */
void gpc_set_disconnect_cb(struct gpc_client *client, gpc_done_cb cb,
			   void *user);

/* True from Hello until the connection ends. */
bool gpc_is_connected(const struct gpc_client *client);

/* The loop the client runs on. */
uv_loop_t *gpc_loop(const struct gpc_client *client);

/*
 * Runs the client's loop until gpc_stop(), the end of the connection, or
 * timeout_ms (0: no limit). 0, -ETIMEDOUT, the error that ended the
 * connection, or -EDEADLK when called from one of the loop's callbacks.
 */
int gpc_run(struct gpc_client *client, unsigned timeout_ms);

/* Makes gpc_run() (and any *_sync call waiting) return soon. */
void gpc_stop(struct gpc_client *client);

/*
 * Ends the connection and frees the client with every subscription,
 * recording and query handle it still has. Requests still waiting get
 * -ECANCELED; nothing else is called back. Only on the caller's loop: cb
 * (may be NULL) runs once everything is gone. -EINVAL on an own loop.
 */
int gpc_close(struct gpc_client *client, gpc_close_cb cb, void *user);

/* The same, waiting until done (and closing the own loop). On the
 * caller's loop, from inside one of its callbacks, it closes in the
 * background like gpc_close(); after gpc_close() it does nothing. An
 * own-loop client closed from inside a callback stops working at once,
 * and a second call, from outside any callback, frees it. */
void gpc_close_sync(struct gpc_client *client);

/* ------------------------------------------------------------------ */
/* What the daemon offers (from its Hello)                              */

enum gpc_counter_type {
	GPC_COUNTER_EVENT,
	GPC_COUNTER_DURATION_NORM,
	GPC_COUNTER_DURATION_RAW,
	GPC_COUNTER_THROUGHPUT,
	GPC_COUNTER_RAW,
	GPC_COUNTER_TIMESTAMP,
};

enum gpc_data_type {
	GPC_DATA_BOOL32,
	GPC_DATA_UINT32,
	GPC_DATA_UINT64,
	GPC_DATA_FLOAT,
	GPC_DATA_DOUBLE,
};

struct gpc_counter {
	const char *symbol;             /* "GpuTime": what subscriptions name */
	const char *name;
	const char *description;
	const char *group;
	const char *units;              /* as in the metric XML: ns, percent */
	const char *semantic_type;      /* event, duration, ratio, throughput */
	enum gpc_counter_type type;
	enum gpc_data_type data_type;
	/* The upper bound of its values: a constant, an equation over the
	 * window's counters, or neither (unbounded). */
	bool has_max_value;
	double max_value;
	const char *max_equation;       /* NULL unless the bound varies */
	/* The bound on this device over one second of GPU time at its
	 * highest frequency (a counter shown per second peaks there); 0
	 * when unbounded. */
	double device_max;
};

struct gpc_metric_set {
	const char *guid;
	const char *symbol;             /* "RenderBasic" */
	const char *name;
	const char *oa_format;
	size_t n_counters;
	const struct gpc_counter *counters;
};

struct gpc_topology {
	uint32_t max_slices;
	uint32_t max_subslices;         /* per slice */
	uint32_t max_eus_per_subslice;
	uint32_t slice_mask;
	uint32_t eu_count;
	uint32_t subslice_count;
	uint32_t eu_threads;
};

struct gpc_sampling_period {
	uint32_t exponent;              /* OA exponent: 2^(exponent + 1) ticks */
	uint64_t period_ns;
};

/* A device's hardware configuration. */
struct gpc_configuration {
	bool streaming;                 /* a stream is open */
	const char *metric_set;         /* symbol; "" when not streaming */
	const char *metric_set_guid;
	uint32_t exponent;
	uint64_t sampling_period_ns;
	uint32_t subscribers;
	/* The stream is of one application's context, which that
	 * application passed: only its client sees it, and other
	 * subscriptions are refused until it ends. */
	bool single_context;
};

struct gpc_device {
	const char *name;               /* "sim0": what requests name */
	const char *driver;             /* i915, xe, sim, replay, nvidia */
	const char *source;
	const char *platform;           /* "tglgt2" */
	const char *description;        /* "Tiger Lake GT2" */
	const char *fixed_metric_set;   /* "" unless a replay fixes it */
	uint32_t pci_id;
	uint32_t revision;
	uint32_t graphics_version;      /* IP version x 100 */
	uint64_t timestamp_frequency;   /* Hz */
	uint64_t min_frequency, max_frequency;  /* Hz */
	bool usage;                     /* has a usage stream (gpc_usage_subscribe) */
	/* The flight recorder's ring, whose past gpc_snapshot() fetches;
	 * 0 when the device keeps none. */
	uint64_t flight_recorder_bytes;
	/* Context filters it takes: the kernel's (gpc_subscribe_context),
	 * a software one by hardware context id (filter_context). */
	bool kernel_context_filter;
	bool software_context_filter;
	/* The kernel's filter holds back other contexts' reports (i915);
	 * false where a context's stream counts the whole unit (xe). */
	bool kernel_filters_reports;
	struct gpc_topology topology;
	struct gpc_configuration configuration; /* when Hello was sent */
	size_t n_sampling_periods;
	const struct gpc_sampling_period *sampling_periods;
	size_t n_metric_sets;
	const struct gpc_metric_set *metric_sets;
};

/* What a connection sees of the processes using a GPU. */
enum gpc_process_visibility {
	GPC_PROCESSES_FULL = 1,         /* pid, command and client ids too */
	GPC_PROCESSES_ANONYMOUS = 2,    /* GPU time and memory only */
	GPC_PROCESSES_NONE = 3,         /* no rows */
};

struct gpc_limits {
	uint32_t max_message_bytes;
	uint32_t max_requests_per_second;
	uint32_t max_subscriptions;
	uint32_t max_recordings;
	uint32_t queue_frames;
	uint32_t max_connections;
	uint64_t min_window_ns;
	uint64_t min_usage_interval_ns;
	enum gpc_process_visibility process_visibility;
	uint32_t max_snapshots;         /* in flight; 0: this connection may
					 * take none */
	uint32_t max_passed_fds;        /* DRM files passed and not yet used;
					 * 0: none (not on the Unix socket) */
};

struct gpc_server_info {
	const char *version;
	enum gpc_role role;             /* what this connection was granted */
	struct gpc_limits limits;
	/* How context filters share a device's one configuration. */
	const char *context_policy;
};

/* Valid while connected (NULL before Hello). */
const struct gpc_server_info *gpc_server_info(const struct gpc_client *client);

/* The devices; *devices points to n of them. */
size_t gpc_devices(const struct gpc_client *client,
		   const struct gpc_device **devices);

/* By name; NULL names the first device. NULL when there is none. */
const struct gpc_device *gpc_find_device(const struct gpc_client *client,
					 const char *name);

/* By symbol or GUID, as a person types them: exactly, else ignoring
 * case; NULL when the device has none such. */
const struct gpc_metric_set *gpc_find_metric_set(const struct gpc_device *device,
						 const char *symbol_or_guid);

/* By symbol: exactly, else ignoring case; NULL when the set has none
 * such. */
const struct gpc_counter *gpc_find_counter(const struct gpc_metric_set *set,
					   const char *symbol);

/* ------------------------------------------------------------------ */
/* Subscriptions                                                        */

struct gpc_subscription;

struct gpc_subscribe_options {
	const char *device;             /* NULL: the first */
	const char *metric_set;         /* symbol or GUID; NULL: what runs,
					 * or the device's default */
	uint64_t sampling_period_ns;    /* 0: what runs, or the default */
	uint64_t window_ns;             /* frame length; 0: frames only for
					 * marked windows */
	const char *const *counters;    /* symbols, in frame order */
	size_t n_counters;              /* 0: every counter of the set */
	bool filter_context;            /* only reports of context_id */
	uint32_t context_id;
	bool raw;                       /* frames carry the raw deltas */
	bool per_context;               /* frames carry per-context rows:
					 * none where the device's reports
					 * carry no context ID (its
					 * software_context_filter false) */
	/* GPU time to cover from the first report: the window that reaches
	 * it is cut there and comes with `last`; 0: until unsubscribed. */
	uint64_t duration_ns;
};

/* The raw deltas' layout (struct gpc_frame.raw). */
enum {
	GPC_RAW_GPU_TIME = 0,           /* GPU timestamp ticks */
	GPC_RAW_GPU_CLOCK = 1,          /* GPU clock ticks */
	GPC_RAW_A = 2,                  /* A0..A63 */
	GPC_RAW_B = 66,                 /* B0..B7 */
	GPC_RAW_C = 74,                 /* C0..C7 */
	GPC_RAW_PERFCNT = 82,           /* PERFCNT0..7 */
	GPC_RAW_PEC = 90,               /* PEC0..63 */
	GPC_RAW_SLOTS = 154,
};

struct gpc_context_row {
	uint32_t context_id;
	bool idle;                      /* no context ran (context_id 0) */
	uint32_t reports;
	uint64_t gpu_time_ns;
	size_t n_values;
	const double *values;           /* as the frame's values */
	size_t n_raw;                   /* as the frame's raw deltas, this */
	const uint64_t *raw;            /* context's share */
};

struct gpc_frame {
	const char *device;
	uint64_t gpu_start_ns, gpu_end_ns;      /* GPU time */
	uint64_t cpu_start_ns, cpu_end_ns;      /* the daemon's CLOCK_MONOTONIC */
	uint32_t reports;               /* report pairs summed */
	uint32_t lost_reports;          /* OA_REPORT_LOST in the window */
	uint32_t buffer_lost;           /* OA_BUFFER_LOST in the window */
	bool mark;                      /* the window of a mark BEGIN..END */
	size_t n_values;
	const double *values;           /* in gpc_subscription_info.counters order */
	size_t n_raw;                   /* GPC_RAW_SLOTS when asked, else 0 */
	const uint64_t *raw;
	size_t n_contexts;
	const struct gpc_context_row *contexts;
	/* Frames (of counters) lost to slow reading since the last; usage
	 * frames count their own. */
	uint32_t frames_dropped;
	uint64_t frames_dropped_total;
	/* Shorter than the window: the first (the stream began mid-window),
	 * the last of a duration, or one cut where a mark begins or ends. */
	bool partial;
	/* The subscription's duration is covered: no frame follows. It may
	 * hold no report, then it only says the end. */
	bool last;
	/* An interval window inside a mark: those add up to the mark's. */
	bool within_mark;
	/* The daemon's CLOCK_BOOTTIME at cpu_start_ns, where it says (older
	 * daemons do not): the clock of Perfetto's traces. */
	bool has_boottime;
	uint64_t cpu_start_boottime_ns;
};

enum gpc_event_kind {
	GPC_EVENT_CONFIG_CHANGED = 1,   /* metric set or period changed */
	GPC_EVENT_BUSY_ELSEWHERE = 2,   /* another process owns the unit */
	GPC_EVENT_DEVICE_LOST = 3,
	GPC_EVENT_RECOVERED = 4,
	GPC_EVENT_ENDED = 5,            /* a replay reached its end */
	GPC_EVENT_RESTARTED = 6,        /* a looping replay started over */
	/* A trigger of the daemon's configuration fired: the message says
	 * where its snapshot went. */
	GPC_EVENT_TRIGGER_FIRED = 7,
};

struct gpc_event {
	enum gpc_event_kind kind;
	const char *device;
	const char *message;
	struct gpc_configuration configuration; /* the device's, after it */
};

/* What a subscription was granted; the counters change with
 * GPC_EVENT_CONFIG_CHANGED. */
struct gpc_subscription_info {
	uint32_t id;
	const char *device;
	const char *metric_set;
	uint64_t sampling_period_ns;
	uint64_t window_ns;
	size_t n_counters;
	const char *const *counters;
};

struct gpc_subscription_cbs {
	/* The daemon's answer. With an error the handle is freed when this
	 * returns. */
	void (*subscribed)(struct gpc_subscription *sub,
			   const struct gpc_error *err, void *user);
	void (*frame)(struct gpc_subscription *sub,
		      const struct gpc_frame *frame, void *user);
	void (*event)(struct gpc_subscription *sub,
		      const struct gpc_event *event, void *user);
};

/* Asks for frames. cbs is copied; any callback may be NULL. */
int gpc_subscribe(struct gpc_client *client,
		  const struct gpc_subscribe_options *options,
		  const struct gpc_subscription_cbs *cbs, void *user,
		  struct gpc_subscription **out);

/* Subscribes and waits for the answer; on an error *out is NULL. */
int gpc_subscribe_sync(struct gpc_client *client,
		       const struct gpc_subscribe_options *options,
		       const struct gpc_subscription_cbs *cbs, void *user,
		       struct gpc_subscription **out, struct gpc_error *err);

/*
 * Subscribes to one application's context through the kernel's filter:
 * the daemon streams context `context` (an i915 GEM context handle) of
 * the DRM file drm_fd, which it is handed in SCM_RIGHTS (on a connection
 * over its Unix socket only) and checks to be a node of the device; it
 * opens the stream through that file, as the kernel looks the handle up
 * there, and closes its copy when the stream ends. The caller keeps
 * drm_fd. Such a stream is the device's one configuration: the daemon
 * opens it only while nobody else streams from the device, and refuses
 * everyone else while it runs (gpc_server_info.context_policy).
 *
 * It waits, as gpc_subscribe_sync() does, for the file to be taken and
 * the subscription answered; a refusal of either (not a DRM node of the
 * device, too many files passed, a context the file does not own, a
 * device others stream from) returns with err saying why and what to do.
 * options->filter_context must be false.
 */
int gpc_subscribe_context(struct gpc_client *client, int drm_fd,
			  uint32_t context,
			  const struct gpc_subscribe_options *options,
			  const struct gpc_subscription_cbs *cbs, void *user,
			  struct gpc_subscription **out, struct gpc_error *err);

/* NULL until subscribed. */
const struct gpc_subscription_info *
gpc_subscription_info(const struct gpc_subscription *sub);

struct gpc_client *gpc_subscription_client(const struct gpc_subscription *sub);

/* Ends the subscription and frees the handle; no callback follows. */
void gpc_unsubscribe(struct gpc_subscription *sub);

enum gpc_mark_kind {
	GPC_MARK_BEGIN = 1,
	GPC_MARK_END = 2,
};

/*
 * Marks the start or end of a query window. The frame of BEGIN..END
 * arrives after END through the frame callback, with mark set. cb (may be
 * NULL) gets the daemon's answer to the mark itself.
 */
int gpc_mark(struct gpc_subscription *sub, enum gpc_mark_kind kind,
	     gpc_done_cb cb, void *user);

/* Marks and waits for the answer. A BEGIN the device cannot take yet (its
 * stream has just opened) is asked again until the connect timeout. */
int gpc_mark_sync(struct gpc_subscription *sub, enum gpc_mark_kind kind,
		  struct gpc_error *err);

/* Changes the device's metric set and/or period (NULL / 0 keep them):
 * controllers only. Every subscriber of the device gets CONFIG_CHANGED. */
int gpc_reconfigure(struct gpc_subscription *sub, const char *metric_set,
		    uint64_t sampling_period_ns, gpc_done_cb cb, void *user);

/* ------------------------------------------------------------------ */
/* Recordings                                                           */

struct gpc_recording;

enum gpc_recording_format {
	/* IGT's i915-perf format: the raw stream (i915-perf-reader and
	 * gpuperf replay read it). */
	GPC_RECORDING_I915_PERF,
	/* A Perfetto trace of the stream (.perfetto-trace): the counters per
	 * window, a slice per span of each context, losses, clocks. */
	GPC_RECORDING_PERFETTO,
};

struct gpc_recording_options {
	const char *device;             /* NULL: the first */
	const char *metric_set;         /* as in gpc_subscribe_options */
	uint64_t sampling_period_ns;
	uint64_t max_bytes;             /* 0: the daemon's limit */
	enum gpc_recording_format format;
	/* PERFETTO: the counters' window (0: 10 ms) and the counters, as
	 * in gpc_subscribe_options (none: all). */
	uint64_t window_ns;
	const char *const *counters;
	size_t n_counters;
	/* PERFETTO: the device's usage (as gpc_usage_subscribe gives it) on
	 * tracks of the trace, every usage_interval_ns (0: 1 s); none with
	 * no_usage. */
	uint64_t usage_interval_ns;
	bool no_usage;
};

struct gpc_recording_info {
	uint32_t id;
	const char *device;
	const char *metric_set;
	uint64_t sampling_period_ns;
	enum gpc_recording_format format;
	uint64_t window_ns;             /* PERFETTO: the counters' window */
	/* PERFETTO: the usage tracks' interval; 0 when the trace has none,
	 * and usage_note says why ("" when no_usage asked for none). */
	uint64_t usage_interval_ns;
	const char *usage_note;
};

struct gpc_recording_summary {
	uint64_t bytes;
	uint64_t reports;
	const char *reason;             /* why the daemon ended it; NULL when
					 * it stopped as asked */
};

struct gpc_recording_cbs {
	/* The daemon's answer. With an error the handle is freed when this
	 * returns. */
	void (*started)(struct gpc_recording *rec, const struct gpc_error *err,
			void *user);
	/* The next bytes of the file, in order, from offset: each call's
	 * offset is where the one before ended (the first's is 0). */
	void (*data)(struct gpc_recording *rec, uint64_t offset,
		     const void *data, size_t len, void *user);
	/* The end: summary when every byte has arrived, else err (the
	 * connection ended first, or the daemon sent bytes that do not
	 * follow those before: -EPROTO, the recording stopped). The handle
	 * is freed when this returns. */
	void (*stopped)(struct gpc_recording *rec,
			const struct gpc_recording_summary *summary,
			const struct gpc_error *err, void *user);
};

/* Starts a recording of the device's raw stream, in IGT's i915-perf
 * format (what i915-perf-reader reads) or as a Perfetto trace. cbs is
 * copied. */
int gpc_record(struct gpc_client *client,
	       const struct gpc_recording_options *options,
	       const struct gpc_recording_cbs *cbs, void *user,
	       struct gpc_recording **out);

/* NULL until started. */
const struct gpc_recording_info *
gpc_recording_info(const struct gpc_recording *rec);

/* Asks the daemon to end it; the stopped callback follows the last bytes.
 * 0, or -EALREADY. */
int gpc_recording_stop(struct gpc_recording *rec);

/* ------------------------------------------------------------------ */
/* Usage: engines, clocks, power and processes                          */

/*
 * A device's usage stream: how busy its engines are, its clocks, RC6,
 * power and temperature, and which processes use it, every interval. It
 * needs no OA unit and runs beside any subscription. Values the device
 * cannot measure are NaN (the frame's note says why).
 */
struct gpc_usage_subscription;

struct gpc_usage_options {
	const char *device;             /* NULL: the first */
	uint64_t interval_ns;           /* 0: 1 s */
	bool processes;                 /* frames carry process rows */
};

struct gpc_engine_usage {
	const char *name;               /* "rcs0" */
	const char *engine_class;       /* "render" */
	double busy, wait, sema;        /* shares of the interval, 0..1 */
};

struct gpc_gauge {
	const char *name;               /* "pcie_tx" */
	const char *unit;               /* "bytes_per_second" */
	double value;
};

struct gpc_process_usage {
	uint32_t pid, ppid;             /* 0 when hidden */
	const char *command;            /* "" when hidden */
	size_t n_client_ids;
	const uint64_t *client_ids;     /* DRM client ids, the first ones */
	uint32_t clients;               /* how many in all */
	size_t n_class_busy;
	const double *class_busy;       /* per the frame's engine_classes */
	uint64_t gpu_time_ns;           /* engine time in the interval */
	uint64_t gpu_time_total_ns;     /* since the daemon first saw it */
	uint64_t memory_bytes, resident_bytes;
	/* Where class_busy and gpu_time_ns came from: "kernel_counters"
	 * (DRM fdinfo), "driver_sampled" (NVML's samples),
	 * "measured_in_process" (the process's own kernels, CUPTI),
	 * "simulated", or "" from a daemon that does not say. */
	const char *share_source;
	/* "measured_in_process": kernel records its measure lost since the
	 * daemon first heard from it (their time is missing). */
	uint64_t records_lost;
};

struct gpc_usage_frame {
	const char *device;
	uint64_t cpu_start_ns, cpu_end_ns;      /* the daemon's CLOCK_MONOTONIC */
	size_t n_engines;
	const struct gpc_engine_usage *engines;
	size_t n_engine_classes;
	const char *const *engine_classes;
	double actual_frequency_hz, requested_frequency_hz;     /* means */
	double min_frequency_hz, max_frequency_hz;
	double rc6;                     /* share asleep */
	double power_watts;             /* mean */
	double energy_joules;           /* in the interval */
	double temperature_celsius;
	size_t n_gauges;
	const struct gpc_gauge *gauges;
	bool processes_included;        /* asked for and visible */
	enum gpc_process_visibility process_visibility;
	size_t n_processes;
	const struct gpc_process_usage *processes;
	uint32_t processes_unreadable;  /* left out: the list is partial */
	const char *processes_note;     /* why, and what to do */
	const char *note;               /* what could not be measured */
	/* Usage frames lost to slow reading since the last; counters'
	 * frames count their own. */
	uint32_t frames_dropped;
	uint64_t frames_dropped_total;
	/* The daemon's CLOCK_BOOTTIME at cpu_start_ns, as in gpc_frame. */
	bool has_boottime;
	uint64_t cpu_start_boottime_ns;
};

struct gpc_usage_info {
	uint32_t id;
	const char *device;
	uint64_t interval_ns;
	const char *description;        /* what the values come from */
};

struct gpc_usage_cbs {
	/* The daemon's answer; with an error the handle is freed when this
	 * returns. */
	void (*subscribed)(struct gpc_usage_subscription *u,
			   const struct gpc_error *err, void *user);
	void (*frame)(struct gpc_usage_subscription *u,
		      const struct gpc_usage_frame *frame, void *user);
};

/* Asks for usage frames. cbs is copied; any callback may be NULL. */
int gpc_usage_subscribe(struct gpc_client *client,
			const struct gpc_usage_options *options,
			const struct gpc_usage_cbs *cbs, void *user,
			struct gpc_usage_subscription **out);

/* Subscribes and waits for the answer; on an error *out is NULL. */
int gpc_usage_subscribe_sync(struct gpc_client *client,
			     const struct gpc_usage_options *options,
			     const struct gpc_usage_cbs *cbs, void *user,
			     struct gpc_usage_subscription **out,
			     struct gpc_error *err);

/* NULL until subscribed. */
const struct gpc_usage_info *
gpc_usage_info(const struct gpc_usage_subscription *u);

/* Ends the stream and frees the handle; no callback follows. */
void gpc_usage_unsubscribe(struct gpc_usage_subscription *u);

/* ------------------------------------------------------------------ */
/* Snapshots of a device's flight recorder                              */

/*
 * A device started with a flight recorder (gpuperfd --flight-recorder)
 * keeps its newest raw records; a snapshot fetches those of a span as IGT
 * i915-perf recordings, one per segment (a stream configuration: metric
 * set and period) the span covers, oldest first.
 */
struct gpc_snapshot;

struct gpc_snapshot_options {
	const char *device;             /* NULL: the first */
	/* The span, on the daemon's CLOCK_MONOTONIC (as gpc_frame's
	 * cpu_*_ns): last_ns before its end, or from from_cpu_ns; to
	 * to_cpu_ns (0: the newest report). Neither last_ns nor
	 * from_cpu_ns: all the ring holds. */
	uint64_t last_ns;
	uint64_t from_cpu_ns;
	uint64_t to_cpu_ns;
};

struct gpc_snapshot_segment {
	const char *metric_set;
	uint64_t sampling_period_ns;
	uint64_t bytes;                 /* of its recording */
	uint64_t reports;
	uint64_t reports_lost, buffers_lost;    /* loss records in it */
	uint64_t cpu_start_ns, cpu_end_ns;      /* its first and last report */
	/* The ring had let go of its earlier reports: the recording's first
	 * report follows a BUFFER_LOST. */
	bool truncated;
};

struct gpc_snapshot_info {
	uint32_t id;
	const char *device;
	size_t n_segments;
	const struct gpc_snapshot_segment *segments;
	uint64_t bytes;                 /* of every recording */
	uint64_t ring_records_overwritten;      /* by the ring so far */
	uint64_t ring_bytes;            /* its size */
};

struct gpc_snapshot_cbs {
	/* The daemon's answer: info, or err (the handle is then freed when
	 * this returns). */
	void (*started)(struct gpc_snapshot *snap,
			const struct gpc_snapshot_info *info,
			const struct gpc_error *err, void *user);
	/* The next bytes of segment's recording, in order, from offset. */
	void (*data)(struct gpc_snapshot *snap, size_t segment, uint64_t offset,
		     const void *data, size_t len, void *user);
	/* The end: err NULL when every byte arrived, else why not (the
	 * connection ended first). The handle is freed when this returns. */
	void (*done)(struct gpc_snapshot *snap, const struct gpc_error *err,
		     void *user);
};

/* Asks for a snapshot. cbs is copied. */
int gpc_snapshot(struct gpc_client *client,
		 const struct gpc_snapshot_options *options,
		 const struct gpc_snapshot_cbs *cbs, void *user,
		 struct gpc_snapshot **out);

/* NULL until started. */
const struct gpc_snapshot_info *gpc_snapshot_info(const struct gpc_snapshot *snap);

/* Gives up on a snapshot (the user interrupted it): no callback comes
 * after this, the handle is freed, and what the daemon still sends of it
 * is dropped. */
void gpc_snapshot_abandon(struct gpc_snapshot *snap);

/* ------------------------------------------------------------------ */
/* Performance queries                                                  */

/*
 * The view of GL_INTEL_performance_query and OpenCL's Intel extension: a
 * query is a metric set of a device; its counters are laid out in one data
 * block. Query ids run from 1 over every device's sets in catalog order,
 * counter ids from 1 in the set's order. A query object measures the
 * window between begin and end; its data block holds each counter at its
 * offset as its data type (UINT32, BOOL32 and FLOAT in 4 bytes, UINT64
 * and DOUBLE in 8, each aligned to its size; the block's size is a
 * multiple of 8).
 *
 * The calls that talk to the daemon wait for its answer, like the *_sync
 * functions.
 */
struct gpc_query;

/* The first query id; -ENOENT when the daemon has no metric set. */
int gpc_query_first_id(const struct gpc_client *client, unsigned *query_id);

/* The id after query_id; -ENOENT after the last, -EINVAL for a bad id. */
int gpc_query_next_id(const struct gpc_client *client, unsigned query_id,
		      unsigned *next_id);

/* The id of a device's (NULL: the first) metric set; -ENOENT. */
int gpc_query_id_by_name(const struct gpc_client *client, const char *device,
			 const char *metric_set, unsigned *query_id);

struct gpc_query_info {
	const char *name;               /* the set's name */
	const char *symbol;
	const char *device;
	size_t data_size;               /* bytes of the data block */
	unsigned n_counters;
};

int gpc_query_info(const struct gpc_client *client, unsigned query_id,
		   struct gpc_query_info *info);

struct gpc_query_counter_info {
	const char *name;
	const char *symbol;
	const char *description;
	const char *units;
	size_t offset;                  /* in the data block */
	size_t size;                    /* bytes */
	enum gpc_counter_type type;
	enum gpc_data_type data_type;
	uint64_t raw_max;               /* a constant bound as an integer;
					 * 0 when unbounded or varying */
};

/* counter_id from 1; -EINVAL for a bad id. */
int gpc_query_counter_info(const struct gpc_client *client, unsigned query_id,
			   unsigned counter_id,
			   struct gpc_query_counter_info *info);

/* A query object: subscribes to the set's counters (waits). */
int gpc_query_create(struct gpc_client *client, unsigned query_id,
		     struct gpc_query **out, struct gpc_error *err);

/* The same measuring only the caller's own context `context` of its DRM
 * file drm_fd between begin and end, as the kernel filters it
 * (gpc_subscribe_context()): what GL_INTEL_performance_query's queries
 * measure in Mesa. */
int gpc_query_create_context(struct gpc_client *client, unsigned query_id,
			     int drm_fd, uint32_t context,
			     struct gpc_query **out, struct gpc_error *err);

/* Opens and closes the measured window (both wait for the daemon).
 * -EBUSY when begin follows begin, -EINVAL for end without begin. */
int gpc_query_begin(struct gpc_query *query, struct gpc_error *err);
int gpc_query_end(struct gpc_query *query, struct gpc_error *err);

/* gpc_query_get_data flags. */
#define GPC_QUERY_WAIT 1u               /* wait for the window's frame */

/*
 * Copies the data block of the last ended window into data (size bytes at
 * least the query's data_size); *written gets the bytes written. Without
 * GPC_QUERY_WAIT, -EAGAIN while the frame has not arrived. -EINVAL before
 * any end, -ENOBUFS when size is too small.
 */
int gpc_query_get_data(struct gpc_query *query, unsigned flags, void *data,
		       size_t size, size_t *written);

/* Ends the query's subscription and frees it. */
void gpc_query_destroy(struct gpc_query *query);

#ifdef __cplusplus
}
#endif

#endif
