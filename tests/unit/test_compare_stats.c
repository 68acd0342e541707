/*
 * gpuperf compare's statistics: the Hodges-Lehmann shift and its exact
 * Mann-Whitney interval, on samples whose answer is known.
 */
#include <errno.h>
#include <math.h>

#include "client/compare_stats.h"
#include "tests/unit/test_util.h"

START_TEST(a_pure_shift_is_found)
{
	const double x[] = { 10, 11, 12, 13, 14 };
	const double y[] = { 20, 21, 22, 23, 24 };
	struct gpuperf_shift s;

	ck_assert_int_eq(gpuperf_shift_estimate(x, 5, y, 5, 0.95, &s), 0);
	ck_assert_double_eq(s.baseline_median, 12);
	ck_assert_double_eq(s.result_median, 22);
	ck_assert_double_eq(s.shift, 10);
	ck_assert(s.has_interval);
	/* 5 and 5: P(U <= 2) = 4/252 <= 2.5% < P(U <= 3) = 7/252, so the
	 * interval runs from the 3rd smallest of the 25 differences (7) to
	 * the 3rd largest (13). */
	ck_assert_double_eq(s.low, 7);
	ck_assert_double_eq(s.high, 13);
	ck_assert_double_eq_tol(s.confidence, 0.95, 1e-12);
}
END_TEST

START_TEST(one_sample_has_no_interval)
{
	const double x[] = { 1, 2, 3 };
	const double y[] = { 1, 2, 3 };
	struct gpuperf_shift s;

	ck_assert_int_eq(gpuperf_shift_estimate(x, 1, y, 1, 0.95, &s), 0);
	ck_assert(!s.has_interval);
	ck_assert_int_eq(gpuperf_shift_estimate(x, 3, y, 3, 0.95, &s), 0);
	ck_assert(!s.has_interval);
	ck_assert_double_eq(s.shift, 0);
	ck_assert_uint_eq(gpuperf_shift_min_samples(0.95), 4);
	ck_assert_uint_eq(gpuperf_shift_min_samples(0.90), 4);
	ck_assert_uint_eq(gpuperf_shift_min_samples(0.99), 5);
	ck_assert_int_eq(gpuperf_shift_estimate(x, 0, y, 3, 0.95, &s), -EINVAL);
	ck_assert_int_eq(gpuperf_shift_estimate(x, 3, y, 3, 1, &s), -EINVAL);
}
END_TEST

/* Samples of one distribution: the interval holds no shift of note. */
START_TEST(noise_is_not_a_shift)
{
	const double x[] = { 100, 93, 108, 97, 104, 91 };
	const double y[] = { 96, 109, 92, 103, 99, 106 };
	struct gpuperf_shift s;

	ck_assert_int_eq(gpuperf_shift_estimate(x, 6, y, 6, 0.95, &s), 0);
	ck_assert(s.has_interval);
	ck_assert(s.low < 0 && s.high > 0);
}
END_TEST

START_TEST(medians)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	ck_assert_double_eq(gpuperf_median(odd, 3), 2);
	ck_assert_double_eq(gpuperf_median(even, 4), 2.5);
	ck_assert(isnan(gpuperf_median(odd, 0)));
}
END_TEST

static Suite *compare_stats_suite(void)
{
	Suite *s = suite_create("compare_stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_pure_shift_is_found);
	tcase_add_test(tc, one_sample_has_no_interval);
	tcase_add_test(tc, noise_is_not_a_shift);
	tcase_add_test(tc, medians);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(compare_stats_suite)
