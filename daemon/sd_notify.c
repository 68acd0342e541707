/*
 * The sd_notify protocol over $NOTIFY_SOCKET.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/sd_notify.h"

int gpd_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !*path)
		return 0;
	/* A filesystem path, or '@' for Linux's abstract namespace; newer
	 * systemd may name a vsock address, which only VMs' managers use. */
	if (path[0] != '/' && path[0] != '@')
		return -EAFNOSUPPORT;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	socklen_t sa_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	size_t n = strlen(state);
	ssize_t sent = sendto(fd, state, n, MSG_NOSIGNAL,
			      (const struct sockaddr *)&sa, sa_len);
	int ret = sent < 0 ? -errno : (size_t)sent == n ? 0 : -EMSGSIZE;
	close(fd);
	return ret;
}

int gpd_sd_notifyf(const char *fmt, ...)
{
	char state[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(state))
		return -EMSGSIZE;
	return gpd_sd_notify(state);
}
