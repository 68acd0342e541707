/*
 * The statistics of gpuperf compare: how far one set of measurements lies
 * from another, with a confidence interval that assumes nothing about
 * their distribution, so that noise is not taken for a regression.
 *
 * The shift of the result files from the baseline files is the
 * Hodges-Lehmann estimate: the median of every difference result[j] -
 * baseline[i]. Its confidence interval comes from the Mann-Whitney U
 * statistic's exact distribution: with C the largest count such that
 * P(U <= C) <= (1 - confidence) / 2 when both sides come from one
 * distribution, the interval runs from the (C+1)-th smallest difference to
 * the (C+1)-th largest, and holds the true shift with at least the
 * confidence asked. Four files per side give a 95% interval; fewer give
 * none.
 */
#ifndef GPUPERF_COMPARE_STATS_H
#define GPUPERF_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* More files than this per side are refused (the exact distribution's
 * table grows with their product). */
#define GPUPERF_SHIFT_MAX_SAMPLES 100

struct gpuperf_shift {
	double baseline_median, result_median;
	double shift;                   /* result less baseline, estimated */
	bool has_interval;              /* enough samples for the confidence */
	double low, high;               /* the shift's interval */
	double confidence;              /* what it holds with, at least */
};

/*
 * The shift of y (m values) from x (n values) at confidence (e.g. 0.95).
 * 0, -EINVAL (no values on a side, more than GPUPERF_SHIFT_MAX_SAMPLES,
 * a confidence outside (0, 1)), -ENOMEM.
 */
int gpuperf_shift_estimate(const double *x, size_t n, const double *y,
			   size_t m, double confidence,
			   struct gpuperf_shift *out);

/* The fewest samples per side (both sides alike) that give an interval
 * at confidence. */
size_t gpuperf_shift_min_samples(double confidence);

/* The median of n values (sorted in place). */
double gpuperf_median(double *v, size_t n);

#endif
