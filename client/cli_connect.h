/*
 * How the network commands reach the daemon: the global options (--host,
 * --port, --unix, --token-file, --tls, --tls-ca), connecting with them,
 * and what a failure tells the user and the exit status.
 */
#ifndef GPUPERF_CLI_CONNECT_H
#define GPUPERF_CLI_CONNECT_H

#include <stdbool.h>

#include "client/include/gpuperf.h"

struct gpuperf_connection {
	const char *host;
	unsigned port;
	const char *unix_path;
	const char *token_file;
	bool tls;
	const char *tls_ca;
	bool viewer;                    /* ask for the viewer role only */
	char token[512];                /* read from token_file */
};

/* The global options' help, for each command's --help. */
extern const char gpuperf_connection_help[];

/*
 * Takes argv[*i] if it is a global option (advancing *i past its value).
 * 1 taken, 0 not a global option, -1 a bad one (the usage error is
 * printed: exit with GPUPERF_EXIT_USAGE).
 */
int gpuperf_connection_option(const char *cmd, const char *usage, int argc,
			      char **argv, int *i,
			      struct gpuperf_connection *conn);

/*
 * Connects (on loop, or the client's own when NULL) and waits for the
 * daemon's Hello. Returns 0, or the exit status after printing why not.
 */
int gpuperf_connect(const char *cmd, struct gpuperf_connection *conn,
		    uv_loop_t *loop, struct gpc_client **out);

/* The exit status for a libgpuperf error code. */
int gpuperf_exit_for(int code);

/* Prints "gpuperf CMD: WHAT: message" with a hint where one helps;
 * returns gpuperf_exit_for(err->code). */
int gpuperf_report(const char *cmd, const char *what,
		   const struct gpc_error *err);

/* Says on stderr, when the daemon samples device every granted_ns where
 * -p asked for asked_ns (0: nothing asked), why: the device's longest or
 * nearest period, or what it runs for others. */
void gpuperf_note_period(const char *cmd, const struct gpc_client *client,
			 const char *device, uint64_t asked_ns,
			 uint64_t granted_ns);

/* Moves global options given before the command name after it, so that
 * `gpuperf --host H devices` works like `gpuperf devices --host H`. */
void gpuperf_move_global_options(int argc, char **argv);

#endif
