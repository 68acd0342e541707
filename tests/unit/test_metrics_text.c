/*
 * The /metrics exposition's text: label values and HELP lines escaped as
 * each format says, special values spelled as Prometheus reads them, the
 * family headers of both formats, and the format an Accept header picks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/net/metrics_text.h"
#include "tests/unit/test_util.h"

static struct gpd_metrics_text text_of(enum gpd_metrics_format format)
{
	return (struct gpd_metrics_text){ .format = format };
}

static void assert_text(struct gpd_metrics_text *t, const char *want)
{
	ck_assert(!t->failed);
	ck_assert_ptr_nonnull(t->data);
	ck_assert_str_eq(t->data, want);
	free(t->data);
	*t = text_of(t->format);
}

START_TEST(label_values_escape_backslash_quote_and_newline)
{
	for (int f = GPD_METRICS_TEXT; f <= GPD_METRICS_OPENMETRICS; f++) {
		struct gpd_metrics_text t = text_of(f);
		/* A process may be named anything a label can hold. */
		gpd_metrics_text_label(&t, "a\\b\"c\nd");
		assert_text(&t, "a\\\\b\\\"c\\nd");
		gpd_metrics_text_label(&t, "\"\"\\\n");
		assert_text(&t, "\\\"\\\"\\\\\\n");
		gpd_metrics_text_printf(&t, "%s", "");
		gpd_metrics_text_label(&t, "");
		assert_text(&t, "");
		gpd_metrics_text_label(&t, "plain 'quotes' stay");
		assert_text(&t, "plain 'quotes' stay");
	}
}
END_TEST

START_TEST(help_escapes_quote_in_openmetrics_only)
{
	struct gpd_metrics_text t = text_of(GPD_METRICS_TEXT);
	gpd_metrics_text_help(&t, "the \"busy\" share\\\nof time");
	assert_text(&t, "the \"busy\" share\\\\\\nof time");
	t = text_of(GPD_METRICS_OPENMETRICS);
	gpd_metrics_text_help(&t, "the \"busy\" share\\\nof time");
	assert_text(&t, "the \\\"busy\\\" share\\\\\\nof time");
}
END_TEST

START_TEST(values_are_spelled_as_prometheus_reads_them)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0, "0" }, { 1, "1" }, { -3, "-3" }, { 1e14, "100000000000000" },
		{ 1e15, "1e+15" }, { 1234567890123456, "1234567890123456" },
		{ 0.5, "0.5" }, { 0.1, "0.1" }, { 0.1 + 0.2, "0.30000000000000004" },
		{ 0.001234, "0.001234" }, { 1.5e300, "1.5e+300" },
	};
	struct gpd_metrics_text t = text_of(GPD_METRICS_TEXT);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gpd_metrics_text_value(&t, cases[i].v);
		ck_assert_msg(strtod(t.data, NULL) == cases[i].v,
			      "%s does not read back as %.17g", t.data, cases[i].v);
		assert_text(&t, cases[i].text);
	}
	gpd_metrics_text_value(&t, NAN);
	assert_text(&t, "NaN");
	gpd_metrics_text_value(&t, -NAN);
	assert_text(&t, "NaN");
	gpd_metrics_text_value(&t, INFINITY);
	assert_text(&t, "+Inf");
	gpd_metrics_text_value(&t, -INFINITY);
	assert_text(&t, "-Inf");
	gpd_metrics_text_sample(&t, "gpuperf_power_watts", GPD_METRICS_GAUGE);
	gpd_metrics_text_printf(&t, "device=\"");
	gpd_metrics_text_label(&t, "card\"0");
	gpd_metrics_text_printf(&t, "\"");
	gpd_metrics_text_end(&t, -INFINITY);
	assert_text(&t, "gpuperf_power_watts{device=\"card\\\"0\"} -Inf\n");
}
END_TEST

