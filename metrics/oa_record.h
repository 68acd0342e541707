/*
 * OA record framing: splitting what a read() of an OA stream returned into
 * reports and loss events.
 *
 * i915 frames each record with struct drm_i915_perf_record_header
 * {u32 type; u16 pad; u16 size} (size counts the header): a SAMPLE carries
 * one report, REPORT_LOST and BUFFER_LOST are bare headers. IGT recordings
 * store the same records, plus their own types from 65536 up. xe returns
 * bare reports back to back and tells of loss only through its status
 * ioctl, which gpm_oa_xe_status_loss() translates.
 *
 * The reader is a cursor over a caller's buffer; it never copies.
 */
#ifndef GPM_OA_RECORD_H
#define GPM_OA_RECORD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/little_endian.h"

/* enum drm_i915_perf_record_type */
enum gpm_oa_record_type {
	GPM_OA_RECORD_SAMPLE = 1,
	GPM_OA_RECORD_REPORT_LOST = 2,
	GPM_OA_RECORD_BUFFER_LOST = 3,
};

#define GPM_OA_RECORD_HEADER_SIZE 8

/* Writes struct drm_i915_perf_record_header {u32 type; u16 pad; u16 size}
 * at p, for sources that frame their own records; returns its size. */
size_t gpm_oa_record_put_header(unsigned char *p, enum gpm_oa_record_type type,
				uint16_t size);

enum gpm_oa_framing {
	GPM_OA_FRAMING_I915,            /* header + report records */
	GPM_OA_FRAMING_XE,              /* bare reports */
};

/* Loss events, as flags. */
enum gpm_oa_loss {
	/* The OA unit dropped reports; the counters ran on, so the delta
	 * across the gap is still right, only coarser. */
	GPM_OA_LOSS_REPORT = 1 << 0,
	/* The OA buffer overflowed and was reset: what came before is gone,
	 * no delta may be taken across it. */
	GPM_OA_LOSS_BUFFER = 1 << 1,
};

struct gpm_oa_record {
	uint32_t type;                  /* enum gpm_oa_record_type, or a type of IGT's */
	size_t size;                    /* the whole record (xe: the report) */
	const unsigned char *data;      /* the whole record (xe: the report) */
	const unsigned char *payload;   /* after the header; the report of a SAMPLE */
	size_t payload_size;
};

struct gpm_oa_record_reader {
	enum gpm_oa_framing framing;
	size_t report_size;
	const unsigned char *buf;
	size_t len;
	size_t offset;                  /* where the next record starts */
};

/* report_size: the stream's format size, what a SAMPLE must carry. */
void gpm_oa_record_reader_init(struct gpm_oa_record_reader *rd,
			       enum gpm_oa_framing framing, size_t report_size,
			       const void *buf, size_t len);

/* What gpm_oa_record_next() reads, inline: it runs once a report,
 * millions of times a second. */
static inline int gpm__oa_record_next_xe(struct gpm_oa_record_reader *rd,
					 struct gpm_oa_record *rec)
{
	size_t left = rd->len - rd->offset;

	if (!rd->report_size)
		return -EBADMSG;
	if (left < rd->report_size)
		return -EAGAIN;
	rec->type = GPM_OA_RECORD_SAMPLE;
	rec->size = rd->report_size;
	rec->data = rd->buf + rd->offset;
	rec->payload = rd->buf + rd->offset;
	rec->payload_size = rd->report_size;
	rd->offset += rd->report_size;
	return 1;
}

static inline int gpm__oa_record_next_i915(struct gpm_oa_record_reader *rd,
					   struct gpm_oa_record *rec)
{
	const unsigned char *p = rd->buf + rd->offset;
	size_t left = rd->len - rd->offset;

	if (left < GPM_OA_RECORD_HEADER_SIZE)
		return -EAGAIN;

	uint32_t type = gpm__le32_load(p);
	size_t size = gpm__le16_load(p + 6);

	switch (type) {
	case GPM_OA_RECORD_SAMPLE:
		if (size != GPM_OA_RECORD_HEADER_SIZE + rd->report_size)
			return -EBADMSG;
		break;
	case GPM_OA_RECORD_REPORT_LOST:
	case GPM_OA_RECORD_BUFFER_LOST:
		if (size != GPM_OA_RECORD_HEADER_SIZE)
			return -EBADMSG;
		break;
	default:
		/* A zero size would never advance. */
		if (size < GPM_OA_RECORD_HEADER_SIZE)
			return -EBADMSG;
		break;
	}
	if (left < size)
		return -EAGAIN;

	rec->type = type;
	rec->size = size;
	rec->data = p;
	rec->payload_size = size - GPM_OA_RECORD_HEADER_SIZE;
	rec->payload = rec->payload_size ? p + GPM_OA_RECORD_HEADER_SIZE : NULL;
	rd->offset += size;
	return 1;
}

/*
 * Reads the record at rd->offset. Returns 1 with *rec filled and the reader
 * past it; 0 at the end of the buffer; -EAGAIN when the buffer ends inside
 * a record (keep the bytes from rd->offset for the next read); -EBADMSG for
 * a record whose size does not fit its type (a SAMPLE not header + report,
 * a loss record not 8 bytes, any record shorter than its header, an xe
 * report_size of 0): rd->offset then gives its byte offset, and the reader
 * stays there, since the framing after it cannot be trusted. Types the
 * kernel does not define are returned as they are, for the caller to use
 * or skip.
 */
static inline int gpm_oa_record_next(struct gpm_oa_record_reader *rd,
				     struct gpm_oa_record *rec)
{
	if (rd->offset == rd->len)
		return 0;
	return rd->framing == GPM_OA_FRAMING_XE ? gpm__oa_record_next_xe(rd, rec)
						 : gpm__oa_record_next_i915(rd, rec);
}

/* xe's drm_xe_oa_stream_status.oa_status bits. */
enum gpm_oa_xe_status {
	GPM_OA_XE_STATUS_REPORT_LOST = 1 << 0,
	GPM_OA_XE_STATUS_BUFFER_OVERFLOW = 1 << 1,
	GPM_OA_XE_STATUS_COUNTER_OVERFLOW = 1 << 2,
	GPM_OA_XE_STATUS_MMIO_TRG_Q_FULL = 1 << 3,
};

/*
 * The loss events (enum gpm_oa_loss flags) an xe status word stands for:
 * REPORT_LOST and a full MMIO-trigger queue dropped reports; an overflow
 * of the buffer broke its continuity. COUNTER_OVERFLOW loses no report and
 * maps to nothing; callers surface it on their own.
 */
unsigned gpm_oa_xe_status_loss(uint64_t oa_status);

#endif
