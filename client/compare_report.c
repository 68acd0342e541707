/*
 * gpuperf compare's report writers (see compare_report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "client/compare_report.h"
#include "client/human_text.h"

const char *gpuperf_compare_kind_words(enum result_kind kind)
{
	return kind == KIND_RUN ? "a run's totals" : "windows of a stream";
}

/* ------------------------------------------------------------------ */
/* Values as people read them                                            */

/* A median as people read it: a run's totals in the counter's unit, a
 * stream's window means as rates per second. */
static void value_text(char *buf, size_t size, const struct comparison *c,
		       const struct counter_result *k, double v)
{
	char unit[sizeof(k->display.unit)];

	if (!k->has_display) {
		gpuperf_human_value(buf, size, v, "");
		return;
	}
	snprintf(unit, sizeof(unit), "%s", k->display.unit);
	if (k->display.per_second && c->kind == KIND_RUN) {
		/* A run's total, not a rate: the unit without its "/s". */
		size_t len = strlen(unit);
		if (len >= 2 && !strcmp(unit + len - 2, "/s"))
			unit[len - 2] = '\0';
		gpuperf_human_value(buf, size, v * k->display.scale, unit);
		return;
	}
	gpuperf_human_value(buf, size,
			    gpuperf_display_value(&k->display, v,
						  c->duration_ns / 1e9), unit);
}

static void percent_text(char *buf, size_t size, double p)
{
	if (isinf(p))
		snprintf(buf, size, "%s", p > 0 ? "from 0" : "to 0");
	else
		snprintf(buf, size, "%+.1f%%", p);
}

static const char *verdict_text(const struct counter_result *k)
{
	switch (k->verdict) {
	case VERDICT_SAME:
		return "ok";
	case VERDICT_BETTER:
		return "better";
	case VERDICT_WORSE:
		return "WORSE";
	case VERDICT_CHANGED:
		return "CHANGED";
	case VERDICT_REPORTED:
		return "reported";
	case VERDICT_NO_VALUE:
		break;
	}
	return "no value";
}

/* ------------------------------------------------------------------ */
/* Text, for people                                                      */

int gpuperf_compare_write_text(const struct comparison *c, FILE *out)
{
	char base[GPUPERF_HUMAN_TEXT_MAX], result[GPUPERF_HUMAN_TEXT_MAX];
	char change[32], low[32], high[32], interval[80];
	int width = 7;

	fprintf(out, "%zu baseline and %zu result file%s of %s on %s (%s)\n",
	             c->n_baseline, c->n_result, c->n_result == 1 ? "" : "s",
	             c->metric_set ? c->metric_set : "an unnamed metric set",
	             c->platform ? c->platform : "an unnamed platform",
	             gpuperf_compare_kind_words(c->kind));
	fprintf(out, "method: Hodges-Lehmann shift of the medians with its %g%% "
	             "Mann-Whitney interval; WORSE when the whole interval lies past "
	             "the threshold of %g%% in the counter's bad direction\n",
	             c->confidence, c->threshold);
	if (!c->has_interval)
		fprintf(out, "the noise is unknown: %zu and %zu file%s a side are too "
		             "few for a %g%% interval (%zu a side are needed), so the "
		             "estimate alone decides; run each side more times\n",
		             c->n_baseline, c->n_result, c->n_result == 1 ? "" : "s",
		             c->confidence, c->min_files);
	if (!c->definitions)
		fprintf(out, "no metric definitions for %s here: counters are "
		             "reported, not judged, unless named (--lower-is-better, "
		             "--higher-is-better) or found with --metrics-dir\n",
		             c->platform ? c->platform : "these results");
	for (size_t i = 0; i < c->n_counters; i++) {
		int len = (int)strlen(c->counters[i].name);
		if (len > width)
			width = len;
	}
	fprintf(out, "%-*s  %16s  %16s  %8s  %-20s  %s\n", width, "COUNTER",
	             "BASELINE", "RESULT", "CHANGE",
	             c->has_interval ? "INTERVAL" : "", "VERDICT");
	for (size_t i = 0; i < c->n_counters; i++) {
		const struct counter_result *k = &c->counters[i];
		if (k->verdict == VERDICT_NO_VALUE) {
			fprintf(out, "%-*s  %16s  %16s  %8s  %-20s  %s\n", width,
			             k->name, "-", "-", "-", "", verdict_text(k));
			continue;
		}
		value_text(base, sizeof(base), c, k, k->shift.baseline_median);
		value_text(result, sizeof(result), c, k,
			   k->shift.result_median);
		percent_text(change, sizeof(change), k->change);
		interval[0] = '\0';
		if (k->shift.has_interval) {
			percent_text(low, sizeof(low), k->low);
			percent_text(high, sizeof(high), k->high);
			snprintf(interval, sizeof(interval), "%s .. %s", low,
				 high);
		}
		fprintf(out, "%-*s  %*s%s  %*s%s  %8s  %-20s  %s\n", width, k->name,
		             16 - gpuperf_text_width(base), "", base,
		             16 - gpuperf_text_width(result), "", result, change,
		             interval, verdict_text(k));
	}
	fprintf(out, "%zu counters compared: %zu worse, %zu better%s, %zu reported "
	             "(shares and rates: not judged)\n", c->n_counters, c->worse,
	             c->better, c->changed ? " and some changed" : "", c->reported);
	return fflush(out) || ferror(out) ? -EIO : 0;
}


