/*
 * The sim's PRNG: the same seed gives the same stream, forks are
 * independent of their siblings, and the helpers stay in range.
 */
#include <math.h>

#include "daemon/sim/prng.h"
#include "tests/unit/test_util.h"

START_TEST(test_same_seed_same_stream)
{
	struct gpd_prng a, b, c;

	gpd_prng_seed(&a, 0);
	gpd_prng_seed(&b, 0);
	gpd_prng_seed(&c, 1);
	unsigned differ = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = gpd_prng_next(&a);

		ck_assert_uint_eq(x, gpd_prng_next(&b));
		differ += x != gpd_prng_next(&c);
	}
	ck_assert_uint_gt(differ, 990);
}
END_TEST

START_TEST(test_forks_are_independent)
{
	struct gpd_prng a, b, a2;

	gpd_prng_fork(&a, 42, 1);
	gpd_prng_fork(&b, 42, 2);
	gpd_prng_fork(&a2, 42, 1);
	ck_assert_uint_ne(gpd_prng_next(&a), gpd_prng_next(&b));
	/* Drawing from one stream leaves a fresh fork of it unchanged. */
	for (int i = 0; i < 10; i++)
		gpd_prng_next(&b);
	gpd_prng_fork(&b, 42, 1);
	gpd_prng_next(&a2);
	ck_assert_uint_eq(gpd_prng_next(&a2), gpd_prng_next(&a));
}
END_TEST

START_TEST(test_ranges)
{
	struct gpd_prng p;
	unsigned hist[6] = { 0 };
	double sum = 0;

	gpd_prng_seed(&p, 7);
	for (int i = 0; i < 60000; i++) {
		double u = gpd_prng_unit(&p);
		double r = gpd_prng_range(&p, -2, 3);
		double e = gpd_prng_exponential(&p, 10);

		ck_assert(u >= 0 && u < 1);
		ck_assert(r >= -2 && r < 3);
		ck_assert(e >= 10.0 / 8 && e <= 40);
		sum += u;
		hist[gpd_prng_below(&p, 6)]++;
	}
	ck_assert(fabs(sum / 60000 - 0.5) < 0.01);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_gt(hist[i], 9500);
	ck_assert_uint_eq(gpd_prng_below(&p, 0), 0);
	ck_assert_uint_eq(gpd_prng_below(&p, 1), 0);
}
END_TEST

static Suite *prng_suite(void)
{
	Suite *s = suite_create("prng");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_same_seed_same_stream);
	tcase_add_test(tc, test_forks_are_independent);
	tcase_add_test(tc, test_ranges);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(prng_suite)
