/*
 * Usage arithmetic (daemon/usage.c): shares of engines and processes from
 * known counter values, new and vanished clients, counters that go
 * backwards, restarts, and totals summed over intervals.
 */
#include <math.h>
#include <string.h>

#include "daemon/usage.h"
#include "tests/unit/test_util.h"

#define S 1000000000ull

static struct gpd_usage_layout layout(void)
{
	struct gpd_usage_layout l;
	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(gpd_usage_layout_add_engine(&l, "rcs0", "render", true,
						     true), 0);
	ck_assert_int_eq(gpd_usage_layout_add_engine(&l, "vcs0", "video", false,
						     false), 0);
	ck_assert_int_eq(gpd_usage_layout_add_engine(&l, "vcs1", "video", false,
						     false), 0);
	return l;
}

static void add_process(struct gpd_usage_reading *r, int32_t pid,
			const char *command)
{
	struct gpd_usage_process *p = gpd_usage_reading_add_process(r);
	ck_assert_ptr_nonnull(p);
	p->pid = pid;
	p->ppid = 1;
	snprintf(p->command, sizeof(p->command), "%s", command);
}

/* A client counted in ns against the reading's clock. */
static struct gpd_usage_client *add_client(struct gpd_usage_reading *r,
					   uint64_t id, int32_t pid,
					   uint64_t render_ns, uint64_t video_ns)
{
	struct gpd_usage_client *c = gpd_usage_reading_add_client(r);
	ck_assert_ptr_nonnull(c);
	c->id = id;
	c->pid = pid;
	c->busy[0] = render_ns;
	c->busy[1] = video_ns;
	c->capacity[0] = 1;
	c->capacity[1] = 2;
	return c;
}

START_TEST(test_layout_classes)
{
	struct gpd_usage_layout l = layout();
	ck_assert_uint_eq(l.n_engines, 3);
	ck_assert_uint_eq(l.n_classes, 2);
	ck_assert_str_eq(l.classes[l.engines[2].class_index], "video");
	ck_assert_int_eq(gpd_usage_layout_class(&l, "render"), 0);
}
END_TEST

