/*
 * gpuperf stream: a device's counters, window after window, until Ctrl-C,
 * --duration, or the daemon ends the stream.
 */
#include <stdio.h>

#include "client/cli_args.h"
#include "client/commands.h"
#include "client/streaming.h"

#define DEFAULT_INTERVAL_NS 1000000000ull

static const char usage[] =
	"gpuperf stream [-m SET] [-c C1,C2|all] [-p PERIOD] [-i INTERVAL]\n"
	"       [--ctx ID | --drm-fd FD --context HANDLE] [--per-context]\n"
	"       [--raw] [--format table|csv|ndjson] [--units] [-o FILE]\n"
	"       [--format perfetto [--usage-interval D|--no-usage]]\n"
	"       [--duration D] [-d DEVICE]\n"
	"       [CONNECTION OPTIONS]";

static const char help[] =
	"Streams a device's counters: one row per interval (default 1s)\n"
	"until Ctrl-C, --duration, or the end of the daemon's stream.\n\n";

int gpuperf_cmd_stream(int argc, char **argv)
{
	struct gpuperf_stream_options o = { .format = GPUPERF_FORMAT_TABLE };
	struct gpuperf_streaming s;

	for (int i = 1; i < argc; i++) {
		if (gpuperf_arg_flag(argv[i], "--help", "-h")) {
			printf("usage: %s\n\n%s%s\n%s", usage, help,
			       gpuperf_stream_options_help,
			       gpuperf_connection_help);
			return GPUPERF_EXIT_OK;
		}
		int m = gpuperf_stream_option("stream", usage, argc, argv, &i, &o);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (!m)
			return gpuperf_usage_error("stream", usage, "unknown "
						   "argument '%s'", argv[i]);
	}
	if (!o.interval_ns)
		o.interval_ns = DEFAULT_INTERVAL_NS;
	int ret = gpuperf_streaming_start(&s, "stream", &o, o.interval_ns,
					  false, true, NULL, NULL);
	if (!ret)
		ret = gpuperf_streaming_run(&s);
	gpuperf_streaming_fini(&s);
	return ret ? ret : s.exit_code;
}
