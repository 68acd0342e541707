/*
 * libgpuperf-preload.so: preloaded into a command by `gpuperf run
 * --own-contexts`, it offers each context the command creates to gpuperf
 * run (offer.h), which hands it to the daemon for the kernel's
 * single-context stream.
 *
 * It replaces ioctl(). Without GPUPERF_OFFER_SOCKET (or with one it
 * cannot use) every call goes straight to the next ioctl(), found once
 * with dlsym(RTLD_NEXT): one predictable branch on the way. With it, a
 * call that created an i915 GEM context or an xe exec queue is offered
 * after it returned, and the create returns once gpuperf run has
 * answered. The application never sees the preload: the ioctl's result
 * and errno are what the kernel gave, and a failure is written to
 * standard error once per process and then ignored. Each offer is a
 * connection of its own, so threads and forked children offer without
 * sharing anything; an exec'd program loads the preload again from the
 * environment.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client/preload/offer.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*ioctl_fn)(int, unsigned long, ...);

enum preload_mode {
	MODE_UNRESOLVED = 0,
	MODE_PASS_THROUGH,
	MODE_OFFERING,
};

/* Set once, before any offer; read on every call. */
static int mode;
static ioctl_fn next_ioctl;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static struct sockaddr_un offer_address;
static socklen_t offer_address_len;
static int failure_logged;

static void log_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_once(const char *fmt, ...)
{
	if (__atomic_exchange_n(&failure_logged, 1, __ATOMIC_RELAXED))
		return;
	char line[512];
	int n = snprintf(line, sizeof(line), "gpuperf preload (pid %d): ",
			 (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* Standard error may be anything the application made of it. */
	ssize_t ignored = write(STDERR_FILENO, line, len);
	(void)ignored;
}

/* What runs when no ioctl() follows this library's: the system call. */
static int syscall_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return (int)syscall(SYS_ioctl, fd, request, arg);
}

static void resolve(void)
{
	int saved = errno;
	next_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (!next_ioctl) {
		next_ioctl = syscall_ioctl;
		log_once("no ioctl() after this library (%s): calling the kernel "
			 "directly", dlerror());
	}
	int next = MODE_PASS_THROUGH;
	const char *path = getenv(GPUPERF_OFFER_SOCKET_ENV);
	size_t len = path ? strlen(path) : 0;
	if (len >= sizeof(offer_address.sun_path)) {
		log_once("%s is longer than a socket's path can be: nothing is "
			 "offered", GPUPERF_OFFER_SOCKET_ENV);
	} else if (len) {
		offer_address.sun_family = AF_UNIX;
		memcpy(offer_address.sun_path, path, len);
		offer_address_len = (socklen_t)(offsetof(struct sockaddr_un,
							 sun_path) + len + 1);
		next = MODE_OFFERING;
	}
	__atomic_store_n(&mode, next, __ATOMIC_RELEASE);
	errno = saved;
}

__attribute__((constructor))
static void preload_init(void)
{
	pthread_once(&resolve_once, resolve);
}

static int send_offer(int sock, const struct gpuperf_offer *offer, int fd)
{
	struct iovec iov = { .iov_base = (void *)offer, .iov_len = sizeof(*offer) };
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
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(*offer) ? 0 : -errno;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reply, waiting out signals up to the timeout. */
static int receive_reply(int sock, struct gpuperf_offer_reply *reply)
{
	int64_t deadline = now_ms() + GPUPERF_OFFER_TIMEOUT_MS;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int ready = poll(&p, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -errno;
		if (!ready)
			return -ETIMEDOUT;
		ssize_t n = recv(sock, reply, sizeof(*reply), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n != (ssize_t)sizeof(*reply) || reply->magic != GPUPERF_OFFER_MAGIC)
			return -EPROTO;
		reply->message[sizeof(reply->message) - 1] = '\0';
		return 0;
	}
}

static void offer(int fd, enum gpuperf_offer_kind kind, uint32_t id)
{
	const struct gpuperf_offer o = {
		.magic = GPUPERF_OFFER_MAGIC, .kind = kind, .id = id,
		.pid = (int32_t)getpid(),
	};
	const char *what = gpuperf_offer_kind_name(kind);
	struct gpuperf_offer_reply reply;
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int ret = sock < 0 ? -errno : 0;
	if (!ret && connect(sock, (const struct sockaddr *)&offer_address,
			    offer_address_len))
		ret = -errno;
	if (ret) {
		log_once("cannot reach gpuperf run at %s (%s): this process's "
			 "contexts are not measured", offer_address.sun_path,
			 strerror(-ret));
		goto out;
	}
	ret = send_offer(sock, &o, fd);
	if (!ret)
		ret = receive_reply(sock, &reply);
	if (ret == -ETIMEDOUT)
		log_once("gpuperf run did not answer within %d s for %s %u: it "
			 "is not measured", GPUPERF_OFFER_TIMEOUT_MS / 1000, what, id);
	else if (ret)
		log_once("cannot offer %s %u to gpuperf run (%s): it is not "
			 "measured", what, id, strerror(-ret));
	else if (reply.status == GPUPERF_OFFER_FAILED)
		log_once("%s %u is not measured: %s", what, id, reply.message);
out:
	if (sock >= 0)
		close(sock);
}

/* Everything but the pass-through: resolving, and offering. */
static int __attribute__((noinline)) ioctl_offering(int fd, unsigned long request,
						    void *arg)
{
	pthread_once(&resolve_once, resolve);
	int ret = next_ioctl(fd, request, arg);
	enum gpuperf_offer_kind kind;
	if (ret || __atomic_load_n(&mode, __ATOMIC_ACQUIRE) != MODE_OFFERING ||
	    !(kind = gpuperf_offer_kind_of(request)))
		return ret;
	int saved = errno;
	offer(fd, kind, gpuperf_offer_created_id(kind, arg));
	errno = saved;
	return ret;
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (__builtin_expect(__atomic_load_n(&mode, __ATOMIC_ACQUIRE) ==
			     MODE_PASS_THROUGH, 1))
		return next_ioctl(fd, request, arg);
	return ioctl_offering(fd, request, arg);
}
