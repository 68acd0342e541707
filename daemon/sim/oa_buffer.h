/*
 * The OA buffer: the ring the OA unit writes reports into and i915 reads
 * them out of.
 *
 * Its size is a power of two between 128 KiB and 16 MiB, as the hardware
 * requires. The unit writes whole reports at the tail; the reader takes
 * them at the head. One report's worth stays free so that head == tail
 * means empty, as the kernel reads it; a report that finds no room is
 * dropped, and reports land again once the reader has made room. The first
 * report dropped sets the overflow flag; those dropped after it, while the
 * ring stays full, do not set it again once cleared: IGT's xe_oa
 * buffer-fill test finds the status clear on the read after the one that
 * reported the overflow, the buffer still full. i915 resets the buffer on an overflow (gen8_oa_read()), xe
 * reads on (__xe_oa_read()). Whether the unit stops or overwrites when full
 * only silicon can tell; the kernels' handling assumes it stops.
 * Reports of a size that does not divide the ring (192 bytes) wrap across
 * its end, as on MTL's OAM.
 */
#ifndef GPD_SIM_OA_BUFFER_H
#define GPD_SIM_OA_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPD_OA_BUFFER_MIN_SIZE (128u * 1024)
#define GPD_OA_BUFFER_MAX_SIZE (16u * 1024 * 1024)

struct gpd_oa_buffer {
	unsigned char *mem;
	bool lent;                      /* mem is not its own to free */
	size_t size;                    /* bytes, a power of two */
	size_t report_size;
	/* Byte positions since the last reset; the ring offset is the
	 * position modulo size. */
	uint64_t head, tail;
	bool overflow;
	/* Dropping reports: full since a report found no room. */
	bool dropping;
};

/* Allocates a zeroed buffer. -EINVAL for a size out of range or no power
 * of two, or a report size of 0 or above a quarter of the buffer; -ENOMEM. */
int gpd_oa_buffer_init(struct gpd_oa_buffer *buf, size_t size, size_t report_size);

/* The same over mem, size bytes of zeros that stay the lender's: free
 * leaves them zero again. */
int gpd_oa_buffer_init_lent(struct gpd_oa_buffer *buf, unsigned char *mem,
			    size_t size, size_t report_size);

void gpd_oa_buffer_free(struct gpd_oa_buffer *buf);

/*
 * Where the next report goes when it lands whole at the tail: the unit
 * writes it there, then gpd_oa_buffer_commit() makes it readable. NULL
 * when the ring is full (gpd_oa_buffer_push() then drops it, flagging the
 * overflow) or the report would wrap across the ring's end (push copies
 * it in two parts).
 */
unsigned char *gpd_oa_buffer_tail_slot(struct gpd_oa_buffer *buf);
void gpd_oa_buffer_commit(struct gpd_oa_buffer *buf);

/* Zeroes the memory, empties the ring and clears the overflow flag. */
void gpd_oa_buffer_reset(struct gpd_oa_buffer *buf);

/* Whole reports between head and tail. */
static inline size_t gpd_oa_buffer_reports(const struct gpd_oa_buffer *buf)
{
	return (size_t)((buf->tail - buf->head) / buf->report_size);
}

/* No room for another report. */
static inline bool gpd_oa_buffer_full(const struct gpd_oa_buffer *buf)
{
	return buf->tail - buf->head + 2 * buf->report_size > buf->size;
}

/* Writes one report at the tail; on a full ring drops it and returns
 * -ENOSPC, setting the overflow flag if it is the first dropped since a
 * report landed. */
int gpd_oa_buffer_push(struct gpd_oa_buffer *buf, const void *report);

/* Copies the report at the head into out. The ring must not be empty. */
void gpd_oa_buffer_peek(const struct gpd_oa_buffer *buf, void *out);

/* Releases the report at the head. Like i915, zeroes the copied report's
 * ID and timestamp dwords (all of it for sizes that are no power of two),
 * which is how the reader tells landed reports from stale memory. */
void gpd_oa_buffer_pop(struct gpd_oa_buffer *buf);

#endif
