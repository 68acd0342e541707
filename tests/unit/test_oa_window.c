/*
 * Windows: each way of cutting (pairs, intervals, context runs, marks),
 * loss marking and no delta across a BUFFER_LOST, timestamp wraps, flush.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_window.h"
#include "tests/unit/test_oa.h"
#include "tests/unit/test_util.h"

#define MAX_WINDOWS 64

struct collected {
	unsigned n;
	struct gpm_oa_window w[MAX_WINDOWS];
};

static void collect(void *data, const struct gpm_oa_window *window)
{
	struct collected *c = data;

	ck_assert_uint_lt(c->n, MAX_WINDOWS);
	c->w[c->n++] = *window;
}

/* The report format the windows are cut from on Graphics IP version. */
static enum gpm_oa_format_id format_of(unsigned version)
{
	return version >= 1255 ? GPM_OA_FORMAT_A24u40_A14u32_B8_C8
			       : GPM_OA_FORMAT_A32u40_A4u32_B8_C8;
}

struct fixture {
	struct gpm_oa_decoder dec;
	struct gpm_oa_windower w;
	struct collected got;
};

static void setup(struct fixture *f, unsigned version, enum gpm_oa_window_mode mode,
		  uint64_t interval)
{
	memset(f, 0, sizeof(*f));
	f->dec = test_oa_decoder(format_of(version), version);
	ck_assert_int_eq(gpm_oa_windower_init(&f->w, &f->dec, mode, interval,
					      collect, &f->got), 0);
}

/* Feeds a report at raw timestamp ts whose A4 counter (40 bits on every
 * platform used here) reads a4 and B0 reads ts / 10. */
static void feed_full(struct fixture *f, uint32_t ts, uint64_t a4, uint32_t ctx,
		      bool valid, uint32_t reason)
{
	struct gpm_oa_report r;
	unsigned char bytes[256];

	memset(&r, 0, sizeof(r));
	r.reason = reason;
	r.ctx_id = ctx;
	r.ctx_valid = valid;
	r.value[GPM_ACC_GPU_TIME] = ts;
	r.value[GPM_ACC_GPU_CLOCK] = (uint32_t)(ts * 3u);
	r.value[GPM_ACC_A + 4] = a4;
	r.value[GPM_ACC_B + 0] = ts / 10;
	ck_assert_int_eq(gpm_oa_report_encode(&f->dec, &r, bytes, sizeof(bytes)), 0);
	ck_assert_int_eq(gpm_oa_windower_feed(&f->w, bytes, sizeof(bytes)), 0);
}

static void feed(struct fixture *f, uint32_t ts, uint64_t a4)
{
	feed_full(f, ts, a4, 1, true, GPM_OA_REASON_TIMER);
}

static void feed_ctx(struct fixture *f, uint32_t ts, uint32_t ctx, bool valid)
{
	feed_full(f, ts, ts, ctx, valid, GPM_OA_REASON_TIMER);
}

static void assert_window(const struct gpm_oa_window *w, uint64_t start, uint64_t end,
			  uint32_t n, uint64_t a4)
{
	ck_assert_uint_eq(w->start_ts, start);
	ck_assert_uint_eq(w->end_ts, end);
	ck_assert_uint_eq(w->n_reports, n);
	ck_assert_uint_eq(w->acc.slot[GPM_ACC_A + 4], a4);
}

START_TEST(test_init_errors)
{
	struct fixture f;
	struct gpm_oa_decoder none = { 0 };

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	ck_assert_int_eq(gpm_oa_windower_init(&f.w, &f.dec, GPM_OA_WINDOW_INTERVAL, 0,
					      collect, &f.got), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_init(&f.w, &f.dec, GPM_OA_WINDOW_PAIR, 0,
					      NULL, &f.got), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_init(&f.w, &none, GPM_OA_WINDOW_PAIR, 0,
					      collect, &f.got), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_init(&f.w, &f.dec, 17, 0, collect, &f.got),
			 -EINVAL);
}
END_TEST

START_TEST(test_feed_error)
{
	struct fixture f;
	unsigned char bytes[256] = { 0 };

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	feed(&f, 100, 5);
	ck_assert_int_eq(gpm_oa_windower_feed(&f.w, bytes, 255), -EMSGSIZE);
	feed(&f, 200, 7);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 100, 200, 1, 2);
}
END_TEST