START_TEST(test_engine_shares_from_counts)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = 10 * S;
	b.time_ns = 12 * S;
	a.have = b.have = GPD_USAGE_HAVE_ENGINES | GPD_USAGE_HAVE_ACTUAL_FREQ |
			  GPD_USAGE_HAVE_RC6 | GPD_USAGE_HAVE_ENERGY;
	/* rcs0: 1.5 of 2 s busy, 0.2 waiting, 0.1 on semaphores. */
	a.engines[0] = (struct gpd_usage_engine_count){ 100, 10, 5, 1000 };
	b.engines[0] = (struct gpd_usage_engine_count){
		100 + 1500000000ull, 10 + 200000000ull, 5 + 100000000ull,
		1000 + 2 * S };
	/* vcs0 in GT ticks: 480 of 1920. */
	a.engines[1] = (struct gpd_usage_engine_count){ 7, 0, 0, 100 };
	b.engines[1] = (struct gpd_usage_engine_count){ 487, 0, 0, 2020 };
	/* 1100 MHz for 2 s; 0.5 s in RC6; 30 J. */
	a.actual_freq_mhz_s = 5000;
	b.actual_freq_mhz_s = 5000 + 2200;
	a.rc6_ns = 3 * S;
	b.rc6_ns = 3 * S + S / 2;
	a.energy_j = 100;
	b.energy_j = 130;
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert_double_eq_tol(f.engines[0].busy, 0.75, 1e-12);
	ck_assert_double_eq_tol(f.engines[0].wait, 0.1, 1e-12);
	ck_assert_double_eq_tol(f.engines[0].sema, 0.05, 1e-12);
	ck_assert_double_eq_tol(f.engines[1].busy, 0.25, 1e-12);
	ck_assert(isnan(f.engines[1].wait));
	/* vcs1 never moved its time base: no share, not 0. */
	ck_assert(isnan(f.engines[2].busy));
	ck_assert_double_eq_tol(f.actual_freq_hz, 1.1e9, 1);
	ck_assert(isnan(f.requested_freq_hz));
	ck_assert_double_eq_tol(f.rc6, 0.25, 1e-12);
	ck_assert_double_eq_tol(f.energy_j, 30, 1e-12);
	ck_assert_double_eq_tol(f.power_w, 15, 1e-12);
	ck_assert(isnan(f.temperature_c));
	ck_assert_uint_eq(f.start_ns, 10 * S);
	ck_assert_uint_eq(f.end_ns, 12 * S);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_engine_counter_wraps)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = S;
	b.time_ns = 2 * S;
	a.have = b.have = GPD_USAGE_HAVE_ENGINES;
	/* A busy counter that wrapped at 2^64 still gives its delta. */
	a.engines[0] = (struct gpd_usage_engine_count){ UINT64_MAX - 99, 0, 0,
							UINT64_MAX - 999 };
	b.engines[0] = (struct gpd_usage_engine_count){ 400, 0, 0, 1000 };
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert_double_eq_tol(f.engines[0].busy, 0.25, 1e-12);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_processes_come_and_go)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = 10 * S;
	b.time_ns = 11 * S;
	a.processes_read = b.processes_read = true;
	/* 100 leaves; 200 stays with two clients; 300 arrives. */
	add_process(&a, 100, "leaver");
	add_client(&a, 1, 100, 5 * S, 0);
	add_process(&a, 200, "stayer");
	add_client(&a, 2, 200, 2 * S, 0);
	add_client(&a, 3, 200, 0, S);
	add_process(&b, 200, "stayer");
	add_client(&b, 2, 200, 2 * S + S / 4, 0);
	add_client(&b, 3, 200, 0, S + S);
	add_process(&b, 300, "arriver");
	/* New: all of its time counts, from zero. */
	add_client(&b, 9, 300, S / 2, 0);
	gpd_usage_reading_sort(&a);
	gpd_usage_reading_sort(&b);
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert(f.processes_read);
	ck_assert_uint_eq(f.n_processes, 2);
	ck_assert_ptr_null(gpd_usage_frame_process(&f, 100));
	const struct gpd_usage_process_row *stayer = gpd_usage_frame_process(&f, 200);
	ck_assert_ptr_nonnull(stayer);
	ck_assert_str_eq(stayer->command, "stayer");
	ck_assert_double_eq_tol(stayer->class_busy[0], 0.25, 1e-12);
	/* 1 s of video on a class of two engines: half of it. */
	ck_assert_double_eq_tol(stayer->class_busy[1], 0.5, 1e-12);
	ck_assert_uint_eq(stayer->gpu_time_ns, S / 4 + S);
	ck_assert_uint_eq(stayer->n_client_ids, 2);
	const struct gpd_usage_process_row *arriver = gpd_usage_frame_process(&f, 300);
	ck_assert_ptr_nonnull(arriver);
	ck_assert_double_eq_tol(arriver->class_busy[0], 0.5, 1e-12);
	ck_assert_uint_eq(arriver->client_ids[0], 9);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_tick_based_clients)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = S;
	b.time_ns = 2 * S;
	a.processes_read = b.processes_read = true;
	add_process(&a, 10, "old");
	struct gpd_usage_client *c = add_client(&a, 1, 10, 1000, 0);
	c->total[0] = 50000;
	a.class_total[0] = 50000;
	add_process(&b, 10, "old");
	c = add_client(&b, 1, 10, 1000 + 4800, 0);
	c->total[0] = 50000 + 19200;
	add_process(&b, 11, "new");
	/* New: against the time base its class had before. */
	c = add_client(&b, 2, 11, 9600, 0);
	c->total[0] = 50000 + 19200;
	b.class_total[0] = 50000 + 19200;
	gpd_usage_reading_sort(&a);
	gpd_usage_reading_sort(&b);
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert_double_eq_tol(gpd_usage_frame_process(&f, 10)->class_busy[0],
				0.25, 1e-12);
	ck_assert_double_eq_tol(gpd_usage_frame_process(&f, 11)->class_busy[0],
				0.5, 1e-12);
	ck_assert_uint_eq(gpd_usage_frame_process(&f, 11)->gpu_time_ns, S / 2);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_backwards_counts_as_still)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = S;
	b.time_ns = 2 * S;
	a.processes_read = b.processes_read = true;
	add_process(&a, 10, "x");
	add_client(&a, 1, 10, 5 * S, 0);
	add_process(&b, 10, "x");
	/* drm-usage-stats allows a value lower than the last, for a while. */
	add_client(&b, 1, 10, 4 * S, 0);
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert_double_eq(gpd_usage_frame_process(&f, 10)->class_busy[0], 0);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_restart_gives_nothing)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	gpd_usage_frame_init(&f);
	a.time_ns = S;
	b.time_ns = 2 * S;
	a.generation = 1;
	b.generation = 2;
	a.have = b.have = GPD_USAGE_HAVE_ENGINES;
	b.engines[0] = (struct gpd_usage_engine_count){ S / 2, 0, 0, S };
	ck_assert_int_eq(gpd_usage_diff(&l, &a, &b, &f), 0);
	ck_assert(isnan(f.engines[0].busy));
	ck_assert_ptr_nonnull(strstr(f.note, "restarted"));
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_totals)
{
	struct gpd_usage_layout l = layout();
	struct gpd_usage_totals t;
	struct gpd_usage_frame f;
	gpd_usage_totals_init(&t);
	gpd_usage_frame_init(&f);
	f.start_ns = 0;
	f.end_ns = 2 * S;
	f.engines[0] = (struct gpd_usage_engine_share){ 0.5, 0.25, NAN };
	f.engines[1] = (struct gpd_usage_engine_share){ NAN, NAN, NAN };
	f.engines[2] = (struct gpd_usage_engine_share){ 1, NAN, NAN };
	f.rc6 = 0.5;
	f.energy_j = 12;
	f.power_w = 6;
	f.processes_read = true;
	struct gpd_usage_process_row rows[2] = {
		{ .pid = 5, .command = "a", .class_busy = { 0.5 }, .gpu_time_ns = S },
		{ .pid = 6, .command = "b", .gpu_time_ns = 7 },
	};
	f.processes = rows;
	f.n_processes = 2;
	ck_assert_int_eq(gpd_usage_totals_add(&t, &l, &f), 0);
	ck_assert_int_eq(gpd_usage_totals_add(&t, &l, &f), 0);
	ck_assert_double_eq_tol(t.engine_busy_s[0], 2, 1e-12);
	ck_assert_double_eq_tol(t.engine_wait_s[0], 1, 1e-12);
	ck_assert_double_eq(t.engine_sema_s[0], 0);
	ck_assert_double_eq(t.engine_busy_s[1], 0);
	ck_assert_double_eq_tol(t.engine_busy_s[2], 4, 1e-12);
	ck_assert_double_eq_tol(t.rc6_s, 2, 1e-12);
	ck_assert_double_eq_tol(t.energy_j, 24, 1e-12);
	ck_assert_uint_eq(gpd_usage_totals_process(&t, 5)->gpu_time_ns, 2 * S);
	ck_assert_double_eq_tol(gpd_usage_totals_process(&t, 5)->class_busy_s[0],
				2, 1e-12);
	/* 6 exits; 5's pid now runs another command: it starts over. */
	snprintf(rows[0].command, sizeof(rows[0].command), "other");
	f.n_processes = 1;
	ck_assert_int_eq(gpd_usage_totals_add(&t, &l, &f), 0);
	ck_assert_ptr_null(gpd_usage_totals_process(&t, 6));
	ck_assert_uint_eq(gpd_usage_totals_process(&t, 5)->gpu_time_ns, S);
	/* A frame without processes keeps the list. */
	f.processes_read = false;
	ck_assert_int_eq(gpd_usage_totals_add(&t, &l, &f), 0);
	ck_assert_ptr_nonnull(gpd_usage_totals_process(&t, 5));
	f.processes = NULL;
	gpd_usage_totals_fini(&t);
	gpd_usage_frame_fini(&f);
}
END_TEST

