/*
 * The configuration file's syntax: `name = value` lines read against a
 * getopt_long table, with the line of each refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config_file.h"
#include "tests/unit/test_util.h"

static const struct option table[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "seed", required_argument, NULL, 256 },
	{ "foreground", no_argument, NULL, 257 },
	{ NULL, 0, NULL, 0 },
};

static char path[64];

/* Writes text to a new temporary file, named in path. */
static void write_file(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/gpd-config-file-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int read_text(const char *text, struct gpd_config_file *f,
		     struct gpd_error *err)
{
	write_file(text);
	int ret = gpd_config_file_read(f, path, table, err);
	unlink(path);
	return ret;
}

START_TEST(test_lines)
{
	struct gpd_config_file f;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(read_text("# a comment\n"
				   "\n"
				   "device = sim\n"
				   "   device=replay:/tmp/a b.i915perf  \n"
				   "\t# indented comment\n"
				   "seed = 0x10 # not a comment\n"
				   "foreground\n"
				   "device = sim:tglgt2", &f, &err), 0);
	ck_assert_uint_eq(f.n_lines, 5);
	ck_assert_str_eq(f.lines[0].option->name, "device");
	ck_assert_str_eq(f.lines[0].value, "sim");
	ck_assert_uint_eq(f.lines[0].line, 3);
	/* Blanks inside a value stay; around it they go. */
	ck_assert_str_eq(f.lines[1].value, "replay:/tmp/a b.i915perf");
	ck_assert_uint_eq(f.lines[1].line, 4);
	ck_assert_str_eq(f.lines[2].value, "0x10 # not a comment");
	ck_assert_str_eq(f.lines[3].option->name, "foreground");
	ck_assert_ptr_null(f.lines[3].value);
	/* A last line without a newline counts. */
	ck_assert_str_eq(f.lines[4].value, "sim:tglgt2");
	ck_assert_uint_eq(f.lines[4].line, 8);
	gpd_config_file_fini(&f);
}
END_TEST

START_TEST(test_empty_file)
{
	struct gpd_config_file f;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(read_text("", &f, &err), 0);
	ck_assert_uint_eq(f.n_lines, 0);
	gpd_config_file_fini(&f);
}
END_TEST

/* Each refusal names the file and line and says what to write. */
static void check_refused(const char *text, unsigned line, const char *words)
{
	struct gpd_config_file f;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(read_text(text, &f, &err), -EINVAL);
	ck_assert_int_eq(err.code, -EINVAL);
	char where[96];
	snprintf(where, sizeof(where), "%s:%u: ", path, line);
	ck_assert_msg(!strncmp(err.message, where, strlen(where)),
		      "'%s' does not start with '%s'", err.message, where);
	ck_assert_msg(strstr(err.message, words), "'%s' lacks '%s'",
		      err.message, words);
	ck_assert_ptr_null(f.lines);
}

START_TEST(test_refusals)
{
	check_refused("device = sim\nspeed = 3\n", 2,
		      "'speed' is not an option of gpuperfd");
	check_refused("seed\n", 1, "'seed' needs a value: `seed = VALUE`");
	check_refused("seed =   \n", 1, "'seed' needs a value");
	check_refused("foreground = yes\n", 1, "'foreground' takes no value");
	check_refused("--device = sim\n", 1, "without its dashes: `device = VALUE`");
	check_refused("= sim\n", 1, "'=' is not an option");
}
END_TEST

START_TEST(test_missing_file)
{
	struct gpd_config_file f;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_config_file_read(&f, "/nonexistent/gpuperfd.conf",
					      table, &err), -ENOENT);
	ck_assert_str_eq(err.message, "--config /nonexistent/gpuperfd.conf: "
			 "No such file or directory");
}
END_TEST

static Suite *config_file_suite(void)
{
	Suite *s = suite_create("config_file");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_empty_file);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_missing_file);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(config_file_suite)