START_TEST(test_pairs)
{
	static const uint64_t a4[] = { 0, 10, 30, 60, 100 };
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	for (unsigned i = 0; i < 5; i++)
		feed_full(&f, 1000 + 100 * i, a4[i], 7 + i, true, GPM_OA_REASON_TIMER);
	ck_assert_uint_eq(f.got.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		const struct gpm_oa_window *w = &f.got.w[i];

		assert_window(w, 1000 + 100 * i, 1100 + 100 * i, 1, a4[i + 1] - a4[i]);
		ck_assert_uint_eq(w->acc.slot[GPM_ACC_GPU_TIME], 100);
		ck_assert_uint_eq(w->acc.slot[GPM_ACC_GPU_CLOCK], 300);
		ck_assert_uint_eq(w->acc.slot[GPM_ACC_B + 0], 10);
		ck_assert_uint_eq(w->ctx_id, 7 + i);
		ck_assert_uint_eq(w->reports_lost + w->buffers_lost, 0);
	}
	gpm_oa_windower_flush(&f.w);
	ck_assert_uint_eq(f.got.n, 4);
}
END_TEST

START_TEST(test_40bit_wrap_in_window)
{
	struct fixture f;
	const uint64_t top = ((uint64_t)1 << 40) - 1;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 1000);
	feed(&f, 0, top - 5);
	feed(&f, 100, top);
	feed(&f, 200, 10);
	feed(&f, 1000, 20);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 0, 1000, 3, 26);
}
END_TEST

START_TEST(test_intervals)
{
	struct fixture f;
	uint64_t total = 0;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 250);
	for (unsigned i = 0; i <= 10; i++)
		feed(&f, 1000 + 100 * i, (uint64_t)i * i);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 4);
	assert_window(&f.got.w[0], 1000, 1300, 3, 9);
	assert_window(&f.got.w[1], 1300, 1500, 2, 25 - 9);
	assert_window(&f.got.w[2], 1500, 1800, 3, 64 - 25);
	assert_window(&f.got.w[3], 1800, 2000, 2, 100 - 64);
	for (unsigned i = 0; i < f.got.n; i++) {
		ck_assert_uint_eq(f.got.w[i].acc.slot[GPM_ACC_GPU_TIME],
				  f.got.w[i].end_ts - f.got.w[i].start_ts);
		ck_assert_uint_eq(f.got.w[i].ctx_id, GPM_OA_CTX_NONE);
		total += f.got.w[i].acc.slot[GPM_ACC_A + 4];
	}
	ck_assert_uint_eq(total, 100);
}
END_TEST

/* Windows on the extended time line run on through a 32-bit wrap. */
START_TEST(test_intervals_across_wrap)
{
	struct fixture f;
	uint64_t ts = 0xffffff00, time = 0;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 0x100);
	for (unsigned i = 0; i < 16; i++, ts += 0x40)
		feed(&f, (uint32_t)ts, i);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 4);
	for (unsigned i = 0; i < f.got.n; i++) {
		const struct gpm_oa_window *w = &f.got.w[i];

		ck_assert_uint_eq(w->start_ts, 0xffffff00ull + 0x100 * i);
		ck_assert_uint_eq(w->end_ts, w->start_ts + (i < 3 ? 0x100 : 0xc0));
		ck_assert_uint_eq(w->acc.slot[GPM_ACC_GPU_TIME], w->end_ts - w->start_ts);
		time += w->acc.slot[GPM_ACC_GPU_TIME];
	}
	ck_assert_uint_eq(f.got.w[3].end_ts, 0xffffff00ull + 15 * 0x40);
	ck_assert_uint_eq(time, 15 * 0x40);
}
END_TEST

/* DG2: extended time is the shifted 31-bit timestamp; GPU_TIME the
 * shifted field delta. */
/* DG2: the field's own ticks, all 32 bits, wrapping like any other. */
START_TEST(test_dg2_intervals)
{
	struct fixture f;

	setup(&f, 1255, GPM_OA_WINDOW_INTERVAL, 100);
	feed(&f, 0xffffff00u, 0);
	feed(&f, 0x00000000u, 1);       /* ticks 0x100000000, extended */
	feed(&f, 0x00000100u, 2);
	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 0xffffff00, 0x100000000, 1, 1);
	ck_assert_uint_eq(f.got.w[0].acc.slot[GPM_ACC_GPU_TIME], 0x100);
	assert_window(&f.got.w[1], 0x100000000, 0x100000100, 1, 1);
	ck_assert_uint_eq(f.got.w[1].acc.slot[GPM_ACC_GPU_TIME], 0x100);
}
END_TEST

