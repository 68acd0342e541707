/*
 * gpuperf record: the device's raw OA stream, recorded by the daemon in
 * IGT's i915-perf format and written here as its bytes arrive, until
 * Ctrl-C or --duration; the daemon then closes the file with its last
 * correlation point, so i915-perf-reader accepts it. With --format
 * perfetto the daemon turns the same stream into a Perfetto trace as it
 * records it, with the device's usage stream beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "client/catalog_names.h"
#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/human_text.h"

static const char *const cmd = "record";

static const char usage[] =
	"gpuperf record -m SET -o FILE [--duration D] [-p PERIOD]\n"
	"       [--format i915perf|perfetto [-c C1,C2|all] [-i INTERVAL]\n"
	"        [--usage-interval D | --no-usage]]\n"
	"       [--max-bytes N] [-d DEVICE] [CONNECTION OPTIONS]";

static const char help[] =
	"Records a device's raw counter reports to FILE in IGT's i915-perf\n"
	"format (i915-perf-reader and 'gpuperf replay' read it). Progress goes\n"
	"to standard error. Ctrl-C (or --duration) ends the recording with a\n"
	"whole file; a second Ctrl-C leaves at once, the file cut short.\n"
	"IGT's format holds only reports of i915's OA formats: those of\n"
	"Intel GPUs up to Meteor Lake (and their sim: devices). NVIDIA GPUs,\n"
	"sim:amd, Ponte Vecchio and Xe2 GPUs (Lunar Lake, Battlemage, Panther\n"
	"Lake) record with --format perfetto, which works on every device.\n\n"
	"  -m, --metric-set SET  the metric set, by symbol or GUID\n"
	"  -o, --output FILE     where the recording goes\n"
	"      --duration D      stop after D (e.g. 10s, 500ms)\n"
	"  -p, --period D        the sampling period (default: what runs, or\n"
	"                        the daemon's default)\n"
	"      --max-bytes N     stop before the file passes N bytes (k, M, G:\n"
	"                        powers of 1000; Ki, Mi, Gi: of 1024; at\n"
	"                        least 4096; default: the daemon's limit; a\n"
	"                        trace stops once it reaches N)\n"
	"  -d, --device DEVICE   the device (default: the first)\n"
	"      --format FORMAT   i915perf (the default) or perfetto: a\n"
	"                        Perfetto trace (.perfetto-trace) of the same\n"
	"                        stream, what 'gpuperf replay --format\n"
	"                        perfetto' makes of an i915perf recording:\n"
	"                        the counters per window, a slice per span of\n"
	"                        each hardware context, losses and clock\n"
	"                        snapshots, and the device's engines,\n"
	"                        clocks, power and processes (what gpuperf\n"
	"                        top shows; a recording holds none of them,\n"
	"                        so its replay's trace has no usage tracks);\n"
	"                        open it in ui.perfetto.dev\n"
	"  -c, --counters C1,C2  perfetto: the counters, by symbol; 'all' (the\n"
	"                        default) is every one\n"
	"  -i, --interval D      perfetto: the counters' window (default 10ms)\n"
	"      --usage-interval D  perfetto: the usage tracks' interval\n"
	"                        (default 1s, at least 100ms)\n"
	"      --no-usage        perfetto: without usage tracks\n\n";

/* A recording's header alone takes about 1 kB; the daemon refuses
 * limits with no room for it and a report. */
#define MIN_MAX_BYTES 4096u

/* Progress redrawn on a terminal this often, else printed this often. */
#define PROGRESS_TTY_MS 250
#define PROGRESS_LOG_MS 10000

struct record {
	struct gpuperf_connection conn;
	const char *device;
	const char *metric_set;
	const char *path;
	uint64_t duration_ns;
	uint64_t period_ns;
	uint64_t max_bytes;
	bool perfetto;
	const char *counters;           /* "a,b"; NULL: all */
	uint64_t interval_ns;
	uint64_t usage_interval_ns;
	bool no_usage;

	uv_loop_t loop;
	struct gpc_client *client;
	struct gpc_recording *rec;
	uv_signal_t sigint, sigterm;
	uv_timer_t duration, progress;
	bool handles_ready;
	bool tty;
	int fd;
	uint64_t bytes;
	uint64_t start_ms;
	bool stop_asked;
	bool finished;
	int exit_code;
};