START_TEST(families_in_each_format)
{
	struct gpd_metrics_text t = text_of(GPD_METRICS_TEXT);
	gpd_metrics_text_family(&t, "gpuperf_reports", GPD_METRICS_COUNTER, NULL,
				"reports read");
	gpd_metrics_text_family(&t, "gpuperf", GPD_METRICS_INFO, NULL, "build");
	gpd_metrics_text_family(&t, "gpuperf_power_watts", GPD_METRICS_GAUGE,
				"watts", "power");
	gpd_metrics_text_finish(&t);
	assert_text(&t,
		    "# HELP gpuperf_reports_total reports read\n"
		    "# TYPE gpuperf_reports_total counter\n"
		    "# HELP gpuperf_info build\n"
		    "# TYPE gpuperf_info gauge\n"
		    "# HELP gpuperf_power_watts power\n"
		    "# TYPE gpuperf_power_watts gauge\n");
	t = text_of(GPD_METRICS_OPENMETRICS);
	gpd_metrics_text_family(&t, "gpuperf_reports", GPD_METRICS_COUNTER, NULL,
				"reports read");
	gpd_metrics_text_family(&t, "gpuperf", GPD_METRICS_INFO, NULL, "build");
	gpd_metrics_text_family(&t, "gpuperf_power_watts", GPD_METRICS_GAUGE,
				"watts", "power");
	gpd_metrics_text_sample(&t, "gpuperf_reports", GPD_METRICS_COUNTER);
	gpd_metrics_text_end(&t, 7);
	gpd_metrics_text_finish(&t);
	assert_text(&t,
		    "# HELP gpuperf_reports reports read\n"
		    "# TYPE gpuperf_reports counter\n"
		    "# HELP gpuperf build\n"
		    "# TYPE gpuperf info\n"
		    "# HELP gpuperf_power_watts power\n"
		    "# TYPE gpuperf_power_watts gauge\n"
		    "# UNIT gpuperf_power_watts watts\n"
		    "gpuperf_reports_total{} 7\n"
		    "# EOF\n");
}
END_TEST

START_TEST(accept_picks_the_format)
{
	ck_assert_int_eq(gpd_metrics_format_accepted(NULL), GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted(""), GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted("*/*"), GPD_METRICS_TEXT);
	/* Prometheus's own Accept since 2.5. */
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-text;version=1.0.0,application/"
		"openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		"q=0.5,*/*;q=0.1"), GPD_METRICS_OPENMETRICS);
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"Application/OpenMetrics-Text; q=0.9"), GPD_METRICS_OPENMETRICS);
	/* A version we do not write, a zero q, or text preferred. */
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-text;version=0.0.1"), GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-text;q=0"), GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-text;q=0.2, text/plain;q=0.8"),
		GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-text;q=banana"), GPD_METRICS_TEXT);
	ck_assert_int_eq(gpd_metrics_format_accepted(
		"application/openmetrics-textual"), GPD_METRICS_TEXT);
}
END_TEST

START_TEST(long_texts_grow)
{
	struct gpd_metrics_text t = text_of(GPD_METRICS_TEXT);
	char *want = malloc(20001);
	ck_assert_ptr_nonnull(want);
	for (int i = 0; i < 20000; i++) {
		gpd_metrics_text_printf(&t, "%c", 'a' + i % 26);
		want[i] = (char)('a' + i % 26);
	}
	want[20000] = '\0';
	ck_assert_uint_eq(t.len, 20000);
	assert_text(&t, want);
	free(want);
}
END_TEST

static Suite *metrics_text_suite(void)
{
	Suite *s = suite_create("metrics_text");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, label_values_escape_backslash_quote_and_newline);
	tcase_add_test(tc, help_escapes_quote_in_openmetrics_only);
	tcase_add_test(tc, values_are_spelled_as_prometheus_reads_them);
	tcase_add_test(tc, families_in_each_format);
	tcase_add_test(tc, accept_picks_the_format);
	tcase_add_test(tc, long_texts_grow);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metrics_text_suite)
