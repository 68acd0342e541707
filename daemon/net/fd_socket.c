/*
 * The fd socket (see fd_socket.h): one packet in, with a file in
 * SCM_RIGHTS, one packet out, per connection.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/device.h"
#include "daemon/device_registry.h"
#include "daemon/log.h"
#include "daemon/net/fd_socket.h"
#include "daemon/net/proto_codec.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "daemon/net/socket_path.h"
#include "proto/gpuperf.pb-c.h"

/* A PassFd is a key and a device name: far below this. */
#define MAX_PACKET 4096
/* Files one packet may carry before it is refused; more are closed. */
#define MAX_FILES 4
/* Connections passing files at once, and how long one may take. */
#define MAX_CONNECTIONS 16
#define CONNECTION_TIMEOUT_MS 2000

struct connection {
	struct gpd_fd_socket *fs;
	struct connection *next;
	uv_poll_t poll;
	uv_timer_t timer;
	int fd;
	int handles;                    /* open; freed at 0 */
};

struct gpd_fd_socket {
	struct gpd_server *server;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	int fd;
	uv_poll_t poll;
	struct connection *connections;
	unsigned n_connections;
	bool closing;
};

static void on_connection_closed(uv_handle_t *h)
{
	struct connection *c = h->data;
	if (--c->handles)
		return;
	close(c->fd);
	free(c);
}

static void drop(struct connection *c)
{
	struct gpd_fd_socket *fs = c->fs;
	for (struct connection **p = &fs->connections; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			fs->n_connections--;
			break;
		}
	}
	uv_close((uv_handle_t *)&c->poll, on_connection_closed);
	uv_close((uv_handle_t *)&c->timer, on_connection_closed);
}

static void answer(struct connection *c, const Gpuperf__PassFdReply *reply)
{
	uint8_t buf[MAX_PACKET];
	size_t len = gpuperf__pass_fd_reply__get_packed_size(reply);
	if (len <= sizeof(buf)) {
		gpuperf__pass_fd_reply__pack(reply, buf);
		/* A client that does not read its answer loses it. */
		if (send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			gpd_debug("fd socket: answer not sent: %s",
				  strerror(errno));
	}
	drop(c);
}

static void refuse(struct connection *c, int code, const char *message)
{
	Gpuperf__Error error = GPUPERF__ERROR__INIT;
	error.code = gpd_proto_error_code(code);
	error.message = (char *)message;
	Gpuperf__PassFdReply reply = GPUPERF__PASS_FD_REPLY__INIT;
	reply.result_case = GPUPERF__PASS_FD_REPLY__RESULT_ERROR;
	reply.error = &error;
	answer(c, &reply);
}

/* The files the packet carried, into fds (at most MAX_FILES; the rest
 * closed); their number. */
static size_t take_files(struct msghdr *msg, int *fds)
{
	size_t n = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm;
	     cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (n < MAX_FILES)
				fds[n++] = fd;
			else
				close(fd);
		}
	}
	return n;
}

/* Checks the request whole, then keeps the file: 0 with *id, or a code
 * with err saying why (the file is then the caller's to close). */