static int parse(int argc, char **argv, struct record *r, bool *show_help)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m = gpuperf_connection_option(cmd, usage, argc, argv, &i,
						  &r->conn);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m)
			continue;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			*show_help = true;
			return 0;
		}
		if (gpuperf_arg_flag(arg, "--no-usage", NULL)) {
			r->no_usage = true;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--metric-set", "-m",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--output", "-o",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--device", "-d",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--duration", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--period", "-p",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--max-bytes", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--format", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--counters", "-c",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--interval", "-i",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--usage-interval",
					   NULL, &value))) {
			if (m < 0 || !*value)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "a value", arg);
		} else {
			return gpuperf_usage_error(cmd, usage, "unknown "
						   "argument '%s'", arg);
		}
		if (!strncmp(arg, "--metric-set", 12) || !strcmp(arg, "-m")) {
			r->metric_set = value;
		} else if (!strncmp(arg, "--output", 8) || !strcmp(arg, "-o")) {
			r->path = value;
		} else if (!strncmp(arg, "--device", 8) || !strcmp(arg, "-d")) {
			r->device = value;
		} else if (!strncmp(arg, "--format", 8)) {
			if (strcmp(value, "perfetto") && strcmp(value, "i915perf"))
				return gpuperf_usage_error(cmd, usage, "--format "
							   "takes i915perf or "
							   "perfetto");
			r->perfetto = !strcmp(value, "perfetto");
		} else if (!strncmp(arg, "--counters", 10) || !strcmp(arg, "-c")) {
			r->counters = strcmp(value, "all") ? value : NULL;
		} else if (!strncmp(arg, "--usage-interval", 16)) {
			if (gpuperf_parse_duration(value, &r->usage_interval_ns) < 0)
				return gpuperf_usage_error(cmd, usage, "%s takes "
							   "a duration such as "
							   "1s, not '%s'", arg,
							   value);
		} else if (!strncmp(arg, "--interval", 10) || !strcmp(arg, "-i")) {
			if (gpuperf_parse_duration(value, &r->interval_ns) < 0)
				return gpuperf_usage_error(cmd, usage, "%s takes "
							   "a duration such as "
							   "10ms, not '%s'",
							   arg, value);
		} else if (!strncmp(arg, "--max-bytes", 11)) {
			if (gpuperf_parse_bytes(value, &r->max_bytes) ||
			    r->max_bytes < MIN_MAX_BYTES)
				return gpuperf_usage_error(cmd, usage, "--max-bytes "
							   "takes a size of at "
							   "least %u bytes, such "
							   "as 100000, 500k, 20M "
							   "or 1Gi, not '%s'",
							   MIN_MAX_BYTES, value);
		} else if (gpuperf_parse_duration(value,
						  strncmp(arg, "--duration", 10) ?
						  &r->period_ns :
						  &r->duration_ns) < 0) {
			return gpuperf_usage_error(cmd, usage, "%s takes a "
						   "duration such as 10s or "
						   "500ms, not '%s'", arg, value);
		}
	}
	if (!r->metric_set)
		return gpuperf_usage_error(cmd, usage, "name the metric set "
					   "with -m ('gpuperf sets' lists them)");
	if (!r->path)
		return gpuperf_usage_error(cmd, usage, "name the file to write "
					   "with -o");
	if (!r->perfetto && (r->counters || r->interval_ns ||
			     r->usage_interval_ns || r->no_usage))
		return gpuperf_usage_error(cmd, usage, "-c, -i, --usage-interval "
					   "and --no-usage choose what a trace "
					   "shows; add --format perfetto");
	if (r->usage_interval_ns && r->no_usage)
		return gpuperf_usage_error(cmd, usage, "--usage-interval or "
					   "--no-usage: give one of them");
	return 0;
}

static void finish(struct record *r, int exit_code)
{
	if (r->finished)
		return;
	r->finished = true;
	r->exit_code = exit_code;
	if (r->handles_ready) {
		uv_close((uv_handle_t *)&r->sigint, NULL);
		uv_close((uv_handle_t *)&r->sigterm, NULL);
		uv_close((uv_handle_t *)&r->duration, NULL);
		uv_close((uv_handle_t *)&r->progress, NULL);
		r->handles_ready = false;
	}
	if (r->client)
		gpc_close(r->client, NULL, NULL);
	r->client = NULL;
	r->rec = NULL;
}

