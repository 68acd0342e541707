/*
 * A subscription shown as it streams (see streaming.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/catalog_names.h"
#include "client/cli_args.h"
#include "client/commands.h"
#include "client/human_text.h"
#include "client/streaming.h"

const char gpuperf_stream_options_help[] =
	"  -d, --device DEVICE  the device (default: the first;\n"
	"                       'gpuperf devices')\n"
	"  -m, --metric-set SET the metric set, by symbol or GUID (default:\n"
	"                       what the device runs, or its first)\n"
	"  -c, --counters C1,C2 the counters, by symbol ('gpuperf counters\n"
	"                       SET'); 'all' (the default) is every one\n"
	"  -p, --period D       the sampling period (e.g. 1ms; default: what\n"
	"                       runs, or the daemon's default)\n"
	"  -i, --interval D     one row per D of time (e.g. 100ms, 1s)\n"
	"      --ctx ID         only the reports of hardware context ID\n"
	"      --drm-fd FD --context HANDLE\n"
	"                       only GEM context (i915) or exec queue (xe)\n"
	"                       HANDLE of the DRM file open as FD, inherited\n"
	"                       from the launcher that opened the node and\n"
	"                       made it; through a copy of FD the daemon gets\n"
	"                       over its Unix socket (--unix), i915 streams\n"
	"                       that context alone (xe still counts the\n"
	"                       whole unit)\n"
	"      --per-context    after each window's row, a row per context\n"
	"                       that ran in it (context_id 0: idle); needs\n"
	"                       reports with context IDs (CONTEXTS\n"
	"                       'software' in 'gpuperf devices'; not Haswell)\n"
	"      --raw            add the raw counter deltas (raw_gpu_time,\n"
	"                       raw_a0, ...)\n"
	"      --format FORMAT  table (human units; on a terminal redrawn in\n"
	"                       place), csv or ndjson (plain numbers; each\n"
	"                       line whole even if the process is killed),\n"
	"                       or perfetto: a Perfetto trace of the windows\n"
	"                       (needs -o FILE or a pipe; open it in\n"
	"                       ui.perfetto.dev or trace_processor)\n"
	"      --units          csv: a second header row with each column's\n"
	"                       units\n"
	"      --usage-interval D  perfetto: the device's engines, clocks,\n"
	"                       power and processes (what gpuperf top shows)\n"
	"                       on tracks of their own, every D (default 1s,\n"
	"                       at least 100ms)\n"
	"      --no-usage       perfetto: without them\n"
	"  -o, --output FILE    write the rows to FILE\n"
	"      --duration D     cover D of GPU time (e.g. 30s), to within a\n"
	"                       sampling period, then stop\n"
	"\n"
	"Windows are aligned to multiples of the interval on the GPU's time\n"
	"line: the first begins where the stream does and the last ends with\n"
	"--duration, so both are partial, and are flushed and marked so.\n"
	"--ctx rows of windows where the context did not run have no values;\n"
	"a stream that measured no window, or no report of its --ctx context,\n"
	"says so and exits 1.\n\n"
	"Columns: timestamp_ns (the window's start, the daemon's\n"
	"CLOCK_MONOTONIC), duration_ns (GPU time), partial (1: shorter than\n"
	"the interval), reports (report pairs),\n"
	"lost (OA_REPORT_LOST), buffers_lost (OA_BUFFER_LOST), dropped (frames\n"
	"the daemon dropped because this client read too slowly), then one\n"
	"column per counter, named by its symbol.\n";

static int duration_option(const char *cmd, const char *usage,
			   const char *name, const char *value, uint64_t *ns)
{
	if (gpuperf_parse_duration(value, ns) < 0) {
		gpuperf_usage_error(cmd, usage, "%s takes a duration such as "
				    "100ms, 1s or 500us, not '%s'", name, value);
		return -1;
	}
	return 1;
}

int gpuperf_stream_option(const char *cmd, const char *usage, int argc,
			  char **argv, int *i, struct gpuperf_stream_options *o)
{
	const char *arg = argv[*i], *value;
	int m = gpuperf_connection_option(cmd, usage, argc, argv, i, &o->conn);

	if (m)
		return m;
	if (gpuperf_arg_flag(arg, "--per-context", NULL)) {
		o->per_context = true;
		return 1;
	}
	if (gpuperf_arg_flag(arg, "--raw", NULL)) {
		o->raw = true;
		return 1;
	}
	if (gpuperf_arg_flag(arg, "--units", NULL)) {
		o->units_row = true;
		return 1;
	}
	if (gpuperf_arg_flag(arg, "--no-usage", NULL)) {
		o->no_usage = true;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--device", "-d", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--metric-set", "-m", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--counters", "-c", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--period", "-p", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--interval", "-i", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--ctx", NULL, &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--drm-fd", NULL, &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--context", NULL, &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--format", NULL, &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--output", "-o", &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--duration", NULL, &value)) ||
	    (m = gpuperf_arg_value(argc, argv, i, "--usage-interval", NULL, &value))) {
		if (m < 0 || !*value) {
			gpuperf_usage_error(cmd, usage, "%s needs a value", arg);
			return -1;
		}
	} else {
		return 0;
	}
	/* arg is the option as given; its long name decides. */
	if (!strncmp(arg, "--device", 8) || !strcmp(arg, "-d")) {
		o->device = value;
	} else if (!strncmp(arg, "--metric-set", 12) || !strcmp(arg, "-m")) {
		o->metric_set = value;
	} else if (!strncmp(arg, "--counters", 10) || !strcmp(arg, "-c")) {
		o->counters = strcmp(value, "all") ? value : NULL;
	} else if (!strncmp(arg, "--period", 8) || !strcmp(arg, "-p")) {
		return duration_option(cmd, usage, "--period", value,
				       &o->period_ns);
	} else if (!strncmp(arg, "--interval", 10) || !strcmp(arg, "-i")) {
		return duration_option(cmd, usage, "--interval", value,
				       &o->interval_ns);
	} else if (!strncmp(arg, "--usage-interval", 16)) {
		return duration_option(cmd, usage, "--usage-interval", value,
				       &o->usage_interval_ns);
	} else if (!strncmp(arg, "--duration", 10)) {
		return duration_option(cmd, usage, "--duration", value,
				       &o->duration_ns);
	} else if (!strncmp(arg, "--drm-fd", 8)) {
		char *end;
		errno = 0;
		long fd = strtol(value, &end, 10);
		if (errno || *end || fd < 0 || fd > INT32_MAX) {
			gpuperf_usage_error(cmd, usage, "--drm-fd takes a file "
					    "descriptor number, not '%s'", value);
			return -1;
		}
		if (fcntl((int)fd, F_GETFD) < 0) {
			gpuperf_usage_error(cmd, usage, "--drm-fd %ld: no such "
					    "open file in this process; the "
					    "launcher must leave the DRM file on "
					    "which it made the context open as "
					    "fd %ld", fd, fd);
			return -1;
		}
		o->has_drm_fd = true;
		o->drm_fd = (int)fd;
	} else if (!strncmp(arg, "--context", 9)) {
		char *end;
		errno = 0;
		unsigned long handle = strtoul(value, &end, 0);
		if (errno || *end || handle > UINT32_MAX) {
			gpuperf_usage_error(cmd, usage, "--context takes a GEM "
					    "context handle, not '%s'", value);
			return -1;
		}
		o->has_drm_context = true;
		o->drm_context = (uint32_t)handle;
	} else if (!strncmp(arg, "--ctx", 5)) {
		char *end;
		errno = 0;
		unsigned long id = strtoul(value, &end, 0);
		if (errno || *end || id > UINT32_MAX) {
			gpuperf_usage_error(cmd, usage, "--ctx takes a context "
					    "id (decimal or 0x hex), not '%s'",
					    value);
			return -1;
		}
		o->filter_context = true;
		o->context_id = (uint32_t)id;
	} else if (!strncmp(arg, "--format", 8)) {
		if (gpuperf_format_parse(value, &o->format) < 0) {
			gpuperf_usage_error(cmd, usage, "--format takes table, "
					    "csv, ndjson or perfetto");
			return -1;
		}
	} else {
		o->output = value;
	}
	return 1;
}

