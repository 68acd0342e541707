/*
 * gpuperf: the command-line client. Dispatches to one subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "client/cli_connect.h"
#include "client/commands.h"

struct gpuperf_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct gpuperf_command commands[] = {
	{ "devices", "list the daemon's devices", gpuperf_cmd_devices },
	{ "sets", "list the metric sets of the daemon's devices",
	  gpuperf_cmd_sets },
	{ "counters", "list the counters of a metric set", gpuperf_cmd_counters },
	{ "stream", "stream counters as a table, CSV or NDJSON",
	  gpuperf_cmd_stream },
	{ "record", "record the raw stream to an i915-perf file",
	  gpuperf_cmd_record },
	{ "top", "engines, clocks, power and processes of the GPUs, live",
	  gpuperf_cmd_top },
	{ "snapshot", "fetch the recent past a device's flight recorder keeps",
	  gpuperf_cmd_snapshot },
	{ "trigger", "save snapshots when a condition over counters holds",
	  gpuperf_cmd_trigger },
	{ "run", "measure a command from its start to its exit",
	  gpuperf_cmd_run },
	{ "compare", "compare two results counter by counter (offline)",
	  gpuperf_cmd_compare },
	{ "metrics", "check, list and show metric definitions (offline)",
	  gpuperf_cmd_metrics },
	{ "replay", "compute the counters of an i915-perf recording (offline)",
	  gpuperf_cmd_replay },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperf [CONNECTION OPTIONS] COMMAND [OPTIONS...]\n"
		"       gpuperf COMMAND --help\n\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\nexit codes:\n"
		"  0  success\n"
		"  1  the command ran and found a problem: metric errors, a\n"
		"     regression (compare), no window measured or no report\n"
		"     of the --ctx context (stream, run; the reason is printed)\n"
		"  2  bad arguments\n"
		"  3  a file cannot be read or written: an input that is\n"
		"     unreadable or not what it should be, a --metrics-dir\n"
		"     that cannot be read, an -o that cannot be written\n"
		"  4  the daemon cannot be reached, or the connection ended\n"
		"  5  the daemon refused: bad token, viewer role, unknown\n"
		"     device, metric set or counter, device busy\n"
		"  run exits with its command's status (128+N when a signal N\n"
		"  ended it); compare exits 1 when a counter got worse past the\n"
		"  threshold\n\n%s", gpuperf_connection_help);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GPUPERF_EXIT_USAGE;
	}
	gpuperf_move_global_options(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return GPUPERF_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gpuperf %s\n", GPUPERF_VERSION);
		return GPUPERF_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "gpuperf: unknown command '%s'; see 'gpuperf --help'\n",
		argv[1]);
	return GPUPERF_EXIT_USAGE;
}
