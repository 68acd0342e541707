/*
 * Names as people type them: the distance of a typo, the nearest name
 * offered, and sets and counters found whatever the case.
 */
#include <stdint.h>
#include <string.h>

#include "metrics/metric_set.h"
#include "metrics/metrics_db.h"
#include "metrics/name_match.h"
#include "tests/unit/test_util.h"

START_TEST(distances_ignore_case)
{
	ck_assert_uint_eq(gpm_name_distance("GpuBusy", "gpubusy"), 0);
	ck_assert_uint_eq(gpm_name_distance("GpuBusy", "GpuBusyy"), 1);
	ck_assert_uint_eq(gpm_name_distance("RenderBasic", "RenderBasci"), 1);
	ck_assert_uint_eq(gpm_name_distance("EuActive", "EuActiv"), 1);
	ck_assert_uint_eq(gpm_name_distance("", "abc"), 3);
	ck_assert_uint_eq(gpm_name_distance("kitten", "sitting"), 3);
}
END_TEST

START_TEST(only_a_close_name_is_offered)
{
	static const char *const names[] = { "GpuTime", "GpuBusy", "EuActive",
					     "EuStall" };
	const char *best = NULL;
	size_t distance = SIZE_MAX;

	for (size_t i = 0; i < 4; i++)
		gpm_name_consider("gpubusyy", names[i], &best, &distance);
	ck_assert_str_eq(best, "GpuBusy");
	best = NULL;
	distance = SIZE_MAX;
	for (size_t i = 0; i < 4; i++)
		gpm_name_consider("Frequency", names[i], &best, &distance);
	ck_assert_ptr_null(best);
}
END_TEST

START_TEST(sets_and_counters_in_any_case)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_ge(gpm_metrics_db_add_builtin(&db), 0);
	const struct gpm_metrics_file *file =
		gpm_metrics_db_find_platform(&db, "simgen12");
	ck_assert_ptr_nonnull(file);

	const struct gpm_metric_set *set =
		gpm_metrics_file_lookup_set(file, "renderbasic");
	ck_assert_ptr_nonnull(set);
	ck_assert_str_eq(set->symbol_name, "RenderBasic");
	/* What IGT's files and recordings name is matched exactly. */
	ck_assert_ptr_null(gpm_metrics_file_find_set(file, "renderbasic"));
	ck_assert_int_ge(gpm_metric_set_lookup_counter(set, "GPUBUSY"), 0);
	ck_assert_int_lt(gpm_metric_set_find_counter(set, "GPUBUSY"), 0);
	ck_assert_str_eq(gpm_metrics_file_closest_set(file, "RenderBasci"),
			 "RenderBasic");
	ck_assert_str_eq(gpm_metric_set_closest_counter(set, "EuActiv"),
			 "EuActive");
	ck_assert_ptr_null(gpm_metric_set_closest_counter(set, "Nothing"));
	gpm_metrics_db_fini(&db);
}
END_TEST

static Suite *name_match_suite(void)
{
	Suite *s = suite_create("name_match");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, distances_ignore_case);
	tcase_add_test(tc, only_a_close_name_is_offered);
	tcase_add_test(tc, sets_and_counters_in_any_case);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(name_match_suite)
