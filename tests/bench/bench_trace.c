/*
 * Perfetto trace size, rate and memory of a one-hour capture at 10 ms
 * windows of 50 counters, written through the trace writer into a sink
 * that only counts.
 *
 * The capture measured against the 100 MB budget is a realistic one: the
 * sim GPU's three metric sets (RenderBasic, ComputeBasic and MemoryL3:
 * 24 + 20 + 6 = 50 counters) sampled every 853 us on one workload, their
 * windows' values evaluated as the daemon evaluates them, for an hour of
 * GPU time. Then, as information, the same with the context slices a
 * recording's trace adds (gpuperf record --format perfetto); the worst
 * case of the types metric files declare, half integer event counts and
 * half floats, all random, measured against the budget too; and, as
 * information, the same with doubles of random full mantissas, which no
 * encoding shrinks below their 7 bytes of entropy (no metric file
 * declares a double: the trace writes float counters at float's
 * precision).
 *
 * Prints bytes per window, the hour's size against the budget, the
 * windows written per second against those of the first minute (the same
 * writer warming up), and each case's peak RSS after the hour against
 * after its first minute: a writer whose memory grows with the capture
 * shows a ratio above 1.
 *
 * Fails (exit 1) when the realistic hour or the worst case of float
 * counters reaches the budget, or a case's peak RSS grows by more than
 * RSS_GROWTH_LIMIT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/sim/oa_model.h"
#include "metrics/metric_binding.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_window.h"
#include "metrics/sim_device.h"
#include "metrics/trace_layout.h"
#include "metrics/trace_writer.h"

#define WINDOW_NS 10000000ull
#define HOUR_WINDOWS (3600ull * 1000000000ull / WINDOW_NS)
#define MINUTE_WINDOWS (HOUR_WINDOWS / 60)
#define COUNTERS 50
#define BUDGET_BYTES 100000000.0
/* 2^14 ticks of the sim's 19.2 MHz timestamp: 853 us, near the daemon's
 * default period of 1 ms. */
#define SIM_EXPONENT 13
#define SIM_SETS 3
/* Windows a model may be ahead of the slowest. */
#define QUEUE 8

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

/* The peak RSS since the last reset_peak_rss(), from /proc: getrusage's
 * peak is the process's, which an earlier case would have set. */
static long peak_rss_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Brings the peak RSS down to the RSS now (proc(5), clear_refs "5"). */
static int reset_peak_rss(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (!f)
		return -1;
	int ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* What an hour cost, and how fast it went. */
struct hour_result {
	uint64_t bytes, minute_bytes;
	double seconds, minute_seconds;
	long rss_kib, minute_rss_kib;
};

/* A writer whose memory grows with the capture: its peak after the hour
 * above this many times the peak after its first minute. */
#define RSS_GROWTH_LIMIT 1.10

/* Prints what the hour cost; whether it kept its memory flat and, where
 * budget is set, its size within the budget (what fails says so). */
static bool report(const char *what, const struct hour_result *r, bool budget)
{
	double growth = (double)r->rss_kib / (double)r->minute_rss_kib;
	bool ok = true;

	printf("bench_trace: %s: %llu windows\n", what,
	       (unsigned long long)HOUR_WINDOWS);
	printf("bench_trace:   %.1f bytes per window; the hour %.1f MB, %.2f of "
	       "the 100 MB budget%s (first minute %.1f bytes per window)\n",
	       (double)r->bytes / (double)HOUR_WINDOWS, (double)r->bytes / 1e6,
	       (double)r->bytes / BUDGET_BYTES, budget ? "" : " (information)",
	       (double)r->minute_bytes / (double)MINUTE_WINDOWS);
	double rate = (double)HOUR_WINDOWS / r->seconds;
	printf("bench_trace:   %.0f windows/s (%.0f times real time), %.2f of "
	       "the first minute's rate\n", rate, rate * WINDOW_NS / 1e9,
	       rate / ((double)MINUTE_WINDOWS / r->minute_seconds));
	printf("bench_trace:   peak RSS %ld KiB after the hour, %ld KiB after "
	       "its first minute: %.2f\n", r->rss_kib, r->minute_rss_kib, growth);
	if (budget && (double)r->bytes >= BUDGET_BYTES) {
		printf("bench_trace: FAILED: over the 100 MB budget\n");
		ok = false;
	}
	if (r->minute_rss_kib <= 0 || growth > RSS_GROWTH_LIMIT) {
		printf("bench_trace: FAILED: the peak RSS grew more than %.2f "
		       "times\n", RSS_GROWTH_LIMIT);
		ok = false;
	}
	fflush(stdout);
	return ok;
}

/* Notes the first minute's figures at window k. */
static void minute_mark(struct hour_result *r, uint64_t k, double start)
{
	if (k + 1 != MINUTE_WINDOWS)
		return;
	r->minute_seconds = now_s() - start;
	r->minute_bytes = r->bytes;
	r->minute_rss_kib = peak_rss_kib();
}

/* ------------------------------------------------------------------ */
/* The realistic capture                                                */

/* One metric set on its own model of the sim GPU. */
struct sim_set {
	struct capture *cap;
	const struct gpm_metric_set *set;
	struct gpm_binding binding;
	struct gpd_oa_model *model;
	struct gpm_oa_windower intervals;
	struct gpm_oa_windower runs;    /* context runs, for slices */
	struct gpm_value *values;
	/* The counters it gives, in the trace's order from first. */
	size_t first, n;
	/* Windows evaluated and not yet written. */
	union gpm_trace_value queue[QUEUE][COUNTERS];
	uint64_t queue_ts[QUEUE];
	uint32_t queue_reports[QUEUE];
	unsigned head, count;
};

struct capture {
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_trace_writer w;
	struct gpm_trace_layout layout;
	struct sim_set sets[SIM_SETS];
	bool slices;
	bool overflow;
	int failed;
	struct hour_result result;
};

static uint64_t ticks_ns(const struct capture *c, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000u /
			  c->dev.timestamp_frequency);
}