/* ------------------------------------------------------------------ */

void gpuperf_streaming_stop(struct gpuperf_streaming *s, int exit_code)
{
	if (s->stopping)
		return;
	s->stopping = true;
	s->exit_code = exit_code;
	/* Not from under gpc_subscribe_sync(): gpuperf_streaming_start()
	 * stops once it is back. */
	if (s->starting)
		return;
	if (s->handles_ready) {
		uv_close((uv_handle_t *)&s->sigint, NULL);
		uv_close((uv_handle_t *)&s->sigterm, NULL);
		uv_close((uv_handle_t *)&s->watchdog, NULL);
		s->handles_ready = false;
	}
	if (s->client) {
		/* The subscription goes with it. */
		gpc_close(s->client, NULL, NULL);
		s->client = NULL;
		s->sub = NULL;
	}
}

static int start_view(struct gpuperf_streaming *s);

static void on_usage_subscribed(struct gpc_usage_subscription *u,
				const struct gpc_error *err, void *user)
{
	struct gpuperf_streaming *s = user;

	if (!err)
		return;
	/* The handle is freed when this returns. */
	s->usage = NULL;
	if (s->stopping)
		return;
	/* Asked for by name, it is as needed as the counters. */
	if (s->usage_interval_ns) {
		gpuperf_streaming_stop(s, gpuperf_report(s->cmd, "the daemon "
							 "refused the usage "
							 "stream", err));
		return;
	}
	fprintf(stderr, "gpuperf %s: the trace has no usage tracks: the "
		"daemon refused its usage stream: %s\n", s->cmd, err->message);
}

