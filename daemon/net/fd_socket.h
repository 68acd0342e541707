/*
 * The fd socket: where a client of the Unix socket passes a DRM file.
 *
 * libwebsockets reads its sockets with recv(), which drops SCM_RIGHTS (the
 * kernel closes descriptors that arrive without a control buffer), so a
 * file cannot travel on the WebSocket. Beside --unix PATH the daemon
 * listens on PATH.fds, a SOCK_SEQPACKET socket made as the Unix socket is
 * (the daemon's umask).
 * A client learns from its Hello that path and its session's key; it
 * connects, sends one packet, a PassFd (the key and a device) with one
 * file in SCM_RIGHTS, and gets one packet back, a PassFdReply: the file's
 * id in its session, for Subscribe.passed_context, or an Error. Then the
 * daemon closes that connection.
 *
 * The file must be a DRM node of the device named (the source's
 * check_drm_fd, before any ioctl); the session keeps it, within its limit
 * of passed files, until a Subscribe names it (which hands it to the
 * device, for that stream alone) or the session ends.
 */
#ifndef GPD_NET_FD_SOCKET_H
#define GPD_NET_FD_SOCKET_H

#include "daemon/error.h"

struct gpd_server;
struct gpd_fd_socket;

/* Listens on path (an abstract name when it starts with '@'), replacing
 * a socket file a daemon that died left there (gpd_socket_path_clear). */
int gpd_fd_socket_open(struct gpd_server *server, const char *path,
		       struct gpd_fd_socket **out, struct gpd_error *err);

/* The path it listens on. */
const char *gpd_fd_socket_path(const struct gpd_fd_socket *fs);

/* Stops listening, drops the connections in progress, removes the socket
 * file; the memory goes once the loop has closed the handles. */
void gpd_fd_socket_close(struct gpd_fd_socket *fs);

#endif
