/*
 * The daemon's per-window path: tglgt2 RenderBasic loaded from the metric
 * XML, bound to a TGL GT2 (96 EUs, 19.2 MHz) and evaluated whole, window
 * after window. References measured in the same run: a plain loop that
 * sums the accumulator slots the set's equations read (the least any
 * evaluator must touch), and the equation of GpuTime alone. Also times
 * loading every shared metric file against reading and scanning its bytes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "metrics/metrics_db.h"
#include "metrics/platform.h"

#define ITERATIONS 200000

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The slot of `TYPE index READ`, or -1. */
static int read_slot(const char *type, size_t len, unsigned long index)
{
	static const struct {
		const char *name;
		unsigned base, count;
	} types[] = {
		{ "GPU_TIME", GPM_ACC_GPU_TIME, 1 },
		{ "GPU_CLOCK", GPM_ACC_GPU_CLOCK, 1 },
		{ "A", GPM_ACC_A, GPM_ACC_A_COUNT },
		{ "B", GPM_ACC_B, GPM_ACC_B_COUNT },
		{ "C", GPM_ACC_C, GPM_ACC_C_COUNT },
		{ "PERFCNT", GPM_ACC_PERFCNT, GPM_ACC_PERFCNT_COUNT },
		{ "PEC", GPM_ACC_PEC, GPM_ACC_PEC_COUNT },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == len &&
		    !memcmp(types[i].name, type, len) && index < types[i].count)
			return (int)(types[i].base + index);
	return -1;
}

/* Marks the slots an equation reads, from its text. */
static void mark_reads(const char *eq, unsigned char *used)
{
	const char *tok[3] = { 0 };
	size_t len[3] = { 0 };

	for (const char *p = eq; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && *p != ' ')
			p++;
		tok[0] = tok[1];
		len[0] = len[1];
		tok[1] = tok[2];
		len[1] = len[2];
		tok[2] = start;
		len[2] = (size_t)(p - start);
		if (tok[0] && len[2] == 4 && !memcmp(tok[2], "READ", 4)) {
			int slot = read_slot(tok[0], len[0],
					     strtoul(tok[1], NULL, 0));
			if (slot >= 0)
				used[slot] = 1;
		}
	}
}

static uint64_t __attribute__((noinline))
sum_slots(const uint64_t *acc, const unsigned *slots, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += acc[slots[i]];
	return sum;
}

static int metric_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);
	return len > 7 && !strncmp(e->d_name, "oa-", 3) &&
	       !strcmp(e->d_name + len - 4, ".xml");
}

/* Reads every oa-*.xml of dir and counts its '<': touching the bytes. */
static size_t scan_dir(const char *dir, size_t *bytes)
{
	struct dirent **entries;
	static char buf[1 << 16];
	size_t tags = 0;
	int n = scandir(dir, &entries, metric_file, alphasort);

	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]->d_name);
		int fd = open(path, O_RDONLY);
		ssize_t got;
		while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0) {
			*bytes += (size_t)got;
			for (const char *p = buf; (p = memchr(p, '<', (size_t)(buf + got - p)));
			     p++)
				tags++;
		}
		if (fd >= 0)
			close(fd);
		free(entries[i]);
	}
	free(n >= 0 ? entries : NULL);
	return tags;
}

static void bench_loading(const char *shared)
{
	char i915[4096], xe[4096];
	double best_load = 1e18, best_scan = 1e18;
	size_t files = 0, sets = 0, counters = 0, errors = 0, bytes = 0;
	volatile size_t tags = 0;

	snprintf(i915, sizeof(i915), "%s/intel-metrics/i915", shared);
	snprintf(xe, sizeof(xe), "%s/intel-metrics/xe", shared);
	for (int run = 0; run < 3; run++) {
		struct gpm_metrics_db db;
		double t0 = now_ns();
		gpm_metrics_db_init(&db);
		gpm_metrics_db_add_dir(&db, i915);
		gpm_metrics_db_add_dir(&db, xe);
		double t = now_ns() - t0;
		best_load = t < best_load ? t : best_load;
		files = db.n_files;
		sets = gpm_metrics_db_count_sets(&db);
		counters = gpm_metrics_db_count_counters(&db);
		errors = db.diagnostics.count;
		gpm_metrics_db_fini(&db);

		bytes = 0;
		t0 = now_ns();
		tags = scan_dir(i915, &bytes) + scan_dir(xe, &bytes);
		t = now_ns() - t0;
		best_scan = t < best_scan ? t : best_scan;
	}
	printf("bench_metric_binding: loading and compiling i915 + xe: %zu "
	       "files, %.1f MB, %zu sets, %zu counters, %zu errors in %.1f ms "
	       "(reading the bytes: %.1f ms, ratio %.1f)\n", files,
	       (double)bytes / 1e6, sets, counters, errors, best_load / 1e6,
	       best_scan / 1e6, best_load / best_scan);
	(void)tags;
}

