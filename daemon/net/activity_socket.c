/*
 * The activity socket (see activity_socket.h): connections that stay
 * open, one ProcessActivity a packet, under the peer's pid.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/net/activity_socket.h"
#include "daemon/net/rate_limit.h"
#include "daemon/net/socket_path.h"
#include "proto/gpuperf.pb-c.h"

/* A report of 16 GPUs is about 600 bytes. */
#define MAX_PACKET 2048
/* Packets read from one connection per wakeup, so one cannot starve
 * the loop; the rest wait for the next. */
#define PACKETS_PER_WAKEUP 16

struct connection {
	struct gpd_activity_socket *as;
	struct connection *next;
	uv_poll_t poll;
	int fd;
	int32_t pid;
	uint32_t uid;
	struct gpd_rate_limit rate;
};

struct gpd_activity_socket {
	uv_loop_t *loop;
	struct gpd_process_activity *store;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	int fd;
	uv_poll_t poll;
	struct connection *connections;
	unsigned n_connections;
	struct gpd_activity_stats stats;
	bool closing;
};

static void on_connection_closed(uv_handle_t *h)
{
	struct connection *c = h->data;
	close(c->fd);
	free(c);
}

static void drop(struct connection *c)
{
	struct gpd_activity_socket *as = c->as;
	for (struct connection **p = &as->connections; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			as->n_connections--;
			break;
		}
	}
	gpd_process_activity_disconnect(as->store, c->pid);
	uv_close((uv_handle_t *)&c->poll, on_connection_closed);
}

/* The report in buf, checked whole and added under the peer's pid. */
static int take_report(struct connection *c, const uint8_t *buf, size_t len,
		       const char **why)
{
	Gpuperf__ProcessActivity *m = gpuperf__process_activity__unpack(NULL, len,
									buf);
	if (!m) {
		*why = "not a ProcessActivity";
		return -EINVAL;
	}
	struct gpd_gpu_activity gpus[GPD_PROCESS_ACTIVITY_MAX_GPUS];
	int ret = 0;
	if (m->n_gpus > GPD_PROCESS_ACTIVITY_MAX_GPUS) {
		*why = "more GPUs than a report may hold";
		ret = -EINVAL;
	}
	for (size_t i = 0; !ret && i < m->n_gpus; i++) {
		const Gpuperf__GpuActivity *g = m->gpus[i];
		if (gpd_pci_address_parse(g->pci_bus_id, &gpus[i].gpu)) {
			*why = "a GPU's PCI bus id is not one";
			ret = -EINVAL;
			break;
		}
		gpus[i].busy_ns = g->busy_ns;
		gpus[i].span_ns = g->span_ns;
	}
	if (!ret)
		ret = gpd_process_activity_add(c->as->store, c->pid, gpus,
					       m->n_gpus, why);
	if (!ret)
		gpd_process_activity_add_lost(c->as->store, c->pid,
					      m->records_dropped);
	if (ret == -ENOMEM)
		*why = "out of memory";
	gpuperf__process_activity__free_unpacked(m, NULL);
	return ret;
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	struct connection *c = h->data;
	struct gpd_activity_stats *stats = &c->as->stats;
	if (status < 0) {
		drop(c);
		return;
	}
	for (int i = 0; i < PACKETS_PER_WAKEUP; i++) {
		uint8_t buf[MAX_PACKET];
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			drop(c);
			return;
		}
		if (!gpd_rate_limit_take(&c->rate, gpd_monotonic_ns())) {
			stats->rate_limited++;
			continue;
		}
		const char *why = NULL;
		int ret = (size_t)n > sizeof(buf) ?
			  (why = "a packet over 2048 bytes", -EINVAL) :
			  take_report(c, buf, (size_t)n, &why);
		if (ret) {
			stats->refused++;
			gpd_debug("activity socket: a report of pid %d refused: %s",
				  c->pid, why);
		} else {
			stats->reports++;
		}
	}
}

static unsigned connections_of(const struct gpd_activity_socket *as,
			       uint32_t uid)
{
	unsigned n = 0;
	for (const struct connection *c = as->connections; c; c = c->next)
		n += c->uid == uid;
	return n;
}

static void on_connection(uv_poll_t *h, int status, int events)
{
	struct gpd_activity_socket *as = h->data;
	if (status < 0)
		return;
	int fd = accept4(as->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* The peer as it was when it connected; 0 when its pid has no
	 * number in the daemon's pid namespace. */
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct connection *c = NULL;
	if (as->n_connections >= GPD_PROCESS_ACTIVITY_MAX_PROCESSES ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    len != sizeof(cred) || cred.pid <= 0 ||
	    connections_of(as, cred.uid) >= GPD_ACTIVITY_MAX_PER_USER ||
	    gpd_process_activity_connect(as->store, cred.pid)) {
		as->stats.connections_refused++;
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c || uv_poll_init(as->loop, &c->poll, fd)) {
		gpd_process_activity_disconnect(as->store, cred.pid);
		as->stats.connections_refused++;
		free(c);
		close(fd);
		return;
	}
	c->as = as;
	c->fd = fd;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->poll.data = c;
	gpd_rate_limit_init(&c->rate, GPD_ACTIVITY_REPORTS_PER_SECOND,
			    gpd_monotonic_ns());
	c->next = as->connections;
	as->connections = c;
	as->n_connections++;
	uv_poll_start(&c->poll, UV_READABLE, on_readable);
}

int gpd_activity_socket_open(uv_loop_t *loop, const char *path,
			     struct gpd_process_activity *store,
			     struct gpd_activity_socket **out,
			     struct gpd_error *err)
{
	int fd;
	int ret = gpd_socket_path_listen_seqpacket(path, 64,
			"--unix (its .activity socket)",
			"where processes report their kernel time", &fd, err);
	if (ret)
		return ret;
	struct gpd_activity_socket *as = calloc(1, sizeof(*as));
	if (!as) {
		close(fd);
		if (path[0] != '@')
			unlink(path);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	as->loop = loop;
	as->store = store;
	as->fd = fd;
	snprintf(as->path, sizeof(as->path), "%s", path);
	uv_poll_init(loop, &as->poll, as->fd);
	as->poll.data = as;
	uv_poll_start(&as->poll, UV_READABLE, on_connection);
	*out = as;
	return 0;
}

void gpd_activity_socket_stats(const struct gpd_activity_socket *as,
			       struct gpd_activity_stats *out)
{
	*out = as->stats;
}

static void on_listener_closed(uv_handle_t *h)
{
	struct gpd_activity_socket *as = h->data;
	close(as->fd);
	free(as);
}

void gpd_activity_socket_close(struct gpd_activity_socket *as)
{
	if (!as || as->closing)
		return;
	as->closing = true;
	while (as->connections)
		drop(as->connections);
	if (as->path[0] != '@')
		unlink(as->path);
	uv_close((uv_handle_t *)&as->poll, on_listener_closed);
}