START_TEST(test_copy_and_budget)
{
	struct gpd_usage_reading a, b;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	for (unsigned i = 0; i < GPD_USAGE_MAX_CLIENTS; i++)
		ck_assert_ptr_nonnull(gpd_usage_reading_add_client(&a));
	/* Past the budget: refused, whatever /proc holds. */
	ck_assert_ptr_null(gpd_usage_reading_add_client(&a));
	a.clients[7].id = 77;
	ck_assert_int_eq(gpd_usage_reading_copy(&b, &a), 0);
	ck_assert_uint_eq(b.n_clients, GPD_USAGE_MAX_CLIENTS);
	ck_assert_uint_eq(b.clients[7].id, 77);
	ck_assert_ptr_ne(b.clients, a.clients);
	gpd_usage_reading_clear(&b);
	ck_assert_uint_eq(b.n_clients, 0);
	gpd_usage_note(b.note, "one");
	gpd_usage_note(b.note, "two %d", 2);
	ck_assert_str_eq(b.note, "one; two 2");
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
}
END_TEST

static Suite *usage_suite(void)
{
	Suite *s = suite_create("usage");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_layout_classes);
	tcase_add_test(tc, test_engine_shares_from_counts);
	tcase_add_test(tc, test_engine_counter_wraps);
	tcase_add_test(tc, test_processes_come_and_go);
	tcase_add_test(tc, test_tick_based_clients);
	tcase_add_test(tc, test_backwards_counts_as_still);
	tcase_add_test(tc, test_restart_gives_nothing);
	tcase_add_test(tc, test_totals);
	tcase_add_test(tc, test_copy_and_budget);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(usage_suite)
