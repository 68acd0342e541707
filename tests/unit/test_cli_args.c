/*
 * The CLI's argument helpers: durations with their units and range,
 * plain numbers, comma lists, and --name=value against --name value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "client/cli_args.h"
#include "tests/unit/test_util.h"

START_TEST(durations)
{
	uint64_t ns = 7;

	ck_assert_int_eq(gpuperf_parse_duration("100ms", &ns), 0);
	ck_assert_uint_eq(ns, 100000000);
	ck_assert_int_eq(gpuperf_parse_duration("1.5s", &ns), 0);
	ck_assert_uint_eq(ns, 1500000000);
	ck_assert_int_eq(gpuperf_parse_duration("2m", &ns), 0);
	ck_assert_uint_eq(ns, 120000000000ull);
	ck_assert_int_eq(gpuperf_parse_duration("250us", &ns), 0);
	ck_assert_uint_eq(ns, 250000);
	ck_assert_int_eq(gpuperf_parse_duration("1ns", &ns), 0);
	ck_assert_uint_eq(ns, 1);
	ns = 7;
	/* Below a nanosecond is nothing to wait for; a unit is required. */
	ck_assert_int_eq(gpuperf_parse_duration("0.5ns", &ns), -ERANGE);
	ck_assert_int_eq(gpuperf_parse_duration("0s", &ns), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_duration("-1s", &ns), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_duration("5", &ns), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_duration("5 s", &ns), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_duration("1e10s", &ns), -ERANGE);
	ck_assert_int_eq(gpuperf_parse_duration("s", &ns), -EINVAL);
	ck_assert_uint_eq(ns, 7);
}
END_TEST

START_TEST(numbers)
{
	double v = -1;

	ck_assert_int_eq(gpuperf_parse_number("5", &v), 0);
	ck_assert_double_eq(v, 5);
	ck_assert_int_eq(gpuperf_parse_number("0", &v), 0);
	ck_assert_double_eq(v, 0);
	ck_assert_int_eq(gpuperf_parse_number("2.5", &v), 0);
	ck_assert_double_eq(v, 2.5);
	ck_assert_int_eq(gpuperf_parse_number("-1", &v), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_number("5%", &v), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_number("nan", &v), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_number("inf", &v), -EINVAL);
	ck_assert_int_eq(gpuperf_parse_number("", &v), -EINVAL);
	ck_assert_double_eq(v, 2.5);
}
END_TEST

START_TEST(lists)
{
	char **items;
	size_t n;

	ck_assert_int_eq(gpuperf_split_list("GpuTime,GpuBusy,EuActive", &items, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(items[0], "GpuTime");
	ck_assert_str_eq(items[2], "EuActive");
	ck_assert_ptr_null(items[3]);
	free(items);
	ck_assert_int_eq(gpuperf_split_list("One", &items, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(items);
	ck_assert_int_eq(gpuperf_split_list("a,,b", &items, &n), -EINVAL);
	ck_assert_int_eq(gpuperf_split_list("a,", &items, &n), -EINVAL);
	ck_assert_int_eq(gpuperf_split_list("", &items, &n), -EINVAL);
}
END_TEST

START_TEST(values_and_flags)
{
	char *argv[] = { "gpuperf", "--threshold=5", "-c", "A,B", "--raw", "-c", NULL };
	int argc = 6, i = 1;
	const char *value = NULL;

	ck_assert_int_eq(gpuperf_arg_value(argc, argv, &i, "--threshold", NULL, &value), 1);
	ck_assert_str_eq(value, "5");
	ck_assert_int_eq(i, 1);
	i = 2;
	ck_assert_int_eq(gpuperf_arg_value(argc, argv, &i, "--counters", "-c", &value), 1);
	ck_assert_str_eq(value, "A,B");
	ck_assert_int_eq(i, 3);
	i = 4;
	ck_assert_int_eq(gpuperf_arg_value(argc, argv, &i, "--counters", "-c", &value), 0);
	ck_assert(gpuperf_arg_flag(argv[4], "--raw", NULL));
	ck_assert(!gpuperf_arg_flag(argv[4], "--raw-deltas", NULL));
	/* A last option with its value missing. */
	i = 5;
	ck_assert_int_lt(gpuperf_arg_value(argc, argv, &i, "--counters", "-c", &value), 0);
}
END_TEST

static Suite *cli_args_suite(void)
{
	Suite *s = suite_create("cli_args");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, durations);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, lists);
	tcase_add_test(tc, values_and_flags);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(cli_args_suite)
