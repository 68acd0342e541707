/*
 * gpuperf snapshot: what a device's flight recorder holds of the recent
 * past, fetched from the daemon as IGT i915-perf recordings.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/snapshot_files.h"

static const char *const cmd = "snapshot";

static const char usage[] =
	"gpuperf snapshot [-d DEVICE] [--last D] -o FILE [CONNECTION OPTIONS]";

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
	"  -o, --output FILE     where the newest recording goes\n\n";

struct snapshot {
	struct gpuperf_connection conn;
	const char *device;
	const char *path;
	uint64_t last_ns;
	uv_loop_t loop;
	struct gpc_client *client;
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
		else if (gpuperf_parse_duration(value, &s->last_ns) < 0)
			return gpuperf_usage_error(cmd, usage, "--last takes a "
						   "duration such as 10s or "
						   "500ms, not '%s'", value);
	}
	if (!s->path)
		return gpuperf_usage_error(cmd, usage, "name the file to write "
					   "with -o");
	return 0;
}

static void on_done(void *user, int exit_code)
{
	struct snapshot *s = user;
	s->exit_code = exit_code;
	gpc_close(s->client, NULL, NULL);
	s->client = NULL;
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

	int ret = parse(argc, argv, &s, &show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s%s", usage, help,
			       gpuperf_connection_help);
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
	if (!ret)
		ret = gpuperf_snapshot_fetch(cmd, s.client, &o, s.path, on_done, &s);
	if (!ret) {
		uv_run(&s.loop, UV_RUN_DEFAULT);
		ret = s.exit_code;
	}
	if (s.client)
		gpc_close(s.client, NULL, NULL);
	uv_run(&s.loop, UV_RUN_DEFAULT);
	uv_loop_close(&s.loop);
	return ret;
}
