/*
 * The Hodges-Lehmann shift and its Mann-Whitney interval (see
 * compare_stats.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/compare_stats.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double gpuperf_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The largest C with P(U <= C) <= tail for samples of n and m from one
 * distribution, or -1 when even P(U = 0) is above it. count[u] is the
 * number of orderings of the n + m values whose U is u, built up one
 * value at a time: the recurrence N(n, m, u) = N(n - 1, m, u - m) +
 * N(n, m - 1, u), kept as one row per n.
 */
static long critical_count(size_t n, size_t m, double tail, int *err)
{
	size_t cells = n * m + 1;
	/* rows[i][j][u]: N(i, j, u); j is swept in place for each i. */
	double *prev = calloc((m + 1) * cells, sizeof(double));
	double *cur = calloc((m + 1) * cells, sizeof(double));
	long c = -1;

	*err = 0;
	if (!prev || !cur) {
		free(prev);
		free(cur);
		*err = -ENOMEM;
		return -1;
	}
	/* N(0, j, 0) = 1 */
	for (size_t j = 0; j <= m; j++)
		prev[j * cells] = 1;
	for (size_t i = 1; i <= n; i++) {
		memset(cur, 0, (m + 1) * cells * sizeof(double));
		cur[0] = 1;                     /* N(i, 0, 0) */
		for (size_t j = 1; j <= m; j++)
			for (size_t u = 0; u <= i * j; u++)
				cur[j * cells + u] =
					(u >= j ? prev[j * cells + u - j] : 0) +
					cur[(j - 1) * cells + u];
		double *swap = prev;
		prev = cur;
		cur = swap;
	}
	double total = 0;
	for (size_t u = 0; u < cells; u++)
		total += prev[m * cells + u];
	double below = 0;
	for (size_t u = 0; u < cells; u++) {
		below += prev[m * cells + u];
		if (below / total > tail)
			break;
		c = (long)u;
	}
	free(prev);
	free(cur);
	return c;
}

int gpuperf_shift_estimate(const double *x, size_t n, const double *y,
			   size_t m, double confidence,
			   struct gpuperf_shift *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (!n || !m || n > GPUPERF_SHIFT_MAX_SAMPLES ||
	    m > GPUPERF_SHIFT_MAX_SAMPLES || !(confidence > 0) ||
	    !(confidence < 1))
		return -EINVAL;
	double *d = malloc(n * m * sizeof(*d));
	double *xs = malloc(n * sizeof(*xs));
	double *ys = malloc(m * sizeof(*ys));
	if (!d || !xs || !ys) {
		free(d);
		free(xs);
		free(ys);
		return -ENOMEM;
	}
	memcpy(xs, x, n * sizeof(*xs));
	memcpy(ys, y, m * sizeof(*ys));
	out->baseline_median = gpuperf_median(xs, n);
	out->result_median = gpuperf_median(ys, m);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m; j++)
			d[i * m + j] = y[j] - x[i];
	out->shift = gpuperf_median(d, n * m);      /* sorts d */
	long c = critical_count(n, m, (1 - confidence) / 2, &err);
	if (!err && c >= 0) {
		size_t k = (size_t)c;   /* the (C+1)-th, 0-based C */
		out->has_interval = true;
		out->low = d[k];
		out->high = d[n * m - 1 - k];
		out->confidence = confidence;
	}
	free(d);
	free(xs);
	free(ys);
	return err;
}

size_t gpuperf_shift_min_samples(double confidence)
{
	int err;

	for (size_t n = 1; n <= GPUPERF_SHIFT_MAX_SAMPLES; n++)
		if (critical_count(n, n, (1 - confidence) / 2, &err) >= 0)
			return n;
	return GPUPERF_SHIFT_MAX_SAMPLES + 1;
}
