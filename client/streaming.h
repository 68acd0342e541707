/*
 * A subscription shown as it streams: what gpuperf stream is, and what
 * gpuperf run does around its command. Options, connecting on a loop of
 * the command's own (for its signals, timers and child), checking the
 * names against the daemon's catalog, subscribing, and ending cleanly on
 * Ctrl-C, a duration, the daemon going away or the output failing.
 */
#ifndef GPUPERF_STREAMING_H
#define GPUPERF_STREAMING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <uv.h>

#include "client/cli_connect.h"
#include "client/stream_trace.h"
#include "client/stream_view.h"

struct gpuperf_stream_options {
	struct gpuperf_connection conn;
	const char *device;
	const char *metric_set;
	const char *counters;           /* "a,b"; NULL: all */
	uint64_t period_ns;
	uint64_t interval_ns;           /* 0: the command's default */
	bool filter_context;
	uint32_t context_id;
	/* --drm-fd and --context: the kernel's filter on a context of a
	 * DRM file this process holds. */
	bool has_drm_fd, has_drm_context;
	int drm_fd;
	uint32_t drm_context;
	bool per_context;
	bool raw;
	enum gpuperf_format format;
	bool units_row;
	const char *output;
	uint64_t duration_ns;           /* 0: until stopped */
	const char *mark_name;          /* perfetto: the marked window's */
	uint64_t usage_interval_ns;     /* perfetto: 0 the default */
	bool no_usage;                  /* perfetto: no usage tracks */
};

/* The options' help, for gpuperf stream --help and run --help. */
extern const char gpuperf_stream_options_help[];

/* Takes argv[*i] if it is a stream option (advancing past its value):
 * 1 taken, 0 not one, -1 bad (the usage error is printed). */
int gpuperf_stream_option(const char *cmd, const char *usage, int argc,
			  char **argv, int *i, struct gpuperf_stream_options *o);

struct gpuperf_streaming;

/* What gpuperf run adds. */
struct gpuperf_streaming_hooks {
	/* Whether the frame is shown; NULL: every one. */
	bool (*wanted_frame)(struct gpuperf_streaming *s,
			     const struct gpc_frame *f);
	/* The frame of the marked window arrived (after the view shows it). */
	void (*mark_frame)(struct gpuperf_streaming *s, const struct gpc_frame *f);
	/* SIGINT or SIGTERM; NULL: they end the stream. */
	void (*signal)(struct gpuperf_streaming *s, int signum);
};

struct gpuperf_streaming {
	const char *cmd;
	uv_loop_t loop;
	bool loop_ready;
	struct gpc_client *client;
	struct gpc_subscription *sub;
	const struct gpc_metric_set *set;
	struct gpuperf_stream_view view;
	bool view_ready;
	/* perfetto: the trace instead of the view (view_ready says either
	 * is made). */
	bool tracing;
	struct gpuperf_stream_trace trace;
	/* perfetto: the device's usage stream, beside the subscription. */
	bool usage_wanted;
	uint64_t usage_interval_ns;
	struct gpc_usage_subscription *usage;
	/* What the view is made with, until it is: a frame can come in on
	 * the heels of the subscription's acknowledgement. */
	const struct gpuperf_stream_options *view_options;
	bool view_mark_column, view_live_allowed;
	FILE *out;
	uv_signal_t sigint, sigterm;
	/* Ends a --duration stream that the daemon cannot bring to its end
	 * (a device that delivers nothing, or slower than real time). */
	uv_timer_t watchdog;
	bool handles_ready;
	uint64_t started_ms;
	uint64_t duration_ns;           /* --duration, of GPU time */
	bool filter_context;            /* --ctx, to say it matched nothing */
	uint32_t context_id;
	struct gpuperf_streaming_hooks hooks;
	void *user;
	bool starting;                  /* a stop waits for the start to end */
	bool stopping;
	int exit_code;
};

/*
 * Connects, subscribes and starts showing frames. window_ns is the frames'
 * length (0: only marked windows); mark_column adds run's "mark" column;
 * live_allowed lets a table on a terminal redraw in place. Returns 0, or
 * the exit status (then call gpuperf_streaming_fini).
 */
int gpuperf_streaming_start(struct gpuperf_streaming *s, const char *cmd,
			    const struct gpuperf_stream_options *o,
			    uint64_t window_ns, bool mark_column,
			    bool live_allowed,
			    const struct gpuperf_streaming_hooks *hooks,
			    void *user);

/* The two halves of gpuperf_streaming_start(), for gpuperf run
 * --own-contexts, which subscribes once its command offers a context:
 * connecting (the loop, the client, the signals), then subscribing and
 * making the view. Each returns 0 or the exit status. */
int gpuperf_streaming_connect(struct gpuperf_streaming *s, const char *cmd,
			      const struct gpuperf_stream_options *o,
			      const struct gpuperf_streaming_hooks *hooks,
			      void *user);
/* Refuses, in words, per-context rows on a device whose reports carry no
 * context ID (the daemon would send none): 0 or the exit status. The
 * subscribe halves check it; gpuperf run --own-contexts checks it before
 * its command starts. */
int gpuperf_streaming_check_per_context(struct gpuperf_streaming *s,
					const struct gpuperf_stream_options *o);
int gpuperf_streaming_subscribe(struct gpuperf_streaming *s,
				const struct gpuperf_stream_options *o,
				uint64_t window_ns, bool mark_column,
				bool live_allowed);

/* Runs the loop until the stream ends; returns the exit status. */
int gpuperf_streaming_run(struct gpuperf_streaming *s);

/* Ends the stream with exit_code (the first code given wins). */
void gpuperf_streaming_stop(struct gpuperf_streaming *s, int exit_code);

void gpuperf_streaming_fini(struct gpuperf_streaming *s);

#endif