static void on_usage_frame(struct gpc_usage_subscription *u,
			   const struct gpc_usage_frame *f, void *user)
{
	struct gpuperf_streaming *s = user;

	if (s->stopping)
		return;
	int ret = gpuperf_stream_trace_usage(&s->trace, f);
	if (ret == -EPIPE) {
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
	} else if (ret) {
		gpuperf_fail(s->cmd, GPUPERF_EXIT_FILE, "cannot write the "
			     "output: %s", strerror(-ret));
		gpuperf_streaming_stop(s, GPUPERF_EXIT_FILE);
	}
}

/* Asks for the device's usage stream beside the subscription's. */
static void ask_usage(struct gpuperf_streaming *s, const char *device)
{
	const struct gpc_device *d = gpc_find_device(s->client, device);
	struct gpc_usage_options uo = {
		.device = device,
		.interval_ns = s->usage_interval_ns,
		.processes = true,
	};
	struct gpc_usage_cbs cbs = {
		.subscribed = on_usage_subscribed,
		.frame = on_usage_frame,
	};

	if (!d || !d->usage)
		return;
	if (gpc_usage_subscribe(s->client, &uo, &cbs, s, &s->usage))
		fprintf(stderr, "gpuperf %s: the trace has no usage tracks: "
			"cannot ask for them\n", s->cmd);
}

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct gpuperf_streaming *s = user;
	int ret;

	if (s->stopping)
		return;
	/* A frame can come before gpc_subscribe_sync() has returned the
	 * handle. */
	if (!s->sub)
		s->sub = sub;
	if (!s->view_ready && (ret = start_view(s))) {
		gpuperf_streaming_stop(s, ret);
		return;
	}
	/* A last frame with nothing in it only says the end. */
	bool end_only = f->last && !f->reports && !f->lost_reports &&
			!f->buffer_lost && f->gpu_end_ns == f->gpu_start_ns;
	bool shown = !end_only &&
		     (!s->hooks.wanted_frame || s->hooks.wanted_frame(s, f));
	ret = !shown ? 0 : s->tracing ? gpuperf_stream_trace_frame(&s->trace, f)
				      : gpuperf_stream_view_frame(&s->view, f);
	if (ret == -EPIPE) {
		/* Whoever read the output has had enough. */
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
		return;
	}
	if (ret) {
		gpuperf_fail(s->cmd, GPUPERF_EXIT_FILE, "cannot write the "
			     "output: %s", strerror(-ret));
		gpuperf_streaming_stop(s, GPUPERF_EXIT_FILE);
		return;
	}
	if (f->mark && s->hooks.mark_frame)
		s->hooks.mark_frame(s, f);
	if (f->last)
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
}

