/*
 * read() and poll() on a simulated i915 perf stream: what the kernel makes
 * of the OA buffer and status bits (K5/K7 gen8_oa_read, gen8_append_oa_reports;
 * docs/oa-reference.md §1.5, §2.4); and the same buffer as xe reads it
 * (xe_oa.c __xe_oa_read(), xe_oa_append_reports()).
 */
#include <errno.h>
#include <string.h>

#include "daemon/sim/oa_model_internal.h"
#include "metrics/little_endian.h"
#include "metrics/oa_record.h"

/*
 * Applies the kernel's context rules to a report about to be copied out;
 * false when a single-context stream holds it back. Reports without a
 * valid context get ctx 0xffffffff where the kernel squashes them, so
 * that a stale ID never matches the filter; a filtered stream forwards
 * its context's reports, every context switch and the report after its
 * context's last one (which closes that context's last delta), hiding the
 * IDs of other contexts.
 */
static bool forward_report(struct gpd_oa_model *m, unsigned char *report)
{
	const struct gpm_oa_decoder *dec = &m->decoder;
	size_t ctx_offset = dec->format->ctx_offset;
	uint32_t dword0 = gpm__le32_load(report);
	uint32_t ctx_id = gpm__le32_load(report + ctx_offset);
	uint32_t reason = dword0 >> GPM_OA_REASON_SHIFT &
			  (uint32_t)((1ull << dec->reason_width) - 1);

	if (m->squash_invalid_context && !(dword0 & dec->ctx_valid_mask)) {
		ctx_id = GPM_OA_CTX_NONE;
		gpm__le32_store(report + ctx_offset, ctx_id);
	}
	/* gen7_append_oa_reports() forwards every report: Haswell's unit
	 * isolates the context itself, and its reports have no ID. */
	if (!m->filter_context || !dec->has_context)
		return true;
	if (ctx_id != m->filter_context_id &&
	    m->last_context_id != m->filter_context_id &&
	    !(reason & GPM_OA_REASON_CTX_SWITCH))
		return false;
	if (ctx_id != m->filter_context_id)
		gpm__le32_store(report + ctx_offset, GPM_OA_CTX_NONE);
	m->last_context_id = ctx_id;
	return true;
}

ssize_t gpd_oa_model_read(struct gpd_oa_model *m, void *buf, size_t len)
{
	struct gpd_oa_buffer *ring = &m->buffer;
	size_t report_size = ring->report_size;
	size_t record_size = GPM_OA_RECORD_HEADER_SIZE + report_size;
	unsigned char *out = buf;
	size_t off = 0;

	if (!m->enabled)
		return -EIO;

	if (ring->overflow) {
		if (len < GPM_OA_RECORD_HEADER_SIZE)
			return -ENOSPC;
		gpm_oa_record_put_header(out, GPM_OA_RECORD_BUFFER_LOST,
					 GPM_OA_RECORD_HEADER_SIZE);
		off += GPM_OA_RECORD_HEADER_SIZE;
		/* The kernel disables and re-enables the unit: the buffer
		 * restarts empty and zeroed, and the status it reads again
		 * afterwards is clear, REPORT_LOST included. */
		gpd_oa_buffer_reset(ring);
		m->overrun = false;
		m->report_lost = false;
		m->last_context_id = GPM_OA_CTX_NONE;
	}
	if (m->report_lost) {
		if (len - off < GPM_OA_RECORD_HEADER_SIZE)
			return off ? (ssize_t)off : -ENOSPC;
		gpm_oa_record_put_header(out + off, GPM_OA_RECORD_REPORT_LOST,
					 GPM_OA_RECORD_HEADER_SIZE);
		off += GPM_OA_RECORD_HEADER_SIZE;
		m->report_lost = false;
	}

	bool short_buffer = false;
	unsigned char held[GPM_OA_MAX_REPORT_SIZE];
	while (gpd_oa_buffer_reports(ring)) {
		/* Straight into its record where one fits; a report that a
		 * filter drops needs no room. */
		bool room = len - off >= record_size;
		unsigned char *report = room ? out + off + GPM_OA_RECORD_HEADER_SIZE
					     : held;
		gpd_oa_buffer_peek(ring, report);
		/* Last context only moves for forwarded reports, and a report
		 * that does not fit stays in the buffer for the next read. */
		uint32_t last_context = m->last_context_id;
		if (forward_report(m, report)) {
			if (!room) {
				m->last_context_id = last_context;
				short_buffer = true;
				break;
			}
			gpm_oa_record_put_header(out + off, GPM_OA_RECORD_SAMPLE,
						 (uint16_t)record_size);
			off += record_size;
		}
		gpd_oa_buffer_pop(ring);
	}

	if (off)
		return (ssize_t)off;
	return short_buffer ? -ENOSPC : -EAGAIN;
}

size_t gpd_oa_model_pending_bytes(const struct gpd_oa_model *m)
{
	const struct gpd_oa_buffer *ring = &m->buffer;

	if (!m->enabled)
		return 0;
	/* An overflow resets the buffer: BUFFER_LOST is all that read
	 * returns then. */
	if (ring->overflow)
		return GPM_OA_RECORD_HEADER_SIZE;
	return (m->report_lost ? GPM_OA_RECORD_HEADER_SIZE : 0) +
	       gpd_oa_buffer_reports(ring) *
	       (GPM_OA_RECORD_HEADER_SIZE + ring->report_size);
}

uint64_t gpd_oa_model_take_status(struct gpd_oa_model *m)
{
	uint64_t status = (m->buffer.overflow ? GPM_OA_XE_STATUS_BUFFER_OVERFLOW : 0) |
			  (m->report_lost ? GPM_OA_XE_STATUS_REPORT_LOST : 0);

	m->buffer.overflow = false;
	m->overrun = false;
	m->report_lost = false;
	return status;
}

ssize_t gpd_oa_model_read_reports(struct gpd_oa_model *m, void *buf, size_t len)
{
	struct gpd_oa_buffer *ring = &m->buffer;
	unsigned char *out = buf;
	size_t off = 0;

	if (!gpd_oa_buffer_reports(ring))
		return -EAGAIN;
	while (gpd_oa_buffer_reports(ring) && len - off >= ring->report_size) {
		gpd_oa_buffer_peek(ring, out + off);
		gpd_oa_buffer_pop(ring);
		off += ring->report_size;
	}
	return off ? (ssize_t)off : -ENOSPC;
}

size_t gpd_oa_model_pending_reports(const struct gpd_oa_model *m)
{
	return gpd_oa_buffer_reports(&m->buffer);
}
