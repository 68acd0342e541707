/*
 * gpuperf compare's reports: the comparison as cmd_compare.c computes it,
 * and its writers. The text report is for people; JUnit XML (GitLab,
 * Jenkins: one test case per counter, a regression a failure with the
 * numbers), Markdown (a GitHub Actions job summary) and JSON (anything
 * else) are for CI systems. All of them say the same things.
 */
#ifndef GPUPERF_COMPARE_REPORT_H
#define GPUPERF_COMPARE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/compare_stats.h"
#include "client/human_text.h"

/* What one file is. */
enum result_kind {
	KIND_RUN,               /* a run's totals */
	KIND_WINDOWS,           /* windows of a stream or replay */
};

enum verdict {
	VERDICT_SAME,
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_CHANGED,                /* past the threshold, any direction */
	VERDICT_REPORTED,               /* a share or rate: not judged */
	VERDICT_NO_VALUE,
};

enum direction {
	DIRECTION_REPORTED,
	DIRECTION_RISE_WORSE,
	DIRECTION_RISE_BETTER,
	DIRECTION_ANY,
};

/* One counter's comparison. */
struct counter_result {
	const char *name;
	enum direction direction;
	struct gpuperf_display display; /* how its values read */
	bool has_display;
	struct gpuperf_shift shift;
	double change, low, high;       /* percent of the baseline's median */
	enum verdict verdict;
};

/* Everything a report writer needs. */
struct comparison {
	double threshold, confidence;   /* percent */
	size_t n_baseline, n_result;
	enum result_kind kind;
	double duration_ns;             /* of a baseline file, for rates */
	const char *platform, *metric_set;
	bool definitions;               /* directions from the metric set */
	bool has_interval;              /* enough files for the confidence */
	size_t min_files;               /* what an interval needs */
	size_t n_counters;
	struct counter_result *counters;
	size_t worse, better, changed, reported;
};

/* "a run's totals", "windows of a stream". */
const char *gpuperf_compare_kind_words(enum result_kind kind);

/* Each writes the whole report to out; -EIO when out refused it. */
int gpuperf_compare_write_text(const struct comparison *c, FILE *out);
int gpuperf_compare_write_junit(const struct comparison *c, FILE *out);
int gpuperf_compare_write_markdown(const struct comparison *c, FILE *out);
int gpuperf_compare_write_json(const struct comparison *c, FILE *out);

#endif
