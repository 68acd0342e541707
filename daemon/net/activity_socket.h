/*
 * The activity socket: where processes report the kernel time they
 * measured inside themselves (libgpuperf-cuda-activity.so).
 *
 * Beside --unix PATH the daemon listens on PATH.activity, a
 * SOCK_SEQPACKET socket made as the Unix socket is (the daemon's umask,
 * so whoever may connect to PATH may report). A process connects once
 * and sends one ProcessActivity packet per report; nothing is answered.
 * The reports are the connection's peer's (SO_PEERCRED, taken when it
 * connected): the message names no process, so a process can only
 * misstate its own time. Each report is checked whole before the store
 * changes (process_activity.h); reports faster than the rate allowed,
 * malformed or refused ones change nothing and are counted.
 *
 * Budgets: GPD_PROCESS_ACTIVITY_MAX_PROCESSES processes with open
 * connections and as many connections in all, GPD_ACTIVITY_MAX_PER_USER
 * connections a user, a connection's reports at 10 a second (bursts of
 * 20).
 */
#ifndef GPD_NET_ACTIVITY_SOCKET_H
#define GPD_NET_ACTIVITY_SOCKET_H

#include <stdint.h>

#include <uv.h>

#include "daemon/error.h"
#include "daemon/process_activity.h"

#define GPD_ACTIVITY_MAX_PER_USER 64
#define GPD_ACTIVITY_REPORTS_PER_SECOND 10

struct gpd_activity_socket;

/* What the socket took and refused since it opened. */
struct gpd_activity_stats {
	uint64_t reports;               /* added to the store */
	uint64_t refused;               /* malformed or failing the checks */
	uint64_t rate_limited;          /* over the connection's rate */
	uint64_t connections_refused;   /* over a budget, or no peer pid */
};

/* Listens on path (an abstract name when it starts with '@'), replacing
 * a socket file a daemon that died left there (gpd_socket_path_clear);
 * reports go to store, which must outlive the socket. */
int gpd_activity_socket_open(uv_loop_t *loop, const char *path,
			     struct gpd_process_activity *store,
			     struct gpd_activity_socket **out,
			     struct gpd_error *err);

void gpd_activity_socket_stats(const struct gpd_activity_socket *as,
			       struct gpd_activity_stats *out);

/* Stops listening, closes the connections (their processes' entries
 * leave the store), removes the socket file; the memory goes once the
 * loop has closed the handles. */
void gpd_activity_socket_close(struct gpd_activity_socket *as);

#endif
