/*
 * Perfetto trace size, rate and memory: a one-hour capture at 10 ms
 * windows of 50 counters (half integer event counts, half doubles with
 * random full mantissas: the worst case, as no encoding shrinks them
 * below their 7 bytes of entropy; real counters sit at 0 or 100 or move
 * slowly, and come out smaller), written through the trace
 * writer into a sink that only counts; then the same with a context
 * slice in every window, to price the slices.
 *
 * Prints bytes per window, the hour's size against the 100 MB budget, the
 * windows written per second against those of the first minute (the same
 * writer warming up), and the peak RSS after the hour against after its
 * first minute: a writer whose memory grows with the capture shows a
 * ratio above 1.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "metrics/trace_layout.h"
#include "metrics/trace_writer.h"

#define WINDOW_NS 10000000ull
#define HOUR_WINDOWS (3600ull * 1000000000ull / WINDOW_NS)
#define MINUTE_WINDOWS (HOUR_WINDOWS / 60)
#define COUNTERS 50
#define BUDGET_BYTES 100000000.0

static int count_bytes(void *ctx, const void *data, size_t len)
{
	*(uint64_t *)ctx += len;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* xorshift64*: the same values every run. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static int hour(bool slices)
{
	struct gpm_trace_writer w;
	struct gpm_trace_layout l;
	struct gpm_trace_counter_spec specs[COUNTERS];
	char names[COUNTERS][32];
	union gpm_trace_value values[COUNTERS];
	uint64_t bytes = 0, seed = 0x9e3779b97f4a7c15ull;

	if (gpm_trace_writer_init(&w, 1, count_bytes, &bytes) ||
	    gpm_trace_layout_init(&l, &w, "Tiger Lake GT2 (PCI 0x9a49)", ""))
		return 1;
	for (int i = 0; i < COUNTERS; i++) {
		snprintf(names[i], sizeof(names[i]), "Counter%d", i);
		specs[i] = (struct gpm_trace_counter_spec){
			.symbol = names[i], .name = names[i],
			.description = "A counter of the benchmark.",
			.units = i % 2 ? "percent" : "events",
			.is_double = i % 2,
		};
	}
	if (gpm_trace_layout_set(&l, "Render Metrics Basic set", "RenderBasic",
				 "0fc397c0-4833-492c-9ccd-4929d574d5b8", WINDOW_NS,
				 833333, specs, COUNTERS))
		return 1;
	uint64_t contexts[4];
	for (int i = 0; i < 4; i++)
		contexts[i] = gpm_trace_layout_context(&l, 0x400 + (uint32_t)i);

	double start = now_s(), minute_s = 0;
	uint64_t minute_bytes = 0;
	long minute_rss = 0;
	uint64_t t0 = 1000000000000ull;
	for (uint64_t k = 0; k < HOUR_WINDOWS; k++) {
		uint64_t ts = t0 + k * WINDOW_NS;
		if (k % 100 == 0 &&
		    gpm_trace_clock_snapshot(&w, ts, ts + 5000, true, ts + 7000))
			return 1;
		for (int i = 0; i < COUNTERS; i++) {
			uint64_t r = next_random(&seed);
			if (i % 2)
				values[i].d = (double)(r >> 11) * 0x1.0p-53 * 100.0;
			else
				values[i].i = (int64_t)(200000 + (r >> 48));
		}
		if (gpm_trace_window(&w, ts, 11, values))
			return 1;
		uint64_t ctx = contexts[k % 4];
		struct gpm_trace_arg arg = { .name = "reports",
			.type = GPM_TRACE_ARG_UINT, .u = 6 };
		if (slices &&
		    (gpm_trace_slice_begin(&w, ctx, ts + 1000, "context 0x400",
					   &arg, 1) ||
		     gpm_trace_slice_end(&w, ctx, ts + WINDOW_NS / 2)))
			return 1;
		if (k + 1 == MINUTE_WINDOWS) {
			minute_s = now_s() - start;
			minute_bytes = bytes;
			minute_rss = peak_rss_kib();
		}
	}
	if (gpm_trace_flush(&w))
		return 1;
	double hour_s = now_s() - start;
	long hour_rss = peak_rss_kib();
	gpm_trace_writer_fini(&w);

	printf("bench_trace: one hour at 10 ms, %d counters (half of them random "
	       "doubles)%s: %llu windows\n", COUNTERS, slices ? " and a context slice a window"
	       : "", (unsigned long long)HOUR_WINDOWS);
	printf("bench_trace: %.1f bytes per window; the hour %.1f MB, %.2f of "
	       "the 100 MB budget (first minute %.1f bytes per window)\n",
	       (double)bytes / (double)HOUR_WINDOWS, (double)bytes / 1e6,
	       (double)bytes / BUDGET_BYTES,
	       (double)minute_bytes / (double)MINUTE_WINDOWS);
	printf("bench_trace: %.0f windows/s (%.0f times real time), %.2f of "
	       "the first minute's rate\n", (double)HOUR_WINDOWS / hour_s,
	       (double)HOUR_WINDOWS / hour_s * WINDOW_NS / 1e9,
	       ((double)HOUR_WINDOWS / hour_s) /
	       ((double)MINUTE_WINDOWS / minute_s));
	printf("bench_trace: peak RSS %ld KiB after the hour, %ld KiB after its "
	       "first minute: %.2f\n", hour_rss, minute_rss,
	       (double)hour_rss / (double)minute_rss);
	return 0;
}

int main(void)
{
	return hour(false) || hour(true);
}
