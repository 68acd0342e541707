/*
 * The processes holding a GPU's DRM files, found the way the kernel's
 * drm-usage-stats document intends: every /proc/PID/fd/N that links to a
 * /dev/dri node, then its /proc/PID/fdinfo/N (drm_fdinfo.h).
 *
 * Another user's /proc/PID/fd and fdinfo open only with ptrace-read
 * access to that process (proc_fd_permission() and
 * proc_fdinfo_access_allowed() in fs/proc/fd.c call ptrace_may_access()
 * with PTRACE_MODE_READ_FSCREDS): that is CAP_SYS_PTRACE. Such processes
 * are counted as unreadable, so a list can say it is partial.
 */
#ifndef GPD_HOST_PROC_SCAN_H
#define GPD_HOST_PROC_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/host/drm_fdinfo.h"

struct gpd_proc_scan_stats {
	unsigned processes;             /* looked at */
	unsigned unreadable;            /* their fds could not be listed */
	unsigned drm_files;             /* of the driver and device */
};

/* Called for each DRM file of driver (and of device pdev, "" for any). */
typedef void (*gpd_drm_file_cb)(void *user, int32_t pid,
				const struct gpd_fdinfo *info);

/* Looks through proc_root. 0, or -errno when proc_root cannot be read. */
int gpd_proc_scan_drm(const char *proc_root, const char *driver,
		      const char *pdev, gpd_drm_file_cb cb, void *user,
		      struct gpd_proc_scan_stats *stats);

/* /proc/PID/stat's "PID (COMM) STATE PPID ...": the command (cut to
 * size - 1) and the parent. -EINVAL for text of another shape. Pure. */
int gpd_proc_parse_stat(const char *text, char *command, size_t size,
			int32_t *ppid);

/* Reads and parses proc_root/PID/stat; -errno (-ENOENT: it exited). */
int gpd_proc_read_stat(const char *proc_root, int32_t pid, char *command,
		       size_t size, int32_t *ppid);

#endif
