/*
 * The service unit's system-call filter, for a daemon started outside
 * systemd: the same calls allowed (SystemCallFilter=@system-service
 * perf_event_open ~@privileged @resources capset), every other one failing with
 * EPERM (SystemCallErrorNumber=EPERM), other architectures' calls refused
 * (SystemCallArchitectures=native). Installed with libseccomp once the
 * devices and listeners are open and the privileges dropped.
 */
#ifndef GPD_SYSCALL_FILTER_H
#define GPD_SYSCALL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/error.h"

/* The calls allowed, by name, as systemd-analyze syscall-filter lists
 * them (names of other architectures included). */
extern const char *const gpd_syscall_filter_allowed[];
extern const size_t gpd_syscall_filter_n_allowed;

/* Whether systemd started the daemon (INVOCATION_ID) with a filter in
 * place (Seccomp: 2 in /proc/self/status): the service unit's own. */
bool gpd_syscall_filter_from_systemd(void);

/* Installs the filter on every thread of the process; *n_allowed says how
 * many of the names this architecture has. 0, or a negative errno with
 * err saying what failed. */
int gpd_syscall_filter_install(size_t *n_allowed, struct gpd_error *err);

#endif
