/*
 * The fake /proc's permissions: another user's fd directory and fdinfo
 * files open only with ptrace-read access to the process
 * (proc_fd_permission() and proc_fdinfo_access_allowed(), fs/proc/fd.c,
 * Linux 6.8: ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS)), which a
 * process of another user grants only to CAP_SYS_PTRACE. A fake process
 * is another user's when its status file says so ("Uid:" line); the
 * control file's cap_sys_ptrace=0 takes the capability away.
 *
 * The daemon reads /proc as plain files under --proc-root; only these
 * two opens are the kernel's to refuse, and permission bits cannot stand
 * in for it when the tests run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

/* The directory of "…/PID/fd" or "…/PID/fdinfo/N" into pid_dir. */
static bool process_dir(const char *path, char *pid_dir, size_t size)
{
	const char *fd = strstr(path, "/fd");
	while (fd && strcmp(fd, "/fd") && strncmp(fd, "/fdinfo/", 8) &&
	       strcmp(fd, "/fd/"))
		fd = strstr(fd + 1, "/fd");
	if (!fd)
		return false;
	const char *start = fd;
	while (start > path && start[-1] != '/')
		start--;
	for (const char *c = start; c < fd; c++)
		if (*c < '0' || *c > '9')
			return false;
	if (start == fd || (size_t)(fd - path) >= size)
		return false;
	memcpy(pid_dir, path, (size_t)(fd - path));
	pid_dir[fd - path] = '\0';
	return true;
}

int fk_proc_check(int dirfd, const char *path)
{
	if (!path || !fk_active() || fk_control_value("cap_sys_ptrace", 1))
		return 0;
	char full[2 * PATH_MAX], pid_dir[2 * PATH_MAX];
	if (path[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		char link[64], dir[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		ssize_t n = readlink(link, dir, sizeof(dir) - 1);
		if (n <= 0)
			return 0;
		dir[n] = '\0';
		snprintf(full, sizeof(full), "%s/%s", dir, path);
	}
	if (!process_dir(full, pid_dir, sizeof(pid_dir)))
		return 0;
	char status[2 * PATH_MAX + 8], line[256];
	snprintf(status, sizeof(status), "%s/status", pid_dir);
	FILE *f = fopen(status, "re");
	if (!f)
		return 0;
	int ret = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned uid;
		if (sscanf(line, "Uid: %u", &uid) == 1 && uid != getuid())
			ret = -EACCES;
	}
	fclose(f);
	if (ret)
		fk_log("proc %s -> EACCES", full);
	return ret;
}
