/*
 * The file a Unix socket listens at: what the daemon may remove there
 * before binding. All of its sockets (--unix PATH, PATH.fds and
 * PATH.activity) are made the same way, so a path that names something else is never removed on
 * the daemon's privileges.
 */
#ifndef GPD_NET_SOCKET_PATH_H
#define GPD_NET_SOCKET_PATH_H

#include <sys/socket.h>
#include <sys/un.h>

#include "daemon/error.h"

/* Makes room at path for a socket of type (SOCK_STREAM, SOCK_SEQPACKET):
 * nothing there, or a socket left by a daemon that died, owned by this
 * user or root, which is removed. Anything else (not a socket, someone
 * else's, one that answers) is refused, with words naming option, the
 * option that chose the path. An abstract name ('@...') has no file. */
int gpd_socket_path_clear(const char *path, int type, const char *option,
			  struct gpd_error *err);

/* path's address for bind() and connect(): an abstract name when path
 * starts with '@'. Its length, or 0 when path is too long for one. */
socklen_t gpd_socket_path_address(const char *path, struct sockaddr_un *sa);

/* A non-blocking SOCK_SEQPACKET socket listening at path (room made as
 * gpd_socket_path_clear makes it), in *fd: 0, or -errno with words naming
 * option and saying what the socket is for (purpose: "where ..."). */
int gpd_socket_path_listen_seqpacket(const char *path, int backlog,
				     const char *option, const char *purpose,
				     int *fd, struct gpd_error *err);

#endif
