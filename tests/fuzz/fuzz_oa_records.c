/*
 * Fuzzes the OA path from read() bytes to windows: arbitrary bytes split
 * into records (i915 framing, or xe's bare reports), each report decoded,
 * re-encoded and decoded again, and everything fed to a windower, reports
 * back to back in runs (a report whose first byte is odd starts a new one).
 *
 * Input: byte 0 picks the format, byte 1 the window mode (bits 0-1), xe
 * framing (bit 2) and the platform (bits 3-4), byte 2 the interval
 * (2^(byte % 40) ticks); the rest is the stream. In MARKS mode, i915
 * records of type 4 (begin) and 5 (end) with an 8-byte payload set marks.
 *
 * Checked beyond memory safety: decoding is stable under re-encoding;
 * every window is well formed; after the final flush every loss event was
 * counted in exactly one window; and, cutting by pairs, intervals or
 * contexts, the windows together hold exactly the deltas of all report
 * pairs not separated by a lost buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/oa_delta.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_window.h"
#include "tests/fuzz/fuzz_target.h"

#define MARK_BEGIN_RECORD 4
#define MARK_END_RECORD 5

/* Graphics versions to pair with each format: one per platform rule. */
static const unsigned versions[GPM_OA_FORMAT_COUNT][4] = {
	[GPM_OA_FORMAT_A45_B8_C8] = { 750, 750, 750, 750 },
	[GPM_OA_FORMAT_A32u40_A4u32_B8_C8] = { 800, 900, 1200, 1250 },
	[GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8] = { 1255, 1270, 1200, 1255 },
	[GPM_OA_FORMAT_A24u40_A14u32_B8_C8] = { 1255, 1270, 1255, 1270 },
	[GPM_OA_FORMAT_MPEC8u64_B8_C8] = { 1270, 1270, 2000, 1270 },
	[GPM_OA_FORMAT_MPEC8u32_B8_C8] = { 1270, 2000, 2000, 1270 },
	[GPM_OA_FORMAT_PEC64u64] = { 2000, 2000, 3000, 2000 },
	[GPM_OA_FORMAT_NVPM32u64] = { 0, 0, 0, 0 },
};

struct totals {
	uint64_t losses;                /* loss events counted by windows */
	uint64_t n_reports;
	struct gpm_accumulator acc;
};

static struct gpm_oa_windower windower;
/* Reports not yet fed: n of them, stride bytes apart from first. */
static struct {
	const unsigned char *first;
	size_t stride, n, size;
} run;
static struct gpm_oa_report prev, cur, again;
static struct totals fed, seen;
static unsigned char encoded[GPM_OA_MAX_REPORT_SIZE];

static void on_window(void *data, const struct gpm_oa_window *w)
{
	struct totals *t = data;

	if (w->start_ts > w->end_ts)
		abort();
	if (!w->n_reports && !w->reports_lost && !w->buffers_lost)
		abort();
	if (windower.mode == GPM_OA_WINDOW_PAIR && w->n_reports > 1)
		abort();
	t->losses += (uint64_t)w->reports_lost + w->buffers_lost;
	t->n_reports += w->n_reports;
	for (unsigned i = 0; i < GPM_ACC_SLOTS; i++)
		t->acc.slot[i] += w->acc.slot[i];
}

static void same_or_abort(const struct gpm_oa_decoder *dec, const struct gpm_oa_report *a,
			  const struct gpm_oa_report *b)
{
	const struct gpm_oa_format *fmt = dec->format;

	if (a->report_id != b->report_id || a->reason != b->reason ||
	    a->ctx_id != b->ctx_id || a->ctx_valid != b->ctx_valid ||
	    a->timestamp != b->timestamp ||
	    a->value[GPM_ACC_GPU_TIME] != b->value[GPM_ACC_GPU_TIME])
		abort();
	for (unsigned g = 0; g < fmt->n_groups; g++)
		for (unsigned i = 0; i < fmt->group[g].count; i++)
			if (a->value[fmt->group[g].slot + i] != b->value[fmt->group[g].slot + i])
				abort();
}

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Checks one report's decoding and keeps the reference sum of deltas. */
static void reference_report(const struct gpm_oa_decoder *dec, const unsigned char *bytes,
			     size_t size, int *have_prev)
{
	if (gpm_oa_report_decode(dec, bytes, size, &cur))
		return;
	if (gpm_oa_report_encode(dec, &cur, encoded, sizeof(encoded)))
		abort();
	if (gpm_oa_report_decode(dec, encoded, dec->format->size, &again))
		abort();
	same_or_abort(dec, &cur, &again);

	if (*have_prev) {
		gpm_oa_delta_add(dec, &prev, &cur, &fed.acc);
		fed.n_reports++;
	}
	prev = cur;
	*have_prev = 1;
}

