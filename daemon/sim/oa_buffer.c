/*
 * The OA unit's ring buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_buffer.h"

static bool is_power_of_two(size_t x)
{
	return x && !(x & (x - 1));
}

static bool valid(size_t size, size_t report_size)
{
	return size >= GPD_OA_BUFFER_MIN_SIZE && size <= GPD_OA_BUFFER_MAX_SIZE &&
	       is_power_of_two(size) && report_size && report_size <= size / 4;
}

int gpd_oa_buffer_init(struct gpd_oa_buffer *buf, size_t size, size_t report_size)
{
	if (!valid(size, report_size))
		return -EINVAL;
	*buf = (struct gpd_oa_buffer){ .size = size, .report_size = report_size };
	buf->mem = calloc(1, size);
	return buf->mem ? 0 : -ENOMEM;
}

int gpd_oa_buffer_init_lent(struct gpd_oa_buffer *buf, unsigned char *mem,
			    size_t size, size_t report_size)
{
	if (!valid(size, report_size))
		return -EINVAL;
	*buf = (struct gpd_oa_buffer){
		.mem = mem, .lent = true, .size = size, .report_size = report_size,
	};
	return 0;
}

void gpd_oa_buffer_free(struct gpd_oa_buffer *buf)
{
	if (buf->lent && buf->mem)
		gpd_oa_buffer_reset(buf);
	else
		free(buf->mem);
	buf->mem = NULL;
}

void gpd_oa_buffer_reset(struct gpd_oa_buffer *buf)
{
	/* Positions count from the last reset, so only the first tail bytes
	 * can have been written since the memory was last zero: a fresh
	 * stream's 16 MiB are not touched at all. */
	memset(buf->mem, 0, buf->tail < buf->size ? (size_t)buf->tail : buf->size);
	buf->head = buf->tail = 0;
	buf->overflow = false;
	buf->dropping = false;
}

/* Copies len bytes between the ring at position pos and flat memory, in
 * two parts when they straddle the ring's end. */
static void ring_write(struct gpd_oa_buffer *buf, uint64_t pos, const void *src,
		       size_t len)
{
	size_t off = (size_t)(pos & (buf->size - 1));
	size_t first = buf->size - off < len ? buf->size - off : len;

	memcpy(buf->mem + off, src, first);
	memcpy(buf->mem, (const unsigned char *)src + first, len - first);
}

static void ring_read(const struct gpd_oa_buffer *buf, uint64_t pos, void *dst,
		      size_t len)
{
	size_t off = (size_t)(pos & (buf->size - 1));
	size_t first = buf->size - off < len ? buf->size - off : len;

	memcpy(dst, buf->mem + off, first);
	memcpy((unsigned char *)dst + first, buf->mem, len - first);
}

int gpd_oa_buffer_push(struct gpd_oa_buffer *buf, const void *report)
{
	if (gpd_oa_buffer_full(buf)) {
		if (!buf->dropping)
			buf->overflow = true;
		buf->dropping = true;
		return -ENOSPC;
	}
	buf->dropping = false;
	ring_write(buf, buf->tail, report, buf->report_size);
	buf->tail += buf->report_size;
	return 0;
}

unsigned char *gpd_oa_buffer_tail_slot(struct gpd_oa_buffer *buf)
{
	size_t off = (size_t)(buf->tail & (buf->size - 1));

	if (gpd_oa_buffer_full(buf) || buf->size - off < buf->report_size)
		return NULL;
	return buf->mem + off;
}

void gpd_oa_buffer_commit(struct gpd_oa_buffer *buf)
{
	buf->dropping = false;
	buf->tail += buf->report_size;
}

void gpd_oa_buffer_peek(const struct gpd_oa_buffer *buf, void *out)
{
	ring_read(buf, buf->head, out, buf->report_size);
}

void gpd_oa_buffer_pop(struct gpd_oa_buffer *buf)
{
	static const unsigned char zero[64];
	size_t clear = is_power_of_two(buf->report_size) ? 8 : buf->report_size;

	for (size_t done = 0; done < clear; done += sizeof(zero)) {
		size_t n = clear - done < sizeof(zero) ? clear - done : sizeof(zero);

		ring_write(buf, buf->head + done, zero, n);
	}
	buf->head += buf->report_size;
}
