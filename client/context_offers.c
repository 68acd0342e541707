/*
 * The contexts a command offers (context_offers.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/context_offers.h"

static void on_conn_closed(uv_handle_t *h)
{
	struct gpuperf_offer_conn *c = h->data;

	c->closing = false;
	c->fd = -1;
}

static void drop_conn(struct gpuperf_offer_conn *c)
{
	if (c->fd < 0 || c->closing)
		return;
	uv_poll_stop(&c->poll);
	close(c->fd);
	c->closing = true;
	uv_close((uv_handle_t *)&c->poll, on_conn_closed);
}

/* The offer's one file, from the message's control data; -1 if it
 * brought none or more than one (those are closed). */
static int take_file(struct msghdr *msg)
{
	int fd = -1, files = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (files++ == 0)
				fd = got;
			else
				close(got);
		}
	}
	if (files != 1 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void on_conn_readable(uv_poll_t *h, int status, int events)
{
	struct gpuperf_offer_conn *c = h->data;
	struct gpuperf_offers *offers = c->offers;
	struct gpuperf_offer o = { 0 };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = &o, .iov_len = sizeof(o) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};

	if (status < 0) {
		drop_conn(c);
		return;
	}
	ssize_t n = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	int drm_fd = n > 0 ? take_file(&msg) : -1;
	uv_poll_stop(&c->poll);
	struct gpuperf_offer_received got = {
		.drm_fd = drm_fd,
		.kind = (enum gpuperf_offer_kind)o.kind,
		.id = o.id,
		.pid = o.pid,
		.conn = (unsigned)(c - offers->conns),
	};
	if (n <= 0) {
		drop_conn(c);
	} else if (n != (ssize_t)sizeof(o) || o.magic != GPUPERF_OFFER_MAGIC ||
		   (o.kind != GPUPERF_OFFER_I915_CONTEXT &&
		    o.kind != GPUPERF_OFFER_XE_EXEC_QUEUE) || drm_fd < 0 ||
		   (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		gpuperf_offers_answer(offers, &got, GPUPERF_OFFER_FAILED,
				      "gpuperf run cannot read the offer: a "
				      "preload of another version?");
	} else {
		offers->cb(offers, &got, offers->user);
	}
}

static void on_listen_readable(uv_poll_t *h, int status, int events)
{
	struct gpuperf_offers *offers = h->data;

	if (status < 0)
		return;
	int fd;
	while ((fd = accept4(offers->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct gpuperf_offer_conn *c = NULL;
		for (size_t i = 0; i < GPUPERF_OFFERS_MAX_PENDING && !c; i++)
			if (offers->conns[i].fd < 0)
				c = &offers->conns[i];
		if (!c || uv_poll_init(offers->loop, &c->poll, fd)) {
			/* The command's create goes on, unmeasured. */
			offers->turned_away++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->offers = offers;
		c->poll.data = c;
		uv_poll_start(&c->poll, UV_READABLE, on_conn_readable);
	}
}

int gpuperf_offers_open(struct gpuperf_offers *offers, uv_loop_t *loop,
			gpuperf_offer_cb cb, void *user, char *err,
			size_t err_size)
{
	memset(offers, 0, sizeof(*offers));
	offers->loop = loop;
	offers->cb = cb;
	offers->user = user;
	offers->listen_fd = -1;
	for (size_t i = 0; i < GPUPERF_OFFERS_MAX_PENDING; i++)
		offers->conns[i].fd = -1;
	const char *base = getenv("XDG_RUNTIME_DIR");
	if (!base || base[0] != '/' || access(base, W_OK | X_OK))
		base = "/tmp";
	snprintf(offers->dir, sizeof(offers->dir), "%s/gpuperf-run-XXXXXX", base);
	if (!mkdtemp(offers->dir)) {
		int ret = -errno;
		snprintf(err, err_size, "cannot make a directory in %s: %s", base,
			 strerror(errno));
		offers->dir[0] = '\0';
		return ret;
	}
	snprintf(offers->path, sizeof(offers->path), "%s/offers", offers->dir);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(offers->path);
	if (len >= sizeof(sa.sun_path)) {
		snprintf(err, err_size, "%s is too long a path for a socket "
			 "(set XDG_RUNTIME_DIR to a shorter directory)", offers->path);
		gpuperf_offers_close(offers);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, offers->path, len);
	offers->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
				   SOCK_CLOEXEC, 0);
	int ret = offers->listen_fd < 0 ? -errno : 0;
	if (!ret && (bind(offers->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		     listen(offers->listen_fd, GPUPERF_OFFERS_MAX_PENDING)))
		ret = -errno;
	if (!ret)
		ret = uv_poll_init(loop, &offers->listen_poll, offers->listen_fd);
	if (ret) {
		snprintf(err, err_size, "cannot listen on %s: %s", offers->path,
			 strerror(-ret));
		gpuperf_offers_close(offers);
		return ret;
	}
	offers->listening = true;
	offers->listen_poll.data = offers;
	uv_poll_start(&offers->listen_poll, UV_READABLE, on_listen_readable);
	return 0;
}

void gpuperf_offers_answer(struct gpuperf_offers *offers,
			   const struct gpuperf_offer_received *offer,
			   enum gpuperf_offer_status status, const char *fmt, ...)
{
	struct gpuperf_offer_conn *c = &offers->conns[offer->conn];
	struct gpuperf_offer_reply reply = {
		.magic = GPUPERF_OFFER_MAGIC,
		.status = status,
	};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reply.message, sizeof(reply.message), fmt, ap);
	va_end(ap);
	if (offer->drm_fd >= 0)
		close(offer->drm_fd);
	if (c->fd < 0 || c->closing)
		return;
	/* The command waits for this; a command gone takes nothing. */
	if (send(c->fd, &reply, sizeof(reply), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    errno != EPIPE && errno != ECONNRESET)
		fprintf(stderr, "gpuperf run: cannot answer process %d: %s\n",
			(int)offer->pid, strerror(errno));
	drop_conn(c);
}

void gpuperf_offers_close(struct gpuperf_offers *offers)
{
	for (size_t i = 0; i < GPUPERF_OFFERS_MAX_PENDING; i++)
		drop_conn(&offers->conns[i]);
	if (offers->listening) {
		uv_poll_stop(&offers->listen_poll);
		uv_close((uv_handle_t *)&offers->listen_poll, NULL);
		offers->listening = false;
	}
	if (offers->listen_fd >= 0)
		close(offers->listen_fd);
	offers->listen_fd = -1;
	if (offers->path[0])
		unlink(offers->path);
	if (offers->dir[0])
		rmdir(offers->dir);
	offers->path[0] = offers->dir[0] = '\0';
}
