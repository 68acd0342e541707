/*
 * One application's context: handing the daemon a DRM file.
 *
 * The daemon's WebSocket cannot carry a file (libwebsockets reads with
 * recv(), which drops SCM_RIGHTS), so the file goes to the socket Hello
 * names, fd_socket: one SOCK_SEQPACKET packet holding a PassFd (the key
 * Hello gave this connection, the device) with the file in SCM_RIGHTS,
 * and one PassFdReply back, the file's id. The Subscribe names that id.
 * Local and short: done in the caller's call, blocking, with a deadline.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/lib/client_internal.h"

#define PASS_TIMEOUT_MS 2000
#define MAX_PACKET 4096

static socklen_t address(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	size_t len = strlen(path);
	if (!len || len >= sizeof(sa->sun_path))
		return 0;
	memcpy(sa->sun_path, path, len);
	if (path[0] == '@')
		sa->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			   (path[0] == '@' ? 0 : 1));
}

static int send_file(int sock, const uint8_t *packet, size_t len, int fd)
{
	struct iovec iov = { .iov_base = (void *)packet, .iov_len = len };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	memset(&control, 0, sizeof(control));
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* Passes drm_fd for device; 0 with *id, or the error in err. */
static int pass_file(const Gpuperf__Hello *hello, const char *device,
		     int drm_fd, uint32_t *id, struct gpc_error *err)
{
	struct sockaddr_un sa;
	socklen_t sa_len = hello->fd_socket ? address(hello->fd_socket, &sa) : 0;
	if (!sa_len || !hello->session_key.len) {
		gpc__error_set(err, -EOPNOTSUPP, "this connection cannot pass a "
			       "DRM file: connect over the daemon's Unix socket "
			       "(gpuperfd --unix), where it can");
		return err->code;
	}
	Gpuperf__PassFd req = GPUPERF__PASS_FD__INIT;
	req.session_key = hello->session_key;
	req.device = (char *)(device ? device : "");
	uint8_t packet[MAX_PACKET];
	size_t len = gpuperf__pass_fd__get_packed_size(&req);
	if (len > sizeof(packet)) {
		gpc__error_set(err, -ENAMETOOLONG, "the device name is too long");
		return err->code;
	}
	gpuperf__pass_fd__pack(&req, packet);

	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int ret = sock < 0 ? -errno : 0;
	if (!ret && connect(sock, (struct sockaddr *)&sa, sa_len))
		ret = -errno;
	if (ret) {
		gpc__error_set(err, ret, "cannot reach the daemon's fd socket "
			       "%s: %s", hello->fd_socket, strerror(-ret));
		goto out;
	}
	ret = send_file(sock, packet, len, drm_fd);
	if (ret) {
		gpc__error_set(err, ret, ret == -EBADF ?
			       "fd %d is not an open file: pass the fd of the "
			       "DRM node on which the context was created" :
			       "cannot pass fd %d: %s", drm_fd, strerror(-ret));
		goto out;
	}
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int ready = poll(&p, 1, PASS_TIMEOUT_MS);
	ssize_t n = ready > 0 ? recv(sock, packet, sizeof(packet), 0) : -1;
	Gpuperf__PassFdReply *reply = n > 0 ?
		gpuperf__pass_fd_reply__unpack(NULL, (size_t)n, packet) : NULL;
	if (!reply) {
		ret = -EPROTO;
		gpc__error_set(err, ret, "the daemon did not answer the file "
			       "passed to %s", hello->fd_socket);
	} else if (reply->result_case == GPUPERF__PASS_FD_REPLY__RESULT_ERROR &&
		   reply->error) {
		gpc__error_from_server(err, reply->error);
		ret = err->code ? err->code : -EPROTO;
	} else {
		*id = reply->fd_id;
	}
	if (reply)
		gpuperf__pass_fd_reply__free_unpacked(reply, NULL);
out:
	if (sock >= 0)
		close(sock);
	return ret;
}

int gpc_subscribe_context(struct gpc_client *c, int drm_fd, uint32_t context,
			  const struct gpc_subscribe_options *o,
			  const struct gpc_subscription_cbs *cbs, void *user,
			  struct gpc_subscription **out, struct gpc_error *err)
{
	*out = NULL;
	if (o->filter_context) {
		gpc__error_set(err, -EINVAL, "a subscription takes one context "
			       "filter: the kernel's here, not filter_context");
		return err->code;
	}
	if (c->state != GPC__CONNECTED || !c->catalog.hello) {
		gpc__error_set(err, -ENOTCONN, "not connected to the daemon");
		return err->code;
	}
	Gpuperf__PassedContext passed = GPUPERF__PASSED_CONTEXT__INIT;
	passed.handle = context;
	int ret = pass_file(c->catalog.hello->hello, o->device, drm_fd,
			    &passed.fd_id, err);
	if (ret)
		return ret;
	return gpc__subscribe_sync(c, o, &passed, cbs, user, out, err);
}
