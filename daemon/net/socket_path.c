/*
 * Room for a Unix socket's file (see socket_path.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/net/socket_path.h"

int gpd_socket_path_clear(const char *path, int type, const char *option,
			  struct gpd_error *err)
{
	struct stat st;
	if (path[0] == '@' || lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return gpd_fail(err, -EEXIST, "%s %s exists and is not a socket; "
			    "choose another path", option, path);
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return gpd_fail(err, -EPERM, "%s %s is a socket of user %u, not "
			    "this daemon's; it is left alone: remove it as that "
			    "user, or choose another path", option, path,
			    (unsigned)st.st_uid);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return gpd_fail(err, -ENAMETOOLONG, "%s %s: the path is too long",
			    option, path);
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gpd_fail(err, -errno, "socket: %s", strerror(errno));
	int busy = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	if (busy)
		return gpd_fail(err, -EADDRINUSE, "%s %s: another daemon answers "
			    "there; stop it or choose another path", option, path);
	if (unlink(path) && errno != ENOENT)
		return gpd_fail(err, -errno, "%s %s: cannot remove the socket "
			    "left there: %s", option, path, strerror(errno));
	return 0;
}

socklen_t gpd_socket_path_address(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	size_t len = strlen(path);
	if (len >= sizeof(sa->sun_path))
		return 0;
	memcpy(sa->sun_path, path, len);
	if (path[0] == '@')
		sa->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			   (path[0] == '@' ? 0 : 1));
}

int gpd_socket_path_listen_seqpacket(const char *path, int backlog,
				     const char *option, const char *purpose,
				     int *fd, struct gpd_error *err)
{
	struct sockaddr_un sa;
	socklen_t len = gpd_socket_path_address(path, &sa);
	if (!len)
		return gpd_fail(err, -ENAMETOOLONG, "%s: the path is too long for "
				"a Unix socket; choose a shorter --unix", path);
	int ret = gpd_socket_path_clear(path, SOCK_SEQPACKET, option, err);
	if (ret)
		return ret;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		int code = -errno;
		return gpd_fail(err, code, "socket: %s", strerror(-code));
	}
	if (bind(s, (struct sockaddr *)&sa, len) || listen(s, backlog)) {
		int code = -errno;
		close(s);
		return gpd_fail(err, code, "cannot listen on %s, %s: %s", path,
				purpose, strerror(-code));
	}
	*fd = s;
	return 0;
}
