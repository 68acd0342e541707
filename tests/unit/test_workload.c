/*
 * The sim workload: busy phases and idle stretches, context switches among
 * distinct IDs, utilization in [0, 1] moving without jumps, the clock in
 * the GPU's range and steps, determinism, and refused configs.
 */
#include <errno.h>
#include <math.h>

#include "daemon/sim/workload.h"
#include "tests/unit/test_util.h"

static const struct gpd_workload_clocks clocks = {
	.timestamp_frequency = 19200000,
	.gpu_min_freq = 300000000,
	.gpu_max_freq = 1300000000,
};

struct tally {
	unsigned switches, resubmits, idles;
	uint64_t idle_ticks, busy_ticks;
	double max_jump;
};

/* Walks the workload over ticks, checking each stretch. */
static struct tally walk(struct gpd_workload *wl, uint64_t ticks)
{
	struct tally t = { 0 };
	double last_util = gpd_workload_utilization(wl, 0);

	while (gpd_workload_now(wl) < ticks) {
		uint64_t from = gpd_workload_now(wl), to = gpd_workload_next_change(wl);

		ck_assert_uint_gt(to, from);
		if (gpd_workload_idle(wl)) {
			t.idle_ticks += to - from;
		} else {
			double u0 = gpd_workload_utilization(wl, (double)from);
			double u1 = gpd_workload_utilization(wl, (double)to);

			ck_assert(u0 >= 0 && u0 <= 1 && u1 >= 0 && u1 <= 1);
			/* Utilization moves on ramps, never jumps mid-phase. */
			if (fabs(u0 - last_util) > t.max_jump && last_util > 0)
				t.max_jump = fabs(u0 - last_util);
			last_util = u1;
			ck_assert_uint_lt(gpd_workload_context(wl), gpd_workload_n_contexts(wl));
			t.busy_ticks += to - from;
		}
		unsigned ev = gpd_workload_advance(wl, to);
		t.switches += !!(ev & GPD_WORKLOAD_CONTEXT_SWITCH);
		t.resubmits += !!(ev & GPD_WORKLOAD_CONTEXT_RESUBMIT);
		t.idles += !!(ev & GPD_WORKLOAD_IDLE);
		if (ev & GPD_WORKLOAD_IDLE)
			last_util = 0;
	}
	return t;
}

START_TEST(test_phases_and_switches)
{
	struct gpd_workload wl;

	ck_assert_int_eq(gpd_workload_init(&wl, NULL, &clocks, 1), 0);
	ck_assert_uint_eq(gpd_workload_n_contexts(&wl), 3);
	/* Ten seconds of the defaults. */
	struct tally t = walk(&wl, 10 * clocks.timestamp_frequency);

	ck_assert_uint_gt(t.switches, 1000);
	ck_assert_uint_gt(t.resubmits, 300);
	ck_assert_uint_gt(t.idles, 20);
	ck_assert_uint_gt(t.idle_ticks, t.busy_ticks / 20);
	ck_assert_uint_lt(t.idle_ticks, t.busy_ticks);
	ck_assert(t.max_jump < 1e-9);
}
END_TEST

START_TEST(test_context_ids)
{
	struct gpd_workload_config cfg = {
		.n_contexts = 8,
		.context_ids = { 0, 5, 0, 6, 0, 0, 0, 0 },
	};
	struct gpd_workload wl;

	ck_assert_int_eq(gpd_workload_init(&wl, &cfg, &clocks, 3), 0);
	ck_assert_uint_eq(gpd_workload_context_id(&wl, 1), 5);
	ck_assert_uint_eq(gpd_workload_context_id(&wl, 3), 6);
	for (unsigned i = 0; i < 8; i++) {
		uint32_t id = gpd_workload_context_id(&wl, i);

		ck_assert(id >= 1 && id <= 0x7ff);
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(id, gpd_workload_context_id(&wl, j));
	}
}
END_TEST

START_TEST(test_never_idle)
{
	struct gpd_workload_config cfg = { .idle_probability = -1 };
	struct gpd_workload wl;

	ck_assert_int_eq(gpd_workload_init(&wl, &cfg, &clocks, 4), 0);
	struct tally t = walk(&wl, 2 * clocks.timestamp_frequency);
	ck_assert_uint_eq(t.idles, 0);
	ck_assert_uint_eq(t.idle_ticks, 0);
}
END_TEST

