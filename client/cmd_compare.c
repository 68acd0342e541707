/*
 * gpuperf compare: baseline results against new ones, counter by counter,
 * offline, with a stated statistical method so that noise is not called
 * a regression.
 *
 * Each file comes down to one value per counter, compared like with like:
 * a file of `gpuperf run` by its totals row (mark 1), any other (stream,
 * replay, the UI's Export CSV) by the mean of its whole windows; files of
 * the two kinds, or streams of different windows, are not compared, nor
 * results of different metric sets or platforms (unless --force).
 *
 * The decision (compare_stats.h): the Hodges-Lehmann shift of the result
 * files from the baseline files, with its Mann-Whitney confidence
 * interval. A counter regresses when the whole interval lies past the
 * threshold in the counter's bad direction: the change is then larger
 * than the threshold with the stated confidence, whatever the noise.
 * Fewer files than the interval needs (four per side for 95%) are judged
 * by the estimate alone, and the report says the noise is unknown.
 *
 * A counter's direction comes from its metric definition: costs (time,
 * clocks, events, bytes, pixels...) get worse when they rise; shares and
 * rates (percent, frequency, ratio) are reported, not judged, unless a
 * direction is named for them.
 *
 * The comparison is computed into a struct comparison first, and then
 * written by the writers of compare_report.h: the text report, and JUnit
 * XML, Markdown and JSON for CI systems.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/cli_args.h"
#include "client/commands.h"
#include "client/compare_report.h"
#include "client/compare_stats.h"
#include "client/human_text.h"
#include "client/result_file.h"
#include "metrics/metric_set.h"
#include "metrics/metrics_db.h"

static const char *const cmd = "compare";

static const char usage[] =
	"gpuperf compare BASELINE... -- RESULT...   (or: BASELINE RESULT)\n"
	"       [--threshold PCT] [--confidence PCT] [-c C1,C2]\n"
	"       [--higher-is-better C1,C2] [--lower-is-better C1,C2]\n"
	"       [--any-direction C1,C2] [--metrics-dir DIR] [--force]\n"
	"       [--junit FILE] [--markdown FILE] [--json FILE]";

static const char help[] =
	"Compares results (NDJSON or CSV of 'gpuperf run', 'gpuperf stream',\n"
	"'gpuperf replay' or the web UI's Export CSV) counter by counter: the\n"
	"BASELINE files (the runs of before) against the RESULT files (the\n"
	"runs of now), and exits 1 when a counter got worse past the\n"
	"threshold with the stated confidence.\n\n"
	"  --threshold PCT     the change allowed, in percent (default 5)\n"
	"  --confidence PCT    how sure a verdict must be (default 95)\n"
	"  -c, --counters C1,C2  compare only these (default: every counter\n"
	"                      all files have; raw_* columns only by name)\n"
	"  --higher-is-better C1,C2  a rise is good (throughput, frames/s)\n"
	"  --lower-is-better C1,C2   a rise is bad, for counters otherwise\n"
	"                      only reported (a utilisation you want low)\n"
	"  --any-direction C1,C2     any change past the threshold fails\n"
	"  --metrics-dir DIR   where the metric definitions of the results'\n"
	"                      platform are, for each counter's direction\n"
	"                      (the sim's are built in)\n"
	"  --force             compare results of different metric sets or\n"
	"                      platforms\n"
	"  --junit FILE        also write JUnit XML (GitLab, Jenkins): a test\n"
	"                      case per counter, WORSE ones failures with\n"
	"                      their numbers\n"
	"  --markdown FILE     also write a Markdown summary (GitHub Actions:\n"
	"                      --markdown \"$GITHUB_STEP_SUMMARY\")\n"
	"  --json FILE         also write the comparison as JSON\n\n"
	"Method: each file gives one value per counter: a 'run' file its\n"
	"totals row, any other the mean of its whole windows (files of the\n"
	"two kinds are not compared together, nor streams of different\n"
	"windows). The change is the Hodges-Lehmann estimate of the shift\n"
	"from the baseline files to the result files (the median of every\n"
	"difference), in percent of the baseline's median, with its\n"
	"Mann-Whitney confidence interval. A counter is WORSE when the whole\n"
	"interval lies past the threshold in its bad direction, better when\n"
	"it lies past it the other way. An interval at 95% needs 4 files a\n"
	"side (5 or more make it narrower); with fewer the noise is unknown\n"
	"and the estimate alone decides, as the report says.\n\n"
	"Direction: costs (time, clocks, events, bytes, pixels...) are worse\n"
	"when they rise; shares and rates (percent, frequency, ratios) are\n"
	"reported, not judged, unless named above.\n";

#define DEFAULT_THRESHOLD 5.0
#define DEFAULT_CONFIDENCE 95.0

/* Columns that describe a row, not the GPU's work. */
static const char *const metadata[] = {
	"timestamp_ns", "gpu_timestamp", "duration_ns", "context_id",
	"reports", "lost", "buffers_lost", "dropped", "mark", "partial",
	"platform", "metric_set", "process_gpu_time_ns", "process_memory_bytes",
};

