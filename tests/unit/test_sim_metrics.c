/*
 * The sim GPU's built-in metric definitions (metrics/sim/oa-simgen12.xml)
 * against the raw counter bounds of metrics/sim/README.md: the file loads
 * cleanly, and on the sim device no counter goes negative, non-finite or
 * past its max while the raw counters stay within their bounds.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/accumulator.h"
#include "metrics/metric_binding.h"
#include "metrics/metrics_db.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"

#define A(i) (GPM_ACC_A + (i))
#define B(i) (GPM_ACC_B + (i))
#define C(i) (GPM_ACC_C + (i))

/* The table of metrics/sim/README.md: each raw counter's bound per GPU
 * core clock. Slots not listed are reserved and read 0. */
static const struct {
	unsigned slot;
	uint64_t per_clock;
} raw_bounds[] = {
	{ A(0), 1 }, { A(1), 1 }, { A(2), 1 },
	{ A(4), 6 }, { A(5), 6 }, { A(6), 6 },
	{ A(7), 96 }, { A(8), 96 }, { A(9), 672 },
	{ A(10), 96 }, { A(11), 96 }, { A(12), 192 },
	{ A(14), 6 }, { A(15), 6 }, { A(16), 24 },
	{ A(17), 16 }, { A(18), 16 }, { A(19), 16 }, { A(20), 4 },
	{ A(21), 6 }, { A(22), 6 },
	{ A(24), 8 }, { A(25), 8 }, { A(26), 8 }, { A(27), 8 }, { A(28), 64 },
	{ A(32), 1 }, { A(33), 1 },
	{ B(0), 1 }, { B(1), 1 }, { B(2), 1 },
	{ C(0), 1 }, { C(1), 1 }, { C(2), 1 }, { C(3), 1 }, { C(4), 1 },
	{ C(5), 1 },
};

#define TIMESTAMP_HZ 19200000ull
#define MAX_GPU_HZ 1300000000ull

static const char *const expected_sets[] = {
	"RenderBasic", "ComputeBasic", "MemoryL3",
};

static void load_builtin(struct gpm_metrics_db *db,
			 const struct gpm_metrics_file **file)
{
	gpm_metrics_db_init(db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(db), 0);
	for (size_t i = 0; i < db->diagnostics.count; i++) {
		const struct gpm_diagnostic *d = &db->diagnostics.items[i];
		fprintf(stderr, "%s:%u: %s\n", d->file, d->line, d->message);
	}
	ck_assert_uint_eq(db->diagnostics.count, 0);
	*file = gpm_metrics_db_find_platform(db, "simgen12");
	ck_assert_ptr_nonnull(*file);
}

static void sim_vars(struct gpm_device_vars *vars)
{
	struct gpm_device_info dev;

	gpm_sim_device_info(&dev);
	gpm_device_vars_init(vars, &dev);
}

START_TEST(test_loads_cleanly)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;

	load_builtin(&db, &file);
	ck_assert_uint_eq(db.n_files, 1);
	ck_assert_str_eq(file->chipset, "SIMGEN12");
	ck_assert_uint_ge(file->n_sets, 3);
	for (size_t i = 0; i < sizeof(expected_sets) / sizeof(*expected_sets); i++)
		ck_assert_ptr_nonnull(gpm_metrics_file_find_set(file, expected_sets[i]));
	for (size_t i = 0; i < file->n_sets; i++) {
		const struct gpm_metric_set *set = &file->sets[i];

		ck_assert_msg(set->n_counters >= 15, "%s has %zu counters",
			      set->symbol_name, set->n_counters);
		ck_assert_str_eq(set->chipset, "SIMGEN12");
	}
	gpm_metrics_db_fini(&db);
}
END_TEST