START_TEST(test_frequency)
{
	struct gpd_workload wl;
	uint64_t last = 0;

	ck_assert_int_eq(gpd_workload_init(&wl, NULL, &clocks, 1), 0);
	for (int i = 0; i <= 100; i++) {
		uint64_t f = gpd_workload_frequency(&wl, i / 100.0);

		ck_assert_uint_ge(f, clocks.gpu_min_freq);
		ck_assert_uint_le(f, clocks.gpu_max_freq);
		ck_assert_uint_ge(f, last);
		/* On the 50/3 MHz grid, rounded down to whole Hz. */
		uint64_t steps = (f * 3 + 2) / 50000000;
		ck_assert_uint_eq(f, steps * 50000000 / 3);
		last = f;
	}
	ck_assert_uint_eq(gpd_workload_frequency(&wl, 0), clocks.gpu_min_freq);
	ck_assert_uint_ge(last, clocks.gpu_max_freq - 50000000 / 3);
}
END_TEST

START_TEST(test_deterministic)
{
	struct gpd_workload a, b;

	ck_assert_int_eq(gpd_workload_init(&a, NULL, &clocks, 9), 0);
	ck_assert_int_eq(gpd_workload_init(&b, NULL, &clocks, 9), 0);
	for (int i = 0; i < 10000; i++) {
		uint64_t t = gpd_workload_next_change(&a);

		ck_assert_uint_eq(t, gpd_workload_next_change(&b));
		ck_assert_uint_eq(gpd_workload_advance(&a, t), gpd_workload_advance(&b, t));
		ck_assert_uint_eq(gpd_workload_context(&a), gpd_workload_context(&b));
	}
}
END_TEST

START_TEST(test_refused)
{
	struct gpd_workload wl;
	struct gpd_workload_config cfg = { .n_contexts = GPD_WORKLOAD_MAX_CONTEXTS + 1 };
	struct gpd_workload_clocks bad = clocks;

	ck_assert_int_eq(gpd_workload_init(&wl, &cfg, &clocks, 1), -EINVAL);
	cfg = (struct gpd_workload_config){ .report_loss_probability = 1.5 };
	ck_assert_int_eq(gpd_workload_init(&wl, &cfg, &clocks, 1), -EINVAL);
	cfg = (struct gpd_workload_config){ .idle_probability = 2 };
	ck_assert_int_eq(gpd_workload_init(&wl, &cfg, &clocks, 1), -EINVAL);
	bad.gpu_min_freq = bad.gpu_max_freq + 1;
	ck_assert_int_eq(gpd_workload_init(&wl, NULL, &bad, 1), -EINVAL);
	bad = clocks;
	bad.timestamp_frequency = 0;
	ck_assert_int_eq(gpd_workload_init(&wl, NULL, &bad, 1), -EINVAL);
}
END_TEST

/* A heavier load is the same pattern, its utilization scaled (capped at
 * flat out): phases and switches where they were. */
START_TEST(test_load_scales_the_same_pattern)
{
	struct gpd_workload light, heavy;
	struct gpd_workload_config cfg = { .load = 1.2 };
	double light_sum = 0, heavy_sum = 0;

	ck_assert_int_eq(gpd_workload_init(&light, NULL, &clocks, 5), 0);
	ck_assert_int_eq(gpd_workload_init(&heavy, &cfg, &clocks, 5), 0);
	for (int i = 0; i < 2000; i++) {
		uint64_t t = gpd_workload_next_change(&light);
		ck_assert_uint_eq(gpd_workload_next_change(&heavy), t);
		double l = gpd_workload_utilization(&light, (double)t);
		double h = gpd_workload_utilization(&heavy, (double)t);
		/* Scaled, but for ramps that leave a capped level. */
		ck_assert_msg(h >= l - 1e-9 && h <= l * 1.2 + 1e-9 && h <= 1,
			      "utilization %g under load 1.2, %g without", h, l);
		light_sum += l;
		heavy_sum += h;
		ck_assert_uint_eq(gpd_workload_advance(&heavy, t),
				  gpd_workload_advance(&light, t));
	}
	ck_assert_msg(heavy_sum > light_sum * 1.05, "%g heavy, %g light",
		      heavy_sum, light_sum);
	cfg.load = 11;
	ck_assert_int_eq(gpd_workload_init(&heavy, &cfg, &clocks, 5), -EINVAL);
}
END_TEST

static Suite *workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_phases_and_switches);
	tcase_add_test(tc, test_context_ids);
	tcase_add_test(tc, test_never_idle);
	tcase_add_test(tc, test_frequency);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_load_scales_the_same_pattern);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(workload_suite)