struct options {
	const char **baseline, **result;
	size_t n_baseline, n_result;
	double threshold, confidence;
	char **counters;
	size_t n_counters;
	char **higher_better, **lower_better, **any_direction;
	size_t n_higher_better, n_lower_better, n_any_direction;
	const char **dirs;
	size_t n_dirs;
	bool force;
	bool help;
	/* The reports for CI systems, besides the text. */
	const char *junit, *markdown, *json;
};

struct loaded {
	const char *path;
	struct gpuperf_result r;
	enum result_kind kind;
	size_t totals_row;              /* KIND_RUN */
	double window_ns;               /* KIND_WINDOWS: the median window */
	double duration_ns;             /* of what the values cover */
	const char *platform, *metric_set;      /* NULL: not in the file */
};

static bool listed(char **list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(list[i], name))
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

static int percent_option(const char *name, const char *value, double *out,
			  double min, double max)
{
	if (gpuperf_parse_number(value, out) || *out < min || *out > max)
		return gpuperf_usage_error(cmd, usage, "%s takes a percentage "
					   "from %g to %g, e.g. %g", name, min,
					   max, name[2] == 't' ? 5.0 : 95.0);
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	bool dashes = false;

	o->threshold = DEFAULT_THRESHOLD;
	o->confidence = DEFAULT_CONFIDENCE;
	o->baseline = calloc((size_t)argc, sizeof(*o->baseline));
	o->result = calloc((size_t)argc, sizeof(*o->result));
	o->dirs = calloc((size_t)argc, sizeof(*o->dirs));
	if (!o->baseline || !o->result || !o->dirs)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m, ret;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			o->help = true;
			return 0;
		}
		if (!strcmp(arg, "--")) {
			if (dashes)
				return gpuperf_usage_error(cmd, usage, "'--' "
							   "twice");
			dashes = true;
			continue;
		}
		if (gpuperf_arg_flag(arg, "--force", NULL)) {
			o->force = true;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--threshold", NULL,
					   &value))) {
			if (m < 0 || (ret = percent_option("--threshold", value,
							   &o->threshold, 0,
							   1000)))
				return m < 0 ? gpuperf_usage_error(cmd, usage,
					"--threshold needs a percentage") : ret;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--confidence", NULL,
					   &value))) {
			if (m < 0 || (ret = percent_option("--confidence", value,
							   &o->confidence, 50,
							   99.9)))
				return m < 0 ? gpuperf_usage_error(cmd, usage,
					"--confidence needs a percentage") : ret;
			continue;
		}
		struct {
			const char *name;
			const char **path;
		} reports[] = {
			{ "--junit", &o->junit },
			{ "--markdown", &o->markdown },
			{ "--json", &o->json },
		};
		bool report = false;
		for (size_t k = 0; k < sizeof(reports) / sizeof(reports[0]); k++) {
			m = gpuperf_arg_value(argc, argv, &i, reports[k].name, NULL,
					      &value);
			if (m < 0 || (m && !*value))
				return gpuperf_usage_error(cmd, usage, "%s needs a "
							   "file name", arg);
			if (m) {
				*reports[k].path = value;
				report = true;
				break;
			}
		}
		if (report)
			continue;
		if ((m = gpuperf_arg_value(argc, argv, &i, "--metrics-dir", NULL,
					   &value))) {
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "--metrics-dir "
							   "needs a directory");
			o->dirs[o->n_dirs++] = value;
			continue;
		}
		struct {
			const char *name, *short_name;
			char ***list;
			size_t *n;
		} lists[] = {
			{ "--counters", "-c", &o->counters, &o->n_counters },
			{ "--higher-is-better", NULL, &o->higher_better,
			  &o->n_higher_better },
			{ "--lower-is-better", NULL, &o->lower_better,
			  &o->n_lower_better },
			{ "--any-direction", NULL, &o->any_direction,
			  &o->n_any_direction },
		};
		bool taken = false;
		for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
			m = gpuperf_arg_value(argc, argv, &i, lists[k].name,
					      lists[k].short_name, &value);
			if (!m)
				continue;
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "counter names", arg);
			if ((ret = list_option(arg, value, lists[k].list,
					       lists[k].n)))
				return ret;
			taken = true;
			break;
		}
		if (taken)
			continue;
		if (arg[0] == '-' && arg[1])
			return gpuperf_usage_error(cmd, usage, "unknown option "
						   "'%s'", arg);
		if (dashes)
			o->result[o->n_result++] = arg;
		else
			o->baseline[o->n_baseline++] = arg;
	}
	/* Without '--', two files are a baseline and a result. */
	if (!dashes && o->n_baseline == 2) {
		o->result[o->n_result++] = o->baseline[1];
		o->n_baseline = 1;
	} else if (!dashes && o->n_baseline > 2) {
		return gpuperf_usage_error(cmd, usage, "with more than one file "
					   "a side, put '--' between the "
					   "baseline files and the result files");
	}
	if (!o->n_baseline || !o->n_result)
		return gpuperf_usage_error(cmd, usage, "name the BASELINE and "
					   "the RESULT files");
	if (o->n_baseline > GPUPERF_SHIFT_MAX_SAMPLES ||
	    o->n_result > GPUPERF_SHIFT_MAX_SAMPLES)
		return gpuperf_usage_error(cmd, usage, "at most %d files a side",
					   GPUPERF_SHIFT_MAX_SAMPLES);
	return 0;
}

