/*
 * gpuperf compare: two results, counter by counter, offline.
 *
 * Each file comes down to one value per counter: a file from `gpuperf
 * run` has its totals row (mark 1), and that is the value; any other file
 * (stream, replay) gives the mean of its rows. Rows of one context
 * (context_id set) are left out: the window's own rows speak for it.
 *
 * Which way is worse: for the same workload, counters measure what the
 * work cost (time, clocks, busy and stall percentages, bytes moved,
 * events), so by default a rise is a regression. --higher-is-better names
 * the counters where a rise is good (throughput, frequency, frames per
 * second); --any-direction those where any move past the threshold
 * fails.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_args.h"
#include "client/commands.h"
#include "client/result_file.h"

static const char *const cmd = "compare";

static const char usage[] =
	"gpuperf compare BASELINE RESULT [--threshold PCT] [-c C1,C2]\n"
	"       [--higher-is-better C1,C2] [--any-direction C1,C2]";

static const char help[] =
	"Compares two results (NDJSON or CSV written by 'gpuperf run',\n"
	"'gpuperf stream' or 'gpuperf replay') counter by counter, prints the\n"
	"change in percent, and exits 1 when a counter moved past the\n"
	"threshold in the bad direction.\n\n"
	"  --threshold PCT     the change allowed, in percent (default 5)\n"
	"  -c, --counters C1,C2  compare only these (default: every counter\n"
	"                      both files have; raw_* columns only by name)\n"
	"  --higher-is-better C1,C2\n"
	"                      counters where a rise is good (throughput,\n"
	"                      frequency); for the rest a rise is worse\n"
	"  --any-direction C1,C2\n"
	"                      counters where any change past the threshold\n"
	"                      fails\n\n"
	"A file from 'gpuperf run' is compared by its totals row (mark 1);\n"
	"other files by the mean of their rows. For a fixed workload most\n"
	"counters measure cost (time, clocks, busy and stall percentages,\n"
	"bytes, events), so by default a rise is the bad direction.\n";

#define DEFAULT_THRESHOLD 5.0

/* Columns that describe a row, not the GPU's work. */
static const char *const metadata[] = {
	"timestamp_ns", "gpu_timestamp", "duration_ns", "context_id",
	"reports", "lost", "buffers_lost", "dropped", "mark", "partial",
	"platform", "metric_set",
};

struct options {
	const char *baseline, *result;
	double threshold;
	char **counters;
	size_t n_counters;
	char **higher_better;
	size_t n_higher_better;
	char **any_direction;
	size_t n_any_direction;
	bool help;
};

static bool listed(char **list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

static int list_option(const char *name, const char *value, char ***list,
		       size_t *n)
{
	free(*list);
	*list = NULL;
	if (gpuperf_split_list(value, list, n) < 0)
		return gpuperf_usage_error(cmd, usage, "%s takes counter "
					   "symbols separated by commas", name);
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	o->threshold = DEFAULT_THRESHOLD;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m, ret;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			o->help = true;
			return 0;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--threshold", NULL,
					   &value))) {
			if (m < 0 || gpuperf_parse_number(value, &o->threshold))
				return gpuperf_usage_error(cmd, usage, "--threshold "
							   "takes a percentage, "
							   "e.g. 5 or 2.5");
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--counters", "-c",
					   &value))) {
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "-c needs "
							   "counter names");
			if ((ret = list_option("-c", value, &o->counters,
					       &o->n_counters)))
				return ret;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--higher-is-better",
					   NULL, &value))) {
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "counter names", arg);
			if ((ret = list_option(arg, value, &o->higher_better,
					       &o->n_higher_better)))
				return ret;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--any-direction",
					   NULL, &value))) {
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "counter names", arg);
			if ((ret = list_option(arg, value, &o->any_direction,
					       &o->n_any_direction)))
				return ret;
			continue;
		}
		if (arg[0] == '-' && arg[1])
			return gpuperf_usage_error(cmd, usage, "unknown option "
						   "'%s'", arg);
		if (!o->baseline)
			o->baseline = arg;
		else if (!o->result)
			o->result = arg;
		else
			return gpuperf_usage_error(cmd, usage, "two files only; "
						   "'%s' is one too many", arg);
	}
	if (!o->result)
		return gpuperf_usage_error(cmd, usage, "name the BASELINE and "
					   "the RESULT files");
	return 0;
}

/* The rows that speak for the file: run's totals, else every row of the
 * whole window (not one context's). */
