/*
 * A device's usage stream (daemon/usage_monitor.c): a subscriber that
 * ends before the grid's next point still gets the usage of the time it
 * was subscribed (gpd_usage_flush), from a reading of its own, even when
 * the reading it started from is a few ms old.
 */
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "daemon/clock.h"
#include "daemon/usage_monitor.h"
#include "tests/unit/test_util.h"

/* One engine, always busy; its counters are the monotonic clock. */
struct busy_source {
	struct gpd_usage_source base;
	unsigned reads;
};

static int busy_read(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		     bool processes, struct gpd_error *err)
{
	struct busy_source *b = (struct busy_source *)src;
	b->reads++;
	r->time_ns = gpd_monotonic_ns();
	r->have = GPD_USAGE_HAVE_ENGINES;
	r->engines[0].busy = r->time_ns;
	r->engines[0].total = r->time_ns;
	return 0;
}

static void busy_close(struct gpd_usage_source *src)
{
}

static void busy_destroy(struct gpd_usage_source *src)
{
	free(src);
}

static const struct gpd_usage_source_ops busy_ops = {
	.read = busy_read,
	.close = busy_close,
	.destroy = busy_destroy,
};

struct frames {
	unsigned n;
	uint64_t start_ns, end_ns;
	double busy;
};

static void on_frame(void *user, const struct gpd_usage_frame *f)
{
	struct frames *got = user;
	got->n++;
	got->start_ns = f->start_ns;
	got->end_ns = f->end_ns;
	got->busy = f->engines[0].busy;
}

static const struct gpd_usage_subscriber_ops frame_ops = {
	.frame = on_frame,
};

START_TEST(test_flush_right_after_subscribing)
{
	uv_loop_t loop;
	struct busy_source *src = calloc(1, sizeof(*src));
	struct gpd_usage_monitor *m;
	struct gpd_usage_subscription *sub;
	struct gpd_error err = { 0 };
	struct frames got = { 0 };

	ck_assert_int_eq(uv_loop_init(&loop), 0);
	src->base.ops = &busy_ops;
	ck_assert_int_eq(gpd_usage_layout_add_engine(&src->base.layout, "rcs0",
						     "render", false, false), 0);
	ck_assert_int_eq(gpd_usage_monitor_create(&loop, &src->base, &m), 0);
	ck_assert_int_eq(gpd_usage_subscribe(m, 60000000000ull, false,
					     &frame_ops, &got, &sub, &err), 0);
	unsigned reads = src->reads;
	/* At once: the subscription's own reading is under 5 ms old. */
	gpd_usage_flush(sub);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_gt(src->reads, reads);
	ck_assert_uint_gt(got.end_ns, got.start_ns);
	ck_assert_double_eq_tol(got.busy, 1.0, 1e-9);
	gpd_usage_unsubscribe(sub);
	gpd_usage_monitor_close(m);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static Suite *usage_monitor_suite(void)
{
	Suite *s = suite_create("usage_monitor");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_flush_right_after_subscribing);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(usage_monitor_suite)