static void feed_run(void)
{
	if (run.n && gpm_oa_windower_feed_run(&windower, run.first, run.stride, run.n,
					      run.size))
		abort();
	run.n = 0;
}

/* Queues a SAMPLE's report behind the run when it follows it in memory. */
static void queue_report(const struct gpm_oa_record *rec)
{
	if (!run.n || rec->payload != run.first + run.n * rec->size ||
	    (rec->payload[0] & 1)) {
		feed_run();
		run.first = rec->payload;
		run.stride = rec->size;
		run.size = rec->payload_size;
	}
	run.n++;
}

static void loss(unsigned losses, int *have_prev)
{
	if (losses & GPM_OA_LOSS_REPORT)
		fed.losses++;
	if (losses & GPM_OA_LOSS_BUFFER) {
		fed.losses++;
		*have_prev = 0;
	}
	gpm_oa_windower_loss(&windower, losses);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	int have_prev = 0;

	if (size < 3)
		return 0;
	if (gpm_oa_format_get((enum gpm_oa_format_id)(data[0] % GPM_OA_FORMAT_COUNT), &fmt) ||
	    gpm_oa_decoder_init(&dec, fmt, versions[fmt->id][(data[1] >> 3) & 3]))
		abort();

	enum gpm_oa_window_mode mode = (enum gpm_oa_window_mode)(data[1] & 3);
	enum gpm_oa_framing framing = data[1] & 4 ? GPM_OA_FRAMING_XE : GPM_OA_FRAMING_I915;
	uint64_t interval = (uint64_t)1 << (data[2] % 40);

	memset(&fed, 0, sizeof(fed));
	memset(&seen, 0, sizeof(seen));
	if (gpm_oa_windower_init(&windower, &dec, mode, interval, on_window, &seen))
		abort();

	run.n = 0;
	gpm_oa_record_reader_init(&rd, framing, fmt->size, data + 3, size - 3);
	while (gpm_oa_record_next(&rd, &rec) == 1) {
		if (rec.type == GPM_OA_RECORD_SAMPLE) {
			reference_report(&dec, rec.payload, rec.payload_size, &have_prev);
			queue_report(&rec);
			/* xe tells of loss out of band; let a report's byte
			 * stand in for the status ioctl. */
			if (framing == GPM_OA_FRAMING_XE && rec.payload[rec.payload_size - 1] & 0x80) {
				feed_run();
				loss(gpm_oa_xe_status_loss(rec.payload[rec.payload_size - 2]),
				     &have_prev);
			}
			continue;
		}
		feed_run();
		switch (rec.type) {
		case GPM_OA_RECORD_REPORT_LOST:
			loss(GPM_OA_LOSS_REPORT, &have_prev);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			loss(GPM_OA_LOSS_BUFFER, &have_prev);
			break;
		case MARK_BEGIN_RECORD:
		case MARK_END_RECORD:
			if (rec.payload_size != 8)
				break;
			if (rec.type == MARK_BEGIN_RECORD)
				gpm_oa_windower_mark_begin(&windower, load_u64(rec.payload));
			else
				gpm_oa_windower_mark_end(&windower, load_u64(rec.payload));
			break;
		default:
			if (gpm_oa_windower_record(&windower, &rec))
				abort();
			break;
		}
	}
	feed_run();
	if (rd.offset > rd.len)
		abort();
	gpm_oa_windower_flush(&windower);

	if (seen.losses != fed.losses)
		abort();
	if (mode != GPM_OA_WINDOW_MARKS) {
		if (seen.n_reports != fed.n_reports ||
		    memcmp(&seen.acc, &fed.acc, sizeof(seen.acc)))
			abort();
	}
	return 0;
}