/* ------------------------------------------------------------------ */
/* For CI systems                                                        */

static const char *verdict_word(enum verdict v)
{
	static const char *const words[] = {
		[VERDICT_SAME] = "same", [VERDICT_BETTER] = "better",
		[VERDICT_WORSE] = "worse", [VERDICT_CHANGED] = "changed",
		[VERDICT_REPORTED] = "reported", [VERDICT_NO_VALUE] = "no_value",
	};
	return words[v];
}

static const char *direction_word(enum direction d)
{
	static const char *const words[] = {
		[DIRECTION_REPORTED] = "reported",
		[DIRECTION_RISE_WORSE] = "lower_is_better",
		[DIRECTION_RISE_BETTER] = "higher_is_better",
		[DIRECTION_ANY] = "any_change_fails",
	};
	return words[d];
}

static bool fails(const struct counter_result *k)
{
	return k->verdict == VERDICT_WORSE || k->verdict == VERDICT_CHANGED;
}

/* "+12.0% (interval +8.1% .. +15.9%): 1.20 ms -> 1.34 ms", the numbers a
 * failure's message and a summary give. */
static void numbers_text(char *buf, size_t size, const struct comparison *c,
			 const struct counter_result *k)
{
	char base[GPUPERF_HUMAN_TEXT_MAX], result[GPUPERF_HUMAN_TEXT_MAX];
	char change[32], low[32], high[32], interval[96] = "";

	value_text(base, sizeof(base), c, k, k->shift.baseline_median);
	value_text(result, sizeof(result), c, k, k->shift.result_median);
	percent_text(change, sizeof(change), k->change);
	if (k->shift.has_interval) {
		percent_text(low, sizeof(low), k->low);
		percent_text(high, sizeof(high), k->high);
		snprintf(interval, sizeof(interval), " (%g%% interval %s .. %s)",
			 c->confidence, low, high);
	}
	snprintf(buf, size, "%s%s: %s -> %s, threshold %g%%", change, interval,
		 base, result, c->threshold);
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '<')
			fputs("&lt;", out);
		else if (ch == '>')
			fputs("&gt;", out);
		else if (ch == '&')
			fputs("&amp;", out);
		else if (ch == '"')
			fputs("&quot;", out);
		else if (ch < 0x20 && ch != '\n' && ch != '\t')
			fputc('?', out);        /* XML 1.0 has no such character */
		else
			fputc(ch, out);
	}
}

