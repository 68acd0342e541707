/*
 * ProcessActivity packets to the daemon (report_socket.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cuda_activity/report_socket.h"
#include "proto/gpuperf.pb-c.h"

#define RETRY_NS (5ull * 1000000000)

size_t gca_report_pack(const struct gca_report *r, uint8_t *buf, size_t size)
{
	Gpuperf__GpuActivity gpus[GCA_MAX_GPUS];
	Gpuperf__GpuActivity *ptrs[GCA_MAX_GPUS];
	Gpuperf__ProcessActivity m = GPUPERF__PROCESS_ACTIVITY__INIT;
	unsigned n = r->n_gpus < GCA_MAX_GPUS ? r->n_gpus : GCA_MAX_GPUS;
	for (unsigned i = 0; i < n; i++) {
		gpuperf__gpu_activity__init(&gpus[i]);
		gpus[i].pci_bus_id = (char *)r->gpus[i].pci_bus_id;
		gpus[i].busy_ns = r->gpus[i].busy_ns;
		gpus[i].span_ns = r->span_ns;
		ptrs[i] = &gpus[i];
	}
	m.n_gpus = n;
	m.gpus = ptrs;
	m.records_dropped = r->records_dropped;
	size_t len = gpuperf__process_activity__get_packed_size(&m);
	if (len > size)
		return 0;
	return gpuperf__process_activity__pack(&m, buf);
}

void gca_report_socket_init(struct gca_report_socket *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->fd = -1;
}

static int connect_socket(struct gca_report_socket *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(s->path);
	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, s->path, len);
	if (s->path[0] == '@')
		sa.sun_path[0] = '\0';
	socklen_t sa_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				       len + (s->path[0] == '@' ? 0 : 1));
	/* Close-on-exec: a program this one runs is another process, and
	 * would otherwise report as this one. */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sa_len)) {
		int code = -errno;
		close(fd);
		return code;
	}
	s->fd = fd;
	return 0;
}

/* Says once per kind of failure why reports do not reach the daemon. */
static void complain(struct gca_report_socket *s, int code)
{
	if (s->last_errno == -code)
		return;
	s->last_errno = -code;
	fprintf(stderr, "gpuperf cuda activity: cannot report this process's "
		"kernel time to gpuperfd at %s: %s (is gpuperfd running with "
		"--unix? GPUPERF_ACTIVITY_SOCKET names its PATH.activity); "
		"retrying every 5 s\n", s->path, strerror(-code));
}

int gca_report_socket_send(struct gca_report_socket *s,
			   const struct gca_report *r, uint64_t now_ns)
{
	uint8_t buf[2048];
	size_t len = gca_report_pack(r, buf, sizeof(buf));
	int ret = len ? 0 : -EMSGSIZE;
	if (!ret && s->fd < 0) {
		if (now_ns < s->retry_at_ns)
			ret = -ENOTCONN;
		else if ((ret = connect_socket(s)))
			s->retry_at_ns = now_ns + RETRY_NS;
	}
	if (!ret && send(s->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		ret = -errno;
		/* A daemon that restarted: connect again at the next report;
		 * one that reads slowly keeps the connection. */
		if (ret != -EAGAIN) {
			close(s->fd);
			s->fd = -1;
		}
	}
	if (ret) {
		s->unsent++;
		if (ret != -ENOTCONN)
			complain(s, ret);
		return ret;
	}
	if (s->last_errno) {
		fprintf(stderr, "gpuperf cuda activity: reporting to %s again "
			"(%llu reports lost meanwhile)\n", s->path,
			(unsigned long long)s->unsent);
		s->last_errno = 0;
	}
	return 0;
}

void gca_report_socket_close(struct gca_report_socket *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
