/*
 * The simulated GPU's usage (daemon/sim/usage_model.c): deterministic,
 * shares in range, each class's busy time shared among the processes that
 * use it, clocks and RC6 that follow the load, processes that come and
 * go.
 */
#include <math.h>
#include <string.h>

#include "daemon/sim/usage_model.h"
#include "tests/unit/test_util.h"

#define S 1000000000ull

static void start(struct gpd_sim_usage_model *m, struct gpd_usage_layout *l,
		  uint64_t seed)
{
	struct gpm_device_info info;
	memset(&info, 0, sizeof(info));
	info.timestamp_frequency = 19200000;
	info.gpu_min_freq = 300000000;
	info.gpu_max_freq = 1300000000;
	ck_assert_int_eq(gpd_sim_usage_model_init(m, &info, seed), 0);
	gpd_sim_usage_model_layout(l, false);
}

static void read_model(const struct gpd_sim_usage_model *m,
		       struct gpd_usage_reading *r)
{
	gpd_usage_reading_clear(r);
	ck_assert_int_eq(gpd_sim_usage_model_read(m, r, true), 0);
	gpd_usage_reading_sort(r);
}

START_TEST(test_layout)
{
	struct gpd_sim_usage_model m;
	struct gpd_usage_layout l;
	start(&m, &l, 1);
	ck_assert_uint_eq(l.n_engines, 4);
	ck_assert_str_eq(l.engines[0].name, "rcs0");
	ck_assert_str_eq(l.classes[0], "render");
	ck_assert_str_eq(l.classes[1], "copy");
	ck_assert_str_eq(l.classes[2], "video");
	ck_assert_str_eq(l.classes[3], "compute");
	ck_assert(l.engines[0].has_wait && l.engines[0].has_sema);
}
END_TEST

START_TEST(test_same_seed_same_counters)
{
	struct gpd_sim_usage_model a, b;
	struct gpd_usage_layout l;
	start(&a, &l, 5);
	start(&b, &l, 5);
	gpd_sim_usage_model_advance(&a, 3 * S);
	gpd_sim_usage_model_advance(&b, S);
	gpd_sim_usage_model_advance(&b, 2 * S);
	ck_assert_double_eq(a.busy_ns[0], b.busy_ns[0]);
	ck_assert_double_eq(a.energy_j, b.energy_j);
	ck_assert_uint_eq(a.n_processes, b.n_processes);
}
END_TEST

START_TEST(test_intervals_add_up)
{
	struct gpd_sim_usage_model m;
	struct gpd_usage_layout l;
	struct gpd_usage_reading prev, cur;
	struct gpd_usage_frame f;
	start(&m, &l, 1);
	gpd_usage_reading_init(&prev);
	gpd_usage_reading_init(&cur);
	gpd_usage_frame_init(&f);
	read_model(&m, &prev);
	unsigned rc6_seen = 0, busy_seen = 0;
	for (int i = 0; i < 60; i++) {
		gpd_sim_usage_model_advance(&m, S);
		read_model(&m, &cur);
		ck_assert_int_eq(gpd_usage_diff(&l, &prev, &cur, &f), 0);
		for (unsigned e = 0; e < l.n_engines; e++)
			ck_assert(f.engines[e].busy >= 0 && f.engines[e].busy <= 1);
		ck_assert(f.engines[0].wait <= f.engines[0].busy);
		ck_assert(f.rc6 >= 0 && f.rc6 <= 1);
		/* The clock stops in RC6: its mean is at most the request. */
		ck_assert(f.actual_freq_hz <= f.requested_freq_hz + 1);
		ck_assert(f.requested_freq_hz >= 300e6 - 1 &&
			  f.requested_freq_hz <= 1300e6 + 1);
		ck_assert(f.power_w > 1 && f.power_w < 25);
		ck_assert(f.energy_j > 0);
		rc6_seen += f.rc6 > 0.05;
		busy_seen += f.engines[0].busy > 0.3;
		/* Each class's busy time is its processes' time. */
		for (unsigned k = 0; k < l.n_classes; k++) {
			double sum = 0;
			for (size_t p = 0; p < f.n_processes; p++)
				sum += f.processes[p].class_busy[k];
			ck_assert_msg(sum <= f.engines[k].busy + 0.02,
				      "class %u: processes %.3f, engine %.3f", k,
				      sum, f.engines[k].busy);
		}
		ck_assert_int_eq(gpd_usage_reading_copy(&prev, &cur), 0);
	}
	ck_assert_uint_gt(rc6_seen, 0);
	ck_assert_uint_gt(busy_seen, 0);
	gpd_usage_reading_fini(&prev);
	gpd_usage_reading_fini(&cur);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_processes_come_and_go)
{
	struct gpd_sim_usage_model m;
	struct gpd_usage_layout l;
	start(&m, &l, 3);
	int32_t first[GPD_SIM_MAX_PROCESSES];
	unsigned n_first = m.n_processes;
	ck_assert_uint_ge(n_first, 2);
	for (unsigned i = 0; i < n_first; i++)
		first[i] = m.processes[i].pid;
	gpd_sim_usage_model_advance(&m, 60 * S);
	unsigned kept = 0;
	bool compositor = false;
	for (unsigned i = 0; i < m.n_processes; i++) {
		for (unsigned j = 0; j < n_first; j++)
			kept += m.processes[i].pid == first[j];
		compositor |= !strcmp(m.processes[i].command, "gnome-shell");
	}
	/* Only the compositor stays a minute; others came meanwhile. */
	ck_assert_uint_eq(kept, 1);
	ck_assert(compositor);
	ck_assert_uint_ge(m.n_processes, 1);
	ck_assert_uint_le(m.n_processes, GPD_SIM_MAX_PROCESSES);
	ck_assert_int_gt(m.next_pid, first[n_first - 1]);
}
END_TEST

static Suite *sim_usage_suite(void)
{
	Suite *s = suite_create("sim_usage");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_same_seed_same_counters);
	tcase_add_test(tc, test_intervals_add_up);
	tcase_add_test(tc, test_processes_come_and_go);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(sim_usage_suite)
