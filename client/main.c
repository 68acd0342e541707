/*
 * gpuperf: the command-line client. Dispatches to one subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "client/commands.h"

struct gpuperf_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct gpuperf_command commands[] = {
	{ "metrics", "check, list and show metric definitions (offline)",
	  gpuperf_cmd_metrics },
	{ "replay", "compute the counters of an i915-perf recording (offline)",
	  gpuperf_cmd_replay },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperf COMMAND [OPTIONS...]\n"
		"       gpuperf COMMAND --help\n\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\nexit codes:\n"
		"  0  success\n"
		"  1  the command ran and found a problem (e.g. metric errors)\n"
		"  2  bad arguments\n"
		"  3  unreadable or invalid input file\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GPUPERF_EXIT_USAGE;
	}
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
