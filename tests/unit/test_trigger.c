/*
 * Trigger expressions: what they read, the units a counter takes, errors
 * that point at the column, and episodes: a trigger fires once per
 * episode, not for a spike shorter than its `for`, rearms once cleared,
 * and with a hysteresis takes a flicker about the threshold as one.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "metrics/trigger.h"
#include "tests/unit/test_util.h"

static struct gpm_trigger parse_ok(const char *text, const char *units)
{
	struct gpm_trigger t;
	struct gpm_trigger_error err;
	ck_assert_msg(gpm_trigger_parse(text, &t, &err) == 0, "%s: column %u: %s",
		      text, err.column, err.message);
	ck_assert_msg(gpm_trigger_bind(&t, units, &err) == 0, "%s: column %u: %s",
		      text, err.column, err.message);
	return t;
}

START_TEST(expressions_read)
{
	struct gpm_trigger t = parse_ok("GpuBusy > 95 for 200ms", "percent");
	ck_assert_str_eq(t.subject, "GpuBusy");
	ck_assert(!t.lost);
	ck_assert_int_eq(t.op, GPM_TRIGGER_GT);
	ck_assert_double_eq(t.threshold, 95);
	ck_assert_uint_eq(t.for_ns, 200000000);
	ck_assert_uint_eq(t.rearm_ns, 0);

	t = parse_ok("AvgGpuCoreFrequency < 600MHz for 1s", "hz");
	ck_assert_int_eq(t.op, GPM_TRIGGER_LT);
	ck_assert_double_eq(t.threshold, 600e6);
	ck_assert_uint_eq(t.for_ns, 1000000000);

	t = parse_ok("lost > 0", NULL);
	ck_assert(t.lost);
	ck_assert_double_eq(t.threshold, 0);
	ck_assert_uint_eq(t.for_ns, 0);

	t = parse_ok("  gpubusy>=95% REARM 1s hysteresis 5%  For 50ms ", "percent");
	ck_assert_str_eq(t.subject, "gpubusy");
	ck_assert_int_eq(t.op, GPM_TRIGGER_GE);
	ck_assert_double_eq(t.band, 5);
	ck_assert_uint_eq(t.rearm_ns, 1000000000);
	ck_assert_uint_eq(t.for_ns, 50000000);

	ck_assert_double_eq(parse_ok("GpuTime >= 1.5ms", "ns").threshold, 1.5e6);
	ck_assert_double_eq(parse_ok("GpuTime >= 1500us", "ns").threshold, 1.5e6);
	ck_assert_double_eq(parse_ok("Latency != 2\xc2\xb5s", "us").threshold, 2);
	ck_assert_double_eq(parse_ok("GtiReadBytes <= 2GiB", "bytes").threshold,
			    2147483648.0);
	ck_assert_double_eq(parse_ok("GtiReadThroughput > 500MB/s", "gbps").threshold,
			    0.5);
	ck_assert_double_eq(parse_ok("RasterizedPixels == 10k", "pixels").threshold,
			    1e4);
	ck_assert_double_eq(parse_ok("GpuBusy > 95", "percent").threshold, 95);
	ck_assert_double_eq(parse_ok("AvgGpuCoreFrequency < 6e8", "hz").threshold,
			    6e8);
}
END_TEST

/* The expression, the counter's unit, the column and words expected. */
static void refused(const char *text, const char *units, unsigned column,
		    const char *words)
{
	struct gpm_trigger t;
	struct gpm_trigger_error err;
	int ret = gpm_trigger_parse(text, &t, &err);
	if (!ret)
		ret = gpm_trigger_bind(&t, units, &err);
	ck_assert_msg(ret == -EINVAL, "'%s' was taken", text);
	ck_assert_msg(err.column == column, "'%s': column %u, not %u (%s)", text,
		      err.column, column, err.message);
	ck_assert_msg(strstr(err.message, words), "'%s': '%s' lacks '%s'", text,
		      err.message, words);
}

