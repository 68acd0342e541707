/*
 * Small text files of sysfs and procfs, read whole (see sysfs_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/host/sysfs_file.h"

/* Up to size bytes of the file at path; *len says how many. */
static int read_bytes(void *buf, size_t size, size_t *out_len, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len < size) {
		ssize_t n = read(fd, (char *)buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*out_len = len;
	return 0;
}

static int read_path(char *buf, size_t size, const char *path)
{
	size_t len;
	int ret = read_bytes(buf, size - 1, &len, path);
	buf[ret ? 0 : len] = '\0';
	return ret;
}

static int read_formatted(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static int read_formatted(char *buf, size_t size, const char *fmt, va_list ap)
{
	char path[1024];
	int n = vsnprintf(path, sizeof(path), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_path(buf, size, path);
}

int gpd_sysfs_read(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = read_formatted(buf, size, fmt, ap);
	va_end(ap);
	return ret;
}

int gpd_sysfs_read_binary(void *buf, size_t size, size_t *len,
			  const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_bytes(buf, size, len, path);
}

int gpd_sysfs_read_u64(uint64_t *out, const char *fmt, ...)
{
	char text[64];
	va_list ap;
	va_start(ap, fmt);
	int ret = read_formatted(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text || text[0] == '-')
		return -EBADMSG;
	*out = v;
	return 0;
}