static bool is_uuid(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (unsigned i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

START_TEST(test_guids_are_distinct_uuids)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;

	load_builtin(&db, &file);
	for (size_t i = 0; i < file->n_sets; i++) {
		const char *guid = file->sets[i].hw_config_guid;

		ck_assert_msg(is_uuid(guid), "bad guid %s", guid);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(guid, file->sets[j].hw_config_guid);
	}
	gpm_metrics_db_fini(&db);
}
END_TEST

/* The Gen12 register whitelists of i915's ADD_CONFIG. */
static bool gen12_allows(enum gpm_register_kind kind, uint32_t addr)
{
	switch (kind) {
	case GPM_REGISTERS_MUX:
		return (addr >= 0x0d00 && addr <= 0x0d2c) || addr == 0x9840 ||
		       (addr >= 0x9884 && addr <= 0x9888) || addr == 0x20cc;
	case GPM_REGISTERS_BOOLEAN:
		return addr == 0x2b2c || (addr >= 0xd900 && addr <= 0xd97c) ||
		       (addr >= 0xdc00 && addr <= 0xdc44);
	case GPM_REGISTERS_FLEX:
		return addr == 0xe458 || addr == 0xe558 || addr == 0xe658 ||
		       addr == 0xe758 || addr == 0xe45c || addr == 0xe55c ||
		       addr == 0xe65c;
	default:
		return false;
	}
}

START_TEST(test_registers_pass_the_whitelists)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	struct gpm_device_vars vars;

	load_builtin(&db, &file);
	sim_vars(&vars);
	for (size_t i = 0; i < file->n_sets; i++) {
		struct gpm_binding b;

		ck_assert_int_eq(gpm_binding_init(&b, &file->sets[i], &vars), 0);
		for (int kind = 0; kind < GPM_REGISTER_KINDS; kind++) {
			ck_assert_uint_gt(b.n_registers[kind], 0);
			for (size_t r = 0; r < b.n_registers[kind]; r++) {
				uint32_t addr = b.registers[kind][r].address;
				ck_assert_msg(gen12_allows(kind, addr),
					      "%s: %s register 0x%x",
					      file->sets[i].symbol_name,
					      gpm_register_kind_name(kind), addr);
			}
		}
		gpm_binding_fini(&b);
	}
	gpm_metrics_db_fini(&db);
}
END_TEST

/*
 * Evaluates every set over acc on the sim device; every counter must be
 * available, finite, non-negative and within its max. Float counters get
 * a rounding allowance: a derived value and its bound are computed along
 * different paths.
 */
static void check_within_bounds(const struct gpm_metrics_file *file,
				const struct gpm_accumulator *acc,
				const char *what)
{
	struct gpm_device_vars vars;

	sim_vars(&vars);
	for (size_t s = 0; s < file->n_sets; s++) {
		const struct gpm_metric_set *set = &file->sets[s];
		struct gpm_value *values = calloc(set->n_counters, sizeof(*values));
		struct gpm_value *max = calloc(set->n_counters, sizeof(*max));
		struct gpm_binding b;

		ck_assert_ptr_nonnull(values);
		ck_assert_ptr_nonnull(max);
		ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
		ck_assert_uint_eq(b.n_steps, set->n_counters);
		gpm_binding_evaluate(&b, acc, values);
		gpm_binding_evaluate_max(&b, acc, values, max);

		for (size_t i = 0; i < set->n_counters; i++) {
			const char *sym = set->counters[i].symbol_name;
			double v = gpm_value_as_double(values[i]);

			ck_assert_msg(isfinite(v) && v >= 0, "%s: %s.%s = %g",
				      what, set->symbol_name, sym, v);
		}
		for (size_t k = 0; k < b.n_max; k++) {
			unsigned i = b.max[k].counter;
			const char *sym = set->counters[i].symbol_name;

			if (values[i].type == GPM_VALUE_U64 &&
			    max[i].type == GPM_VALUE_U64) {
				ck_assert_msg(values[i].u <= max[i].u,
					      "%s: %s.%s = %llu > %llu", what,
					      set->symbol_name, sym,
					      (unsigned long long)values[i].u,
					      (unsigned long long)max[i].u);
			} else {
				double v = gpm_value_as_double(values[i]);
				double m = gpm_value_as_double(max[i]);

				ck_assert_msg(v <= m * (1 + 1e-12),
					      "%s: %s.%s = %.17g > %.17g", what,
					      set->symbol_name, sym, v, m);
			}
		}
		gpm_binding_fini(&b);
		free(values);
		free(max);
	}
}

