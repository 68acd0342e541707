/*
 * gpuperf snapshot: what a device's flight recorder holds of the recent
 * past, fetched from the daemon as IGT i915-perf recordings.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/snapshot_files.h"

static const char *const cmd = "snapshot";

static const char usage[] =
	"gpuperf snapshot [-d DEVICE] [--last D] [--format i915perf|perfetto]\n"
	"       [--metrics-dir DIR...] [-i WINDOW] -o FILE [CONNECTION OPTIONS]";

static const char help[] =
	"Fetches what a device's flight recorder (gpuperfd --flight-recorder)\n"
	"holds of the recent past, as IGT i915-perf recordings that\n"
	"'gpuperf replay' and i915-perf-reader read. A recording holds one\n"
	"metric set and period: when the span covers several, FILE gets the\n"
	"newest and FILE-1, FILE-2, ... (before the extension) the older ones,\n"
	"oldest first. What each holds goes to standard error, and whether the\n"
	"recorder had already overwritten the start of it.\n\n"
	"  -d, --device DEVICE   the device (default: the first)\n"
	"      --last D          the last D (e.g. 10s, 500ms; default: all the\n"
	"                        recorder holds)\n"
	"  -o, --output FILE     where the newest recording goes\n"
	"      --format F        i915perf (the default), or perfetto: each\n"
	"                        recording as a Perfetto trace of every\n"
	"                        counter per WINDOW, as 'gpuperf replay\n"
	"                        --format perfetto' makes it, for\n"
	"                        ui.perfetto.dev (the recordings are fetched\n"
	"                        beside FILE, converted, then removed)\n"
	"      --metrics-dir DIR perfetto: the metric definitions (oa-*.xml) of\n"
	"                        the device, as gpuperf replay takes them\n"
	"                        (repeatable; the built-in sim needs none)\n"
	"  -i, --interval WINDOW perfetto: the counters' window (default 10ms)\n\n";

struct snapshot {
	struct gpuperf_connection conn;
	const char *device;
	const char *path;
	uint64_t last_ns;
	bool perfetto;
	const char *interval;           /* as given, for gpuperf replay */
	const char **metrics_dirs;
	size_t n_metrics_dirs;
	char *fetched;                  /* perfetto: the recordings' path */
	uv_loop_t loop;
	struct gpc_client *client;
	struct gpuperf_snapshot_files *fetch;   /* while it runs */
	uv_signal_t sigint, sigterm;
	bool signals_open;
	int exit_code;
};

static int parse(int argc, char **argv, struct snapshot *s, bool *show_help)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m = gpuperf_connection_option(cmd, usage, argc, argv, &i,
						  &s->conn);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m)
			continue;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			*show_help = true;
			return 0;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--output", "-o",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--device", "-d",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--last", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--format", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--metrics-dir", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--interval", "-i",
					   &value))) {
			if (m < 0 || !*value)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "a value", arg);
		} else {
			return gpuperf_usage_error(cmd, usage, "unknown "
						   "argument '%s'", arg);
		}
		if (!strncmp(arg, "--output", 8) || !strcmp(arg, "-o"))
			s->path = value;
		else if (!strncmp(arg, "--device", 8) || !strcmp(arg, "-d"))
			s->device = value;
		else if (!strncmp(arg, "--format", 8) &&
			 strcmp(value, "i915perf") && strcmp(value, "perfetto"))
			return gpuperf_usage_error(cmd, usage, "--format takes "
						   "i915perf or perfetto, not "
						   "'%s'", value);
		else if (!strncmp(arg, "--format", 8))
			s->perfetto = !strcmp(value, "perfetto");
		else if (!strncmp(arg, "--metrics-dir", 13))
			s->metrics_dirs[s->n_metrics_dirs++] = value;
		else if (!strncmp(arg, "--interval", 10) || !strcmp(arg, "-i")) {
			uint64_t ns;
			if (gpuperf_parse_duration(value, &ns) < 0)
				return gpuperf_usage_error(cmd, usage, "--interval "
							   "takes a duration such "
							   "as 10ms, not '%s'",
							   value);
			s->interval = value;
		} else if (gpuperf_parse_duration(value, &s->last_ns) < 0)
			return gpuperf_usage_error(cmd, usage, "--last takes a "
						   "duration such as 10s or "
						   "500ms, not '%s'", value);
	}
	if (!s->path)
		return gpuperf_usage_error(cmd, usage, "name the file to write "
					   "with -o");
	if (!s->perfetto && (s->interval || s->n_metrics_dirs))
		return gpuperf_usage_error(cmd, usage, "--interval and "
					   "--metrics-dir go with --format "
					   "perfetto");
	return 0;
}