/* ------------------------------------------------------------------ */
/* One file: its kind, what it measured, one value per counter           */

static bool is_counter(const char *name)
{
	for (size_t i = 0; i < sizeof(metadata) / sizeof(metadata[0]); i++)
		if (!strcmp(name, metadata[i]))
			return false;
	return strncmp(name, "raw_", 4) != 0;
}

/* A window row: of the whole window, not one context's, and whole. */
static bool whole_window(const struct gpuperf_result *r, size_t row)
{
	int context = gpuperf_result_column(r, "context_id");
	int partial = gpuperf_result_column(r, "partial");
	int mark = gpuperf_result_column(r, "mark");

	if (context >= 0 && gpuperf_result_present(r, row, (size_t)context))
		return false;
	if (mark >= 0 && gpuperf_result_value(r, row, (size_t)mark) == 1)
		return false;
	return partial < 0 || gpuperf_result_value(r, row, (size_t)partial) != 1;
}

static int classify(struct loaded *f)
{
	const struct gpuperf_result *r = &f->r;
	int mark = gpuperf_result_column(r, "mark");
	int duration = gpuperf_result_column(r, "duration_ns");
	int platform = gpuperf_result_column(r, "platform");
	int set = gpuperf_result_column(r, "metric_set");

	if (r->n_rows) {
		f->platform = platform >= 0 ?
			gpuperf_result_text(r, 0, (size_t)platform) : NULL;
		f->metric_set = set >= 0 ?
			gpuperf_result_text(r, 0, (size_t)set) : NULL;
	}
	for (size_t row = 0; mark >= 0 && row < r->n_rows; row++) {
		if (gpuperf_result_value(r, row, (size_t)mark) != 1)
			continue;
		f->kind = KIND_RUN;
		f->totals_row = row;
		f->duration_ns = duration >= 0 ?
			gpuperf_result_value(r, row, (size_t)duration) : NAN;
		return 0;
	}
	f->kind = KIND_WINDOWS;
	double *lengths = calloc(r->n_rows ? r->n_rows : 1, sizeof(*lengths));
	size_t n = 0;
	if (!lengths)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	for (size_t row = 0; row < r->n_rows; row++)
		if (whole_window(r, row) && duration >= 0)
			lengths[n++] = gpuperf_result_value(r, row,
							    (size_t)duration);
	f->window_ns = gpuperf_median(lengths, n);
	f->duration_ns = f->window_ns;
	free(lengths);
	return 0;
}

