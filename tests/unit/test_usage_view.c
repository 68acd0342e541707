/*
 * gpuperf top's CSV and NDJSON: values that are unknown or not finite are
 * written as no value, as gpuperf stream writes them, never as a number
 * no reader would take. Each process says where its share came from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/usage_view.h"
#include "tests/unit/test_util.h"

static struct gpc_usage_frame frame_with_power(double watts)
{
	return (struct gpc_usage_frame){
		.device = "card0",
		.cpu_start_ns = 1000,
		.cpu_end_ns = 2000,
		.actual_frequency_hz = 1.1e9,
		.requested_frequency_hz = NAN,
		.min_frequency_hz = NAN,
		.max_frequency_hz = NAN,
		.rc6 = NAN,
		.power_watts = watts,
		.energy_joules = NAN,
		.temperature_celsius = NAN,
		.processes_note = "",
		.note = "",
	};
}

/* The CSV row of a device value. */
static char *csv_row(const struct gpuperf_text *t, const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), ",device,%s,", name);
	const char *at = strstr(t->data, key);
	ck_assert_msg(at, "no %s row in:\n%s", name, t->data);
	while (at > t->data && at[-1] != '\n')
		at--;
	return strndup(at, strcspn(at, "\n"));
}

START_TEST(infinities_are_no_value)
{
	static const double values[] = { INFINITY, -INFINITY, NAN };
	for (size_t i = 0; i < 3; i++) {
		struct gpc_usage_frame f = frame_with_power(values[i]);
		struct gpuperf_text t = { 0 };
		gpuperf_usage_csv(&t, &f, false);
		char *row = csv_row(&t, "power");
		ck_assert_str_eq(row, "1000,1000,card0,device,power,,,,,,,,watts,");
		free(row);
		row = csv_row(&t, "actual_frequency");
		ck_assert_str_eq(row, "1000,1000,card0,device,actual_frequency,,,,,,,1100000000,hertz,");
		free(row);
		gpuperf_text_fini(&t);

		t = (struct gpuperf_text){ 0 };
		gpuperf_usage_ndjson(&t, &f);
		ck_assert_msg(strstr(t.data, "\"power_watts\":null"), "%s", t.data);
		ck_assert_msg(strstr(t.data, "\"actual_frequency_hertz\":1100000000"),
			      "%s", t.data);
		gpuperf_text_fini(&t);
	}
}
END_TEST

/* Every process row says where its share came from, in the one spelling
 * of every sink: measured in the process, or the driver's samples. */
START_TEST(processes_say_where_their_share_came_from)
{
	static const char *const classes[] = { "compute" };
	static const double measured_busy[] = { 0.76 }, sampled_busy[] = { 0.0 };
	const struct gpc_process_usage processes[] = {
		{ .pid = 41, .command = "saturate", .n_class_busy = 1,
		  .class_busy = measured_busy, .share_source = "measured_in_process",
		  .records_lost = 37 },
		{ .pid = 42, .command = "other", .n_class_busy = 1,
		  .class_busy = sampled_busy, .share_source = "driver_sampled" },
	};
	struct gpc_usage_frame f = frame_with_power(100);
	f.n_engine_classes = 1;
	f.engine_classes = classes;
	f.processes_included = true;
	f.n_processes = 2;
	f.processes = processes;
	struct gpuperf_text t = { 0 };
	gpuperf_usage_csv(&t, &f, true);
	ck_assert_msg(strstr(t.data, "value,unit,share_source\n"), "%s", t.data);
	ck_assert_msg(strstr(t.data, "1000,1000,card0,process,busy,compute,41,"
			     "saturate,0.76,,,,ratio,measured_in_process\n"),
		      "%s", t.data);
	ck_assert_msg(strstr(t.data, "1000,1000,card0,process,busy,compute,42,"
			     "other,0,,,,ratio,driver_sampled\n"), "%s", t.data);
	/* What the process's own measure lost, where it measured. */
	ck_assert_msg(strstr(t.data, "1000,1000,card0,process,records_lost,,41,"
			     "saturate,,,,37,records,measured_in_process\n"),
		      "%s", t.data);
	ck_assert_msg(!strstr(t.data, "records_lost,,42,"), "%s", t.data);
	gpuperf_text_fini(&t);
	t = (struct gpuperf_text){ 0 };
	gpuperf_usage_ndjson(&t, &f);
	ck_assert_msg(strstr(t.data, "\"resident_bytes\":0,\"records_lost\":37,"
			     "\"share_source\":\"measured_in_process\"}"), "%s",
		      t.data);
	ck_assert_msg(strstr(t.data, "\"share_source\":\"driver_sampled\"}"),
		      "%s", t.data);
	gpuperf_text_fini(&t);
	t = (struct gpuperf_text){ 0 };
	struct gpuperf_usage_screen screen = { .width = 120 };
	gpuperf_usage_screen_render(&t, &screen, &f, "an NVIDIA GPU");
	ck_assert_msg(strstr(t.data, "SHARE_SOURCE"), "%s", t.data);
	const char *row = strstr(t.data, "saturate");
	ck_assert_msg(row && strstr(row, "measured_in_process") &&
		      strstr(row, "measured_in_process") < strchr(row, '\n'),
		      "%s", t.data);
	ck_assert_msg(strstr(row, "measured_in_process (37 records lost)\n"),
		      "%s", t.data);
	gpuperf_text_fini(&t);
}
END_TEST

static Suite *usage_view_suite(void)
{
	Suite *s = suite_create("usage_view");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, infinities_are_no_value);
	tcase_add_test(tc, processes_say_where_their_share_came_from);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(usage_view_suite)