static void on_event(struct gpc_subscription *sub, const struct gpc_event *e,
		     void *user)
{
	struct gpuperf_streaming *s = user;
	const char *message = e->message && e->message[0] ? e->message : NULL;

	if (s->stopping)
		return;
	switch (e->kind) {
	case GPC_EVENT_CONFIG_CHANGED:
		/* Before the view is made: it is made for what runs then. */
		if (!s->view_ready)
			break;
		if (s->tracing) {
			/* A trace shows the new counters on tracks of their own. */
			gpuperf_stream_trace_config_changed(&s->trace);
		} else if (!gpuperf_stream_view_matches(&s->view,
						 gpc_subscription_info(sub))) {
			gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE, "another "
				     "client reconfigured device %s to %s; the "
				     "counters are no longer the columns, so "
				     "the stream ends here", e->device,
				     e->configuration.metric_set);
			gpuperf_streaming_stop(s, GPUPERF_EXIT_FAILURE);
			return;
		}
		fprintf(stderr, "gpuperf %s: device %s now runs %s sampled "
			"every %.4g ms\n", s->cmd, e->device,
			e->configuration.metric_set,
			(double)e->configuration.sampling_period_ns / 1e6);
		break;
	case GPC_EVENT_ENDED:
		fprintf(stderr, "gpuperf %s: device %s's stream ended%s%s\n",
			s->cmd, e->device, message ? ": " : "",
			message ? message : "");
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
		break;
	case GPC_EVENT_BUSY_ELSEWHERE:
	case GPC_EVENT_DEVICE_LOST:
	case GPC_EVENT_RECOVERED:
	case GPC_EVENT_RESTARTED:
	case GPC_EVENT_TRIGGER_FIRED:
		fprintf(stderr, "gpuperf %s: device %s: %s\n", s->cmd, e->device,
			message ? message :
			e->kind == GPC_EVENT_BUSY_ELSEWHERE ? "busy elsewhere" :
			e->kind == GPC_EVENT_DEVICE_LOST ? "lost" :
			e->kind == GPC_EVENT_RECOVERED ? "recovered" :
			e->kind == GPC_EVENT_TRIGGER_FIRED ? "a trigger fired" :
			"started over");
		break;
	}
}

static void on_disconnect(struct gpc_client *c, const struct gpc_error *err,
			  void *user)
{
	struct gpuperf_streaming *s = user;

	if (s->stopping)
		return;
	gpuperf_streaming_stop(s, gpuperf_report(s->cmd, "the connection to "
						 "the daemon ended", err));
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct gpuperf_streaming *s = h->data;

	if (s->hooks.signal)
		s->hooks.signal(s, signum);
	else
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
}

/* Wall time a --duration stream may take beyond its GPU time before it
 * is given up: the GPU time again, at least this. */
#define WATCHDOG_SLACK_MS 2000

static void on_watchdog(uv_timer_t *t)
{
	struct gpuperf_streaming *s = t->data;
	char asked[GPUPERF_HUMAN_TEXT_MAX], waited[GPUPERF_HUMAN_TEXT_MAX];
	char covered[GPUPERF_HUMAN_TEXT_MAX];

	gpuperf_duration_text(asked, sizeof(asked), (double)s->duration_ns);
	gpuperf_duration_text(waited, sizeof(waited),
			      (double)(uv_now(&s->loop) - s->started_ms) * 1e6);
	uint64_t windows = s->tracing ? s->trace.frames : s->view.windows;
	if (!s->view_ready || !windows) {
		/* Said when the stream ends, for every way it can end. */
		gpuperf_streaming_stop(s, GPUPERF_EXIT_OK);
		return;
	}
	gpuperf_duration_text(covered, sizeof(covered), (double)(s->tracing ?
			      s->trace.gpu_ns : s->view.gpu_ns));
	gpuperf_streaming_stop(s, gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE,
		"the device covered %s of GPU time in %s, not the %s asked: it "
		"runs slower than real time, or stopped delivering reports",
		covered, waited, asked));
}

