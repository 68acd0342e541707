/*
 * Reading the kernel's one-number files. Plain open/read rather than stdio:
 * these are single short reads, and it keeps every access to the kernel's
 * files on the same few calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/drm/kernel_files.h"

static int read_number(const char *path, uint64_t *out)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int saved = errno;
	close(fd);
	if (n < 0)
		return -saved;
	buf[n] = '\0';
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EBADMSG;
	*out = v;
	return 0;
}

int gpd_kernel_file_read_u64(const char *dir, const char *name, uint64_t *out)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_number(path, out);
}

int gpd_sysctl_read_u64(const char *name, uint64_t *out)
{
	char path[256] = "/proc/sys/";
	size_t len = strlen(path);
	if (len + strlen(name) >= sizeof(path))
		return -ENAMETOOLONG;
	for (const char *c = name; *c; c++)
		path[len++] = *c == '.' ? '/' : *c;
	path[len] = '\0';
	return read_number(path, out);
}