static double file_value(const struct gpuperf_result *r, size_t column)
{
	int mark = gpuperf_result_column(r, "mark");
	int context = gpuperf_result_column(r, "context_id");
	double sum = 0, marked = NAN;
	size_t n = 0;

	for (size_t row = 0; row < r->n_rows; row++) {
		if (context >= 0 &&
		    gpuperf_result_present(r, row, (size_t)context))
			continue;
		double v = gpuperf_result_value(r, row, column);
		if (mark >= 0 && gpuperf_result_value(r, row, (size_t)mark) == 1)
			marked = v;
		if (!isnan(v)) {
			sum += v;
			n++;
		}
	}
	if (mark >= 0 && !isnan(marked))
		return marked;
	return n ? sum / (double)n : NAN;
}

static bool is_counter(const char *name)
{
	for (size_t i = 0; i < sizeof(metadata) / sizeof(metadata[0]); i++)
		if (!strcmp(name, metadata[i]))
			return false;
	return strncmp(name, "raw_", 4) != 0;
}

enum verdict {
	VERDICT_SAME,
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_CHANGED,                /* past the threshold, any direction */
	VERDICT_NO_VALUE,
};

static const char *const verdict_names[] = {
	[VERDICT_SAME] = "ok",
	[VERDICT_BETTER] = "better",
	[VERDICT_WORSE] = "WORSE",
	[VERDICT_CHANGED] = "CHANGED",
	[VERDICT_NO_VALUE] = "no value",
};

static enum verdict judge(const struct options *o, const char *name,
			  double base, double result, double *change)
{
	if (isnan(base) || isnan(result))
		return VERDICT_NO_VALUE;
	if (base == result)
		*change = 0;
	else if (base == 0)
		*change = result > 0 ? INFINITY : -INFINITY;
	else
		*change = (result - base) / fabs(base) * 100;
	if (fabs(*change) <= o->threshold)
		return VERDICT_SAME;
	if (listed(o->any_direction, o->n_any_direction, name))
		return VERDICT_CHANGED;
	bool rise_good = listed(o->higher_better, o->n_higher_better, name);
	return (*change > 0) == rise_good ? VERDICT_BETTER : VERDICT_WORSE;
}

static int compare(const struct options *o, const struct gpuperf_result *base,
		   const struct gpuperf_result *result)
{
	size_t compared = 0, failed = 0;
	int width = 7;

	for (size_t i = 0; i < o->n_counters; i++) {
		if (gpuperf_result_column(base, o->counters[i]) < 0 ||
		    gpuperf_result_column(result, o->counters[i]) < 0)
			return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "counter "
					    "'%s' is not in %s", o->counters[i],
					    gpuperf_result_column(base,
						o->counters[i]) < 0 ?
					    o->baseline : o->result);
	}
	for (size_t c = 0; c < base->n_columns; c++) {
		int len = (int)strlen(base->names[c]);
		if (len > width)
			width = len;
	}
	printf("%-*s  %14s  %14s  %9s  %s\n", width, "COUNTER", "BASELINE",
	       "RESULT", "CHANGE", "VERDICT");
	for (size_t c = 0; c < base->n_columns; c++) {
		const char *name = base->names[c];
		int rc = gpuperf_result_column(result, name);
		if (o->n_counters ? !listed(o->counters, o->n_counters, name) :
		    !is_counter(name) || rc < 0)
			continue;
		double b = file_value(base, c);
		double r = file_value(result, (size_t)rc);
		double change = 0;
		enum verdict v = judge(o, name, b, r, &change);
		char text[32];
		if (v == VERDICT_NO_VALUE)
			snprintf(text, sizeof(text), "-");
		else
			snprintf(text, sizeof(text), "%+.2f%%", change);
		printf("%-*s  %14.6g  %14.6g  %9s  %s\n", width, name, b, r, text,
		       verdict_names[v]);
		compared++;
		failed += v == VERDICT_WORSE || v == VERDICT_CHANGED;
	}
	if (!compared)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s and %s have no "
				    "counter in common", o->baseline, o->result);
	printf("%zu counters compared, %zu past the threshold of %g%% in the "
	       "bad direction\n", compared, failed, o->threshold);
	if (fflush(stdout) != 0)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot write the "
				    "output");
	return failed ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_OK;
}

int gpuperf_cmd_compare(int argc, char **argv)
{
	struct options o = { 0 };
	struct gpuperf_result base, result;
	char why[512];

	int ret = parse(argc, argv, &o);
	if (!ret && o.help)
		printf("usage: %s\n\n%s", usage, help);
	if (ret || o.help)
		goto out;
	if (gpuperf_result_load(o.baseline, &base, why, sizeof(why)) < 0) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s", why);
		goto out;
	}
	if (gpuperf_result_load(o.result, &result, why, sizeof(why)) < 0) {
		gpuperf_result_fini(&base);
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s", why);
		goto out;
	}
	ret = compare(&o, &base, &result);
	gpuperf_result_fini(&base);
	gpuperf_result_fini(&result);
out:
	free(o.counters);
	free(o.higher_better);
	free(o.any_direction);
	return ret;
}