/* A stream that ends without data says why (and fails). */
static void check_measured(struct gpuperf_streaming *s)
{
	char streamed[GPUPERF_HUMAN_TEXT_MAX];

	if (s->exit_code || !s->loop_ready)
		return;
	gpuperf_duration_text(streamed, sizeof(streamed),
			      (double)(uv_now(&s->loop) - s->started_ms) * 1e6);
	uint64_t windows = s->tracing ? s->trace.frames : s->view.windows;
	uint64_t reports = s->tracing ? s->trace.reports : s->view.reports;
	if (!s->view_ready || !windows) {
		s->exit_code = gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE,
			"no window came in the %s streamed: the device delivered "
			"no report in that time (a window needs two; gpuperfd's "
			"log says why)", streamed);
	} else if (s->filter_context && !reports) {
		s->exit_code = gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE,
			"no report of context 0x%" PRIx32 " in the %" PRIu64
			" windows of %s streamed: it did not run ('gpuperf "
			"stream --per-context' lists the contexts that do)",
			s->context_id, windows, streamed);
	}
}

/* Checks the names against the catalog, for messages that say where the
 * right names are; the daemon checks them again. */
static int check_names(struct gpuperf_streaming *s,
		       const struct gpuperf_stream_options *o, char **counters,
		       size_t n_counters)
{
	const struct gpc_device *d = gpuperf_need_device(s->cmd, s->client,
							 o->device);
	if (!d)
		return GPUPERF_EXIT_REFUSED;
	if (!o->metric_set)
		return 0;
	const struct gpc_metric_set *set =
		gpuperf_need_metric_set(s->cmd, d, o->metric_set);
	if (!set)
		return GPUPERF_EXIT_REFUSED;
	for (size_t i = 0; i < n_counters; i++)
		if (!gpuperf_need_counter(s->cmd, d, set, counters[i]))
			return GPUPERF_EXIT_REFUSED;
	return 0;
}

int gpuperf_streaming_check_per_context(struct gpuperf_streaming *s,
					const struct gpuperf_stream_options *o)
{
	const struct gpc_device *d = gpc_find_device(s->client, o->device);

	if (!o->per_context || !d || d->software_context_filter)
		return 0;
	return gpuperf_fail(s->cmd, GPUPERF_EXIT_REFUSED, "device %s's reports "
			    "(%s) carry no context ID, so it has no "
			    "per-context rows: stream without --per-context%s",
			    d->name, d->description,
			    d->kernel_context_filter ?
			    "; one application's context streams alone "
			    "through the kernel with --drm-fd FD --context "
			    "HANDLE, or 'gpuperf run --own-contexts'" :
			    ", or on a GPU whose reports carry context IDs "
			    "(Intel from Broadwell on)");
}

static int subscribe(struct gpuperf_streaming *s,
		     const struct gpuperf_stream_options *o, uint64_t window_ns)
{
	char **counters = NULL;
	size_t n_counters = 0;
	struct gpc_error err;

	if (o->counters && gpuperf_split_list(o->counters, &counters,
					      &n_counters) < 0)
		return gpuperf_fail(s->cmd, GPUPERF_EXIT_USAGE, "bad counter "
				    "list '%s': give symbols separated by "
				    "commas, or 'all'", o->counters);
	int ret = check_names(s, o, counters, n_counters);
	if (!ret)
		ret = gpuperf_streaming_check_per_context(s, o);
	if (ret) {
		free(counters);
		return ret;
	}
	struct gpc_subscribe_options so = {
		.device = o->device,
		.metric_set = o->metric_set,
		.sampling_period_ns = o->period_ns,
		.window_ns = window_ns,
		.counters = (const char *const *)counters,
		.n_counters = n_counters,
		.filter_context = o->filter_context,
		.context_id = o->context_id,
		.raw = o->raw,
		.per_context = o->per_context,
		.duration_ns = o->duration_ns,
	};
	struct gpc_subscription_cbs cbs = {
		.frame = on_frame,
		.event = on_event,
	};
	if (o->has_drm_fd)
		ret = gpc_subscribe_context(s->client, o->drm_fd, o->drm_context,
					    &so, &cbs, s, &s->sub, &err);
	else
		ret = gpc_subscribe_sync(s->client, &so, &cbs, s, &s->sub, &err);
	free(counters);
	if (ret)
		return gpuperf_report(s->cmd, "the daemon refused the "
				      "subscription", &err);
	const struct gpc_subscription_info *info = gpc_subscription_info(s->sub);
	gpuperf_note_period(s->cmd, s->client, info->device, o->period_ns,
			    info->sampling_period_ns);
	return 0;
}