/* The file's value of column: its totals, or the mean of its whole
 * windows (every window when none is whole). */
static double file_value(const struct loaded *f, size_t column)
{
	const struct gpuperf_result *r = &f->r;
	double sum = 0, all = 0;
	size_t n = 0, n_all = 0;

	if (f->kind == KIND_RUN)
		return gpuperf_result_value(r, f->totals_row, column);
	for (size_t row = 0; row < r->n_rows; row++) {
		double v = gpuperf_result_value(r, row, column);
		int context = gpuperf_result_column(r, "context_id");
		if (isnan(v) || (context >= 0 &&
				 gpuperf_result_present(r, row, (size_t)context)))
			continue;
		all += v;
		n_all++;
		if (whole_window(r, row)) {
			sum += v;
			n++;
		}
	}
	if (n)
		return sum / (double)n;
	return n_all ? all / (double)n_all : NAN;
}

/* ------------------------------------------------------------------ */
/* Like with like                                                        */

static int check_alike(const struct options *o, struct loaded *files,
		       size_t n)
{
	const struct loaded *first = &files[0];
	char window[GPUPERF_HUMAN_TEXT_MAX], other[GPUPERF_HUMAN_TEXT_MAX];

	for (size_t i = 1; i < n; i++) {
		const struct loaded *f = &files[i];
		if (f->kind != first->kind)
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s holds %s "
					    "and %s %s: compare like with like "
					    "(run with run, stream with stream)",
					    first->path, gpuperf_compare_kind_words(first->kind),
					    f->path, gpuperf_compare_kind_words(f->kind));
		if (f->kind == KIND_WINDOWS &&
		    fabs(f->window_ns - first->window_ns) >
		    0.02 * first->window_ns) {
			gpuperf_duration_text(window, sizeof(window),
					      first->window_ns);
			gpuperf_duration_text(other, sizeof(other), f->window_ns);
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s has "
					    "windows of %s and %s of %s: a "
					    "window's counts grow with it, so "
					    "compare streams of one -i", first->path,
					    window, f->path, other);
		}
		bool same_set = !first->metric_set || !f->metric_set ||
				!strcmp(first->metric_set, f->metric_set);
		bool same_platform = !first->platform || !f->platform ||
				     !strcmp(first->platform, f->platform);
		if ((!same_set || !same_platform) && !o->force)
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s measured "
					    "%s on %s, %s %s on %s: different "
					    "metric sets or GPUs measure different "
					    "things; --force compares them anyway",
					    first->path, first->metric_set,
					    first->platform, f->path, f->metric_set,
					    f->platform);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Directions and the decision                                           */

static enum direction direction_of(const struct options *o,
				   const struct gpm_counter *def,
				   const char *name)
{
	if (listed(o->any_direction, o->n_any_direction, name))
		return DIRECTION_ANY;
	if (listed(o->higher_better, o->n_higher_better, name))
		return DIRECTION_RISE_BETTER;
	if (listed(o->lower_better, o->n_lower_better, name))
		return DIRECTION_RISE_WORSE;
	if (!def)
		return DIRECTION_REPORTED;
	/* Shares and rates say how busy or fast, not what the work cost. */
	static const char *const reported[] = { "percent", "hz", "mhz", "ghz",
						"gbps", "ratio" };
	for (size_t i = 0; i < sizeof(reported) / sizeof(reported[0]); i++)
		if (def->units && !strcasecmp(def->units, reported[i]))
			return DIRECTION_REPORTED;
	if (def->semantic_type && !strcmp(def->semantic_type, "ratio"))
		return DIRECTION_REPORTED;
	return DIRECTION_RISE_WORSE;
}

/* The verdict of a change, in percent, judged by its interval [low, high]
 * (or the estimate alone, when there is none). */
static enum verdict judge(const struct options *o, enum direction direction,
			  double low, double high)
{
	double t = o->threshold;
	bool rose = low > t, fell = high < -t;

	if (direction == DIRECTION_REPORTED)
		return VERDICT_REPORTED;
	if (!rose && !fell)
		return VERDICT_SAME;
	if (direction == DIRECTION_ANY)
		return VERDICT_CHANGED;
	bool good = rose == (direction == DIRECTION_RISE_BETTER);
	return good ? VERDICT_BETTER : VERDICT_WORSE;
}

