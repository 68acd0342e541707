/*
 * The metrics database: directories, the built-in definitions, lookups.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/metrics_db.h"
#include "tests/unit/test_util.h"

START_TEST(loads_the_shared_directories)
{
	char i915[4096], xe[4096];
	struct gpm_metrics_db db;

	test_shared_path(i915, sizeof(i915), "intel-metrics/i915");
	test_shared_path(xe, sizeof(xe), "intel-metrics/xe");
	gpm_metrics_db_init(&db);
	int n_i915 = gpm_metrics_db_add_dir(&db, i915);
	int n_xe = gpm_metrics_db_add_dir(&db, xe);
	ck_assert_int_gt(n_i915, 0);
	ck_assert_int_gt(n_xe, 0);
	ck_assert_uint_eq(db.n_files, (size_t)(n_i915 + n_xe));
	ck_assert_uint_eq(db.diagnostics.count, 0);
	printf("i915 + xe: %zu files, %zu sets, %zu counters\n", db.n_files,
	       gpm_metrics_db_count_sets(&db),
	       gpm_metrics_db_count_counters(&db));

	/* Files come in name order; the first directory wins a platform. */
	for (size_t i = 1; i < (size_t)n_i915; i++)
		ck_assert_int_lt(strcmp(db.files[i - 1]->path,
					db.files[i]->path), 0);
	const struct gpm_metrics_file *tgl =
		gpm_metrics_db_find_platform(&db, "tglgt2");
	ck_assert_ptr_nonnull(tgl);
	ck_assert_ptr_nonnull(strstr(tgl->path, "/i915/oa-tglgt2.xml"));
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_eq(set->file, tgl);

	/* A set only the xe file has is found there. */
	const struct gpm_metric_set *pvc =
		gpm_metrics_db_find_set(&db, "pvc", "ComputeBasic");
	ck_assert_ptr_nonnull(pvc);
	ck_assert_ptr_nonnull(strstr(pvc->file->path, "/xe/"));
	ck_assert_ptr_null(gpm_metrics_db_find_set(&db, "tglgt2", "Nope"));
	ck_assert_ptr_null(gpm_metrics_db_find_set(&db, "nope", "RenderBasic"));
	ck_assert_ptr_null(gpm_metrics_db_find_platform(&db, "nope"));
	gpm_metrics_db_fini(&db);
}
END_TEST

