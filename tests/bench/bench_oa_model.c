/*
 * How fast the simulated OA unit turns GPU time into records: the sim GPU
 * running RenderBasic at exponent 0 (a report every 2 timestamp ticks, the
 * hardware's fastest), generating and reading back about a 16 MiB OA
 * buffer's worth per round, against a memcpy of the same bytes in the same
 * run. Also says how the model's pace compares with the hardware it
 * models. Prints ratios, never a verdict.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/sim/oa_model.h"
#include "metrics/metrics_db.h"
#include "metrics/sim_device.h"

#define ROUNDS 9
/* Timer reports per round: just under what the 16 MiB buffer holds, so
 * the context-switch reports in between never make it overflow. */
#define REPORTS_PER_ROUND 60000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* One round: advance, then drain; returns the bytes read. */
static size_t round_trip(struct gpd_oa_model *model, unsigned char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	gpd_oa_model_advance(model, 2 * REPORTS_PER_ROUND);
	while ((n = gpd_oa_model_read(model, buf + len, cap - len)) > 0)
		len += (size_t)n;
	return n == -EAGAIN ? len : 0;
}

int main(void)
{
	struct gpm_device_info dev;
	struct gpm_metrics_db db;
	struct gpd_oa_model *model;
	const size_t cap = 24u * 1024 * 1024;
	unsigned char *buf = malloc(cap), *copy = malloc(cap);
	double t_model[ROUNDS], t_copy[ROUNDS];
	size_t records = 0, bytes = 0;

	gpm_sim_device_info(&dev);
	gpm_metrics_db_init(&db);
	if (!buf || !copy || gpm_metrics_db_add_builtin(&db)) {
		fprintf(stderr, "bench_oa_model: out of memory\n");
		return 1;
	}
	struct gpd_oa_model_config cfg = {
		.dev = &dev,
		.exponent = 0,
		.seed = 1,
		.set = gpm_metrics_db_find_set(&db, "simgen12", "RenderBasic"),
	};
	if (!cfg.set || gpd_oa_model_create(&cfg, &model)) {
		fprintf(stderr, "bench_oa_model: no sim model\n");
		return 1;
	}
	gpd_oa_model_enable(model);

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_s();
		bytes = round_trip(model, buf, cap);
		double t1 = now_s();
		memcpy(copy, buf, bytes);
		double t2 = now_s();

		if (bytes == 0) {
			fprintf(stderr, "bench_oa_model: a round lost data\n");
			return 1;
		}
		t_model[r] = t1 - t0;
		t_copy[r] = t2 - t1;
		records = bytes / gpd_oa_model_record_size(model);
	}

	double model_s = median(t_model, ROUNDS), copy_s = median(t_copy, ROUNDS);
	double reports_per_s = (double)records / model_s;
	/* The hardware writes one report per period at exponent 0. */
	double hw_reports_per_s = (double)dev.timestamp_frequency / 2;

	printf("oa_model: %zu records (%zu bytes) per round, median of %d rounds\n",
	       records, bytes, ROUNDS);
	printf("  generate+read: %.3f ms, %.2f M reports/s, %.1f ns/report\n",
	       model_s * 1e3, reports_per_s / 1e6, model_s * 1e9 / (double)records);
	printf("  memcpy of the same bytes: %.3f ms\n", copy_s * 1e3);
	printf("  ratio model/memcpy: %.1f\n", model_s / copy_s);
	printf("  pace against the modeled hardware at exponent 0: %.2fx real time\n",
	       reports_per_s / hw_reports_per_s);

	gpd_oa_model_destroy(model);
	gpm_metrics_db_fini(&db);
	free(buf);
	free(copy);
	return 0;
}
