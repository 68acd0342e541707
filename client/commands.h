/*
 * The gpuperf subcommands. Each takes the arguments after its name
 * (argv[0] is the command name) and returns the process exit code.
 */
#ifndef GPUPERF_COMMANDS_H
#define GPUPERF_COMMANDS_H

/* Exit codes shared by every command (documented in `gpuperf --help`). */
enum gpuperf_exit {
	GPUPERF_EXIT_OK = 0,
	GPUPERF_EXIT_FAILURE = 1,       /* the command ran and found a problem */
	GPUPERF_EXIT_USAGE = 2,         /* bad arguments */
	GPUPERF_EXIT_FILE = 3,          /* a file or directory cannot be read
					 * or written, or is not what it
					 * should be */
	GPUPERF_EXIT_CONNECT = 4,       /* the daemon cannot be reached, or
					 * the connection to it ended */
	GPUPERF_EXIT_REFUSED = 5,       /* the daemon refused: token, role,
					 * unknown device, set or counter */
};

int gpuperf_cmd_metrics(int argc, char **argv);
int gpuperf_cmd_replay(int argc, char **argv);
int gpuperf_cmd_devices(int argc, char **argv);
int gpuperf_cmd_sets(int argc, char **argv);
int gpuperf_cmd_counters(int argc, char **argv);
int gpuperf_cmd_stream(int argc, char **argv);
int gpuperf_cmd_record(int argc, char **argv);
int gpuperf_cmd_snapshot(int argc, char **argv);
int gpuperf_cmd_trigger(int argc, char **argv);
int gpuperf_cmd_run(int argc, char **argv);
int gpuperf_cmd_compare(int argc, char **argv);
int gpuperf_cmd_top(int argc, char **argv);

#endif