static int keep(struct gpd_fd_socket *fs, const Gpuperf__PassFd *req, int fd,
		uint32_t *id, struct gpd_error *err)
{
	struct gpd_session *s = gpd_session_by_key(fs->server,
						   req->session_key.data,
						   req->session_key.len);
	if (!s)
		return gpd_fail(err, -EACCES, "no connection of this daemon has "
				"that session key: connect over its Unix socket "
				"and pass the key its Hello gave");
	const char *name = req->device && req->device[0] ? req->device : NULL;
	struct gpd_device *dev = gpd_device_registry_find(fs->server->devices,
							  name);
	if (!dev)
		return gpd_fail(err, -ENODEV, name ? "no device '%s'; list them "
				"with 'gpuperf devices'" : "the daemon has no "
				"devices%s", name ? name : "");
	struct gpd_source *src = dev->source;
	if (!src->ops->check_drm_fd)
		return gpd_fail(err, -EOPNOTSUPP, "device %s (%s) takes no DRM "
				"file: gpuperfd streams one application's context "
				"on i915 devices", src->name,
				gpd_source_kind_name(src->kind));
	int ret = src->ops->check_drm_fd(src, fd, err);
	if (ret)
		return ret;
	return gpd_session_keep_fd(s, fd, src->name, id, err);
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	struct connection *c = h->data;
	if (status < 0) {
		drop(c);
		return;
	}
	uint8_t buf[MAX_PACKET];
	union {
		char buf[CMSG_SPACE(MAX_FILES * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	ssize_t n = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop(c);
		return;
	}
	int fds[MAX_FILES];
	size_t n_fds = take_files(&msg, fds);
	Gpuperf__PassFd *req = (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ? NULL :
			       gpuperf__pass_fd__unpack(NULL, (size_t)n, buf);
	struct gpd_error err = { 0 };
	uint32_t id = 0;
	int ret;
	if (!req)
		ret = gpd_fail(&err, -EINVAL, "the packet is not one PassFd of "
			       "at most %d bytes with at most %d files",
			       MAX_PACKET, MAX_FILES);
	else if (n_fds != 1)
		ret = gpd_fail(&err, -EINVAL, "a PassFd carries exactly one file "
			       "in SCM_RIGHTS; this one carried %zu", n_fds);
	else
		ret = keep(c->fs, req, fds[0], &id, &err);
	if (req)
		gpuperf__pass_fd__free_unpacked(req, NULL);
	for (size_t i = ret ? 0 : 1; i < n_fds; i++)
		close(fds[i]);
	if (ret) {
		refuse(c, ret, err.message);
		return;
	}
	Gpuperf__PassFdReply reply = GPUPERF__PASS_FD_REPLY__INIT;
	reply.result_case = GPUPERF__PASS_FD_REPLY__RESULT_FD_ID;
	reply.fd_id = id;
	answer(c, &reply);
}

static void on_timeout(uv_timer_t *t)
{
	drop(t->data);
}

static void on_connection(uv_poll_t *h, int status, int events)
{
	struct gpd_fd_socket *fs = h->data;
	if (status < 0)
		return;
	int fd = accept4(fs->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct connection *c = fs->n_connections < MAX_CONNECTIONS ?
			       calloc(1, sizeof(*c)) : NULL;
	if (!c || uv_poll_init(fs->server->loop, &c->poll, fd)) {
		gpd_debug("fd socket: a connection refused (%u in progress)",
			  fs->n_connections);
		free(c);
		close(fd);
		return;
	}
	c->fs = fs;
	c->fd = fd;
	c->handles = 2;
	c->poll.data = c;
	uv_timer_init(fs->server->loop, &c->timer);
	c->timer.data = c;
	c->next = fs->connections;
	fs->connections = c;
	fs->n_connections++;
	uv_poll_start(&c->poll, UV_READABLE, on_readable);
	uv_timer_start(&c->timer, on_timeout, CONNECTION_TIMEOUT_MS, 0);
}

int gpd_fd_socket_open(struct gpd_server *server, const char *path,
		       struct gpd_fd_socket **out, struct gpd_error *err)
{
	int fd;
	int ret = gpd_socket_path_listen_seqpacket(path, MAX_CONNECTIONS,
			"--unix (its .fds socket)",
			"where clients of the Unix socket pass DRM files", &fd,
			err);
	if (ret)
		return ret;
	struct gpd_fd_socket *fs = calloc(1, sizeof(*fs));
	if (!fs) {
		close(fd);
		if (path[0] != '@')
			unlink(path);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	fs->server = server;
	fs->fd = fd;
	snprintf(fs->path, sizeof(fs->path), "%s", path);
	uv_poll_init(server->loop, &fs->poll, fs->fd);
	fs->poll.data = fs;
	uv_poll_start(&fs->poll, UV_READABLE, on_connection);
	*out = fs;
	return 0;
}

const char *gpd_fd_socket_path(const struct gpd_fd_socket *fs)
{
	return fs->path;
}

static void on_listener_closed(uv_handle_t *h)
{
	struct gpd_fd_socket *fs = h->data;
	close(fs->fd);
	free(fs);
}

void gpd_fd_socket_close(struct gpd_fd_socket *fs)
{
	if (!fs || fs->closing)
		return;
	fs->closing = true;
	while (fs->connections)
		drop(fs->connections);
	if (fs->path[0] != '@')
		unlink(fs->path);
	uv_close((uv_handle_t *)&fs->poll, on_listener_closed);
}
