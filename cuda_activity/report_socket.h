/*
 * Reports on their way to gpuperfd: one ProcessActivity packet each, on
 * a SOCK_SEQPACKET connection to the daemon's PATH.activity that the
 * process keeps (the daemon knows the process by that connection).
 */
#ifndef GCA_REPORT_SOCKET_H
#define GCA_REPORT_SOCKET_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_activity/activity.h"

/* Where reports go unless GPUPERF_ACTIVITY_SOCKET says: beside the
 * socket the packaged service listens on (--unix). */
#define GCA_DEFAULT_SOCKET "/run/gpuperfd/gpuperfd.sock.activity"

/* A report's packet in buf: its length, or 0 when it does not fit. */
size_t gca_report_pack(const struct gca_report *r, uint8_t *buf, size_t size);

struct gca_report_socket {
	char path[108];
	int fd;                         /* -1: not connected */
	uint64_t retry_at_ns;           /* CLOCK_MONOTONIC */
	uint64_t unsent;                /* reports that could not go */
	int last_errno;                 /* what was said last, 0: nothing */
};

void gca_report_socket_init(struct gca_report_socket *s, const char *path);

/* Sends r, connecting first (again at most every 5 s after a failure):
 * 0, or -errno (the report is lost and counted in unsent). */
int gca_report_socket_send(struct gca_report_socket *s,
			   const struct gca_report *r, uint64_t now_ns);

void gca_report_socket_close(struct gca_report_socket *s);

#endif