/* Every raw counter at its bound for the given window. */
static void fill_at_bounds(struct gpm_accumulator *acc, uint64_t ticks,
			   uint64_t clocks)
{
	memset(acc, 0, sizeof(*acc));
	acc->slot[GPM_ACC_GPU_TIME] = ticks;
	acc->slot[GPM_ACC_GPU_CLOCK] = clocks;
	for (size_t i = 0; i < sizeof(raw_bounds) / sizeof(*raw_bounds); i++)
		acc->slot[raw_bounds[i].slot] = raw_bounds[i].per_clock * clocks;
}

static double counter_value(const struct gpm_metric_set *set,
			    const struct gpm_accumulator *acc,
			    const char *symbol)
{
	struct gpm_device_vars vars;
	struct gpm_binding b;
	struct gpm_value values[64];
	int i = gpm_metric_set_find_counter(set, symbol);

	ck_assert_int_ge(i, 0);
	ck_assert_uint_le(set->n_counters, 64);
	sim_vars(&vars);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	gpm_binding_evaluate(&b, acc, values);
	gpm_binding_fini(&b);
	return gpm_value_as_double(values[i]);
}

/* 1 ms at 1300 MHz with every raw counter at its bound: the counters meet
 * their maxima exactly. */
START_TEST(test_bounds_at_full_load)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	struct gpm_accumulator acc;
	const struct gpm_metric_set *render, *memory;

	load_builtin(&db, &file);
	fill_at_bounds(&acc, 19200, 1300000);
	check_within_bounds(file, &acc, "full load");

	render = gpm_metrics_file_find_set(file, "RenderBasic");
	memory = gpm_metrics_file_find_set(file, "MemoryL3");
	ck_assert_double_eq(counter_value(render, &acc, "GpuTime"), 1000000);
	ck_assert_double_eq(counter_value(render, &acc, "AvgGpuCoreFrequency"),
			    1300000000);
	ck_assert_double_eq(counter_value(render, &acc, "GpuBusy"), 100);
	ck_assert_double_eq(counter_value(render, &acc, "EuActive"), 100);
	ck_assert_double_eq(counter_value(render, &acc, "EuIdle"), 0);
	ck_assert_double_eq(counter_value(render, &acc, "EuThreadOccupancy"), 100);
	ck_assert_double_eq(counter_value(memory, &acc, "GtiThroughput"),
			    1300000 * 128.0);
	ck_assert_double_eq_tol(counter_value(memory, &acc, "GtiBandwidth"),
				166.4, 1e-9);
	gpm_metrics_db_fini(&db);
}
END_TEST

/* At the bounds over windows of every length up to a second, at the
 * highest clock count the window allows: truncation to whole nanoseconds
 * or ticks must not lift a rate past its max. */
START_TEST(test_bounds_at_full_load_any_window)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	struct gpm_accumulator acc;

	load_builtin(&db, &file);
	for (uint64_t ticks = 1; ticks <= TIMESTAMP_HZ; ticks = ticks * 3 + 1) {
		fill_at_bounds(&acc, ticks, ticks * MAX_GPU_HZ / TIMESTAMP_HZ);
		check_within_bounds(file, &acc, "full load");
	}
	gpm_metrics_db_fini(&db);
}
END_TEST

START_TEST(test_bounds_when_idle)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	struct gpm_accumulator acc;

	load_builtin(&db, &file);
	memset(&acc, 0, sizeof(acc));
	check_within_bounds(file, &acc, "all zero");
	/* Asleep for 1 ms: the timestamp runs, the core clock stands. */
	acc.slot[GPM_ACC_GPU_TIME] = 19200;
	check_within_bounds(file, &acc, "asleep");
	gpm_metrics_db_fini(&db);
}
END_TEST

