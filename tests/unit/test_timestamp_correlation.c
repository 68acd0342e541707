/*
 * GPU to CPU time through correlation points: anchoring the extended
 * report time line to the full GPU timestamp, before and after reports,
 * across wraps, and the interpolation between two points.
 */
#include <errno.h>
#include <stdint.h>

#include "metrics/timestamp_correlation.h"
#include "tests/unit/test_util.h"

#define FREQ 12000000ull
#define MASK32 0xffffffffull

static uint64_t cpu_at(const struct gpm_ts_correlation *c, uint64_t line)
{
	uint64_t ns = 0;
	ck_assert_int_eq(gpm_ts_correlation_cpu_ns(c, line, &ns), 0);
	return ns;
}

START_TEST(test_needs_point_and_report)
{
	struct gpm_ts_correlation c;
	struct gpm_recording_correlation p = { 5000, 0x100 };
	uint64_t ns;

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	ck_assert_int_eq(gpm_ts_correlation_cpu_ns(&c, 0, &ns), -ENODATA);
	gpm_ts_correlation_point(&c, &p);
	ck_assert_int_eq(gpm_ts_correlation_cpu_ns(&c, 0, &ns), -ENODATA);
	gpm_ts_correlation_report(&c, 0x200, 0x200);
	ck_assert_int_eq(gpm_ts_correlation_cpu_ns(&c, 0x200, &ns), 0);

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	gpm_ts_correlation_report(&c, 0x200, 0x200);
	ck_assert_int_eq(gpm_ts_correlation_cpu_ns(&c, 0x200, &ns), -ENODATA);
}
END_TEST

/* One point: the nominal frequency carries time from it, both ways. */
START_TEST(test_one_point)
{
	struct gpm_ts_correlation c;
	/* the register's upper bits are what reports lack */
	struct gpm_recording_correlation p = { 1000000000, 0x500000100 };

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	gpm_ts_correlation_point(&c, &p);
	gpm_ts_correlation_report(&c, 0x100 + 12000, 7);
	/* the report is 12000 ticks = 1 ms after the point */
	ck_assert_uint_eq(cpu_at(&c, 7), 1001000000);
	ck_assert_uint_eq(cpu_at(&c, 7 + 1200), 1001100000);
	ck_assert_uint_eq(cpu_at(&c, 0),
			  1000000000 + 11993 * 1000000000ull / FREQ);
}
END_TEST

/* Two points: linear between them, whatever the nominal frequency says. */
START_TEST(test_two_points)
{
	struct gpm_ts_correlation c;
	struct gpm_recording_correlation a = { 2000000000, 0x300000000 };
	struct gpm_recording_correlation b = { 2001000000, 0x300002000 };

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	gpm_ts_correlation_point(&c, &a);
	gpm_ts_correlation_report(&c, 0x1000, 0x1000);
	gpm_ts_correlation_point(&c, &b);
	/* 0x2000 ticks in 1 ms */
	ck_assert_uint_eq(cpu_at(&c, 0x1000), 2000500000);
	ck_assert_uint_eq(cpu_at(&c, 0x3000), 2001500000);
	/* a third point drops the oldest */
	struct gpm_recording_correlation d = { 2003000000, 0x300004000 };
	gpm_ts_correlation_point(&c, &d);
	ck_assert_uint_eq(cpu_at(&c, 0x3000), 2002000000);
}
END_TEST

/* Reports wrap 32 bits; the extended line and the full register agree
 * across the wrap, from a point before it and a point after. */
START_TEST(test_across_wrap)
{
	struct gpm_ts_correlation c;
	struct gpm_recording_correlation a = { 100000000000, 0x7fffff000 };

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	gpm_ts_correlation_point(&c, &a);
	/* first report at 0x7fffff800: the extended line starts there */
	gpm_ts_correlation_report(&c, 0xfffff800, 0xfffff800);
	gpm_ts_correlation_report(&c, 0x00000800, 0x100000800);
	ck_assert_uint_eq(cpu_at(&c, 0x100000800),
			  100000000000 + 0x1800 * 1000000000ull / FREQ);
	/* a point after the wrap, met after a report: the report is the
	 * wrap-distance before it */
	struct gpm_recording_correlation b = { 100000000000 + 1000000,
					       0x800000000 + 0x1000 };
	gpm_ts_correlation_point(&c, &b);
	ck_assert_uint_eq(cpu_at(&c, 0x100001000), b.cpu_ns);
	ck_assert_uint_eq(cpu_at(&c, 0xfffff000), a.cpu_ns);
}
END_TEST

/* A gap the extended line could not see (a lost buffer longer than a
 * wrap) is repaired by the next point. */
START_TEST(test_reanchor_after_gap)
{
	struct gpm_ts_correlation c;
	struct gpm_recording_correlation a = { 1000000000000, 0x100000000 };

	gpm_ts_correlation_init(&c, FREQ, MASK32);
	gpm_ts_correlation_point(&c, &a);
	gpm_ts_correlation_report(&c, 0x10, 0x10);
	/* two wraps later the line only moved 0x10 ticks */
	gpm_ts_correlation_report(&c, 0x20, 0x20);
	struct gpm_recording_correlation b = { a.cpu_ns + 2 * 357913941333ull +
					       1000, 0x300000030 };
	gpm_ts_correlation_point(&c, &b);
	ck_assert_uint_eq(cpu_at(&c, 0x30), b.cpu_ns);
}
END_TEST

/* DG2 and MTL: 31 usable bits after the shift. */
START_TEST(test_31_bit_reports)
{
	struct gpm_ts_correlation c;
	struct gpm_recording_correlation a = { 50000000000, 0x87ffffff0 };

	gpm_ts_correlation_init(&c, FREQ, 0x7fffffff);
	gpm_ts_correlation_point(&c, &a);
	/* 0x20 ticks later the 31-bit field has wrapped to 0x10 */
	gpm_ts_correlation_report(&c, 0x10, 0x80000010);
	ck_assert_uint_eq(cpu_at(&c, 0x80000010),
			  50000000000 + 0x20 * 1000000000ull / FREQ);
}
END_TEST

static Suite *timestamp_correlation_suite(void)
{
	Suite *s = suite_create("timestamp_correlation");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_needs_point_and_report);
	tcase_add_test(tc, test_one_point);
	tcase_add_test(tc, test_two_points);
	tcase_add_test(tc, test_across_wrap);
	tcase_add_test(tc, test_reanchor_after_gap);
	tcase_add_test(tc, test_31_bit_reports);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(timestamp_correlation_suite)