static void on_interval(void *data, const struct gpm_oa_window *win)
{
	struct sim_set *s = data;
	if (!win->n_reports)
		return;
	if (s->count == QUEUE) {
		s->cap->overflow = true;
		return;
	}
	unsigned slot = (s->head + s->count++) % QUEUE;
	gpm_binding_evaluate(&s->binding, &win->acc, s->values);
	size_t k = 0;
	for (size_t i = 0; i < s->set->n_counters && k < s->n; i++) {
		if (!s->binding.available[i])
			continue;
		const struct gpm_counter *c = &s->set->counters[i];
		if (gpm_counter_value_type(c->data_type) == GPM_VALUE_DOUBLE)
			s->queue[slot][k].d = gpm_value_as_double(s->values[i]);
		else
			s->queue[slot][k].i = (int64_t)gpm_value_as_u64(s->values[i]);
		k++;
	}
	s->queue_ts[slot] = ticks_ns(s->cap, win->start_ts);
	s->queue_reports[slot] = win->n_reports;
}

/* A context's run as the recording's converter shows it (oa_trace.c). */
static void on_run(void *data, const struct gpm_oa_window *win)
{
	struct sim_set *s = data;
	struct capture *c = s->cap;
	char name[64];

	if (c->failed || !win->n_reports || win->ctx_id == GPM_OA_CTX_NONE)
		return;
	uint64_t track = gpm_trace_layout_context(&c->layout, win->ctx_id);
	struct gpm_trace_arg arg = {
		.name = "reports", .type = GPM_TRACE_ARG_UINT, .u = win->n_reports,
	};
	gpm_trace_layout_context_name(name, sizeof(name), win->ctx_id);
	c->failed = gpm_trace_slice_begin(&c->w, track,
					  ticks_ns(c, win->start_ts), name, &arg, 1);
	if (!c->failed)
		c->failed = gpm_trace_slice_end(&c->w, track,
						ticks_ns(c, win->end_ts));
}

static int sim_set_init(struct capture *c, struct sim_set *s,
			const struct gpm_metrics_db *db, const char *symbol,
			size_t first)
{
	s->cap = c;
	s->first = first;
	s->set = gpm_metrics_db_find_set(db, "simgen12", symbol);
	if (!s->set || gpm_binding_init(&s->binding, s->set, &c->vars) < 0)
		return -1;
	for (size_t i = 0; i < s->set->n_counters; i++)
		s->n += s->binding.available[i];
	if (first + s->n > COUNTERS)
		s->n = COUNTERS - first;
	s->values = calloc(s->set->n_counters, sizeof(*s->values));
	struct gpd_oa_model_config cfg = {
		.dev = &c->dev,
		.exponent = SIM_EXPONENT,
		.seed = 1,              /* one workload for the three */
		.set = s->set,
	};
	if (!s->values || gpd_oa_model_create(&cfg, &s->model))
		return -1;
	gpd_oa_model_enable(s->model);
	const struct gpm_oa_decoder *dec = gpd_oa_model_decoder(s->model);
	uint64_t interval = WINDOW_NS * c->dev.timestamp_frequency / 1000000000u;
	if (gpm_oa_windower_init(&s->intervals, dec, GPM_OA_WINDOW_INTERVAL,
				 interval, on_interval, s) ||
	    gpm_oa_windower_init(&s->runs, dec, GPM_OA_WINDOW_CONTEXT, 0,
				 on_run, s))
		return -1;
	return 0;
}

