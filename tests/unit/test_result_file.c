/*
 * Result files read back for gpuperf compare: NDJSON keys with JSON's
 * escapes, CSV with quoted names and a units row, and each refusal naming
 * the file and line it met, so a user can open the file there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/result_file.h"
#include "tests/unit/test_util.h"

static char path[64];

/* text into a new temporary file, its name in path. */
static const char *file_of(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/gpm-test-result-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* What loading text refuses, as the user reads it, with the file's name
 * taken out. */
static const char *refusal(const char *text)
{
	static char why[256], shown[256];
	struct gpuperf_result r = { 0 };

	ck_assert_int_eq(gpuperf_result_load(file_of(text), &r, why, sizeof(why)), -EINVAL);
	gpuperf_result_fini(&r);
	unlink(path);
	size_t n = strlen(path);
	ck_assert_msg(!strncmp(why, path, n), "%s does not start with %s", why, path);
	snprintf(shown, sizeof(shown), "%s", why + n);
	return shown;
}

START_TEST(ndjson_escapes)
{
	struct gpuperf_result r = { 0 };
	char why[256] = "";
	const char *text =
		"{\"a\\nb\":1,\"q\\\"t\":2,\"back\\\\slash\":3,\"\\u0041\\u00e9\":4,"
		"\"tab\\tx\":5,\"s\":\"x\\\"y\"}\n"
		"{\"a\\nb\":10,\"q\\\"t\":20,\"back\\\\slash\":30,\"\\u0041\\u00e9\":40,"
		"\"tab\\tx\":50,\"s\":null}\n";

	ck_assert_msg(gpuperf_result_load(file_of(text), &r, why, sizeof(why)) == 0, "%s", why);
	unlink(path);
	ck_assert_uint_eq(r.n_columns, 6);
	ck_assert_uint_eq(r.n_rows, 2);
	ck_assert_int_eq(gpuperf_result_column(&r, "a\nb"), 0);
	ck_assert_int_eq(gpuperf_result_column(&r, "q\"t"), 1);
	ck_assert_int_eq(gpuperf_result_column(&r, "back\\slash"), 2);
	/* Names are ASCII: a non-ASCII character reads as '?'. */
	ck_assert_int_eq(gpuperf_result_column(&r, "A?"), 3);
	ck_assert_int_eq(gpuperf_result_column(&r, "tab\tx"), 4);
	ck_assert_double_eq(gpuperf_result_value(&r, 1, 3), 40);
	ck_assert(isnan(gpuperf_result_value(&r, 0, 5)));
	gpuperf_result_fini(&r);
}
END_TEST

START_TEST(csv_quoted_names_and_units)
{
	struct gpuperf_result r = { 0 };
	char why[256] = "";
	const char *text = "timestamp_ns,\"Odd,\"\"key\"\"\",GpuBusy\n"
			   "ns,,percent\n"
			   "1,2,3.5\n"
			   "4,,6\n";

	ck_assert_msg(gpuperf_result_load(file_of(text), &r, why, sizeof(why)) == 0, "%s", why);
	unlink(path);
	ck_assert_uint_eq(r.n_rows, 2);
	ck_assert_int_eq(gpuperf_result_column(&r, "Odd,\"key\""), 1);
	ck_assert_double_eq(gpuperf_result_value(&r, 0, 2), 3.5);
	ck_assert(isnan(gpuperf_result_value(&r, 1, 1)));
	gpuperf_result_fini(&r);
}
END_TEST

START_TEST(refusals_name_the_line)
{
	ck_assert_str_eq(refusal("{\"a\":1}\n{\"a\":2}\n{\"b\":3}\n"),
			 ":3: key 'b' is not in the first line");
	ck_assert_str_eq(refusal("{\"a\":1,\"a\":2}\n"), ":1: key 'a' twice");
	ck_assert_str_eq(refusal("{\"a\":1}\n\n{\"a\" 2}\n"), ":3: expected ':' after a key");
	ck_assert_str_eq(refusal("{\"a\":1}\n{\"a\":x}\n"),
			 ":2: a value is neither a number, a string nor null");
	ck_assert_str_eq(refusal("{\"a\":1} 2\n"), ":1: text after the object");
	ck_assert_str_eq(refusal("{\"a\\u00\":1}\n"), ":1: expected a quoted key");
	ck_assert_str_eq(refusal("a,b\n1,2\n3,4,5\n"),
			 ":3: more cells than the header has columns");
	ck_assert_str_eq(refusal("a,a\n"), ":1: column 'a' twice");
	ck_assert_str_eq(refusal("a,b\n1,2\n\"3,4\n"), ":3: unterminated quote");
}
END_TEST

static Suite *result_file_suite(void)
{
	Suite *s = suite_create("result_file");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ndjson_escapes);
	tcase_add_test(tc, csv_quoted_names_and_units);
	tcase_add_test(tc, refusals_name_the_line);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(result_file_suite)
