/*
 * The read side of an OA stream: uv_poll on the fd, reads until EAGAIN.
 *
 * Both kernels copy only whole records and fail with ENOSPC only when not
 * even one fits (i915_perf_read(), xe_oa_read()); a record is at most
 * 8 + 640 bytes, so the megabyte read here always takes one, and ENOSPC is
 * an error like any other.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/drm/oa_pump.h"
#include "daemon/log.h"

#define PUMP_BUFFER (1u << 20)
/* A stream that always has more would otherwise hold the loop forever. */
#define PUMP_MAX_READS_PER_WAKEUP 16

struct gpd_oa_pump {
	uv_poll_t poll;
	int fd;
	const struct gpd_oa_pump_ops *ops;
	void *user;
	unsigned char *buf;
	bool stopped;
};

static void drain(struct gpd_oa_pump *p)
{
	for (unsigned i = 0; i < PUMP_MAX_READS_PER_WAKEUP && !p->stopped; i++) {
		ssize_t n = read(p->fd, p->buf, PUMP_BUFFER);
		if (n > 0) {
			p->ops->data(p->user, p->buf, (size_t)n);
			continue;
		}
		int code = n < 0 ? -errno : -EAGAIN;
		if (code == -EAGAIN)
			return;
		if (code == -EINTR)
			continue;
		if (!p->ops->error(p->user, code))
			return;
	}
}

static void on_readable(uv_poll_t *handle, int status, int events)
{
	struct gpd_oa_pump *p = handle->data;
	if (status < 0) {
		p->ops->error(p->user, status);
		return;
	}
	drain(p);
}

void gpd_oa_pump_drain(struct gpd_oa_pump *p)
{
	if (p && !p->stopped)
		drain(p);
}

int gpd_oa_pump_start(uv_loop_t *loop, int fd, const struct gpd_oa_pump_ops *ops,
		      void *user, struct gpd_oa_pump **out)
{
	struct gpd_oa_pump *p = calloc(1, sizeof(*p));
	unsigned char *buf = malloc(PUMP_BUFFER);
	if (!p || !buf) {
		free(p);
		free(buf);
		return -ENOMEM;
	}
	int ret = uv_poll_init(loop, &p->poll, fd);
	if (ret) {
		free(p);
		free(buf);
		return ret;
	}
	p->poll.data = p;
	p->fd = fd;
	p->ops = ops;
	p->user = user;
	p->buf = buf;
	ret = uv_poll_start(&p->poll, UV_READABLE, on_readable);
	if (ret) {
		/* The handle is initialised: only the loop may free it. */
		p->fd = -1;
		gpd_oa_pump_stop(p);
		return ret;
	}
	*out = p;
	return 0;
}

static void on_closed(uv_handle_t *handle)
{
	struct gpd_oa_pump *p = handle->data;
	free(p->buf);
	free(p);
}

void gpd_oa_pump_stop(struct gpd_oa_pump *p)
{
	if (p->stopped)
		return;
	p->stopped = true;
	/* libuv forgets the fd first, so a stream opened right after cannot
	 * reuse the number while the loop still watches it. */
	uv_close((uv_handle_t *)&p->poll, on_closed);
	if (p->fd >= 0)
		close(p->fd);
}

int gpd_oa_pump_fd(const struct gpd_oa_pump *p)
{
	return p->fd;
}
