/*
 * /metrics' per-process series (daemon/net/metrics_usage.c) rendered from
 * a view made by hand: each family names exactly the processes that have
 * its value.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/net/metrics_usage.h"
#include "tests/unit/test_util.h"

static char *render(struct gpd_metrics_usage_view *v)
{
	struct gpd_metrics_text t = { .format = GPD_METRICS_TEXT };
	gpd_metrics_usage_render(&t, v, 1, true);
	ck_assert(!t.failed);
	gpd_metrics_text_printf(&t, "%c", '\0');
	return t.data;
}

/* A measure taken in the process says what it lost; a driver-sampled
 * share has nothing to lose. */
START_TEST(measured_processes_count_their_lost_records)
{
	struct gpd_usage_process_total totals[2] = {
		{ .pid = 41, .command = "saturate" },
		{ .pid = 42, .command = "other" },
	};
	struct gpd_metrics_usage_process rows[2] = {
		{ .pid = 41, .command = "saturate", .memory_bytes = 1024,
		  .share_source = GPD_USAGE_SHARE_MEASURED_IN_PROCESS,
		  .records_lost = 37 },
		{ .pid = 42, .command = "other", .memory_bytes = 2048,
		  .share_source = GPD_USAGE_SHARE_DRIVER_SAMPLED },
	};
	struct gpd_metrics_usage_view v = {
		.labels = "device=\"nv0\"", .have_frame = true, .processes = true,
		.max_processes = 8, .totals = totals, .n_totals = 2,
		.rows = rows, .n_rows = 2,
	};
	char *text = render(&v);
	ck_assert_msg(strstr(text, "# TYPE gpuperf_process_records_lost_total counter\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "gpuperf_process_records_lost_total{device=\"nv0\","
			     "pid=\"41\",command=\"saturate\"} 37\n"), "%s", text);
	ck_assert_msg(!strstr(text, "gpuperf_process_records_lost_total{device=\"nv0\","
			      "pid=\"42\""), "%s", text);
	/* The families beside it are as before. */
	ck_assert_msg(strstr(text, "gpuperf_process_memory_bytes{device=\"nv0\","
			     "pid=\"42\",command=\"other\"} 2048\n"), "%s", text);
	ck_assert_msg(strstr(text, "gpuperf_process_share_source{device=\"nv0\","
			     "pid=\"41\",command=\"saturate\",source="
			     "\"measured_in_process\"} 1\n"), "%s", text);
	free(text);

	/* Without a measure in the process, no family at all. */
	rows[0].share_source = GPD_USAGE_SHARE_DRIVER_SAMPLED;
	text = render(&v);
	ck_assert_msg(!strstr(text, "records_lost"), "%s", text);
	free(text);
}
END_TEST

static Suite *metrics_usage_suite(void)
{
	Suite *s = suite_create("metrics_usage");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, measured_processes_count_their_lost_records);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metrics_usage_suite)
