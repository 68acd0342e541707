/*
 * The request rate limit: bursts of twice the rate, then the rate.
 */
#include "daemon/net/rate_limit.h"
#include "tests/unit/test_util.h"

START_TEST(bursts_then_the_rate)
{
	struct gpd_rate_limit r;
	uint64_t t = 1000000000ull;
	gpd_rate_limit_init(&r, 10, t);
	for (int i = 0; i < 20; i++)
		ck_assert(gpd_rate_limit_take(&r, t));
	ck_assert(!gpd_rate_limit_take(&r, t));
	/* A tenth of a second earns one request. */
	ck_assert(!gpd_rate_limit_take(&r, t + 50000000ull));
	ck_assert(gpd_rate_limit_take(&r, t + 100000000ull));
	ck_assert(!gpd_rate_limit_take(&r, t + 100000000ull));
	/* A long pause refills no more than the burst. */
	t += 100ull * 1000000000ull;
	for (int i = 0; i < 20; i++)
		ck_assert(gpd_rate_limit_take(&r, t));
	ck_assert(!gpd_rate_limit_take(&r, t));
	/* So does a pause that would earn between one and two bursts. */
	t += 3ull * 1000000000ull;
	for (int i = 0; i < 20; i++)
		ck_assert(gpd_rate_limit_take(&r, t));
	ck_assert(!gpd_rate_limit_take(&r, t));
	/* Time going backwards earns nothing. */
	ck_assert(!gpd_rate_limit_take(&r, t - 1000000000ull));
}
END_TEST

static Suite *rate_limit_suite(void)
{
	Suite *s = suite_create("rate_limit");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, bursts_then_the_rate);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(rate_limit_suite)
