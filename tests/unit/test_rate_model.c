/*
 * Rates fitted to a metric set: every counter stays within [0, max] for
 * any single stretch of work, however short, at any load and clock, in
 * any context, and for stretches of several contexts summed, which is
 * what a window of reports is. Without a set, moderate rates and no ties.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/rate_model.h"
#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_format.h"
#include "metrics/platform.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"

#define N_CONTEXTS 4

struct checker {
	const struct gpm_device_info *dev;
	const struct gpm_metric_set *set;
	struct gpd_rate_model rm;
	struct gpm_device_vars vars;
	struct gpm_binding binding;
	struct gpm_value *values, *max;
	bool *has_max;
};

static struct checker *checker_new(const struct gpm_device_info *dev,
				   const struct gpm_metric_set *set)
{
	struct checker *ck = calloc(1, sizeof(*ck));
	const struct gpm_oa_format *fmt;

	ck_assert_ptr_nonnull(ck);
	ck_assert_int_eq(gpm_oa_format_for_set(dev->graphics_version, set->oa_format,
					       &fmt), 0);
	struct gpd_rate_model_params params = {
		.dev = dev, .format = fmt, .set = set, .n_contexts = N_CONTEXTS, .seed = 77,
	};
	ck_assert_int_eq(gpd_rate_model_fit(&ck->rm, &params), 0);
	ck->dev = dev;
	ck->set = set;
	gpm_device_vars_init(&ck->vars, dev);
	ck_assert_int_eq(gpm_binding_init(&ck->binding, set, &ck->vars), 0);
	ck->values = calloc(set->n_counters + 1, sizeof(*ck->values));
	ck->max = calloc(set->n_counters + 1, sizeof(*ck->max));
	ck->has_max = calloc(set->n_counters + 1, sizeof(*ck->has_max));
	for (size_t i = 0; i < ck->binding.n_max; i++)
		ck->has_max[ck->binding.max[i].counter] = true;
	return ck;
}

static void checker_free(struct checker *ck)
{
	gpm_binding_fini(&ck->binding);
	free(ck->values);
	free(ck->max);
	free(ck->has_max);
	free(ck);
}

/* Adds a stretch of `ticks` at frequency freq and utilization util in
 * context ctx to acc, rounding as the OA model does. */
static void add_stretch(const struct checker *ck, unsigned ctx, double util,
			uint64_t freq, uint64_t ticks, struct gpm_accumulator *acc)
{
	uint64_t ns = ticks * 1000000000u / ck->dev->timestamp_frequency;
	uint64_t clocks = freq * ns / 1000000000u;
	uint64_t inc[GPM_ACC_SLOTS];

	gpd_rate_model_increments(&ck->rm, ctx, util, clocks, inc);
	acc->slot[GPM_ACC_GPU_TIME] += ticks;
	acc->slot[GPM_ACC_GPU_CLOCK] += clocks;
	for (size_t i = 0; i < ck->rm.n_slots; i++) {
		/* Never above the rate. */
		ck_assert(inc[i] <= ck->rm.rate[ctx][i] * util * (double)clocks + 1e-6);
		acc->slot[ck->rm.slot[i]] += inc[i];
	}
}

static void check_acc(struct checker *ck, const struct gpm_accumulator *acc)
{
	gpm_binding_evaluate(&ck->binding, acc, ck->values);
	gpm_binding_evaluate_max(&ck->binding, acc, ck->values, ck->max);
	for (size_t s = 0; s < ck->binding.n_steps; s++) {
		unsigned c = ck->binding.steps[s].counter;
		double v = gpm_value_as_double(ck->values[c]);

		ck_assert_msg(!isnan(v) && v >= 0 && v < 1e18, "%s.%s = %g (%llu ticks)",
			      ck->set->symbol_name, ck->set->counters[c].symbol_name, v,
			      (unsigned long long)acc->slot[GPM_ACC_GPU_TIME]);
		if (ck->has_max[c])
			ck_assert_msg(v <= gpm_value_as_double(ck->max[c]),
				      "%s.%s = %.17g > %.17g (%llu ticks, %llu clocks)",
				      ck->set->symbol_name, ck->set->counters[c].symbol_name,
				      v, gpm_value_as_double(ck->max[c]),
				      (unsigned long long)acc->slot[GPM_ACC_GPU_TIME],
				      (unsigned long long)acc->slot[GPM_ACC_GPU_CLOCK]);
	}
}

static void check_set(const struct gpm_device_info *dev, const struct gpm_metric_set *set)
{
	static const double utils[] = { 0.02, 0.3, 0.77, 1.0 };
	static const uint64_t long_ticks[] = { 100, 1000, 19200, 1920000 };
	struct checker *ck = checker_new(dev, set);
	const uint64_t freqs[] = { dev->gpu_min_freq, dev->gpu_max_freq };

	ck_assert_uint_gt(ck->rm.n_slots, 0);
	for (unsigned ctx = 0; ctx < N_CONTEXTS; ctx++) {
		for (size_t u = 0; u < 4; u++) {
			for (size_t f = 0; f < 2; f++) {
				/* One short stretch at a time. */
				for (uint64_t ticks = 1; ticks <= 40; ticks += 1 + ticks / 4) {
					struct gpm_accumulator acc = { { 0 } };

					add_stretch(ck, ctx, utils[u], freqs[f], ticks, &acc);
					check_acc(ck, &acc);
				}
				/* Long ones, and one summed with a stretch of every
				 * other context. */
				for (size_t t = 0; t < 4; t++) {
					struct gpm_accumulator acc = { { 0 } };

					add_stretch(ck, ctx, utils[u], freqs[f], long_ticks[t], &acc);
					check_acc(ck, &acc);
					for (unsigned other = 0; other < N_CONTEXTS; other++)
						add_stretch(ck, other, utils[3 - u], freqs[1 - f],
							    long_ticks[3 - t], &acc);
					check_acc(ck, &acc);
				}
			}
		}
	}
	checker_free(ck);
}