static void show_progress(struct record *r, bool last)
{
	double seconds = (double)(uv_now(&r->loop) - r->start_ms) / 1e3;

	fprintf(stderr, "%srecording to %s: %.2f MiB, %.1f s%s",
		r->tty ? "\r" : "", r->path, (double)r->bytes / 1048576.0,
		seconds, r->tty && !last ? "\033[K" : "\n");
}

static void on_progress(uv_timer_t *t)
{
	show_progress(t->data, false);
}

static void stop_recording(struct record *r)
{
	if (r->stop_asked || !r->rec)
		return;
	r->stop_asked = true;
	int ret = gpc_recording_stop(r->rec);
	if (ret && ret != -EALREADY) {
		fprintf(stderr, "\ngpuperf record: cannot ask the daemon to stop "
			"(%s); %s may be cut short\n", gpc_strerror(ret), r->path);
		finish(r, gpuperf_exit_for(ret));
	}
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct record *r = h->data;

	if (!r->stop_asked && r->rec) {
		stop_recording(r);
		return;
	}
	fprintf(stderr, "\ngpuperf record: stopped before the daemon finished; "
		"%s may be cut short\n", r->path);
	finish(r, 128 + signum);
}

static void on_duration(uv_timer_t *t)
{
	stop_recording(t->data);
}

static void on_started(struct gpc_recording *rec, const struct gpc_error *err,
		       void *user)
{
	struct record *r = user;

	if (err) {
		r->rec = NULL;
		finish(r, gpuperf_report(cmd, "the daemon refused the recording",
					 err));
		return;
	}
	r->fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r->fd < 0) {
		fprintf(stderr, "gpuperf record: cannot write %s: %s\n", r->path,
			strerror(errno));
		finish(r, GPUPERF_EXIT_FILE);
		return;
	}
	const struct gpc_recording_info *info = gpc_recording_info(rec);
	char period[GPUPERF_HUMAN_TEXT_MAX];
	gpuperf_duration_text(period, sizeof(period),
			      (double)info->sampling_period_ns);
	gpuperf_note_period(cmd, r->client, info->device, r->period_ns,
			    info->sampling_period_ns);
	fprintf(stderr, "gpuperf record: recording %s of %s every %s to %s%s; "
		"Ctrl-C ends it\n", info->metric_set, info->device, period,
		r->path, info->format == GPC_RECORDING_PERFETTO ?
		" as a Perfetto trace" : "");
	if (info->format == GPC_RECORDING_PERFETTO && info->usage_interval_ns) {
		char every[GPUPERF_HUMAN_TEXT_MAX];
		gpuperf_duration_text(every, sizeof(every),
				      (double)info->usage_interval_ns);
		fprintf(stderr, "gpuperf record: the device's usage every %s on "
			"tracks of the trace\n", every);
	} else if (info->format == GPC_RECORDING_PERFETTO && *info->usage_note) {
		fprintf(stderr, "gpuperf record: the trace has no usage tracks: "
			"%s\n", info->usage_note);
	}
	r->start_ms = uv_now(&r->loop);
	uint64_t every = r->tty ? PROGRESS_TTY_MS : PROGRESS_LOG_MS;
	uv_timer_start(&r->progress, on_progress, every, every);
	if (r->duration_ns)
		uv_timer_start(&r->duration, on_duration,
			       (r->duration_ns + 999999) / 1000000, 0);
}

static void on_data(struct gpc_recording *rec, uint64_t offset,
		    const void *data, size_t len, void *user)
{
	struct record *r = user;
	const char *p = data;

	if (r->finished)
		return;
	/* libgpuperf hands the bytes over in order (offset is r->bytes):
	 * they are appended, never written where the daemon says. */
	while (len) {
		ssize_t n = write(r->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "\ngpuperf record: cannot write %s: %s\n",
				r->path, strerror(errno));
			finish(r, GPUPERF_EXIT_FILE);
			return;
		}
		p += n;
		len -= (size_t)n;
		r->bytes += (uint64_t)n;
	}
}