START_TEST(test_context_runs)
{
	struct fixture f;

	/* Gen12: squashed reports (valid clear, ctx all ones) are idle. */
	setup(&f, 1200, GPM_OA_WINDOW_CONTEXT, 0);
	feed_ctx(&f, 100, 1, true);
	feed_ctx(&f, 200, 1, true);
	feed_ctx(&f, 300, 2, true);             /* switch-in report of 2 */
	feed_ctx(&f, 400, 2, true);
	feed_ctx(&f, 500, GPM_OA_CTX_NONE, false);
	feed_ctx(&f, 600, GPM_OA_CTX_NONE, false);
	feed_ctx(&f, 700, 1, true);
	feed_full(&f, 800, 800, 0xabcd, false, GPM_OA_REASON_MMIO_TRIGGER);
	feed_ctx(&f, 900, 1, true);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 4);
	assert_window(&f.got.w[0], 100, 300, 2, 200);
	ck_assert_uint_eq(f.got.w[0].ctx_id, 1);
	assert_window(&f.got.w[1], 300, 500, 2, 200);
	ck_assert_uint_eq(f.got.w[1].ctx_id, 2);
	assert_window(&f.got.w[2], 500, 700, 2, 200);
	ck_assert_uint_eq(f.got.w[2].ctx_id, GPM_OA_CTX_NONE);
	/* The MMIO-triggered report stays in context 1's run. */
	assert_window(&f.got.w[3], 700, 900, 2, 200);
	ck_assert_uint_eq(f.got.w[3].ctx_id, 1);
}
END_TEST

/* Valid bit clear with a context in the field: idle before Xe_HP, still
 * the context on DG2, where the bit only marks switch-in reports. */
START_TEST(test_context_valid_bit_per_platform)
{
	struct fixture f;

	setup(&f, 900, GPM_OA_WINDOW_CONTEXT, 0);
	feed_ctx(&f, 100, 5, true);
	feed_ctx(&f, 200, 5, false);
	feed_ctx(&f, 300, 5, true);
	gpm_oa_windower_flush(&f.w);
	ck_assert_uint_eq(f.got.n, 2);
	ck_assert_uint_eq(f.got.w[0].ctx_id, 5);
	ck_assert_uint_eq(f.got.w[1].ctx_id, GPM_OA_CTX_NONE);

	setup(&f, 1255, GPM_OA_WINDOW_CONTEXT, 0);
	feed_ctx(&f, 100, 5, true);
	feed_ctx(&f, 200, 5, false);
	feed_ctx(&f, 300, 5, false);
	feed_ctx(&f, 400, 6, true);
	gpm_oa_windower_flush(&f.w);
	ck_assert_uint_eq(f.got.n, 1);
	ck_assert_uint_eq(f.got.w[0].ctx_id, 5);
	assert_window(&f.got.w[0], 100, 400, 3, 300);
}
END_TEST

START_TEST(test_pair_losses)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	feed(&f, 100, 1);
	feed(&f, 200, 2);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_REPORT);
	feed(&f, 400, 4);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_BUFFER);
	feed(&f, 900, 9);
	feed(&f, 1000, 10);

	ck_assert_uint_eq(f.got.n, 3);
	assert_window(&f.got.w[0], 100, 200, 1, 1);
	ck_assert_uint_eq(f.got.w[0].reports_lost + f.got.w[0].buffers_lost, 0);
	/* Across a lost report the delta stands. */
	assert_window(&f.got.w[1], 200, 400, 1, 2);
	ck_assert_uint_eq(f.got.w[1].reports_lost, 1);
	ck_assert_uint_eq(f.got.w[1].buffers_lost, 0);
	/* The pair 400 -> 900 straddles the lost buffer: dropped, and the
	 * loss is told with the next pair. */
	assert_window(&f.got.w[2], 900, 1000, 1, 1);
	ck_assert_uint_eq(f.got.w[2].reports_lost, 0);
	ck_assert_uint_eq(f.got.w[2].buffers_lost, 1);
}
END_TEST

