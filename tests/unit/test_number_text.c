/*
 * Numbers as text: integers as "%" PRIu64 writes them, and doubles byte
 * for byte as the shortest of "%.15g", "%.16g" and "%.17g" that strtod()
 * reads back, over every kind of double: random bit patterns, the exact
 * range's edges, powers of ten and two and their neighbours, ties at the
 * 15th, 16th and 17th digit, and the ratios counters give.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/number_text.h"
#include "tests/unit/test_util.h"

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

/* What the text must be: printf and strtod, precision by precision. */
static void expected_double(char *buf, double v)
{
	for (int precision = 15; precision <= 17; precision++) {
		snprintf(buf, GPUPERF_NUMBER_TEXT_MAX, "%.*g", precision, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

struct tally {
	unsigned long checked, wrong;
	char first_wrong[128];
};

/* No ck_assert per value: Check allocates for every one. */
static void check_double(struct tally *t, double v)
{
	char want[GPUPERF_NUMBER_TEXT_MAX], got[GPUPERF_NUMBER_TEXT_MAX];

	if (!isfinite(v))
		return;
	for (int sign = 0; sign < 2; sign++, v = -v) {
		expected_double(want, v);
		size_t len = gpuperf_double_text(got, v);
		t->checked++;
		if (strcmp(got, want) || len != strlen(got)) {
			if (!t->wrong++)
				snprintf(t->first_wrong, sizeof(t->first_wrong),
					 "%a: got %s, want %s", v, got, want);
		}
	}
}

static void assert_all_right(const struct tally *t, unsigned long at_least)
{
	ck_assert_msg(t->wrong == 0, "%lu of %lu wrong, first %s", t->wrong,
		      t->checked, t->first_wrong);
	ck_assert_uint_ge(t->checked, at_least);
}

START_TEST(test_random_bits)
{
	struct tally t = { 0 };

	for (int i = 0; i < 100000; i++) {
		uint64_t bits = rng();
		double v;

		memcpy(&v, &bits, sizeof(v));
		check_double(&t, v);
	}
	assert_all_right(&t, 150000);
}
END_TEST

/* Every binary exponent from below the exact range to above it. */
START_TEST(test_random_magnitudes)
{
	struct tally t = { 0 };

	for (int e = -80; e <= 20; e++)
		for (int i = 0; i < 1000; i++)
			check_double(&t, ldexp((double)(rng() >> 11 | (uint64_t)1 << 52), e));
	assert_all_right(&t, 200000);
}
END_TEST

START_TEST(test_powers_and_neighbours)
{
	struct tally t = { 0 };

	for (int k = -30; k <= 30; k++) {
		for (int up = 0; up < 2; up++) {
			double v = k < 0 ? 1 / pow(10, -k) : pow(10, k);
			for (int j = 0; j < 6; j++, v = nextafter(v, up ? INFINITY : 0))
				check_double(&t, v);
		}
	}
	for (int k = -90; k <= 90; k++) {
		for (int up = 0; up < 2; up++) {
			double v = ldexp(1, k);
			for (int j = 0; j < 6; j++, v = nextafter(v, up ? INFINITY : 0))
				check_double(&t, v);
		}
	}
	check_double(&t, 0.0);
	check_double(&t, 5e-324);
	check_double(&t, 2.2250738585072014e-308);
	check_double(&t, 1.7976931348623157e308);
	assert_all_right(&t, 1000);
}
END_TEST

/* Doubles whose exact value ends in a 5 just past the 15th, 16th or 17th
 * digit, where printf rounds to even. */
START_TEST(test_ties)
{
	struct tally t = { 0 };

	for (int i = 0; i < 30000; i++) {
		uint64_t k = rng() % 900000000000000ull + 100000000000000ull;

		check_double(&t, (double)(k * 10 + 5));
		check_double(&t, (double)k + 0.5);
		check_double(&t, ((double)k + 0.5) / 1024);
		check_double(&t, (double)(k / 10) + 0.25);
		check_double(&t, ldexp((double)(k * 10 + 5), -(int)(rng() % 60)));
	}
	assert_all_right(&t, 300000);
}
END_TEST

/* What counter equations give: ratios, percentages, scaled counts. */
START_TEST(test_counter_values)
{
	struct tally t = { 0 };

	for (int i = 0; i < 60000; i++) {
		uint64_t a = rng() % 100000000, b = rng() % 1000000 + 1;

		check_double(&t, (double)a / (double)b);
		check_double(&t, (double)a * 100 / (double)b);
		check_double(&t, (double)(rng() % 10000000000000ull));
		check_double(&t, (double)rng());
	}
	for (int i = 0; i < 30000; i++) {
		check_double(&t, i);
		check_double(&t, i / 10.0);
		check_double(&t, i * 0.001);
		check_double(&t, i * 1e-5);
	}
	assert_all_right(&t, 700000);
}
END_TEST

START_TEST(test_u64)
{
	static const uint64_t edges[] = {
		0, 1, 9, 10, 99, 100, 4294967295ull, 4294967296ull,
		9999999999999999999ull, 10000000000000000000ull, UINT64_MAX,
	};
	char want[GPUPERF_NUMBER_TEXT_MAX], got[GPUPERF_NUMBER_TEXT_MAX];

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]) + 10000; i++) {
		uint64_t v = i < sizeof(edges) / sizeof(edges[0]) ? edges[i]
			     : rng() >> (rng() % 64);

		snprintf(want, sizeof(want), "%" PRIu64, v);
		ck_assert_uint_eq(gpuperf_u64_text(got, v), strlen(want));
		ck_assert_str_eq(got, want);
	}
}
END_TEST

static Suite *number_text_suite(void)
{
	Suite *s = suite_create("number_text");
	TCase *tc = tcase_create("text");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_bits);
	tcase_add_test(tc, test_random_magnitudes);
	tcase_add_test(tc, test_powers_and_neighbours);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_counter_values);
	tcase_add_test(tc, test_u64);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(number_text_suite)