static void on_stopped(struct gpc_recording *rec,
		       const struct gpc_recording_summary *summary,
		       const struct gpc_error *err, void *user)
{
	struct record *r = user;

	r->rec = NULL;
	if (r->finished)
		return;
	if (err) {
		if (r->tty)
			fprintf(stderr, "\n");
		finish(r, gpuperf_report(cmd, "the recording ended early", err));
		fprintf(stderr, "gpuperf record: %s holds what arrived before, "
			"without its closing records\n", r->path);
		return;
	}
	show_progress(r, true);
	fprintf(stderr, "gpuperf record: %" PRIu64 " bytes, %" PRIu64
		" reports in %s\n", summary->bytes, summary->reports, r->path);
	if (summary->reason)
		fprintf(stderr, "gpuperf record: the daemon ended the recording: "
			"%s\n", summary->reason);
	finish(r, summary->bytes == r->bytes ? GPUPERF_EXIT_OK :
	       GPUPERF_EXIT_FAILURE);
}

static void on_disconnect(struct gpc_client *c, const struct gpc_error *err,
			  void *user)
{
	struct record *r = user;

	if (!r->finished)
		finish(r, gpuperf_report(cmd, "the connection to the daemon "
					 "ended", err));
}

static int check_names(struct record *r)
{
	const struct gpc_device *d = gpuperf_need_device(cmd, r->client,
							 r->device);
	if (!d || !gpuperf_need_metric_set(cmd, d, r->metric_set))
		return GPUPERF_EXIT_REFUSED;
	return 0;
}

static int record_run(struct record *r)
{
	int ret = gpuperf_connect(cmd, &r->conn, &r->loop, &r->client);
	if (ret)
		return ret;
	gpc_set_disconnect_cb(r->client, on_disconnect, r);
	if ((ret = check_names(r)))
		return ret;
	char **counters = NULL;
	size_t n_counters = 0;
	if (r->counters && gpuperf_split_list(r->counters, &counters,
					      &n_counters) < 0)
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "bad counter list "
				    "'%s': give symbols separated by commas, "
				    "or 'all'", r->counters);
	struct gpc_recording_options o = {
		.device = r->device,
		.metric_set = r->metric_set,
		.sampling_period_ns = r->period_ns,
		.max_bytes = r->max_bytes,
		.format = r->perfetto ? GPC_RECORDING_PERFETTO :
			  GPC_RECORDING_I915_PERF,
		.window_ns = r->interval_ns,
		.counters = (const char *const *)counters,
		.n_counters = n_counters,
		.usage_interval_ns = r->usage_interval_ns,
		.no_usage = r->no_usage,
	};
	struct gpc_recording_cbs cbs = {
		.started = on_started,
		.data = on_data,
		.stopped = on_stopped,
	};
	ret = gpc_record(r->client, &o, &cbs, r, &r->rec);
	free(counters);
	if (ret)
		return gpuperf_fail(cmd, gpuperf_exit_for(ret), "cannot ask for "
				    "a recording: %s", gpc_strerror(ret));
	uv_signal_init(&r->loop, &r->sigint);
	uv_signal_init(&r->loop, &r->sigterm);
	uv_timer_init(&r->loop, &r->duration);
	uv_timer_init(&r->loop, &r->progress);
	r->sigint.data = r;
	r->sigterm.data = r;
	r->duration.data = r;
	r->progress.data = r;
	r->handles_ready = true;
	uv_signal_start(&r->sigint, on_signal, SIGINT);
	uv_signal_start(&r->sigterm, on_signal, SIGTERM);
	uv_run(&r->loop, UV_RUN_DEFAULT);
	return r->exit_code;
}

int gpuperf_cmd_record(int argc, char **argv)
{
	struct record r = { .fd = -1 };
	bool show_help = false;

	int ret = parse(argc, argv, &r, &show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s%s", usage, help,
			       gpuperf_connection_help);
		return ret;
	}
	if (uv_loop_init(&r.loop))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot start an "
				    "event loop");
	r.tty = isatty(STDERR_FILENO);
	ret = record_run(&r);
	/* What an early return left open. */
	finish(&r, ret);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);
	if (r.fd >= 0 && close(r.fd) != 0 && !ret)
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write %s: "
				   "%s", r.path, strerror(errno));
	return ret;
}