START_TEST(test_interval_buffer_lost)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 10000);
	feed(&f, 100, 10);
	feed(&f, 200, 20);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_BUFFER);
	feed(&f, 5000, 5000);
	feed(&f, 5100, 5010);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_REPORT);
	feed(&f, 5300, 5030);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 100, 5300, 3, 10 + 10 + 20);
	ck_assert_uint_eq(f.got.w[0].acc.slot[GPM_ACC_GPU_TIME], 100 + 100 + 200);
	ck_assert_uint_eq(f.got.w[0].buffers_lost, 1);
	ck_assert_uint_eq(f.got.w[0].reports_lost, 1);
}
END_TEST

/* A report past the deadline right after a lost buffer has no delta into
 * the window: the window ends at its last report, the next starts there. */
START_TEST(test_interval_buffer_lost_at_boundary)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 1000);
	feed(&f, 100, 10);
	feed(&f, 200, 20);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_BUFFER);
	feed(&f, 1500, 1500);
	feed(&f, 1600, 1600);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 100, 200, 1, 10);
	ck_assert_uint_eq(f.got.w[0].buffers_lost, 1);
	assert_window(&f.got.w[1], 1500, 1600, 1, 100);
	ck_assert_uint_eq(f.got.w[1].buffers_lost, 0);
}
END_TEST

/* A window that took no pair before its buffer was lost still goes out:
 * it is what tells of the loss. */
START_TEST(test_window_of_a_loss_alone)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_INTERVAL, 1000);
	feed(&f, 100, 10);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_BUFFER);
	feed(&f, 1500, 1500);
	feed(&f, 1600, 1600);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 100, 100, 0, 0);
	ck_assert_uint_eq(f.got.w[0].buffers_lost, 1);
	assert_window(&f.got.w[1], 1500, 1600, 1, 100);
	ck_assert_uint_eq(f.got.w[1].buffers_lost, 0);
}
END_TEST

START_TEST(test_context_buffer_lost)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_CONTEXT, 0);
	feed_ctx(&f, 100, 1, true);
	feed_ctx(&f, 200, 1, true);
	gpm_oa_windower_loss(&f.w, GPM_OA_LOSS_BUFFER);
	feed_ctx(&f, 300, 2, true);
	feed_ctx(&f, 400, 2, true);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 100, 200, 1, 100);
	ck_assert_uint_eq(f.got.w[0].ctx_id, 1);
	ck_assert_uint_eq(f.got.w[0].buffers_lost, 1);
	assert_window(&f.got.w[1], 300, 400, 1, 100);
	ck_assert_uint_eq(f.got.w[1].ctx_id, 2);
}
END_TEST

START_TEST(test_records)
{
	struct fixture f;
	struct gpm_oa_report r;
	unsigned char bytes[256];
	struct gpm_oa_record rec = { .type = GPM_OA_RECORD_SAMPLE, .size = 8 + 256,
				     .payload = bytes, .payload_size = 256 };
	struct gpm_oa_record lost = { .type = GPM_OA_RECORD_REPORT_LOST, .size = 8 };
	struct gpm_oa_record other = { .type = 65539, .size = 24 };

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < 2; i++) {
		r.value[GPM_ACC_GPU_TIME] = 100 * (i + 1);
		ck_assert_int_eq(gpm_oa_report_encode(&f.dec, &r, bytes, sizeof(bytes)), 0);
		ck_assert_int_eq(gpm_oa_windower_record(&f.w, &rec), 0);
		ck_assert_int_eq(gpm_oa_windower_record(&f.w, &lost), 0);
		ck_assert_int_eq(gpm_oa_windower_record(&f.w, &other), 0);
	}
	lost.type = GPM_OA_RECORD_BUFFER_LOST;
	ck_assert_int_eq(gpm_oa_windower_record(&f.w, &lost), 0);
	rec.payload_size = 128;
	ck_assert_int_eq(gpm_oa_windower_record(&f.w, &rec), -EMSGSIZE);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 100, 200, 1, 0);
	ck_assert_uint_eq(f.got.w[0].reports_lost, 1);
	/* Losses after the last pair come out on flush, in an empty window. */
	assert_window(&f.got.w[1], 200, 200, 0, 0);
	ck_assert_uint_eq(f.got.w[1].reports_lost, 1);
	ck_assert_uint_eq(f.got.w[1].buffers_lost, 1);
}
END_TEST