/* Makes the view of the subscription as it is now. */
static int start_view(struct gpuperf_streaming *s)
{
	const struct gpuperf_stream_options *o = s->view_options;
	bool mark_column = s->view_mark_column;
	bool live_allowed = s->view_live_allowed;
	const struct gpc_subscription_info *info = gpc_subscription_info(s->sub);
	const struct gpc_device *d = gpc_find_device(s->client, info->device);
	char title[256];

	s->set = d ? gpc_find_metric_set(d, info->metric_set) : NULL;

	s->out = stdout;
	if (o->format == GPUPERF_FORMAT_PERFETTO && !o->output &&
	    isatty(STDOUT_FILENO))
		return gpuperf_fail(s->cmd, GPUPERF_EXIT_USAGE, "a Perfetto trace "
				    "is binary; name the file to write with -o");
	if (o->output) {
		s->out = fopen(o->output, "w");
		if (!s->out)
			return gpuperf_fail(s->cmd, GPUPERF_EXIT_FILE,
					    "cannot write %s: %s", o->output,
					    strerror(errno));
	}
	if (o->format == GPUPERF_FORMAT_PERFETTO) {
		gpuperf_stream_trace_init(&s->trace, s->out, s->client, s->sub,
					  o->mark_name);
		s->tracing = true;
		s->view_ready = true;
		if (s->usage_wanted)
			ask_usage(s, info->device);
		return 0;
	}
	char period[GPUPERF_HUMAN_TEXT_MAX], window[GPUPERF_HUMAN_TEXT_MAX];
	gpuperf_duration_text(period, sizeof(period),
			      (double)info->sampling_period_ns);
	gpuperf_duration_text(window, sizeof(window), (double)info->window_ns);
	snprintf(title, sizeof(title), "%s %s: sampling every %s, windows of "
		 "%s (Ctrl-C ends)", info->device, info->metric_set, period,
		 window);
	struct gpuperf_stream_view_options vo = {
		.format = o->format,
		.units_row = o->units_row,
		.live = live_allowed && o->format == GPUPERF_FORMAT_TABLE &&
			!o->output && isatty(STDOUT_FILENO),
		.per_context = o->per_context,
		.raw = o->raw,
		.mark_column = mark_column,
		.process_columns = mark_column,
		.out = s->out,
		.title = title,
		.platform = d ? d->platform : NULL,
		.metric_set = info->metric_set,
	};
	s->view_ready = true;
	if (gpuperf_stream_view_init(&s->view, &vo, info, s->set) < 0)
		return gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	if (vo.live) {
		static const char hint[] = "(waiting for the first window)\n";
		fputs(hint, stdout);
		fflush(stdout);
	}
	return 0;
}

int gpuperf_streaming_connect(struct gpuperf_streaming *s, const char *cmd,
			      const struct gpuperf_stream_options *o,
			      const struct gpuperf_streaming_hooks *hooks,
			      void *user)
{
	struct gpuperf_connection conn = o->conn;

	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	if (o->format == GPUPERF_FORMAT_PERFETTO &&
	    (o->per_context || o->raw || o->units_row))
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "--per-context, "
				    "--raw and --units go with table, csv and "
				    "ndjson; a trace's contexts come with "
				    "'gpuperf record --format perfetto'");
	if (o->has_drm_fd != o->has_drm_context)
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "--drm-fd and "
				    "--context go together: the DRM file and the "
				    "context of it to stream");
	if (o->has_drm_fd && o->filter_context)
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "--ctx filters the "
				    "system-wide stream, --drm-fd asks the kernel "
				    "for one context's: give one of them");
	if (o->format != GPUPERF_FORMAT_PERFETTO &&
	    (o->usage_interval_ns || o->no_usage))
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "--usage-interval "
				    "and --no-usage go with --format perfetto; "
				    "'gpuperf top' shows the usage stream");
	s->usage_wanted = o->format == GPUPERF_FORMAT_PERFETTO && !o->no_usage;
	s->usage_interval_ns = o->usage_interval_ns;
	s->user = user;
	s->duration_ns = o->duration_ns;
	s->filter_context = o->filter_context;
	s->context_id = o->context_id;
	if (hooks)
		s->hooks = *hooks;
	if (uv_loop_init(&s->loop))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot start an "
				    "event loop");
	s->loop_ready = true;
	s->started_ms = uv_now(&s->loop);
	int ret = gpuperf_connect(cmd, &conn, &s->loop, &s->client);
	if (ret)
		return ret;
	gpc_set_disconnect_cb(s->client, on_disconnect, s);
	uv_signal_init(&s->loop, &s->sigint);
	uv_signal_init(&s->loop, &s->sigterm);
	uv_timer_init(&s->loop, &s->watchdog);
	s->sigint.data = s;
	s->sigterm.data = s;
	s->watchdog.data = s;
	s->handles_ready = true;
	uv_signal_start(&s->sigint, on_signal, SIGINT);
	uv_signal_start(&s->sigterm, on_signal, SIGTERM);
	return 0;
}

