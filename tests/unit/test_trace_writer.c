/*
 * The Perfetto trace writer: nothing timed before a clock snapshot, chunks
 * of bounded size however long the trace, the track cap, window counters
 * that must be counter tracks, write failures that stick, counters
 * written at the precision of their kind, and values on CLOCK_MONOTONIC
 * before the GPU's clock is known.
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "metrics/trace_writer.h"
#include "proto/perfetto_trace.pb-c.h"
#include "tests/unit/test_util.h"

struct sink {
	size_t calls, bytes, largest;
	int fail_with;
	unsigned char *kept;            /* the bytes, where asked */
	size_t cap;
};

static int to_sink(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;
	if (s->fail_with)
		return s->fail_with;
	if (s->cap) {
		ck_assert_uint_le(s->bytes + len, s->cap);
		memcpy(s->kept + s->bytes, data, len);
	}
	s->calls++;
	s->bytes += len;
	if (len > s->largest)
		s->largest = len;
	return 0;
}

/* The extra double counter values of the trace's first window. */
static size_t first_window_doubles(const struct sink *s, double *out, size_t max)
{
	Gpuperf__Perfetto__Trace *outer =
		gpuperf__perfetto__trace__unpack(NULL, s->bytes, s->kept);
	size_t n = 0;
	ck_assert_ptr_nonnull(outer);
	for (size_t i = 0; i < outer->n_packet && !n; i++) {
		Gpuperf__Perfetto__TracePacket *p = outer->packet[i];
		if (p->data_case != GPUPERF__PERFETTO__TRACE_PACKET__DATA_COMPRESSED_PACKETS)
			continue;
		uLongf len = GPM_TRACE_CHUNK_SIZE * 2;
		unsigned char *plain = malloc(len);
		ck_assert_int_eq(uncompress(plain, &len, p->compressed_packets.data,
					    p->compressed_packets.len), Z_OK);
		Gpuperf__Perfetto__Trace *inner =
			gpuperf__perfetto__trace__unpack(NULL, len, plain);
		ck_assert_ptr_nonnull(inner);
		for (size_t k = 0; k < inner->n_packet && !n; k++) {
			Gpuperf__Perfetto__TracePacket *q = inner->packet[k];
			if (q->data_case != GPUPERF__PERFETTO__TRACE_PACKET__DATA_TRACK_EVENT)
				continue;
			Gpuperf__Perfetto__TrackEvent *te = q->track_event;
			if (!te->n_extra_double_counter_values)
				continue;
			for (; n < te->n_extra_double_counter_values && n < max; n++)
				out[n] = te->extra_double_counter_values[n];
		}
		gpuperf__perfetto__trace__free_unpacked(inner, NULL);
		free(plain);
	}
	gpuperf__perfetto__trace__free_unpacked(outer, NULL);
	return n;
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

/* Values on CLOCK_MONOTONIC (the usage stream's) may come before the
 * GPU's time is known, once a snapshot relates the CPU's clocks; events
 * on the GPU's clock still wait for one of it. */
START_TEST(test_monotonic_values_before_the_gpu_clock)
{
	struct gpm_trace_writer w;
	struct sink s = { 0 };
	union gpm_trace_value v = { .d = 0.5 };

	ck_assert_int_eq(gpm_trace_writer_init(&w, 6, to_sink, &s), 0);
	uint64_t dev = gpm_trace_track(&w, 0, "GPU", "", 0);
	uint64_t busy = counter(&w, dev, "busy", GPM_TRACE_COUNTER_DOUBLE);
	ck_assert_int_eq(gpm_trace_counter(&w, busy, GPM_TRACE_CLOCK_MONOTONIC,
					   100, v), -EAGAIN);
	ck_assert_int_eq(gpm_trace_cpu_clock_snapshot(&w, 100, true, 300), 0);
	ck_assert(!gpm_trace_clock_known(&w));
	ck_assert_int_eq(gpm_trace_counter(&w, busy, GPM_TRACE_CLOCK_MONOTONIC,
					   100, v), 0);
	ck_assert_int_eq(gpm_trace_counter(&w, busy, GPM_TRACE_CLOCK_GPU, 100, v),
			 -EAGAIN);
	ck_assert_int_eq(gpm_trace_instant_on(&w, dev, GPM_TRACE_CLOCK_MONOTONIC,
					      110, "note", NULL, 0), 0);
	ck_assert_int_eq(gpm_trace_instant(&w, dev, 110, "x", NULL, 0), -EAGAIN);
	/* A value goes to a counter track only. */
	ck_assert_int_eq(gpm_trace_counter(&w, dev, GPM_TRACE_CLOCK_MONOTONIC,
					   120, v), -EINVAL);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 5, 130, true, 330), 0);
	ck_assert_int_eq(gpm_trace_instant(&w, dev, 6, "x", NULL, 0), 0);
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
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

/* A counter the metric file declares float is written at float's
 * precision: its value's digits beyond that are the evaluation's, not the
 * hardware's, and would cost a trace of real counters more than its
 * budget. Doubles stay whole; what float cannot hold stays as it is. */
START_TEST(test_float_counters_at_float_precision)
{
	struct gpm_trace_writer w;
	struct sink s = { .cap = 1 << 16 };
	uint64_t c[5];
	union gpm_trace_value v[5] = {
		{ .d = 12.561150565385809 }, { .d = 12.561150565385809 },
		{ .d = 1e300 }, { .d = -0.1 }, { .d = 1.0 / 3.0 },
	};
	double got[5];

	s.kept = malloc(s.cap);
	ck_assert_int_eq(gpm_trace_writer_init(&w, 5, to_sink, &s), 0);
	uint64_t dev = gpm_trace_track(&w, 0, "GPU", "", 0);
	uint64_t reports = counter(&w, dev, "reports", GPM_TRACE_COUNTER_INT);
	c[0] = counter(&w, dev, "float", GPM_TRACE_COUNTER_FLOAT);
	c[1] = counter(&w, dev, "double", GPM_TRACE_COUNTER_DOUBLE);
	c[2] = counter(&w, dev, "huge float", GPM_TRACE_COUNTER_FLOAT);
	c[3] = counter(&w, dev, "negative float", GPM_TRACE_COUNTER_FLOAT);
	c[4] = counter(&w, dev, "third", GPM_TRACE_COUNTER_FLOAT);
	ck_assert_int_eq(gpm_trace_set_window_counters(&w, reports, c, 5), 0);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 0, 0, true, 0), 0);
	ck_assert_int_eq(gpm_trace_window(&w, 10, 1, v), 0);
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
	ck_assert_uint_eq(first_window_doubles(&s, got, 5), 5);
	ck_assert(got[0] == (double)(float)v[0].d);
	ck_assert(got[0] != v[0].d);
	ck_assert(got[1] == v[1].d);
	ck_assert(got[2] == 1e300);
	ck_assert(got[3] == (double)-0.1f);
	ck_assert(got[4] == (double)(1.0f / 3.0f));
	gpm_trace_writer_fini(&w);
	free(s.kept);
}
END_TEST

static Suite *trace_writer_suite(void)
{
	Suite *s = suite_create("trace_writer");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_events_wait_for_a_clock);
	tcase_add_test(tc, test_monotonic_values_before_the_gpu_clock);
	tcase_add_test(tc, test_chunks_stay_bounded);
	tcase_add_test(tc, test_track_limits);
	tcase_add_test(tc, test_write_failures_stick);
	tcase_add_test(tc, test_float_counters_at_float_precision);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(trace_writer_suite)