/* A report exactly at a mark's end is inside it, as one at its begin. */
START_TEST(test_mark_edges_inclusive)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_MARKS, 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 300), 0);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 600), 0);
	for (unsigned i = 1; i <= 7; i++)
		feed(&f, 100 * i, 10 * i);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 300, 600, 3, 30);
}
END_TEST

START_TEST(test_marks)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_MARKS, 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 250), 0);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 650), 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 700), 0);
	for (unsigned i = 0; i <= 6; i++)
		feed(&f, 100 * i, 10 * i * i);
	/* Reports 300..600 lie within the first mark. */
	ck_assert_uint_eq(f.got.n, 0);
	feed(&f, 700, 490);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 300, 600, 3, 360 - 90);
	ck_assert_uint_eq(f.got.w[0].ctx_id, GPM_OA_CTX_NONE);

	/* The second mark is open-ended until its end arrives. */
	feed(&f, 800, 640);
	feed(&f, 900, 810);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 950), 0);
	ck_assert_uint_eq(f.got.n, 1);
	feed(&f, 1000, 1000);
	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[1], 700, 900, 2, 810 - 490);

	/* Reports outside any mark count nowhere. */
	feed(&f, 1100, 1210);
	gpm_oa_windower_flush(&f.w);
	ck_assert_uint_eq(f.got.n, 2);
}
END_TEST

/* An end mark that arrives after reports past it already closes the
 * window, with what it summed. */
START_TEST(test_mark_end_late)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_MARKS, 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 100), 0);
	for (unsigned i = 1; i <= 5; i++)
		feed(&f, 100 * i, i);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 300), 0);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 100, 500, 4, 4);

	/* The queue is free again. */
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 600), 0);
	feed(&f, 600, 6);
	feed(&f, 700, 8);
	gpm_oa_windower_flush(&f.w);
	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[1], 600, 700, 1, 2);
	/* flush ended the mark: an end now has nothing to end. */
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 800), -EINVAL);
}
END_TEST

START_TEST(test_mark_errors)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 1), -EINVAL);

	setup(&f, 1200, GPM_OA_WINDOW_MARKS, 0);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 10), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 100), 0);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 200), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 99), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 200), 0);
	ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 300), -EINVAL);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 199), -EINVAL);
	for (unsigned i = 1; i < GPM_OA_WINDOW_MAX_MARKS; i++) {
		ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 1000 * i), 0);
		ck_assert_int_eq(gpm_oa_windower_mark_end(&f.w, 1000 * i + 10), 0);
	}
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 1000000), -ENOSPC);

	/* Every queued mark gets its window. */
	for (unsigned i = 0; i < GPM_OA_WINDOW_MAX_MARKS; i++) {
		uint32_t t = i ? 1000 * i : 150;

		feed(&f, t, t);
		feed(&f, t + 5, t + 5);
	}
	feed(&f, 1000000, 0);
	ck_assert_uint_eq(f.got.n, GPM_OA_WINDOW_MAX_MARKS);
	for (unsigned i = 0; i < GPM_OA_WINDOW_MAX_MARKS; i++)
		ck_assert_uint_eq(f.got.w[i].n_reports, 1);
	ck_assert_int_eq(gpm_oa_windower_mark_begin(&f.w, 2000000), 0);
}
END_TEST

/* flush mid-stream: the open window goes out and the next one starts at
 * the last report, so no delta is lost or counted twice. */
START_TEST(test_flush_mid_stream)
{
	struct fixture f;

	setup(&f, 1200, GPM_OA_WINDOW_CONTEXT, 0);
	feed(&f, 100, 1);
	feed(&f, 200, 2);
	gpm_oa_windower_flush(&f.w);
	feed(&f, 300, 4);
	gpm_oa_windower_flush(&f.w);
	gpm_oa_windower_flush(&f.w);

	ck_assert_uint_eq(f.got.n, 2);
	assert_window(&f.got.w[0], 100, 200, 1, 1);
	assert_window(&f.got.w[1], 200, 300, 1, 2);
	ck_assert_uint_eq(f.got.w[1].ctx_id, 1);
}
END_TEST