/* Each recording fetched into a trace at the name it would have had, as
 * gpuperf replay makes one; the recordings go either way. */
static int convert(struct snapshot *s, size_t n)
{
	int ret = 0;
	for (size_t k = 0; k < n; k++) {
		char *from = gpuperf_snapshot_path(s->fetched, k, n);
		char *to = gpuperf_snapshot_path(s->path, k, n);
		const char *argv[8 + 2 * 64];
		int argc = 0;
		argv[argc++] = "replay";
		argv[argc++] = from;
		argv[argc++] = "--format";
		argv[argc++] = "perfetto";
		argv[argc++] = "-o";
		argv[argc++] = to;
		if (s->interval) {
			argv[argc++] = "--interval";
			argv[argc++] = s->interval;
		}
		for (size_t i = 0; i < s->n_metrics_dirs && i < 64; i++) {
			argv[argc++] = "--metrics-dir";
			argv[argc++] = s->metrics_dirs[i];
		}
		argv[argc] = NULL;
		int code = from && to ?
			   gpuperf_cmd_replay(argc, (char **)argv) :
			   gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
		if (!code)
			fprintf(stderr, "gpuperf %s: %s: the Perfetto trace of %s\n",
				cmd, to, from);
		if (code && !ret)
			ret = code;
		if (from)
			unlink(from);
		free(from);
		free(to);
	}
	return ret;
}

static void close_signals(struct snapshot *s)
{
	if (!s->signals_open)
		return;
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	s->signals_open = false;
}

static void on_done(void *user, int exit_code, size_t n_files)
{
	struct snapshot *s = user;
	s->fetch = NULL;
	close_signals(s);
	if (!exit_code && s->perfetto)
		exit_code = convert(s, n_files);
	s->exit_code = exit_code;
	gpc_close(s->client, NULL, NULL);
	s->client = NULL;
}

/* Ctrl-C: no half a snapshot is left behind. */
static void on_signal(uv_signal_t *h, int signum)
{
	struct snapshot *s = h->data;
	if (s->fetch)
		gpuperf_snapshot_cancel(s->fetch);
}

/* A device without a flight recorder is said before asking. */
static int check_device(struct snapshot *s)
{
	const struct gpc_device *d = gpuperf_snapshot_device(cmd, s->client,
							     s->device);
	if (!d)
		return GPUPERF_EXIT_REFUSED;
	s->device = d->name;
	return 0;
}

int gpuperf_cmd_snapshot(int argc, char **argv)
{
	struct snapshot s = { 0 };
	bool show_help = false;

	s.metrics_dirs = calloc((size_t)argc, sizeof(*s.metrics_dirs));
	if (!s.metrics_dirs)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	int ret = parse(argc, argv, &s, &show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s%s", usage, help,
			       gpuperf_connection_help);
		free(s.metrics_dirs);
		return ret;
	}
	if (uv_loop_init(&s.loop))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot start an "
				    "event loop");
	ret = gpuperf_connect(cmd, &s.conn, &s.loop, &s.client);
	if (!ret)
		ret = check_device(&s);
	struct gpc_snapshot_options o = {
		.device = s.device,
		.last_ns = s.last_ns,
	};
	/* A trace is made of the recordings, fetched beside it. */
	if (!ret && s.perfetto && asprintf(&s.fetched, "%s.part.i915perf",
					   s.path) < 0)
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	if (!ret)
		ret = gpuperf_snapshot_fetch(cmd, s.client, &o, s.perfetto ?
					     s.fetched : s.path, on_done, &s,
					     &s.fetch);
	if (!ret) {
		uv_signal_init(&s.loop, &s.sigint);
		uv_signal_init(&s.loop, &s.sigterm);
		s.sigint.data = s.sigterm.data = &s;
		uv_signal_start(&s.sigint, on_signal, SIGINT);
		uv_signal_start(&s.sigterm, on_signal, SIGTERM);
		s.signals_open = true;
		uv_run(&s.loop, UV_RUN_DEFAULT);
		ret = s.exit_code;
	}
	close_signals(&s);
	if (s.client)
		gpc_close(s.client, NULL, NULL);
	uv_run(&s.loop, UV_RUN_DEFAULT);
	uv_loop_close(&s.loop);
	free(s.metrics_dirs);
	free(s.fetched);
	return ret;
}
