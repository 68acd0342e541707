/*
 * Equation evaluation speed: every counter of tglgt2 RenderBasic evaluated
 * once per window, and the worked examples of oa-reference.md §4.4 against
 * the same arithmetic written as the C a generator would emit (the
 * reference run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics/equation.h"
#include "tests/unit/xml_sets.h"

#define MAX_COUNTERS 256

struct compiled_set {
	size_t n;
	struct gpm_equation *eq[MAX_COUNTERS];
	size_t n_tokens;
	int failed;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t count_tokens(const char *s)
{
	size_t n = 0;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

static void compile_render_basic(const struct xml_set *set, void *ctx)
{
	struct compiled_set *cs = ctx;
	const struct gpm_equation_resolver resolver = {
		xml_set_resolve, (void *)set,
	};

	if (!set->symbol || strcmp(set->symbol, "RenderBasic") ||
	    set->n_counters > MAX_COUNTERS)
		return;
	for (size_t i = 0; i < set->n_counters; i++) {
		struct gpm_equation_error err;

		if (gpm_equation_compile(set->counters[i].equation,
					 set->counters[i].type, &resolver,
					 &cs->eq[i], &err)) {
			fprintf(stderr, "%s: %s\n", set->counters[i].symbol,
				err.message);
			cs->failed = 1;
			return;
		}
		cs->n_tokens += count_tokens(set->counters[i].equation);
	}
	cs->n = set->n_counters;
}

/* What IGT's generator emits for the worked-example counters. */
struct native_out {
	uint64_t gpu_time, clocks, avg_freq, gti_read;
	double busy, eu_active;
};

static void __attribute__((noinline))
native_counters(const uint64_t *acc, const struct gpm_device_vars *vars,
		struct native_out *o)
{
	uint64_t ts_freq = vars->value[GPM_VAR_GPU_TIMESTAMP_FREQUENCY];
	uint64_t n_eus = vars->value[GPM_VAR_EU_CORES_TOTAL_COUNT];
	uint64_t t;
	double d;

	t = acc[GPM_ACC_GPU_TIME] * 1000000000;
	o->gpu_time = ts_freq ? t / ts_freq : 0;
	o->clocks = acc[GPM_ACC_GPU_CLOCK];
	t = o->clocks * 1000000000;
	o->avg_freq = o->gpu_time ? t / o->gpu_time : 0;
	d = (double)(acc[GPM_ACC_A] * 100);
	o->busy = o->clocks ? d / (double)o->clocks : 0;
	d = (double)(acc[GPM_ACC_A + 7] + acc[GPM_ACC_A + 8]);
	d = d + (double)acc[GPM_ACC_A + 9];
	d = d + (double)acc[GPM_ACC_A + 10];
	t = n_eus ? (uint64_t)d / n_eus : 0;
	o->eu_active = o->clocks ? (double)(t * 100) / (double)o->clocks : 0;
	o->gti_read = 64 * (acc[GPM_ACC_C + 5] + acc[GPM_ACC_C + 4] +
			    acc[GPM_ACC_C + 3] + acc[GPM_ACC_C + 2]);
}

static const char *const worked[][2] = {
	{ "GpuTime", "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV" },
	{ "GpuCoreClocks", "GPU_CLOCK 0 READ" },
	{ "AvgGpuCoreFrequency", "$GpuCoreClocks 1000000000 UMUL $GpuTime UDIV" },
	{ "GpuBusy", "A 0 READ 100 UMUL $GpuCoreClocks FDIV" },
	{ "EuActive", "A 7 READ A 8 READ FADD A 9 READ FADD A 10 READ FADD "
		      "$EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV" },
	{ "GtiReadThroughput", "64  C 5 READ C 4 READ UADD C 3 READ UADD "
			       "C 2 READ UADD UMUL" },
};
#define N_WORKED (sizeof(worked) / sizeof(worked[0]))

static int resolve_worked(void *ctx, const char *name, size_t len,
			  unsigned *index, enum gpm_value_type *type)
{
	for (unsigned i = 0; i < N_WORKED; i++) {
		if (strlen(worked[i][0]) == len && !memcmp(worked[i][0], name, len)) {
			*index = i;
			*type = i == 3 || i == 4 ? GPM_VALUE_DOUBLE : GPM_VALUE_U64;
			return 0;
		}
	}
	return -ENOENT;
}