/* Windows of a long stream, kept in full for comparing. */
struct window_log {
	size_t n, cap;
	struct gpm_oa_window *w;
};

static void log_window(void *data, const struct gpm_oa_window *window)
{
	struct window_log *log = data;

	if (log->n == log->cap) {
		log->cap = log->cap ? 2 * log->cap : 256;
		log->w = realloc(log->w, log->cap * sizeof(*log->w));
		ck_assert_ptr_nonnull(log->w);
	}
	log->w[log->n++] = *window;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

enum stream_event { EV_REPORT, EV_REPORT_LOST, EV_BUFFER_LOST, EV_MARK, EV_FLUSH };

/*
 * Runs of reports give the windows their reports one at a time give, in
 * every mode: a random stream of reports (context switches, idle, counters
 * and timestamps wrapping) with losses, marks and flushes between them, fed
 * one by one to one windower and in runs of any length to another.
 */
START_TEST(test_runs_equal_single_reports)
{
	enum { N_EVENTS = 6000, STRIDE = 8 + 256 };
	static const enum gpm_oa_window_mode modes[] = {
		GPM_OA_WINDOW_PAIR, GPM_OA_WINDOW_INTERVAL,
		GPM_OA_WINDOW_CONTEXT, GPM_OA_WINDOW_MARKS,
	};
	enum gpm_oa_window_mode mode = modes[_i % 4];
	unsigned version = _i < 4 ? 1200 : 1255;
	unsigned char *reports = malloc((size_t)N_EVENTS * STRIDE);
	enum stream_event *events = malloc(N_EVENTS * sizeof(*events));
	struct gpm_oa_windower *one = malloc(sizeof(*one)), *runs = malloc(sizeof(*runs));
	struct window_log log_one = { 0 }, log_runs = { 0 };
	struct gpm_oa_decoder dec = test_oa_decoder(format_of(version), version);
	const struct gpm_oa_format *fmt = dec.format;
	struct gpm_oa_report r;
	uint64_t mark_ts = 0;

	ck_assert_ptr_nonnull(reports);
	ck_assert_ptr_nonnull(events);
	ck_assert_int_eq(gpm_oa_windower_init(one, &dec, mode, 1000, log_window, &log_one), 0);
	ck_assert_int_eq(gpm_oa_windower_init(runs, &dec, mode, 1000, log_window, &log_runs), 0);

	memset(&r, 0, sizeof(r));
	r.value[GPM_ACC_GPU_TIME] = 0xffff0000u;
	for (size_t e = 0; e < N_EVENTS; e++) {
		unsigned pick = (unsigned)(rng() % 200);

		events[e] = pick == 0 ? EV_REPORT_LOST : pick == 1 ? EV_BUFFER_LOST :
			    pick == 2 ? EV_FLUSH : pick < 6 ? EV_MARK : EV_REPORT;
		if (events[e] != EV_REPORT)
			continue;
		r.value[GPM_ACC_GPU_TIME] = (r.value[GPM_ACC_GPU_TIME] + rng() % 300) & 0xffffffff;
		r.ctx_id = rng() % 16 ? r.ctx_id : (uint32_t)(rng() % 3);
		r.ctx_valid = rng() % 8;
		r.reason = GPM_OA_REASON_TIMER;
		for (unsigned g = 0; g < fmt->n_groups; g++) {
			const struct gpm_oa_counter_group *grp = &fmt->group[g];
			uint64_t max = ((uint64_t)1 << grp->width) - 1;

			for (unsigned i = 0; i < grp->count; i++) {
				uint64_t *v = &r.value[grp->slot + i];
				*v = (rng() % 64 ? *v + (rng() & ((uint64_t)1 << (rng() % 36)))
						 : rng()) & max;
			}
		}
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, reports + e * STRIDE + 8,
						      fmt->size), 0);
	}

	for (size_t e = 0; e < N_EVENTS;) {
		switch (events[e]) {
		case EV_REPORT: {
			size_t n = 1 + rng() % 40;
			size_t k = 0;

			while (k < n && e + k < N_EVENTS && events[e + k] == EV_REPORT) {
				const unsigned char *p = reports + (e + k) * STRIDE + 8;
				ck_assert_int_eq(gpm_oa_windower_feed(one, p, fmt->size), 0);
				k++;
			}
			ck_assert_int_eq(gpm_oa_windower_feed_run(runs, reports + e * STRIDE + 8,
								  STRIDE, k, fmt->size), 0);
			e += k;
			continue;
		}
		case EV_REPORT_LOST:
		case EV_BUFFER_LOST: {
			unsigned loss = events[e] == EV_REPORT_LOST ? GPM_OA_LOSS_REPORT
								    : GPM_OA_LOSS_BUFFER;
			gpm_oa_windower_loss(one, loss);
			gpm_oa_windower_loss(runs, loss);
			break;
		}
		case EV_MARK:
			if (mode != GPM_OA_WINDOW_MARKS)
				break;
			if (one->mark_end_pending) {
				uint64_t end = one->prev_ts + rng() % 3000;
				mark_ts = end > mark_ts ? end : mark_ts;
				ck_assert_int_eq(gpm_oa_windower_mark_end(one, mark_ts), 0);
				ck_assert_int_eq(gpm_oa_windower_mark_end(runs, mark_ts), 0);
			} else if (one->n_marks < GPM_OA_WINDOW_MAX_MARKS) {
				uint64_t begin = one->prev_ts + rng() % 2000;
				mark_ts = begin > mark_ts ? begin : mark_ts;
				ck_assert_int_eq(gpm_oa_windower_mark_begin(one, mark_ts), 0);
				ck_assert_int_eq(gpm_oa_windower_mark_begin(runs, mark_ts), 0);
			}
			break;
		case EV_FLUSH:
			gpm_oa_windower_flush(one);
			gpm_oa_windower_flush(runs);
			break;
		}
		e++;
	}
	gpm_oa_windower_flush(one);
	gpm_oa_windower_flush(runs);

	ck_assert_uint_gt(log_one.n, 20);
	ck_assert_uint_eq(log_runs.n, log_one.n);
	for (size_t i = 0; i < log_one.n; i++)
		ck_assert_mem_eq(&log_runs.w[i], &log_one.w[i], sizeof(log_one.w[i]));
	free(log_one.w);
	free(log_runs.w);
	free(one);
	free(runs);
	free(events);
	free(reports);
}
END_TEST