START_TEST(errors_point_at_the_column)
{
	refused("GpuBusy > 95 fr 200ms", "percent", 14,
		"expected 'for', 'hysteresis', 'rearm' or the end, found 'fr'");
	refused("GpuBusy 95", "percent", 9,
		"expected a comparison (>, >=, <, <=, ==, !=) after GpuBusy, "
		"found '95'");
	refused("> 95", "percent", 1,
		"expected a counter (such as GpuBusy) or 'lost', found '>'");
	refused("", "percent", 1, "found the end");
	refused("GpuBusy =< 95", "percent", 9, "expected a comparison");
	refused("GpuBusy > ", "percent", 11,
		"expected the value to compare with (a number such as 95, 95% "
		"or 600MHz), found the end");
	refused("GpuBusy > high", "percent", 11, "found 'high'");
	refused("GpuBusy > 95 for soon", "percent", 18,
		"'for' takes a duration such as 200ms or 1s, found 'soon'");
	refused("GpuBusy > 95 for 200", "percent", 18,
		"'for' takes a duration such as 200ms or 1s (ns, us, ms, s, m), "
		"not '200'");
	refused("GpuBusy > 95 for 1s for 2s", "percent", 21, "'for' is given twice");
	refused("GpuBusy > 600MHz", "percent", 14,
		"'MHz' is no unit of GpuBusy, which is percent (%)");
	refused("AvgGpuCoreFrequency < 600ms", "hz", 26,
		"'ms' is no unit of AvgGpuCoreFrequency, which is a frequency "
		"(Hz, kHz, MHz, GHz)");
	refused("lost > 1%", NULL, 9, "'%' is no unit of lost, a count of loss "
		"records: write a plain number");
	refused("EuThreads > 5MHz", "threads", 14,
		"'MHz' is no unit of EuThreads, which counts threads");
	refused("GpuBusy > 95 hysteresis 1MHz", "percent", 26, "'MHz' is no unit");
	refused("GpuBusy == 95 hysteresis 1", "percent", 15,
		"a hysteresis needs a threshold to fall back from");
	refused("GpuBusy > 95 hysteresis -1", "percent", 25,
		"expected the hysteresis");
	refused("GpuBusy > 95 @", "percent", 14, "found '@'");
}
END_TEST

/* Steps through windows of 10 ms with the values given; returns the
 * windows at which the trigger fired, as a count, and the first. */
static unsigned run(const struct gpm_trigger *t, const double *values, size_t n,
		    int *first)
{
	struct gpm_trigger_state s = { 0 };
	unsigned fired = 0;
	*first = -1;
	for (size_t i = 0; i < n; i++) {
		if (gpm_trigger_step(t, &s, values[i], 10000000)) {
			if (!fired)
				*first = (int)i;
			fired++;
		}
	}
	ck_assert_uint_eq(s.episodes, fired);
	return fired;
}

/* Appends n windows of value v to values at *len. */
static void windows(double *values, size_t *len, size_t n, double v)
{
	for (size_t i = 0; i < n; i++)
		values[(*len)++] = v;
}

START_TEST(once_per_episode)
{
	struct gpm_trigger t = parse_ok("GpuBusy > 95 for 200ms", "percent");
	double v[1000];
	size_t n = 0;
	int first;
	/* 500 ms above: one episode, fired when 200 ms have held. */
	windows(v, &n, 10, 20);
	windows(v, &n, 50, 98);
	ck_assert_uint_eq(run(&t, v, n, &first), 1);
	ck_assert_int_eq(first, 10 + 19);

	/* A spike shorter than 200 ms: nothing. */
	n = 0;
	windows(v, &n, 10, 20);
	windows(v, &n, 15, 98);
	windows(v, &n, 10, 20);
	windows(v, &n, 19, 98);
	windows(v, &n, 10, 20);
	ck_assert_uint_eq(run(&t, v, n, &first), 0);

	/* Cleared for the rearm time (the for time): a second episode. */
	n = 0;
	windows(v, &n, 30, 98);
	windows(v, &n, 20, 20);
	windows(v, &n, 30, 98);
	ck_assert_uint_eq(run(&t, v, n, &first), 2);

	/* Cleared for less than that: still the same episode. */
	n = 0;
	windows(v, &n, 30, 98);
	windows(v, &n, 19, 20);
	windows(v, &n, 30, 98);
	ck_assert_uint_eq(run(&t, v, n, &first), 1);

	/* A window with no value breaks the run of holding windows. */
	n = 0;
	windows(v, &n, 15, 98);
	windows(v, &n, 1, NAN);
	windows(v, &n, 15, 98);
	ck_assert_uint_eq(run(&t, v, n, &first), 0);
}
END_TEST