/* JUnit XML as GitLab and Jenkins read it: a test suite of the
 * comparison, a test case per counter; WORSE (and CHANGED) counters are
 * failures whose message has the numbers, counters without values are
 * skipped, the others pass. */
int gpuperf_compare_write_junit(const struct comparison *c, FILE *out)
{
	char numbers[512], suite[512];
	size_t skipped = 0, failures = c->worse + c->changed;

	for (size_t i = 0; i < c->n_counters; i++)
		skipped += c->counters[i].verdict == VERDICT_NO_VALUE;
	snprintf(suite, sizeof(suite), "gpuperf compare: %s on %s",
		 c->metric_set ? c->metric_set : "an unnamed metric set",
		 c->platform ? c->platform : "an unnamed platform");
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"gpuperf compare\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"0\" skipped=\"%zu\">\n<testsuite name=\"", c->n_counters,
		failures, skipped);
	xml_text(out, suite);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		c->n_counters, failures, skipped);
	fprintf(out, "  <properties>\n"
		"    <property name=\"baseline_files\" value=\"%zu\"/>\n"
		"    <property name=\"result_files\" value=\"%zu\"/>\n"
		"    <property name=\"threshold_percent\" value=\"%g\"/>\n"
		"    <property name=\"confidence_percent\" value=\"%g\"/>\n"
		"  </properties>\n", c->n_baseline, c->n_result, c->threshold,
		c->confidence);
	for (size_t i = 0; i < c->n_counters; i++) {
		const struct counter_result *k = &c->counters[i];
		fputs("  <testcase classname=\"gpuperf.", out);
		xml_text(out, c->metric_set ? c->metric_set : "counters");
		fputs("\" name=\"", out);
		xml_text(out, k->name);
		fputs("\" time=\"0\">\n", out);
		if (k->verdict == VERDICT_NO_VALUE) {
			fputs("    <skipped message=\"no value on one side\"/>\n", out);
		} else {
			numbers_text(numbers, sizeof(numbers), c, k);
			if (fails(k)) {
				fputs("    <failure message=\"", out);
				xml_text(out, numbers);
				fprintf(out, "\" type=\"%s\">", verdict_word(k->verdict));
			} else {
				fputs("    <system-out>", out);
			}
			xml_text(out, k->name);
			fprintf(out, " %s: ", verdict_text(k));
			xml_text(out, numbers);
			fputs(fails(k) ? "</failure>\n" : "</system-out>\n", out);
		}
		fputs("  </testcase>\n", out);
	}
	fputs("</testsuite>\n</testsuites>\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* Markdown for a GitHub Actions job summary: the verdict in a line, then
 * the counters that failed, then every counter in a table. */

/* Text in Markdown, as it reads: the characters that would end a table
 * cell or start emphasis or code are escaped, and a line break is a space
 * (a counter's name comes from a result file and may hold any of them). */
static void markdown_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\|*_`<>[]", *s))
			fputc('\\', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

int gpuperf_compare_write_markdown(const struct comparison *c, FILE *out)
{
	char base[GPUPERF_HUMAN_TEXT_MAX], result[GPUPERF_HUMAN_TEXT_MAX];
	char change[32], low[32], high[32], numbers[512];
	size_t failures = c->worse + c->changed;

	fprintf(out, "## gpuperf compare: %s\n\n",
		failures ? "regression" : "no regression");
	fprintf(out, "%zu counters of %s on %s (%s), %zu baseline and %zu "
		"result file%s: **%zu worse**, %zu better, %zu changed, %zu "
		"reported (shares and rates: not judged). WORSE when the whole "
		"%g%% interval of the change lies past %g%% in the counter's bad "
		"direction.\n\n", c->n_counters,
		c->metric_set ? c->metric_set : "an unnamed metric set",
		c->platform ? c->platform : "an unnamed platform",
		gpuperf_compare_kind_words(c->kind), c->n_baseline, c->n_result,
		c->n_result == 1 ? "" : "s", c->worse, c->better, c->changed,
		c->reported, c->confidence, c->threshold);
	if (!c->has_interval)
		fprintf(out, "> The noise is unknown: %zu a side are needed for a "
			"%g%% interval; the estimate alone decided.\n\n",
			c->min_files, c->confidence);
	for (size_t i = 0; i < c->n_counters; i++) {
		const struct counter_result *k = &c->counters[i];
		if (!fails(k))
			continue;
		numbers_text(numbers, sizeof(numbers), c, k);
		fputs("- **", out);
		markdown_text(out, k->name);
		fprintf(out, "** %s: %s\n", verdict_text(k), numbers);
	}
	fputs(failures ? "\n" : "", out);
	fputs("| Counter | Baseline | Result | Change | Interval | Verdict |\n"
	      "|---|---:|---:|---:|---|---|\n", out);
	for (size_t i = 0; i < c->n_counters; i++) {
		const struct counter_result *k = &c->counters[i];
		if (k->verdict == VERDICT_NO_VALUE) {
			fputs("| ", out);
			markdown_text(out, k->name);
			fputs(" | - | - | - | | no value |\n", out);
			continue;
		}
		value_text(base, sizeof(base), c, k, k->shift.baseline_median);
		value_text(result, sizeof(result), c, k, k->shift.result_median);
		percent_text(change, sizeof(change), k->change);
		fputs("| ", out);
		markdown_text(out, k->name);
		fprintf(out, " | %s | %s | %s | ", base, result, change);
		if (k->shift.has_interval) {
			percent_text(low, sizeof(low), k->low);
			percent_text(high, sizeof(high), k->high);
			fprintf(out, "%s .. %s", low, high);
		}
		fprintf(out, fails(k) ? " | **%s** |\n" : " | %s |\n", verdict_text(k));
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* A number JSON can hold: null for NaN and the infinities (a change from
 * or to 0). */
static void json_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

/* JSON for anything else: the comparison as it is, values in the
 * results' own units (a run's totals, a stream's window means). */
int gpuperf_compare_write_json(const struct comparison *c, FILE *out)
{
	fputs("{\"tool\":\"gpuperf compare\",\"metric_set\":", out);
	if (c->metric_set)
		json_string(out, c->metric_set);
	else
		fputs("null", out);
	fputs(",\"platform\":", out);
	if (c->platform)
		json_string(out, c->platform);
	else
		fputs("null", out);
	fprintf(out, ",\"kind\":\"%s\",\"baseline_files\":%zu,\"result_files\":%zu,"
		"\"threshold_percent\":", c->kind == KIND_RUN ? "run" : "windows",
		c->n_baseline, c->n_result);
	json_number(out, c->threshold);
	fputs(",\"confidence_percent\":", out);
	json_number(out, c->confidence);
	fprintf(out, ",\"noise_known\":%s,\"regression\":%s,\"worse\":%zu,"
		"\"better\":%zu,\"changed\":%zu,\"reported\":%zu,\"counters\":[",
		c->has_interval ? "true" : "false",
		c->worse || c->changed ? "true" : "false", c->worse, c->better,
		c->changed, c->reported);
	for (size_t i = 0; i < c->n_counters; i++) {
		const struct counter_result *k = &c->counters[i];
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_string(out, k->name);
		fprintf(out, ",\"verdict\":\"%s\",\"direction\":\"%s\"",
			verdict_word(k->verdict), direction_word(k->direction));
		if (k->verdict != VERDICT_NO_VALUE) {
			fputs(",\"baseline_median\":", out);
			json_number(out, k->shift.baseline_median);
			fputs(",\"result_median\":", out);
			json_number(out, k->shift.result_median);
			fputs(",\"change_percent\":", out);
			json_number(out, k->change);
			if (k->shift.has_interval) {
				fputs(",\"interval_percent\":[", out);
				json_number(out, k->low);
				fputc(',', out);
				json_number(out, k->high);
				fputc(']', out);
			}
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