static double percent_of(double shift, double base)
{
	if (shift == 0)
		return 0;
	if (base == 0)
		return shift > 0 ? INFINITY : -INFINITY;
	return shift / fabs(base) * 100;
}

static int compare_counter(const struct options *o, struct comparison *c,
			   const struct loaded *base,
			   const struct loaded *result, size_t column,
			   const struct gpm_metric_set *set,
			   struct counter_result *out)
{
	const char *name = base[0].r.names[column];
	double *x = calloc(c->n_baseline, sizeof(*x));
	double *y = calloc(c->n_result, sizeof(*y));
	size_t n = 0, m = 0;

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_baseline; i++) {
		double v = file_value(&base[i], column);
		if (!isnan(v))
			x[n++] = v;
	}
	for (size_t j = 0; j < c->n_result; j++) {
		int k = gpuperf_result_column(&result[j].r, name);
		double v = k >= 0 ? file_value(&result[j], (size_t)k) : NAN;
		if (!isnan(v))
			y[m++] = v;
	}
	int def_index = set ? gpm_metric_set_lookup_counter(set, name) : -1;
	const struct gpm_counter *def = def_index >= 0 ?
		&set->counters[def_index] : NULL;
	out->name = name;
	out->direction = direction_of(o, def, name);
	if (def) {
		gpuperf_display_for(&out->display, def->units,
				    (enum gpc_counter_type)def->type,
				    def->semantic_type);
		out->has_display = true;
	}
	if (!n || !m) {
		out->verdict = VERDICT_NO_VALUE;
	} else {
		int ret = gpuperf_shift_estimate(x, n, y, m, o->confidence / 100,
						 &out->shift);
		if (ret) {
			free(x);
			free(y);
			return ret;
		}
		double base_median = out->shift.baseline_median;
		out->change = percent_of(out->shift.shift, base_median);
		out->low = out->shift.has_interval ?
			   percent_of(out->shift.low, base_median) : out->change;
		out->high = out->shift.has_interval ?
			    percent_of(out->shift.high, base_median) : out->change;
		out->verdict = judge(o, out->direction, out->low, out->high);
	}
	free(x);
	free(y);
	return 0;
}

/* ------------------------------------------------------------------ */

