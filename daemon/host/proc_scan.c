/*
 * The processes holding DRM files, from /proc (see proc_scan.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/host/proc_scan.h"
#include "daemon/host/sysfs_file.h"

/* fdinfo of a DRM file is a few hundred bytes; more is cut. */
#define FDINFO_MAX 4096

static bool is_number(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

static void scan_process(int proc_fd, const char *pid_name, const char *driver,
			 const char *pdev, gpd_drm_file_cb cb, void *user,
			 struct gpd_proc_scan_stats *stats, char *text)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/fd", pid_name);
	int fd_dir = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	stats->processes++;
	if (fd_dir < 0) {
		if (errno == EACCES || errno == EPERM)
			stats->unreadable++;
		return;
	}
	DIR *d = fdopendir(fd_dir);
	if (!d) {
		close(fd_dir);
		return;
	}
	int32_t pid = (int32_t)strtol(pid_name, NULL, 10);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char target[64];
		ssize_t n = readlinkat(fd_dir, e->d_name, target, sizeof(target) - 1);
		if (n < 9 || strncmp(target, "/dev/dri/", 9))
			continue;
		snprintf(path, sizeof(path), "%s/fdinfo/%s", pid_name, e->d_name);
		int info_fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
		if (info_fd < 0)
			continue;
		ssize_t len = read(info_fd, text, FDINFO_MAX - 1);
		close(info_fd);
		if (len <= 0)
			continue;
		struct gpd_fdinfo info;
		gpd_fdinfo_parse(text, (size_t)len, &info);
		if (strcmp(info.driver, driver) || (*pdev && *info.pdev &&
						    strcmp(info.pdev, pdev)))
			continue;
		stats->drm_files++;
		cb(user, pid, &info);
	}
	closedir(d);
}

int gpd_proc_scan_drm(const char *proc_root, const char *driver,
		      const char *pdev, gpd_drm_file_cb cb, void *user,
		      struct gpd_proc_scan_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	int proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		return -errno;
	int list_fd = dup(proc_fd);
	DIR *d = list_fd < 0 ? NULL : fdopendir(list_fd);
	if (!d) {
		int err = -errno;
		if (list_fd >= 0)
			close(list_fd);
		close(proc_fd);
		return err;
	}
	char *text = malloc(FDINFO_MAX);
	if (!text) {
		closedir(d);
		close(proc_fd);
		return -ENOMEM;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (is_number(e->d_name))
			scan_process(proc_fd, e->d_name, driver, pdev, cb, user,
				     stats, text);
	free(text);
	closedir(d);
	close(proc_fd);
	return 0;
}

/* Length of the valid UTF-8 sequence at s (of at most n bytes), 0 if
 * none starts there. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
		     (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!len || len > n || (len == 2 && s[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Any process names itself (prctl PR_SET_NAME) and the kernel escapes
 * nothing in stat: control characters and bytes that are not UTF-8
 * become '?', so the name is safe on a terminal, in protobuf strings
 * and in Prometheus labels. */
static void make_printable(char *command)
{
	unsigned char *s = (unsigned char *)command;
	size_t n = strlen(command);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence(s + i, n - i);
		if (!len || (len == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
			s[i++] = '?';
			continue;
		}
		i += len;
	}
}

int gpd_proc_parse_stat(const char *text, char *command, size_t size,
			int32_t *ppid)
{
	/* The command may hold spaces and parentheses: it ends at the last
	 * ')' (do_task_stat() in fs/proc/array.c writes "%d (%s) %c %d"). */
	const char *open_paren = strchr(text, '(');
	const char *close_paren = strrchr(text, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -EINVAL;
	char state;
	int parent;
	if (sscanf(close_paren + 1, " %c %d", &state, &parent) != 2)
		return -EINVAL;
	size_t len = (size_t)(close_paren - open_paren - 1);
	if (len >= size)
		len = size - 1;
	memcpy(command, open_paren + 1, len);
	command[len] = '\0';
	make_printable(command);
	*ppid = parent;
	return 0;
}

int gpd_proc_read_stat(const char *proc_root, int32_t pid, char *command,
		       size_t size, int32_t *ppid)
{
	char text[512];
	int ret = gpd_sysfs_read(text, sizeof(text), "%s/%d/stat", proc_root, pid);
	return ret ? ret : gpd_proc_parse_stat(text, command, size, ppid);
}
