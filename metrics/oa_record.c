/*
 * OA record framing (see oa_record.h).
 */
#include "metrics/oa_record.h"

#include <errno.h>

#include "metrics/little_endian.h"

void gpm_oa_record_reader_init(struct gpm_oa_record_reader *rd,
			       enum gpm_oa_framing framing, size_t report_size,
			       const void *buf, size_t len)
{
	rd->framing = framing;
	rd->report_size = report_size;
	rd->buf = buf;
	rd->len = len;
	rd->offset = 0;
}

static int next_xe(struct gpm_oa_record_reader *rd, struct gpm_oa_record *rec)
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

static int next_i915(struct gpm_oa_record_reader *rd, struct gpm_oa_record *rec)
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

size_t gpm_oa_record_put_header(unsigned char *p, enum gpm_oa_record_type type,
				uint16_t size)
{
	gpm__le32_store(p, (uint32_t)type);
	gpm__le16_store(p + 4, 0);
	gpm__le16_store(p + 6, size);
	return GPM_OA_RECORD_HEADER_SIZE;
}

int gpm_oa_record_next(struct gpm_oa_record_reader *rd, struct gpm_oa_record *rec)
{
	if (rd->offset == rd->len)
		return 0;
	return rd->framing == GPM_OA_FRAMING_XE ? next_xe(rd, rec) : next_i915(rd, rec);
}

unsigned gpm_oa_xe_status_loss(uint64_t oa_status)
{
	unsigned loss = 0;

	if (oa_status & (GPM_OA_XE_STATUS_REPORT_LOST | GPM_OA_XE_STATUS_MMIO_TRG_Q_FULL))
		loss |= GPM_OA_LOSS_REPORT;
	if (oa_status & GPM_OA_XE_STATUS_BUFFER_OVERFLOW)
		loss |= GPM_OA_LOSS_BUFFER;
	return loss;
}