static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static uint64_t below_or_at(uint64_t *state, uint64_t n)
{
	return n == UINT64_MAX ? xorshift(state) : xorshift(state) % (n + 1);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Random windows within the bounds, the relations between counters of
 * metrics/sim/README.md included. */
START_TEST(test_bounds_random_windows)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	struct gpm_accumulator acc;
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	load_builtin(&db, &file);
	for (int n = 0; n < 2000; n++) {
		uint64_t ticks = 1 + below_or_at(&rng, 100 * TIMESTAMP_HZ);
		uint64_t clocks = below_or_at(&rng, ticks * MAX_GPU_HZ / TIMESTAMP_HZ);
		uint64_t *v = acc.slot;

		memset(&acc, 0, sizeof(acc));
		v[GPM_ACC_GPU_TIME] = ticks;
		v[GPM_ACC_GPU_CLOCK] = clocks;
		for (size_t i = 0; i < sizeof(raw_bounds) / sizeof(*raw_bounds); i++)
			v[raw_bounds[i].slot] = below_or_at(
				&rng, raw_bounds[i].per_clock * clocks);
		v[A(1)] = min_u64(v[A(1)], v[A(0)]);
		v[A(2)] = min_u64(v[A(2)], v[A(0)]);
		if (v[A(8)] < v[A(7)])
			v[A(8)] = v[A(7)];
		v[A(9)] = min_u64(v[A(9)], 7 * v[A(8)]);
		v[A(10)] = min_u64(v[A(10)], v[A(7)]);
		v[A(11)] = min_u64(v[A(11)], v[A(7)]);
		v[A(12)] = min_u64(v[A(12)], 2 * v[A(7)]);
		v[A(14)] = v[C(0)] + v[C(1)] + v[C(2)] + v[C(3)] + v[C(4)] + v[C(5)];
		v[A(15)] = min_u64(v[A(15)], v[A(14)]);
		v[A(18)] = min_u64(v[A(18)], v[A(17)]);
		v[A(19)] = min_u64(v[A(19)], v[A(17)] - v[A(18)]);
		v[A(25)] = min_u64(v[A(25)], v[A(24)]);
		check_within_bounds(file, &acc, "random window");
	}
	gpm_metrics_db_fini(&db);
}
END_TEST

/* With dual-subslice 5 fused off, its sampler counter is dropped and the
 * rest of the set stays. */
START_TEST(test_availability_follows_topology)
{
	struct gpm_metrics_db db;
	const struct gpm_metrics_file *file;
	const struct gpm_metric_set *render;
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding b;

	load_builtin(&db, &file);
	render = gpm_metrics_file_find_set(file, "RenderBasic");
	gpm_sim_device_info(&dev);
	dev.topology.subslice_mask[0] = 0x1f;
	dev.topology.eu_mask[0][5] = 0;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, render, &vars), 0);
	ck_assert(!b.available[gpm_metric_set_find_counter(render, "Dss5SamplerBusy")]);
	ck_assert(b.available[gpm_metric_set_find_counter(render, "Dss0SamplerBusy")]);
	ck_assert_uint_eq(b.n_steps, render->n_counters - 1);
	gpm_binding_fini(&b);
	gpm_metrics_db_fini(&db);
}
END_TEST

static Suite *sim_metrics_suite(void)
{
	Suite *s = suite_create("sim_metrics");
	TCase *load = tcase_create("load");
	TCase *bounds = tcase_create("bounds");

	tcase_add_test(load, test_loads_cleanly);
	tcase_add_test(load, test_guids_are_distinct_uuids);
	tcase_add_test(load, test_registers_pass_the_whitelists);
	tcase_add_test(load, test_availability_follows_topology);
	tcase_add_test(bounds, test_bounds_at_full_load);
	tcase_add_test(bounds, test_bounds_at_full_load_any_window);
	tcase_add_test(bounds, test_bounds_when_idle);
	tcase_add_test(bounds, test_bounds_random_windows);
	tcase_set_timeout(bounds, 60);
	suite_add_tcase(s, load);
	suite_add_tcase(s, bounds);
	return s;
}

GPM_TEST_MAIN(sim_metrics_suite)