START_TEST(hysteresis_and_rearm)
{
	/* A dip to 93 for 300 ms: without a hysteresis, that clears it and
	 * a second episode follows; with 5 %, it stays within the band. */
	double v[1000];
	size_t n = 0;
	int first;
	windows(v, &n, 30, 98);
	windows(v, &n, 30, 93);
	windows(v, &n, 30, 98);
	windows(v, &n, 30, 20);
	windows(v, &n, 30, 98);
	struct gpm_trigger plain = parse_ok("GpuBusy > 95 for 200ms", "percent");
	struct gpm_trigger banded = parse_ok("GpuBusy > 95 for 200ms hysteresis 5",
					     "percent");
	ck_assert_uint_eq(run(&plain, v, n, &first), 3);
	ck_assert_uint_eq(run(&banded, v, n, &first), 2);

	/* A flicker about the threshold every window never holds 200 ms; a
	 * trigger without `for` fires at its first window, then rearms at
	 * each clear window without a hysteresis, and not with one. */
	n = 0;
	for (int i = 0; i < 20; i++)
		windows(v, &n, 1, i % 2 ? 94 : 96);
	struct gpm_trigger now = parse_ok("GpuBusy > 95", "percent");
	struct gpm_trigger now_banded = parse_ok("GpuBusy > 95 hysteresis 3",
						 "percent");
	ck_assert_uint_eq(run(&plain, v, n, &first), 0);
	ck_assert_uint_eq(run(&now, v, n, &first), 10);
	ck_assert_uint_eq(run(&now_banded, v, n, &first), 1);

	/* rearm: cleared 100 ms is enough where it says so. */
	n = 0;
	windows(v, &n, 30, 98);
	windows(v, &n, 10, 20);
	windows(v, &n, 30, 98);
	struct gpm_trigger quick = parse_ok("GpuBusy > 95 for 200ms rearm 100ms",
					    "percent");
	ck_assert_uint_eq(run(&quick, v, n, &first), 2);
	ck_assert_uint_eq(run(&plain, v, n, &first), 1);

	/* lost > 0: every window with loss, once per run of them. */
	struct gpm_trigger lost = parse_ok("lost > 0", NULL);
	double losses[] = { 0, 0, 3, 1, 0, 0, 1, 0 };
	ck_assert_uint_eq(run(&lost, losses, 8, &first), 2);
	ck_assert_int_eq(first, 2);

	/* Below a threshold: frequency under 600 MHz for 1 s. */
	struct gpm_trigger slow = parse_ok("AvgGpuCoreFrequency < 600MHz for 1s",
					   "hz");
	n = 0;
	windows(v, &n, 50, 1.1e9);
	windows(v, &n, 99, 5e8);
	windows(v, &n, 10, 1.1e9);
	windows(v, &n, 100, 5e8);
	ck_assert_uint_eq(run(&slow, v, n, &first), 1);
	ck_assert_int_eq(first, 50 + 99 + 10 + 99);
}
END_TEST

static Suite *trigger_suite(void)
{
	Suite *s = suite_create("trigger");
	TCase *tc = tcase_create("trigger");
	tcase_add_test(tc, expressions_read);
	tcase_add_test(tc, errors_point_at_the_column);
	tcase_add_test(tc, once_per_episode);
	tcase_add_test(tc, hysteresis_and_rearm);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(trigger_suite)
