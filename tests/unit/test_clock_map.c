/*
 * Mapping OA timestamps onto CPU time from when reports were read: the
 * tightest read wins, late reads never pull the mapping late, and the
 * mapping follows two clocks drifting apart.
 */
#include <stdint.h>

#include "daemon/clock_map.h"
#include "tests/unit/test_util.h"

#define FREQ 12000000ull                /* Gen9's 12 MHz */
#define NS_PER_TICK (1e9 / FREQ)
#define START_CPU 5000000000ull         /* the CPU time of tick START_TS */
#define START_TS 0x80000000ull

static uint64_t seed = 99;

static uint64_t rng(void)
{
	return test_xorshift64(&seed);
}

/* The CPU time the map gives a tick, less the true one. */
static double error_ns(const struct gpd_clock_map *m, uint64_t ts, double true_ns)
{
	uint64_t cpu;

	ck_assert(gpd_clock_map_cpu_time(m, ts, &cpu));
	return (double)cpu - true_ns;
}

START_TEST(nothing_before_the_first_report)
{
	struct gpd_clock_map m;
	uint64_t v;

	gpd_clock_map_reset(&m, FREQ);
	ck_assert(!gpd_clock_map_cpu_time(&m, START_TS, &v));
	ck_assert(!gpd_clock_map_ticks(&m, START_CPU, &v));
	gpd_clock_map_observe(&m, START_TS, START_CPU);
	ck_assert(gpd_clock_map_cpu_time(&m, START_TS, &v));
	ck_assert_uint_eq(v, START_CPU);
	gpd_clock_map_reset(&m, FREQ);
	ck_assert(!gpd_clock_map_cpu_time(&m, START_TS, &v));
}
END_TEST

/*
 * Reads every 5 ms of a unit sampling every 100 us: the newest report of a
 * read is up to a period old plus up to 2 ms of scheduling, and now and
 * then a read is 50 ms late. The map lands within the freshest read's
 * delay of the truth, and stays there.
 */
START_TEST(the_tightest_read_wins)
{
	struct gpd_clock_map m;

	gpd_clock_map_reset(&m, FREQ);
	for (unsigned i = 1; i <= 2000; i++) {
		double true_read_ns = (double)START_CPU + i * 5e6;
		double delay = (double)(rng() % 100000) + (double)(rng() % 2000000);
		if (rng() % 50 == 0)
			delay += 50e6;
		uint64_t ts = START_TS + (uint64_t)((true_read_ns - delay -
						     (double)START_CPU) / NS_PER_TICK);
		gpd_clock_map_observe(&m, ts, (uint64_t)true_read_ns);
		if (i > 50) {
			double e = error_ns(&m, ts, (double)START_CPU +
					    (double)(ts - START_TS) * NS_PER_TICK);
			ck_assert_msg(e >= -100 && e < 100000,
				      "read %u: %.0f ns off", i, e);
		}
	}
	/* And back: a CPU time to ticks and to CPU time again. */
	uint64_t ts, cpu;
	ck_assert(gpd_clock_map_ticks(&m, START_CPU + 3000000000ull, &ts));
	ck_assert(gpd_clock_map_cpu_time(&m, ts, &cpu));
	ck_assert_uint_le(START_CPU + 3000000000ull - cpu, 1000);
}
END_TEST

/* Late reads only, at first: the first read's newest report anchors it,
 * not its oldest. */
START_TEST(first_read_is_taken_at_its_newest)
{
	struct gpd_clock_map m;

	gpd_clock_map_reset(&m, FREQ);
	/* The read at START_CPU + 5 ms holds reports up to START_CPU + 4.9 ms. */
	uint64_t newest = START_TS + (uint64_t)(4.9e6 / NS_PER_TICK);
	gpd_clock_map_observe(&m, newest, START_CPU + 5000000);
	double e = error_ns(&m, START_TS, (double)START_CPU);
	ck_assert_msg(e >= 0 && e < 150000, "%.0f ns off", e);
}
END_TEST

/*
 * The GPU's clock runs 100 ppm slow against CPU time, read after read the
 * same 10 us after each report: over a minute the reads drift 6 ms from a
 * mapping that would hold on to its first bound; this one stays within
 * half a millisecond.
 */
START_TEST(follows_a_drifting_clock)
{
	struct gpd_clock_map m;

	gpd_clock_map_reset(&m, FREQ);
	for (unsigned i = 0; i <= 12000; i++) {
		double true_ns = i * 5e6;
		uint64_t ts = START_TS + (uint64_t)(true_ns * (1 - 100e-6) / NS_PER_TICK);
		uint64_t read = START_CPU + (uint64_t)true_ns + 10000;
		gpd_clock_map_observe(&m, ts, read);
		double e = error_ns(&m, ts, (double)START_CPU + true_ns);
		ck_assert_msg(e > -500000 && e < 500000, "%.1f s in: %.0f ns off",
			      true_ns / 1e9, e);
	}
}
END_TEST

static Suite *clock_map_suite(void)
{
	Suite *s = suite_create("clock_map");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, nothing_before_the_first_report);
	tcase_add_test(tc, the_tightest_read_wins);
	tcase_add_test(tc, first_read_is_taken_at_its_newest);
	tcase_add_test(tc, follows_a_drifting_clock);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(clock_map_suite)
