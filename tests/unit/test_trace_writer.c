/*
 * The Perfetto trace writer: nothing timed before a clock snapshot, chunks
 * of bounded size however long the trace, the track cap, window counters
 * that must be counter tracks, and write failures that stick.
 */
#include <errno.h>
#include <string.h>

#include "metrics/trace_writer.h"
#include "tests/unit/test_util.h"

struct sink {
	size_t calls, bytes, largest;
	int fail_with;
};

static int to_sink(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;
	if (s->fail_with)
		return s->fail_with;
	s->calls++;
	s->bytes += len;
	if (len > s->largest)
		s->largest = len;
	return 0;
}

static uint64_t counter(struct gpm_trace_writer *w, uint64_t parent,
			const char *name, enum gpm_trace_counter_kind kind)
{
	uint64_t t = gpm_trace_counter_track(w, parent, name, "", 0, kind,
					     (struct gpm_trace_unit){
						     .kind = GPM_TRACE_UNIT_COUNT });
	ck_assert_uint_ne(t, 0);
	return t;
}

START_TEST(test_events_wait_for_a_clock)
{
	struct gpm_trace_writer w;
	struct sink s = { 0 };

	ck_assert_int_eq(gpm_trace_writer_init(&w, 1, to_sink, &s), 0);
	uint64_t dev = gpm_trace_track(&w, 0, "GPU", "", 0);
	uint64_t reports = counter(&w, dev, "reports", GPM_TRACE_COUNTER_INT);
	ck_assert_int_eq(gpm_trace_set_window_counters(&w, reports, NULL, 0), 0);
	ck_assert_int_eq(gpm_trace_window(&w, 100, 1, NULL), -EAGAIN);
	ck_assert_int_eq(gpm_trace_instant(&w, dev, 100, "x", NULL, 0), -EAGAIN);
	ck_assert(!gpm_trace_clock_known(&w));
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
	ck_assert_uint_eq(s.bytes, 0);

	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 100, 200, false, 0), 0);
	ck_assert(gpm_trace_clock_known(&w));
	ck_assert_int_eq(gpm_trace_window(&w, 100, 1, NULL), 0);
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
	ck_assert_uint_gt(s.bytes, 0);
	ck_assert_uint_eq(gpm_trace_bytes_written(&w), s.bytes);
	gpm_trace_writer_fini(&w);
}
END_TEST

START_TEST(test_chunks_stay_bounded)
{
	struct gpm_trace_writer w;
	struct sink s = { 0 };
	union gpm_trace_value v[8];

	ck_assert_int_eq(gpm_trace_writer_init(&w, 2, to_sink, &s), 0);
	uint64_t dev = gpm_trace_track(&w, 0, "GPU", "", 0);
	uint64_t reports = counter(&w, dev, "reports", GPM_TRACE_COUNTER_INT);
	uint64_t c[8];
	for (int i = 0; i < 8; i++)
		c[i] = counter(&w, dev, "c", i % 2 ? GPM_TRACE_COUNTER_DOUBLE
						   : GPM_TRACE_COUNTER_INT);
	ck_assert_int_eq(gpm_trace_set_window_counters(&w, reports, c, 8), 0);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 0, 0, true, 0), 0);
	for (uint64_t k = 0; k < 200000; k++) {
		for (int i = 0; i < 8; i++) {
			if (i % 2)
				v[i].d = (double)(k * 2654435761u % 1000003) / 7.0;
			else
				v[i].i = (int64_t)(k * 40503u % 65537);
		}
		ck_assert_int_eq(gpm_trace_window(&w, k * 1000, (int64_t)k, v), 0);
	}
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
	/* Written as it went, a chunk at a time, none past the chunk size. */
	ck_assert_uint_gt(s.calls, 10);
	ck_assert_uint_le(s.largest, GPM_TRACE_CHUNK_SIZE + 1024);
	gpm_trace_writer_fini(&w);
}
END_TEST

START_TEST(test_track_limits)
{
	struct gpm_trace_writer w;
	struct sink s = { 0 };

	ck_assert_int_eq(gpm_trace_writer_init(&w, 3, to_sink, &s), 0);
	uint64_t plain = gpm_trace_track(&w, 0, "GPU", "", 0);
	uint64_t reports = counter(&w, plain, "reports", GPM_TRACE_COUNTER_INT);
	uint64_t doubles = counter(&w, plain, "d", GPM_TRACE_COUNTER_DOUBLE);
	ck_assert_int_eq(gpm_trace_set_window_counters(&w, reports, &plain, 1),
			 -EINVAL);
	ck_assert_int_eq(gpm_trace_set_window_counters(&w, doubles, NULL, 0),
			 -EINVAL);
	ck_assert_uint_eq(gpm_trace_track(&w, 12345, "orphan", "", 0), 0);
	for (size_t i = 3; i < GPM_TRACE_MAX_TRACKS; i++)
		ck_assert_uint_ne(gpm_trace_track(&w, plain, "t", "", 0), 0);
	ck_assert_uint_eq(gpm_trace_track(&w, plain, "one too many", "", 0), 0);
	gpm_trace_writer_fini(&w);
}
END_TEST

START_TEST(test_write_failures_stick)
{
	struct gpm_trace_writer w;
	struct sink s = { 0 };

	ck_assert_int_eq(gpm_trace_writer_init(&w, 4, to_sink, &s), 0);
	uint64_t dev = gpm_trace_track(&w, 0, "GPU", "", 0);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 0, 0, false, 0), 0);
	ck_assert_int_eq(gpm_trace_instant(&w, dev, 1, "x", NULL, 0), 0);
	s.fail_with = -ENOSPC;
	ck_assert_int_eq(gpm_trace_flush(&w), -ENOSPC);
	s.fail_with = 0;
	ck_assert_int_eq(gpm_trace_instant(&w, dev, 2, "x", NULL, 0), -ENOSPC);
	ck_assert_int_eq(gpm_trace_flush(&w), -ENOSPC);
	ck_assert_uint_eq(s.bytes, 0);
	gpm_trace_writer_fini(&w);
}
END_TEST

static Suite *trace_writer_suite(void)
{
	Suite *s = suite_create("trace_writer");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_events_wait_for_a_clock);
	tcase_add_test(tc, test_chunks_stay_bounded);
	tcase_add_test(tc, test_track_limits);
	tcase_add_test(tc, test_write_failures_stick);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(trace_writer_suite)
