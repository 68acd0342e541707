/*
 * The processes holding DRM files, from /proc (see proc_scan.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

/* What a directory listing is read into: one getdents64 call takes a
 * process's fd directory whole, most of the time. */
#define LISTING_MAX 32768

/* The kernel's struct linux_dirent64 (include/linux/dirent.h). */
struct dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Calls each(user, name) for every entry of the directory open at dir_fd
 * but "." and "..", read with getdents64 into listing: no DIR, so no
 * fstat, fcntl or allocation per directory (fdopendir's) in a walk that
 * opens one for every process. 0, or -errno. */
static int list_dir(int dir_fd, char *listing,
		    void (*each)(void *user, const char *name), void *user)
{
	for (;;) {
		long n = syscall(SYS_getdents64, dir_fd, listing, LISTING_MAX);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(listing + off);
			off += e->d_reclen;
			if (e->d_name[0] != '.')
				each(user, e->d_name);
		}
	}
}

/* What a walk hands down to each process and each of its fds. */
struct walk {
	int proc_fd;
	const char *driver, *pdev;
	gpd_drm_file_cb cb;
	void *user;
	struct gpd_proc_scan_stats *stats;
	char *text;                     /* FDINFO_MAX */
	char *listing;                  /* two of LISTING_MAX: /proc's, a process's */
	/* The process being looked at. */
	int fd_dir;
	const char *pid_name;
	int32_t pid;
};

/* One entry of /proc/PID/fd: its fdinfo when it links to a DRM node. */
static void scan_fd(void *user, const char *name)
{
	struct walk *w = user;
	char target[64], path[320];
	ssize_t n = readlinkat(w->fd_dir, name, target, sizeof(target) - 1);
	if (n < 9 || strncmp(target, "/dev/dri/", 9))
		return;
	snprintf(path, sizeof(path), "%s/fdinfo/%s", w->pid_name, name);
	int info_fd = openat(w->proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (info_fd < 0)
		return;
	ssize_t len = read(info_fd, w->text, FDINFO_MAX - 1);
	close(info_fd);
	if (len <= 0)
		return;
	struct gpd_fdinfo info;
	gpd_fdinfo_parse(w->text, (size_t)len, &info);
	if (strcmp(info.driver, w->driver) || (*w->pdev && *info.pdev &&
					       strcmp(info.pdev, w->pdev)))
		return;
	w->stats->drm_files++;
	w->cb(w->user, w->pid, &info);
}

/* One entry of /proc: a process's fd directory when it is one. */
static void scan_process(void *user, const char *pid_name)
{
	struct walk *w = user;
	if (!is_number(pid_name))
		return;
	char path[320];
	snprintf(path, sizeof(path), "%s/fd", pid_name);
	w->fd_dir = openat(w->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w->stats->processes++;
	if (w->fd_dir < 0) {
		if (errno == EACCES || errno == EPERM)
			w->stats->unreadable++;
		return;
	}
	w->pid_name = pid_name;
	w->pid = (int32_t)strtol(pid_name, NULL, 10);
	/* Into the second half: /proc's listing is still being read. */
	list_dir(w->fd_dir, w->listing + LISTING_MAX, scan_fd, w);
	close(w->fd_dir);
}

int gpd_proc_scan_drm(const char *proc_root, const char *driver,
		      const char *pdev, gpd_drm_file_cb cb, void *user,
		      struct gpd_proc_scan_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	int proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		return -errno;
	struct walk w = {
		.proc_fd = proc_fd, .driver = driver, .pdev = pdev, .cb = cb,
		.user = user, .stats = stats, .text = malloc(FDINFO_MAX),
		.listing = malloc(2 * LISTING_MAX),
	};
	int ret = w.text && w.listing ? list_dir(proc_fd, w.listing,
						 scan_process, &w) : -ENOMEM;
	free(w.text);
	free(w.listing);
	close(proc_fd);
	return ret;
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