static int load_side(const char *const *paths, size_t n, struct loaded *files)
{
	char why[512];

	for (size_t i = 0; i < n; i++) {
		files[i].path = paths[i];
		if (gpuperf_result_load(paths[i], &files[i].r, why,
					sizeof(why)) < 0)
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s", why);
		int ret = classify(&files[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The results' metric set, from the built-in definitions and
 * --metrics-dir; NULL when none describes it. */
static const struct gpm_metric_set *find_definitions(const struct options *o,
						     struct gpm_metrics_db *db,
						     const char *platform,
						     const char *set)
{
	if (!platform || !set)
		return NULL;
	gpm_metrics_db_add_builtin(db);
	for (size_t i = 0; i < o->n_dirs; i++)
		gpm_metrics_db_add_platform_file(db, o->dirs[i], platform);
	const struct gpm_metrics_file *file =
		gpm_metrics_db_find_platform(db, platform);
	return file ? gpm_metrics_file_lookup_set(file, set) : NULL;
}

/* Writes one of the CI reports to path. */
static int write_report(const char *path, const struct comparison *c,
			int (*writer)(const struct comparison *, FILE *))
{
	if (!path)
		return 0;
	FILE *f = fopen(path, "w");
	if (!f)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write %s: %s",
				    path, strerror(errno));
	int ret = writer(c, f);
	if (fclose(f) || ret)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write %s: %s",
				    path, strerror(errno ? errno : EIO));
	return 0;
}

static int compare(const struct options *o, struct comparison *c,
		   struct loaded *base, struct loaded *result)
{
	struct gpm_metrics_db db;
	int ret = 0;

	gpm_metrics_db_init(&db);
	c->kind = base[0].kind;
	c->duration_ns = base[0].duration_ns;
	c->platform = base[0].platform;
	c->metric_set = base[0].metric_set;
	const struct gpm_metric_set *set =
		find_definitions(o, &db, c->platform, c->metric_set);
	c->definitions = set != NULL;
	c->min_files = gpuperf_shift_min_samples(o->confidence / 100);
	for (size_t i = 0; i < o->n_counters; i++) {
		for (size_t f = 0; f < c->n_baseline + c->n_result; f++) {
			const struct loaded *file = f < c->n_baseline ?
				&base[f] : &result[f - c->n_baseline];
			if (gpuperf_result_column(&file->r, o->counters[i]) < 0) {
				ret = gpuperf_fail(cmd, GPUPERF_EXIT_USAGE,
						   "counter '%s' is not in %s",
						   o->counters[i], file->path);
				goto out;
			}
		}
	}
	c->counters = calloc(base[0].r.n_columns ? base[0].r.n_columns : 1,
			     sizeof(*c->counters));
	if (!c->counters) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
		goto out;
	}
	for (size_t col = 0; col < base[0].r.n_columns; col++) {
		const char *name = base[0].r.names[col];
		bool everywhere = true;
		for (size_t f = 0; f < c->n_baseline + c->n_result; f++) {
			const struct loaded *file = f < c->n_baseline ?
				&base[f] : &result[f - c->n_baseline];
			everywhere &= gpuperf_result_column(&file->r, name) >= 0;
		}
		if (o->n_counters ? !listed(o->counters, o->n_counters, name) :
		    !is_counter(name) || !everywhere)
			continue;
		struct counter_result *k = &c->counters[c->n_counters++];
		if ((ret = compare_counter(o, c, base, result, col, set, k))) {
			ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of "
					   "memory");
			goto out;
		}
		c->has_interval |= k->shift.has_interval;
		c->worse += k->verdict == VERDICT_WORSE;
		c->better += k->verdict == VERDICT_BETTER;
		c->changed += k->verdict == VERDICT_CHANGED;
		c->reported += k->verdict == VERDICT_REPORTED;
	}
	if (!c->n_counters) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "the files have no "
				   "counter in common");
		goto out;
	}
	if (gpuperf_compare_write_text(c, stdout)) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write the output");
		goto out;
	}
	if ((ret = write_report(o->junit, c, gpuperf_compare_write_junit)) ||
	    (ret = write_report(o->markdown, c, gpuperf_compare_write_markdown)) ||
	    (ret = write_report(o->json, c, gpuperf_compare_write_json)))
		goto out;
	ret = c->worse || c->changed ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_OK;
out:
	gpm_metrics_db_fini(&db);
	return ret;
}

int gpuperf_cmd_compare(int argc, char **argv)
{
	struct options o = { 0 };
	struct loaded *base = NULL, *result = NULL;
	struct comparison c = { 0 };

	int ret = parse(argc, argv, &o);
	if (!ret && o.help)
		printf("usage: %s\n\n%s", usage, help);
	if (ret || o.help)
		goto out;
	base = calloc(o.n_baseline, sizeof(*base));
	result = calloc(o.n_result, sizeof(*result));
	if (!base || !result) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
		goto out;
	}
	c.threshold = o.threshold;
	c.confidence = o.confidence;
	c.n_baseline = o.n_baseline;
	c.n_result = o.n_result;
	if ((ret = load_side(o.baseline, o.n_baseline, base)) ||
	    (ret = load_side(o.result, o.n_result, result)))
		goto out;
	/* Both sides together: every file like every other. */
	struct loaded *all = calloc(o.n_baseline + o.n_result, sizeof(*all));
	if (!all) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
		goto out;
	}
	memcpy(all, base, o.n_baseline * sizeof(*all));
	memcpy(all + o.n_baseline, result, o.n_result * sizeof(*all));
	ret = check_alike(&o, all, o.n_baseline + o.n_result);
	free(all);
	if (!ret)
		ret = compare(&o, &c, base, result);
out:
	for (size_t i = 0; base && i < o.n_baseline; i++)
		gpuperf_result_fini(&base[i].r);
	for (size_t i = 0; result && i < o.n_result; i++)
		gpuperf_result_fini(&result[i].r);
	free(base);
	free(result);
	free(c.counters);
	free(o.baseline);
	free(o.result);
	free(o.dirs);
	free(o.counters);
	free(o.higher_better);
	free(o.lower_better);
	free(o.any_direction);
	return ret;
}