START_TEST(test_sim_sets)
{
	struct gpm_metrics_db db;
	struct gpm_device_info dev;

	gpm_sim_device_info(&dev);
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&db), 0);
	const struct gpm_metrics_file *file = gpm_metrics_db_find_platform(&db, "simgen12");
	ck_assert_ptr_nonnull(file);
	for (size_t i = 0; i < file->n_sets; i++)
		check_set(&dev, &file->sets[i]);
	gpm_metrics_db_fini(&db);
}
END_TEST

/*
 * Every counter of the sim's sets reads something in every context at full
 * load where its raw counters run: EU stall (busy less active) is not
 * clamped to 0 for good by busy drawn below active.
 */
START_TEST(test_sim_counters_read_something)
{
	struct gpm_metrics_db db;
	struct gpm_device_info dev;

	gpm_sim_device_info(&dev);
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&db), 0);
	const struct gpm_metrics_file *file = gpm_metrics_db_find_platform(&db, "simgen12");
	unsigned stalls = 0;
	for (size_t i = 0; i < file->n_sets; i++) {
		const struct gpm_metric_set *set = &file->sets[i];
		struct checker *ck = checker_new(&dev, set);
		const struct gpm_counter *stall = NULL;
		for (size_t c = 0; c < set->n_counters; c++)
			if (!strcmp(set->counters[c].symbol_name, "EuStall"))
				stall = &set->counters[c];
		for (unsigned ctx = 0; stall && ctx < N_CONTEXTS; ctx++) {
			struct gpm_accumulator acc = { { 0 } };

			add_stretch(ck, ctx, 1.0, dev.gpu_max_freq, 192000, &acc);
			gpm_binding_evaluate(&ck->binding, &acc, ck->values);
			double v = gpm_value_as_double(ck->values[stall - set->counters]);
			ck_assert_msg(v > 0, "%s.EuStall reads 0 in context %u",
				      set->symbol_name, ctx);
			stalls++;
		}
		checker_free(ck);
	}
	ck_assert_uint_ge(stalls, 2 * N_CONTEXTS);
	gpm_metrics_db_fini(&db);
}
END_TEST

/* Every set of an Intel platform's file, on its typical part. */
static void check_platform(const char *platform)
{
	char path[512], rel[64];
	struct gpm_device_info dev;
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	gpm_platform_default_device(gpm_platform_by_name(platform), &dev);
	snprintf(rel, sizeof(rel), "intel-metrics/i915/oa-%s.xml", platform);
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(test_shared_path(path, sizeof(path), rel),
					       &diag, &file), 0);
	ck_assert_uint_gt(file->n_sets, 5);
	for (size_t i = 0; i < file->n_sets; i++)
		check_set(&dev, &file->sets[i]);
	gpm_metrics_file_free(file);
	gpm_diagnostics_fini(&diag);
}

START_TEST(test_tglgt2_sets)
{
	check_platform("tglgt2");
}
END_TEST

/* Haswell's sets count clocks in a raw counter of their own (C2 or B7),
 * which the fit must treat like any other. */
START_TEST(test_hsw_sets)
{
	check_platform("hsw");
}
END_TEST

START_TEST(test_without_set)
{
	struct gpd_rate_model rm;
	struct gpm_device_info dev;
	const struct gpm_oa_format *fmt;

	gpm_sim_device_info(&dev);
	ck_assert_int_eq(gpm_oa_format_from_i915(10, &fmt), 0);
	struct gpd_rate_model_params params = {
		.dev = &dev, .format = fmt, .n_contexts = 2, .seed = 1,
	};
	ck_assert_int_eq(gpd_rate_model_fit(&rm, &params), 0);
	/* A0..A35, B0..B7, C0..C7. */
	ck_assert_uint_eq(rm.n_slots, 36 + 8 + 8);
	ck_assert_uint_eq(rm.n_tie_entries, 0);
	for (unsigned ctx = 0; ctx < 2; ctx++) {
		for (size_t i = 0; i < rm.n_slots; i++)
			ck_assert(rm.rate[ctx][i] >= 0.02 && rm.rate[ctx][i] < 1);
	}
	params.n_contexts = 0;
	ck_assert_int_eq(gpd_rate_model_fit(&rm, &params), -EINVAL);
}
END_TEST

static Suite *rate_model_suite(void)
{
	Suite *s = suite_create("rate_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sim_sets);
	tcase_add_test(tc, test_sim_counters_read_something);
	tcase_add_test(tc, test_tglgt2_sets);
	tcase_add_test(tc, test_hsw_sets);
	tcase_add_test(tc, test_without_set);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(rate_model_suite)