int main(void)
{
	const char *shared = getenv("GPM_SHARED_DIR");
	char path[4096];
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding set_binding;
	struct gpm_accumulator acc;
	unsigned char used[GPM_ACC_SLOTS] = { 0 };
	unsigned slots[GPM_ACC_SLOTS];
	size_t n_slots = 0;
	volatile double sink = 0;

	if (!shared || !*shared)
		shared = "../shared";
	snprintf(path, sizeof(path), "%s/intel-metrics/i915/oa-tglgt2.xml",
		 shared);
	gpm_diagnostics_init(&diag);
	if (gpm_metrics_file_load(path, &diag, &file) || diag.count) {
		fprintf(stderr, "bench_metric_binding: cannot load %s\n", path);
		return 1;
	}
	const struct gpm_metric_set *set =
		gpm_metrics_file_find_set(file, "RenderBasic");
	if (!set) {
		fprintf(stderr, "bench_metric_binding: no RenderBasic in %s\n",
			path);
		return 1;
	}

	/* A TGL GT2: the platform's typical part is 1 x 6 x 16 EUs. */
	gpm_platform_default_device(gpm_platform_by_name("tglgt2"), &dev);
	gpm_device_vars_init(&vars, &dev);
	if (gpm_binding_init(&set_binding, set, &vars)) {
		fprintf(stderr, "bench_metric_binding: out of memory\n");
		return 1;
	}

	int gpu_time = gpm_metric_set_find_counter(set, "GpuTime");
	if (gpu_time < 0) {
		fprintf(stderr, "bench_metric_binding: no GpuTime\n");
		return 1;
	}
	const struct gpm_equation *gpu_time_eq = set->counters[gpu_time].eq;

	for (size_t i = 0; i < set->n_counters; i++)
		mark_reads(set->counters[i].equation, used);
	for (unsigned s = 0; s < GPM_ACC_SLOTS; s++)
		if (used[s])
			slots[n_slots++] = s;
	for (unsigned i = 0; i < GPM_ACC_SLOTS; i++)
		acc.slot[i] = 1000003ull * (i + 1);

	struct gpm_value *values = calloc(set->n_counters, sizeof(*values));
	if (!values)
		return 1;

	/* Warm up, then time each loop; the varying timestamp keeps every
	 * iteration a new window. */
	double t_set = 0, t_time = 0, t_sum = 0;
	for (int round = 0; round < 2; round++) {
		double t0 = now_ns();
		for (long it = 0; it < ITERATIONS; it++) {
			acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
			gpm_binding_evaluate(&set_binding, &acc, values);
			sink += values[set->n_counters - 1].d;
		}
		t_set = (now_ns() - t0) / ITERATIONS;

		const struct gpm_eval_inputs in = {
			.acc = acc.slot, .counters = values, .vars = &vars,
		};
		t0 = now_ns();
		for (long it = 0; it < ITERATIONS; it++) {
			acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
			values[gpu_time] = gpm_equation_eval(gpu_time_eq, &in);
			sink += (double)values[gpu_time].u;
		}
		t_time = (now_ns() - t0) / ITERATIONS;

		t0 = now_ns();
		for (long it = 0; it < ITERATIONS; it++) {
			acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
			sink += (double)sum_slots(acc.slot, slots, n_slots);
		}
		t_sum = (now_ns() - t0) / ITERATIONS;
	}

	size_t n = set_binding.n_steps;
	printf("bench_metric_binding: tglgt2 RenderBasic on a TGL GT2, %zu "
	       "counters: %.0f ns per evaluation, %.1f ns per counter\n", n,
	       t_set, t_set / (double)n);
	printf("bench_metric_binding: reference, summing the %zu accumulator "
	       "slots the set reads: %.1f ns; ratio %.1f\n", n_slots, t_sum,
	       t_set / t_sum);
	printf("bench_metric_binding: reference, GpuTime alone: %.1f ns; whole "
	       "set / GpuTime %.1f (per counter %.2f)\n", t_time,
	       t_set / t_time, t_set / (double)n / t_time);

	bench_loading(shared);

	free(values);
	gpm_binding_fini(&set_binding);
	gpm_metrics_file_free(file);
	gpm_diagnostics_fini(&diag);
	return sink == 42.0;
}