START_TEST(test_run_errors)
{
	struct fixture f;
	unsigned char bytes[512] = { 0 };

	setup(&f, 1200, GPM_OA_WINDOW_PAIR, 0);
	ck_assert_int_eq(gpm_oa_windower_feed_run(&f.w, bytes, 256, 2, 255), -EMSGSIZE);
	ck_assert_int_eq(gpm_oa_windower_feed_run(&f.w, bytes, 256, 0, 256), 0);
	feed(&f, 100, 5);
	feed(&f, 200, 7);
	ck_assert_uint_eq(f.got.n, 1);
	assert_window(&f.got.w[0], 100, 200, 1, 2);
}
END_TEST

static Suite *oa_window_suite(void)
{
	Suite *s = suite_create("oa_window");
	TCase *tc = tcase_create("windows");

	tcase_add_test(tc, test_init_errors);
	tcase_add_test(tc, test_feed_error);
	tcase_add_test(tc, test_pairs);
	tcase_add_test(tc, test_40bit_wrap_in_window);
	tcase_add_test(tc, test_intervals);
	tcase_add_test(tc, test_intervals_across_wrap);
	tcase_add_test(tc, test_dg2_intervals);
	tcase_add_test(tc, test_context_runs);
	tcase_add_test(tc, test_context_valid_bit_per_platform);
	tcase_add_test(tc, test_pair_losses);
	tcase_add_test(tc, test_interval_buffer_lost);
	tcase_add_test(tc, test_interval_buffer_lost_at_boundary);
	tcase_add_test(tc, test_context_buffer_lost);
	tcase_add_test(tc, test_window_of_a_loss_alone);
	tcase_add_test(tc, test_mark_edges_inclusive);
	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_marks);
	tcase_add_test(tc, test_mark_end_late);
	tcase_add_test(tc, test_mark_errors);
	tcase_add_test(tc, test_flush_mid_stream);
	tcase_add_loop_test(tc, test_runs_equal_single_reports, 0, 8);
	tcase_add_test(tc, test_run_errors);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_window_suite)
