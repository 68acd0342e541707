/*
 * `gpuperfd --user NAME`: started as root, the daemon opens its devices
 * and listeners, then becomes NAME keeping only CAP_PERFMON, the one
 * capability the kernel's perf interfaces ask for (oa-reference.md §1.4).
 * These are the credentials the service unit gives it with User= and
 * AmbientCapabilities=CAP_PERFMON, less the ambient and inheritable sets,
 * which the daemon empties at start.
 */
#ifndef GPD_PRIVILEGES_H
#define GPD_PRIVILEGES_H

#include <stdint.h>

#include "daemon/error.h"

/* CAP_PERFMON's bit in the capability sets of /proc/PID/status. */
#define GPD_CAP_PERFMON_MASK (UINT64_C(1) << 38)

/*
 * Becomes user (its uid, primary group and supplementary groups) with
 * CAP_PERFMON alone in the permitted and effective sets and the bounding
 * set, nothing inheritable or ambient, and no_new_privs; checks the result
 * in /proc/self/status. A kernel older than 5.8 has no CAP_PERFMON: the
 * daemon then keeps no capability and says what that costs.
 *
 * 0; -EPERM when not root; -ENOENT for an unknown user; -EIO when the
 * credentials read back are not the ones asked for; another -errno of a
 * failed call. err says which.
 */
int gpd_privileges_drop(const char *user, struct gpd_error *err);

/* Empties the inheritable and ambient sets, however the daemon was
 * started: the service unit hands CAP_PERFMON over as an ambient
 * capability, which the daemon, executing nothing, has no use for. 0 or
 * a negative errno, err saying which. */
int gpd_privileges_forget_inheritable(struct gpd_error *err);

/* The hexadecimal capability set `field` ("CapEff") of /proc/self/status.
 * 0 or a negative errno (-ENOENT when the line is missing). */
int gpd_privileges_read_caps(const char *field, uint64_t *out);

#endif
