/*
 * A snapshot of a device's flight recorder, fetched and written to files:
 * one IGT recording per segment (stream configuration) of the span. The
 * newest goes to the path given; an older one, the k-th of n from the
 * oldest, to the path with "-k" before its extension (slow.i915perf,
 * slow-1.i915perf, ...). `gpuperf snapshot` and `gpuperf trigger` share
 * it.
 */
#ifndef GPUPERF_SNAPSHOT_FILES_H
#define GPUPERF_SNAPSHOT_FILES_H

#include <stddef.h>

#include "client/include/gpuperf.h"

struct gpuperf_snapshot_files;

/* The snapshot is written (exit_code 0) into n_files files, named by
 * gpuperf_snapshot_path(), or failed, said on stderr (exit_code the
 * command's). The fetch is freed after this returns. */
typedef void (*gpuperf_snapshot_done_cb)(void *user, int exit_code,
					 size_t n_files);

/* Asks for the snapshot; progress and the files written go to stderr,
 * each line starting "gpuperf CMD: ". 0, or the exit status after saying
 * why not. */
int gpuperf_snapshot_fetch(const char *cmd, struct gpc_client *client,
			   const struct gpc_snapshot_options *options,
			   const char *path, gpuperf_snapshot_done_cb done,
			   void *user, struct gpuperf_snapshot_files **fetch);

/* Ends a fetch before the daemon has sent it all (Ctrl-C): says so, removes
 * what was written, and calls done with GPUPERF_EXIT_FAILURE. The caller
 * then closes the connection, before the loop runs again. */
void gpuperf_snapshot_cancel(struct gpuperf_snapshot_files *fetch);

/* The device named (NULL: the first) when it keeps a flight recorder and
 * this connection may take snapshots of it; else NULL after saying why
 * and what to do (exit with GPUPERF_EXIT_REFUSED). */
const struct gpc_device *gpuperf_snapshot_device(const char *cmd,
						 struct gpc_client *client,
						 const char *name);

/* The file of segment k (0 = the oldest) of n, for path; free() it. */
char *gpuperf_snapshot_path(const char *path, size_t k, size_t n);

#endif