static void sim_set_fini(struct sim_set *s)
{
	gpd_oa_model_destroy(s->model);
	if (s->set)
		gpm_binding_fini(&s->binding);
	free(s->values);
}

/* The model's records of the last advance, into the windowers. */
static int drain(struct capture *c, struct sim_set *s, unsigned char *buf,
		 size_t cap)
{
	ssize_t n;
	while ((n = gpd_oa_model_read(s->model, buf, cap)) > 0) {
		struct gpm_oa_record_reader rd;
		struct gpm_oa_record rec;
		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
					  gpd_oa_model_record_size(s->model) - 8,
					  buf, (size_t)n);
		while (gpm_oa_record_next(&rd, &rec) > 0) {
			gpm_oa_windower_record(&s->intervals, &rec);
			if (c->slices && s == &c->sets[0])
				gpm_oa_windower_record(&s->runs, &rec);
		}
	}
	return n == -EAGAIN ? c->failed : -1;
}

static int realistic_hour(bool slices, struct hour_result *out)
{
	static const char *const symbols[SIM_SETS] = {
		"RenderBasic", "ComputeBasic", "MemoryL3",
	};
	struct gpm_metrics_db db;
	struct gpm_trace_counter_spec specs[COUNTERS];
	union gpm_trace_value values[COUNTERS];
	struct capture *c = calloc(1, sizeof(*c));
	size_t cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	int ret = -1;

	gpm_metrics_db_init(&db);
	if (!c || !buf || gpm_metrics_db_add_builtin(&db))
		goto out;
	c->slices = slices;
	gpm_sim_device_info(&c->dev);
	gpm_device_vars_init(&c->vars, &c->dev);
	size_t n = 0;
	for (int i = 0; i < SIM_SETS; i++) {
		if (sim_set_init(c, &c->sets[i], &db, symbols[i], n))
			goto out;
		struct sim_set *s = &c->sets[i];
		for (size_t k = 0; k < s->set->n_counters && n < s->first + s->n; k++) {
			if (!s->binding.available[k])
				continue;
			const struct gpm_counter *ct = &s->set->counters[k];
			specs[n++] = (struct gpm_trace_counter_spec){
				.symbol = ct->symbol_name, .name = ct->name,
				.description = ct->description, .units = ct->units,
				.kind = gpm_trace_kind_of(ct->data_type),
			};
		}
	}
	if (n != COUNTERS) {
		fprintf(stderr, "bench_trace: the sim's sets have %zu counters, "
			"not %d\n", n, COUNTERS);
		goto out;
	}
	if (gpm_trace_writer_init(&c->w, 1, count_bytes, &c->result.bytes) ||
	    gpm_trace_layout_init(&c->layout, &c->w, "SIMGEN12 virtual GPU (PCI 0x5f00)", "") ||
	    gpm_trace_layout_set(&c->layout, "Render Basic", "RenderBasic",
				 c->sets[0].set->hw_config_guid, WINDOW_NS,
				 gpd_oa_model_period(c->sets[0].model) * 1000000000u /
				 c->dev.timestamp_frequency, specs, COUNTERS))
		goto out;

	uint64_t step = WINDOW_NS * c->dev.timestamp_frequency / 1000000000u;
	double start = now_s();
	uint64_t k = 0, snapshot_at = 1000000000u;
	/* The models start at GPU time 0: a context may run before the
	 * first window closes. */
	if (gpm_trace_clock_snapshot(&c->w, 0, 5000, true, 7000))
		goto out;
	while (k < HOUR_WINDOWS) {
		for (int i = 0; i < SIM_SETS; i++) {
			gpd_oa_model_advance(c->sets[i].model, step);
			if (drain(c, &c->sets[i], buf, cap))
				goto out;
		}
		if (c->overflow)
			goto out;
		for (;;) {
			bool ready = true;
			for (int i = 0; i < SIM_SETS; i++)
				ready &= c->sets[i].count > 0;
			if (!ready || k == HOUR_WINDOWS)
				break;
			struct sim_set *first = &c->sets[0];
			uint64_t ts = first->queue_ts[first->head];
			uint32_t reports = first->queue_reports[first->head];
			for (int i = 0; i < SIM_SETS; i++) {
				struct sim_set *s = &c->sets[i];
				memcpy(&values[s->first], s->queue[s->head],
				       s->n * sizeof(values[0]));
				s->head = (s->head + 1) % QUEUE;
				s->count--;
			}
			/* A snapshot a second, as the recorder correlates. */
			if (ts >= snapshot_at &&
			    gpm_trace_clock_snapshot(&c->w, ts, ts + 5000, true,
						     ts + 7000))
				goto out;
			if (ts >= snapshot_at)
				snapshot_at = ts + 1000000000u;
			if (gpm_trace_window(&c->w, ts, reports, values))
				goto out;
			minute_mark(&c->result, k++, start);
		}
	}
	if (gpm_trace_flush(&c->w) || c->failed)
		goto out;
	c->result.seconds = now_s() - start;
	c->result.rss_kib = peak_rss_kib();
	*out = c->result;
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bench_trace: the realistic capture failed\n");
	if (c) {
		gpm_trace_writer_fini(&c->w);
		for (int i = 0; i < SIM_SETS; i++)
			sim_set_fini(&c->sets[i]);
	}
	free(c);
	free(buf);
	gpm_metrics_db_fini(&db);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The worst case                                                       */

/* xorshift64*: the same values every run. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Half the counters of kind, half integer counts, all random. */
static int worst_hour(enum gpm_trace_counter_kind kind, struct hour_result *r)
{
	struct gpm_trace_writer w;
	struct gpm_trace_layout l;
	struct gpm_trace_counter_spec specs[COUNTERS];
	char names[COUNTERS][32];
	union gpm_trace_value values[COUNTERS];
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	memset(r, 0, sizeof(*r));
	if (gpm_trace_writer_init(&w, 1, count_bytes, &r->bytes) ||
	    gpm_trace_layout_init(&l, &w, "Tiger Lake GT2 (PCI 0x9a49)", ""))
		return 1;
	for (int i = 0; i < COUNTERS; i++) {
		snprintf(names[i], sizeof(names[i]), "Counter%d", i);
		specs[i] = (struct gpm_trace_counter_spec){
			.symbol = names[i], .name = names[i],
			.description = "A counter of the benchmark.",
			.units = i % 2 ? "percent" : "events",
			.kind = i % 2 ? kind : GPM_TRACE_COUNTER_INT,
		};
	}
	if (gpm_trace_layout_set(&l, "Render Metrics Basic set", "RenderBasic",
				 "0fc397c0-4833-492c-9ccd-4929d574d5b8", WINDOW_NS,
				 833333, specs, COUNTERS))
		return 1;

	double start = now_s();
	uint64_t t0 = 1000000000000ull;
	for (uint64_t k = 0; k < HOUR_WINDOWS; k++) {
		uint64_t ts = t0 + k * WINDOW_NS;
		if (k % 100 == 0 &&
		    gpm_trace_clock_snapshot(&w, ts, ts + 5000, true, ts + 7000))
			return 1;
		for (int i = 0; i < COUNTERS; i++) {
			uint64_t x = next_random(&seed);
			if (i % 2)
				values[i].d = (double)(x >> 11) * 0x1.0p-53 * 100.0;
			else
				values[i].i = (int64_t)(200000 + (x >> 48));
		}
		if (gpm_trace_window(&w, ts, 11, values))
			return 1;
		minute_mark(r, k, start);
	}
	if (gpm_trace_flush(&w))
		return 1;
	r->seconds = now_s() - start;
	r->rss_kib = peak_rss_kib();
	gpm_trace_writer_fini(&w);
	return 0;
}

int main(void)
{
	struct hour_result r;
	bool ok = true;

	if (reset_peak_rss() || realistic_hour(false, &r))
		return 1;
	ok &= report("a realistic hour: the sim GPU's RenderBasic, ComputeBasic "
		     "and MemoryL3 on one workload, 50 counters at 10 ms", &r,
		     true);
	if (reset_peak_rss() || realistic_hour(true, &r))
		return 1;
	ok &= report("the same with its context slices, as a recording's "
		     "trace has them", &r, false);
	if (reset_peak_rss() || worst_hour(GPM_TRACE_COUNTER_FLOAT, &r))
		return 1;
	ok &= report("the worst case of the metric files' types: 25 counts "
		     "and 25 floats, all random, at 10 ms", &r, true);
	if (reset_peak_rss() || worst_hour(GPM_TRACE_COUNTER_DOUBLE, &r))
		return 1;
	ok &= report("25 counts and 25 doubles of random full mantissas (no "
		     "metric file declares a double)", &r, false);
	return ok ? 0 : 1;
}
