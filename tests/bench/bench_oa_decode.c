/*
 * How fast OA reports turn into deltas: decode + accumulate of synthetic
 * A32u40_A4u32_B8_C8 reports (a 16 MiB OA buffer's worth), deltas straight
 * from the raw reports pair by pair and a run at a time, and the same
 * through an interval windower fed report by report and in runs, each
 * against a memcpy of the same bytes in the same run. Prints ratios, never
 * a verdict.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics/oa_delta.h"
#include "metrics/oa_format.h"
#include "metrics/oa_report.h"
#include "metrics/oa_window.h"

#define N_REPORTS 65536
#define ROUNDS 9

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reports 2^exponent ticks apart whose counters all advance, the 40-bit
 * ones past their low dword now and then. */
static int fill(const struct gpm_oa_decoder *dec, unsigned char *buf)
{
	const struct gpm_oa_format *fmt = dec->format;
	struct gpm_oa_report r;
	uint64_t seed = 0x2545f4914f6cdd1dull;

	memset(&r, 0, sizeof(r));
	r.ctx_valid = true;
	r.reason = GPM_OA_REASON_TIMER;
	r.ctx_id = 1;
	for (unsigned n = 0; n < N_REPORTS; n++) {
		r.value[GPM_ACC_GPU_TIME] = (r.value[GPM_ACC_GPU_TIME] + 1024) & 0xffffffff;
		for (unsigned g = 0; g < fmt->n_groups; g++) {
			const struct gpm_oa_counter_group *grp = &fmt->group[g];
			uint64_t max = grp->width == 64 ? UINT64_MAX
							: ((uint64_t)1 << grp->width) - 1;

			for (unsigned i = 0; i < grp->count; i++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				r.value[grp->slot + i] = (r.value[grp->slot + i] + (seed & 0xfffff)) & max;
			}
		}
		int ret = gpm_oa_report_encode(dec, &r, buf + (size_t)n * fmt->size, fmt->size);
		if (ret)
			return ret;
	}
	return 0;
}

static struct gpm_oa_report reports[2];
static struct gpm_accumulator acc;
static struct gpm_oa_windower windower;
static uint64_t window_sum;

static void decode_accumulate(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	size_t size = dec->format->size;

	memset(&acc, 0, sizeof(acc));
	gpm_oa_report_decode(dec, buf, size, &reports[0]);
	for (unsigned n = 1; n < N_REPORTS; n++) {
		struct gpm_oa_report *prev = &reports[(n - 1) & 1];
		struct gpm_oa_report *cur = &reports[n & 1];

		gpm_oa_report_decode(dec, buf + (size_t)n * size, size, cur);
		gpm_oa_delta_add(dec, prev, cur, &acc);
	}
}

static void raw_pairs(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	size_t size = dec->format->size;

	memset(&acc, 0, sizeof(acc));
	for (unsigned n = 1; n < N_REPORTS; n++)
		gpm_oa_delta_add_raw(dec, buf + (size_t)(n - 1) * size,
				     buf + (size_t)n * size, &acc);
}

/* Runs as long as a recording reader's window holds. */
#define RUN 248

static void raw_runs(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	size_t size = dec->format->size;

	memset(&acc, 0, sizeof(acc));
	for (unsigned n = 0; n + 1 < N_REPORTS; n += RUN - 1) {
		unsigned len = N_REPORTS - n < RUN ? N_REPORTS - n : RUN;

		gpm_oa_delta_add_run(dec, buf + (size_t)n * size, size, len, &acc);
	}
}

static void on_window(void *data, const struct gpm_oa_window *w)
{
	window_sum += w->acc.slot[GPM_ACC_A + 7] + w->n_reports;
}

static void windows(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	size_t size = dec->format->size;

	gpm_oa_windower_init(&windower, dec, GPM_OA_WINDOW_INTERVAL, 1024 * 64, on_window, NULL);
	for (unsigned n = 0; n < N_REPORTS; n++)
		gpm_oa_windower_feed(&windower, buf + (size_t)n * size, size);
	gpm_oa_windower_flush(&windower);
}

static void window_runs(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	size_t size = dec->format->size;

	gpm_oa_windower_init(&windower, dec, GPM_OA_WINDOW_INTERVAL, 1024 * 64, on_window, NULL);
	for (unsigned n = 0; n < N_REPORTS; n += RUN) {
		unsigned len = N_REPORTS - n < RUN ? N_REPORTS - n : RUN;

		gpm_oa_windower_feed_run(&windower, buf + (size_t)n * size, size, len, size);
	}
	gpm_oa_windower_flush(&windower);
}

/* Best of ROUNDS, in seconds. */
static double best(void (*fn)(const struct gpm_oa_decoder *, const unsigned char *),
		   const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	double min = 1e30;

	for (int i = 0; i < ROUNDS; i++) {
		double t0 = now_s();

		fn(dec, buf);
		double t = now_s() - t0;
		if (t < min)
			min = t;
	}
	return min;
}

static unsigned char *copy_dst;
static size_t copy_size;

static void copy(const struct gpm_oa_decoder *dec, const unsigned char *buf)
{
	memcpy(copy_dst, buf, copy_size);
	__asm__ volatile("" : : "r"(copy_dst) : "memory");
}

static void print(const char *what, double t, double ref)
{
	printf("%-28s %8.2f Mreports/s %8.2f ns/report  %6.2fx memcpy\n", what,
	       N_REPORTS / t / 1e6, t * 1e9 / N_REPORTS, t / ref);
}

int main(void)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;

	if (gpm_oa_format_get(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, &fmt) ||
	    gpm_oa_decoder_init(&dec, fmt, 1200)) {
		fprintf(stderr, "bench_oa_decode: no decoder\n");
		return 1;
	}
	copy_size = (size_t)N_REPORTS * fmt->size;
	unsigned char *buf = malloc(copy_size);
	copy_dst = malloc(copy_size);
	if (!buf || !copy_dst || fill(&dec, buf)) {
		fprintf(stderr, "bench_oa_decode: setup failed\n");
		return 1;
	}
	memset(copy_dst, 0, copy_size);

	double ref = best(copy, &dec, buf);
	double dec_t = best(decode_accumulate, &dec, buf);
	double raw_t = best(raw_pairs, &dec, buf);
	double run_t = best(raw_runs, &dec, buf);
	double win_t = best(windows, &dec, buf);
	double win_run_t = best(window_runs, &dec, buf);

	printf("bench_oa_decode: %u %s reports (%zu KiB), best of %d\n", N_REPORTS,
	       fmt->name, copy_size / 1024, ROUNDS);
	print("memcpy (reference)", ref, ref);
	print("decode + accumulate", dec_t, ref);
	print("raw pair deltas", raw_t, ref);
	print("raw runs of 248", run_t, ref);
	print("interval windows", win_t, ref);
	print("interval windows, runs", win_run_t, ref);
	printf("checksum %llu %llu\n", (unsigned long long)acc.slot[GPM_ACC_A + 7],
	       (unsigned long long)window_sum);

	free(buf);
	free(copy_dst);
	return 0;
}
