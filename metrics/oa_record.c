/*
 * OA record framing (see oa_record.h).
 */
#include "metrics/oa_record.h"

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

size_t gpm_oa_record_put_header(unsigned char *p, enum gpm_oa_record_type type,
				uint16_t size)
{
	gpm__le32_store(p, (uint32_t)type);
	gpm__le16_store(p + 4, 0);
	gpm__le16_store(p + 6, size);
	return GPM_OA_RECORD_HEADER_SIZE;
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