int gpuperf_streaming_subscribe(struct gpuperf_streaming *s,
				const struct gpuperf_stream_options *o,
				uint64_t window_ns, bool mark_column,
				bool live_allowed)
{
	if (s->stopping)
		return s->exit_code;
	s->view_options = o;
	s->view_mark_column = mark_column;
	s->view_live_allowed = live_allowed;
	s->starting = true;
	int ret = subscribe(s, o, window_ns);
	if (!ret && !s->view_ready && !s->stopping)
		ret = start_view(s);
	s->starting = false;
	s->view_options = NULL;
	if (ret)
		return ret;
	if (s->stopping) {
		/* A frame, a signal or the connection's end asked while
		 * starting. */
		s->stopping = false;
		gpuperf_streaming_stop(s, s->exit_code);
		return s->exit_code;
	}
	/* The daemon ends a --duration stream once it has covered that much
	 * GPU time; this is only for a device that never gets there. */
	if (o->duration_ns) {
		uint64_t ms = (o->duration_ns + 999999) / 1000000;
		uv_timer_start(&s->watchdog, on_watchdog,
			       2 * ms + WATCHDOG_SLACK_MS, 0);
	}
	return 0;
}

int gpuperf_streaming_start(struct gpuperf_streaming *s, const char *cmd,
			    const struct gpuperf_stream_options *o,
			    uint64_t window_ns, bool mark_column,
			    bool live_allowed,
			    const struct gpuperf_streaming_hooks *hooks,
			    void *user)
{
	int ret = gpuperf_streaming_connect(s, cmd, o, hooks, user);
	return ret ? ret : gpuperf_streaming_subscribe(s, o, window_ns,
						       mark_column, live_allowed);
}

int gpuperf_streaming_run(struct gpuperf_streaming *s)
{
	uv_run(&s->loop, UV_RUN_DEFAULT);
	if (s->view_ready && s->tracing) {
		int ret = gpuperf_stream_trace_finish(&s->trace);
		if (ret && !s->exit_code)
			s->exit_code = gpuperf_fail(s->cmd, GPUPERF_EXIT_FAILURE,
						    "cannot write the trace: %s",
						    strerror(-ret));
		gpuperf_stream_trace_summary(&s->trace, s->cmd);
	} else if (s->view_ready) {
		gpuperf_stream_view_summary(&s->view, s->cmd);
	}
	check_measured(s);
	return s->exit_code;
}

void gpuperf_streaming_fini(struct gpuperf_streaming *s)
{
	if (s->view_ready && s->tracing)
		gpuperf_stream_trace_fini(&s->trace);
	else if (s->view_ready)
		gpuperf_stream_view_fini(&s->view);
	if (s->out && s->out != stdout && fclose(s->out) != 0 && !s->exit_code)
		s->exit_code = gpuperf_fail(s->cmd, GPUPERF_EXIT_FILE,
					    "cannot write the output: %s",
					    strerror(errno));
	s->out = NULL;
	if (!s->loop_ready)
		return;
	if (s->handles_ready) {
		uv_close((uv_handle_t *)&s->sigint, NULL);
		uv_close((uv_handle_t *)&s->sigterm, NULL);
		uv_close((uv_handle_t *)&s->watchdog, NULL);
		s->handles_ready = false;
	}
	if (s->client)
		gpc_close_sync(s->client);
	s->client = NULL;
	uv_run(&s->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&s->loop))
		fprintf(stderr, "gpuperf %s: handles left open at exit\n", s->cmd);
	s->loop_ready = false;
}
