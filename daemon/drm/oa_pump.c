/*
 * The read side of an OA stream: uv_poll on the fd, reads until EAGAIN.
 *
 * The kernel copies only whole records and says ENOSPC when not even one
 * fits (docs/oa-reference.md §1.5, §5); the buffer then doubles, up to the
 * size of the kernel's own OA buffer, beyond which no record can be.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/drm/oa_pump.h"
#include "daemon/log.h"

#define PUMP_INITIAL_BUFFER (1u << 20)
#define PUMP_MAX_BUFFER (16u << 20)
/* A stream that always has more would otherwise hold the loop forever. */
#define PUMP_MAX_READS_PER_WAKEUP 16

struct gpd_oa_pump {
	uv_poll_t poll;
	int fd;
	const struct gpd_oa_pump_ops *ops;
	void *user;
	unsigned char *buf;
	size_t size;
	bool stopped;
};

static bool grow(struct gpd_oa_pump *p)
{
	if (p->size >= PUMP_MAX_BUFFER)
		return false;
	unsigned char *buf = realloc(p->buf, p->size * 2);
	if (!buf)
		return false;
	p->buf = buf;
	p->size *= 2;
	gpd_debug("OA stream read buffer grown to %zu bytes", p->size);
	return true;
}

static void on_readable(uv_poll_t *handle, int status, int events)
{
	struct gpd_oa_pump *p = handle->data;
	if (status < 0) {
		p->ops->error(p->user, status);
		return;
	}
	for (unsigned i = 0; i < PUMP_MAX_READS_PER_WAKEUP && !p->stopped; i++) {
		ssize_t n = read(p->fd, p->buf, p->size);
		if (n > 0) {
			p->ops->data(p->user, p->buf, (size_t)n);
			continue;
		}
		int code = n < 0 ? -errno : -EAGAIN;
		if (code == -EAGAIN)
			return;
		if (code == -EINTR || (code == -ENOSPC && grow(p)))
			continue;
		if (!p->ops->error(p->user, code))
			return;
	}
}

int gpd_oa_pump_start(uv_loop_t *loop, int fd, const struct gpd_oa_pump_ops *ops,
		      void *user, struct gpd_oa_pump **out)
{
	struct gpd_oa_pump *p = calloc(1, sizeof(*p));
	unsigned char *buf = malloc(PUMP_INITIAL_BUFFER);
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
	p->size = PUMP_INITIAL_BUFFER;
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