int main(void)
{
	const char *dir = getenv("GPM_SHARED_DIR");
	char path[4096];
	struct compiled_set cs = { 0 };
	struct gpm_device_info dev = { 0 };
	struct gpm_device_vars vars;
	struct gpm_accumulator acc;
	struct gpm_value values[MAX_COUNTERS];
	const struct gpm_eval_inputs in = {
		.acc = acc.slot, .counters = values, .vars = &vars,
	};
	const long iters = 200000;
	volatile double sink = 0;

	snprintf(path, sizeof(path), "%s/intel-metrics/i915/oa-tglgt2.xml",
		 dir && *dir ? dir : "../shared");
	if (xml_sets_walk(path, compile_render_basic, &cs) || cs.failed || !cs.n) {
		fprintf(stderr, "bench_equation: cannot compile RenderBasic of %s\n",
			path);
		return 1;
	}

	dev.graphics_version = 1200;
	dev.eu_threads_count = 7;
	dev.timestamp_frequency = 19200000;
	dev.gpu_max_freq = 1300000000;
	dev.topology.max_slices = 1;
	dev.topology.max_subslices = 6;
	dev.topology.max_eus_per_subslice = 16;
	dev.topology.slice_mask = 1;
	dev.topology.subslice_mask[0] = 0x3f;
	for (unsigned ss = 0; ss < 6; ss++)
		dev.topology.eu_mask[0][ss] = 0xffff;
	gpm_device_vars_init(&vars, &dev);
	for (unsigned i = 0; i < GPM_ACC_SLOTS; i++)
		acc.slot[i] = 1000003 * (i + 1);

	/* The whole set, in set order, as the window evaluator does. */
	double t0 = now_ns();
	for (long it = 0; it < iters; it++) {
		acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
		for (size_t i = 0; i < cs.n; i++)
			values[i] = gpm_equation_eval(cs.eq[i], &in);
		sink += values[cs.n - 1].d;
	}
	double set_ns = (now_ns() - t0) / (double)iters;

	/* The worked-example counters: engine, then native C. */
	const struct gpm_equation_resolver resolver = { resolve_worked, NULL };
	struct gpm_equation *weq[N_WORKED];
	for (size_t i = 0; i < N_WORKED; i++) {
		struct gpm_equation_error err;
		enum gpm_value_type type = i == 3 || i == 4 ? GPM_VALUE_DOUBLE :
							      GPM_VALUE_U64;
		if (gpm_equation_compile(worked[i][1], type, &resolver, &weq[i],
					 &err)) {
			fprintf(stderr, "%s: %s\n", worked[i][0], err.message);
			return 1;
		}
	}
	t0 = now_ns();
	for (long it = 0; it < iters; it++) {
		acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
		for (size_t i = 0; i < N_WORKED; i++)
			values[i] = gpm_equation_eval(weq[i], &in);
		sink += values[4].d;
	}
	double engine_ns = (now_ns() - t0) / (double)iters;

	struct native_out out;
	t0 = now_ns();
	for (long it = 0; it < iters; it++) {
		acc.slot[GPM_ACC_GPU_TIME] = 19200 + (uint64_t)(it & 7);
		native_counters(acc.slot, &vars, &out);
		sink += out.eu_active;
	}
	double native_ns = (now_ns() - t0) / (double)iters;

	printf("bench_equation: tglgt2 RenderBasic, %zu counters, %zu tokens: "
	       "%.0f ns per window (%.1f ns per counter, %.2f ns per token)\n",
	       cs.n, cs.n_tokens, set_ns, set_ns / (double)cs.n,
	       set_ns / (double)cs.n_tokens);
	printf("bench_equation: worked-example counters: engine %.1f ns, "
	       "generated-style C %.1f ns, ratio %.2f\n", engine_ns, native_ns,
	       engine_ns / native_ns);

	for (size_t i = 0; i < cs.n; i++)
		gpm_equation_free(cs.eq[i]);
	for (size_t i = 0; i < N_WORKED; i++)
		gpm_equation_free(weq[i]);
	return sink == 42.0;
}