START_TEST(unreadable_directory)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_dir(&db, "/nonexistent/metrics"),
			 -ENOENT);
	ck_assert_uint_eq(db.n_files, 0);
	gpm_metrics_db_fini(&db);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(bad_files_become_diagnostics)
{
	char dir[] = "/tmp/gpm-metrics-db-XXXXXX";
	char path[4096];
	struct gpm_metrics_db db;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "oa-good.xml",
		   "<metrics><set name=\"g\" chipset=\"GOOD\" symbol_name=\"G\" "
		   "hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">"
		   "<counter name=\"a\" symbol_name=\"A\" units=\"events\" "
		   "semantic_type=\"event\" data_type=\"uint64\" "
		   "equation=\"A 0 READ\"/></set></metrics>\n");
	write_file(dir, "oa-broken.xml", "<metrics>\n<set\n");
	write_file(dir, "notes.xml", "not a metric file");
	snprintf(path, sizeof(path), "%s/oa-dir.xml", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);

	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_dir(&db, dir), 2);
	ck_assert_uint_eq(db.n_files, 2);
	ck_assert_str_eq(db.files[0]->platform, "broken");
	ck_assert_uint_eq(db.files[0]->n_sets, 0);
	ck_assert_str_eq(db.files[1]->platform, "good");
	ck_assert_uint_eq(gpm_metrics_db_count_sets(&db), 1);
	ck_assert_uint_eq(gpm_metrics_db_count_counters(&db), 1);

	ck_assert_uint_eq(db.diagnostics.count, 2);
	ck_assert_ptr_nonnull(strstr(db.diagnostics.items[0].file,
				     "/oa-broken.xml"));
	ck_assert_uint_eq(db.diagnostics.items[0].line, 2);
	ck_assert_ptr_nonnull(strstr(db.diagnostics.items[1].file,
				     "/oa-dir.xml"));
	ck_assert_uint_eq(db.diagnostics.items[1].line, 0);
	ck_assert_ptr_nonnull(strstr(db.diagnostics.items[1].message,
				     "cannot read"));
	gpm_metrics_db_fini(&db);

	rmdir(path);
	snprintf(path, sizeof(path), "%s/oa-good.xml", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/oa-broken.xml", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/notes.xml", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* One set, as replay loads it: the same set as from the whole file, by
 * name or by configuration, and the file is not read past it. */
START_TEST(one_set_of_a_platform)
{
	char i915[4096];
	struct gpm_metrics_db all, one;

	test_shared_path(i915, sizeof(i915), "intel-metrics/i915");
	gpm_metrics_db_init(&all);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&all, i915, "tglgt2"), 1);
	static const char *const names[] = { "RenderBasic", "ComputeBasic" };
	for (size_t i = 0; i < 2; i++) {
		const struct gpm_metric_set *want =
			gpm_metrics_db_find_set(&all, "tglgt2", names[i]);
		ck_assert_ptr_nonnull(want);

		gpm_metrics_db_init(&one);
		ck_assert_int_eq(gpm_metrics_db_add_platform_set(
					 &one, i915, "tglgt2", names[i], NULL), 1);
		ck_assert_uint_eq(gpm_metrics_db_count_sets(&one), 1);
		const struct gpm_metric_set *got =
			gpm_metrics_db_find_set(&one, "tglgt2", names[i]);
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got->hw_config_guid, want->hw_config_guid);
		ck_assert_uint_eq(got->n_counters, want->n_counters);
		for (size_t c = 0; c < got->n_counters; c++)
			ck_assert_str_eq(got->counters[c].symbol_name,
					 want->counters[c].symbol_name);
		ck_assert_ptr_nonnull(gpm_metrics_db_find_platform(&one, "tglgt2"));
		gpm_metrics_db_fini(&one);

		/* A renamed set is found by its configuration. */
		gpm_metrics_db_init(&one);
		ck_assert_int_eq(gpm_metrics_db_add_platform_set(
					 &one, i915, "tglgt2", "Renamed",
					 want->hw_config_guid), 1);
		ck_assert_uint_eq(gpm_metrics_db_count_sets(&one), 1);
		ck_assert_ptr_nonnull(gpm_metrics_db_find_set(
					      &one, "tglgt2", want->hw_config_guid));
		gpm_metrics_db_fini(&one);
	}
	gpm_metrics_db_fini(&all);

	/* Missing set: the file is still there, with no sets. */
	gpm_metrics_db_init(&one);
	ck_assert_int_eq(gpm_metrics_db_add_platform_set(&one, i915, "tglgt2",
							 "Nope", ""), 1);
	ck_assert_uint_eq(gpm_metrics_db_count_sets(&one), 0);
	ck_assert_ptr_nonnull(gpm_metrics_db_find_platform(&one, "tglgt2"));
	ck_assert_uint_eq(one.diagnostics.count, 0);
	gpm_metrics_db_fini(&one);

	/* Reading stops after the set: what is broken further on is not
	 * met, what is broken before it is. */
	char dir[] = "/tmp/gpm-metrics-db-XXXXXX", path[4096];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "oa-some.xml",
		   "<metrics>\n<set name=\"x\" chipset=\"SOME\"/>\n"
		   "<set name=\"g\" chipset=\"SOME\" symbol_name=\"G\" "
		   "hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">"
		   "<counter name=\"a\" symbol_name=\"A\" units=\"events\" "
		   "semantic_type=\"event\" data_type=\"uint64\" "
		   "equation=\"A 0 READ\"/></set>\n<set\n");
	gpm_metrics_db_init(&one);
	ck_assert_int_eq(gpm_metrics_db_add_platform_set(&one, dir, "some", "G",
							 NULL), 1);
	ck_assert_uint_eq(gpm_metrics_db_count_sets(&one), 1);
	ck_assert_uint_eq(gpm_metrics_db_count_counters(&one), 1);
	ck_assert_uint_eq(one.diagnostics.count, 0);
	gpm_metrics_db_fini(&one);
	gpm_metrics_db_init(&one);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&one, dir, "some"), 1);
	ck_assert_uint_eq(gpm_metrics_db_count_sets(&one), 1);
	ck_assert_uint_ge(one.diagnostics.count, 1);
	gpm_metrics_db_fini(&one);
	ck_assert_int_eq(gpm_metrics_db_add_platform_set(&one, "/nonexistent", "some",
							 "G", NULL), -ENOENT);
	snprintf(path, sizeof(path), "%s/oa-some.xml", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Loading one platform's file from a directory that is not one, that
 * lacks the file, or where the file cannot be read: an error for the
 * first, nothing loaded for the second, a diagnostic naming the file for
 * the third, and no file added for any. */
START_TEST(platform_file_missing_or_unreadable)
{
	char dir[] = "/tmp/gpm-metrics-db-XXXXXX", path[4096];
	struct gpm_metrics_db db;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "oa-plain.xml", "<metrics></metrics>\n");
	snprintf(path, sizeof(path), "%s/oa-plain.xml", dir);
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, path, "plain"),
			 -ENOTDIR);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, dir, "absent"),
			 0);
	ck_assert_uint_eq(db.n_files, 0);
	ck_assert_uint_eq(db.diagnostics.count, 0);

	snprintf(path, sizeof(path), "%s/oa-dir.xml", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, dir, "dir"), 0);
	ck_assert_uint_eq(db.n_files, 0);
	ck_assert_ptr_null(gpm_metrics_db_find_platform(&db, "dir"));
	ck_assert_uint_eq(db.diagnostics.count, 1);
	ck_assert_str_eq(db.diagnostics.items[0].file, path);
	ck_assert_uint_eq(db.diagnostics.items[0].line, 0);
	ck_assert_str_eq(db.diagnostics.items[0].message,
			 "cannot read: Is a directory");

	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, dir, "plain"), 1);
	ck_assert_uint_eq(db.n_files, 1);
	gpm_metrics_db_fini(&db);

	rmdir(path);
	snprintf(path, sizeof(path), "%s/oa-plain.xml", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(builtin_definitions)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&db), 0);
	ck_assert_uint_eq(db.n_files, 1);
	ck_assert_uint_eq(db.diagnostics.count, 0);
	ck_assert_str_eq(db.files[0]->platform, "simgen12");
	ck_assert_str_eq(db.files[0]->chipset, "SIMGEN12");
	ck_assert_uint_gt(gpm_metrics_db_count_sets(&db), 0);
	const struct gpm_metric_set *set = &db.files[0]->sets[0];
	ck_assert_ptr_eq(gpm_metrics_db_find_set(&db, "simgen12",
						 set->hw_config_guid), set);
	gpm_metrics_db_fini(&db);
}
END_TEST

START_TEST(buffers)
{
	static const char xml[] = "<metrics></metrics>";
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_buffer(&db, "mem/oa-empty.xml",
						   xml, strlen(xml)), 0);
	ck_assert_int_eq(gpm_metrics_db_add_buffer(&db, "mem/oa-bad.xml",
						   xml, 3), 0);
	ck_assert_uint_eq(db.n_files, 2);
	ck_assert_str_eq(db.files[0]->platform, "empty");
	ck_assert_uint_eq(db.diagnostics.count, 1);
	ck_assert_str_eq(db.diagnostics.items[0].file, "mem/oa-bad.xml");
	gpm_metrics_db_fini(&db);
}
END_TEST

static Suite *metrics_db_suite(void)
{
	Suite *s = suite_create("metrics_db");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, loads_the_shared_directories);
	tcase_add_test(tc, unreadable_directory);
	tcase_add_test(tc, bad_files_become_diagnostics);
	tcase_add_test(tc, one_set_of_a_platform);
	tcase_add_test(tc, platform_file_missing_or_unreadable);
	tcase_add_test(tc, builtin_definitions);
	tcase_add_test(tc, buffers);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metrics_db_suite)
