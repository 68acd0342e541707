/*
 * Numbers as text: integers as "%" PRIu64 writes them, and doubles as the
 * fewest digits that strtod() reads back as the same double, the nearest
 * such digits, laid out as "%g" lays out that many (at least 15), over
 * every kind of double: random bit patterns, subnormals, the edges of the
 * exponent range, powers of ten and two and their neighbours, ties at the
 * 15th, 16th and 17th digit, and the ratios counters give. The expected
 * text is worked out from printf and strtod alone.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/number_text.h"
#include "tests/unit/test_util.h"

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

/* digits (n of them) times 10^(exp10 - n + 1) as "%.{p}g" writes it. */
static void g_text(char *buf, const char *digits, int n, int exp10, int p)
{
	while (n > 1 && digits[n - 1] == '0')
		n--;
	if (exp10 < -4 || exp10 >= p) {
		int len = sprintf(buf, "%c", digits[0]);
		if (n > 1)
			len += sprintf(buf + len, ".%.*s", n - 1, digits + 1);
		sprintf(buf + len, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (exp10 < 0) {
		sprintf(buf, "0.%0*d%.*s", -exp10 - 1, 0, n, digits);
		if (exp10 == -1)
			sprintf(buf, "0.%.*s", n, digits);
	} else if (exp10 + 1 >= n) {
		sprintf(buf, "%.*s%0*d", n, digits, exp10 + 1 - n, 0);
		if (exp10 + 1 == n)
			sprintf(buf, "%.*s", n, digits);
	} else {
		sprintf(buf, "%.*s.%.*s", exp10 + 1, digits, n - exp10 - 1,
			digits + exp10 + 1);
	}
}

/* The p digits of a "%.{p-1}e" text, and its exponent. */
static void e_parts(const char *e_text, char *digits, int *exp10)
{
	int n = 0;
	const char *s = e_text;

	for (; *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[n++] = *s;
	digits[n] = '\0';
	*exp10 = atoi(s + 1);
}

/* Adds step (+1 or -1) to the last of the p digits, as a decimal. */
static void next_decimal(char *digits, int *exp10, int step)
{
	int p = (int)strlen(digits);
	int i = p - 1;

	if (step > 0) {
		while (i >= 0 && digits[i] == '9')
			digits[i--] = '0';
		if (i < 0) {            /* 99..9 + 1: 10..0, one place up */
			digits[0] = '1';
			(*exp10)++;
			return;
		}
		digits[i]++;
		return;
	}
	while (i >= 0 && digits[i] == '0')
		digits[i--] = '9';
	digits[i]--;
	if (digits[0] == '0') {         /* 10..0 - 1: 99..9, one place down */
		memmove(digits, digits + 1, (size_t)p - 1);
		digits[p - 1] = '9';
		(*exp10)--;
	}
}

static double decimal_value(const char *digits, int exp10)
{
	char text[64];

	snprintf(text, sizeof(text), "%c.%se%d", digits[0], digits + 1, exp10);
	return strtod(text, NULL);
}

/* Counts the doubles whose nearest shortest digits do not read back, but
 * the next ones on the far side of the value do. */
static unsigned long not_nearest;

/*
 * What the text must be. For p = 1, 2, ...: the p digits nearest v
 * (printf's "%.{p-1}e"); if they read back, they are it. If not, the only
 * other p digits that can lie within v's rounding interval are the next
 * ones on the far side of v: if those read back, they are it.
 */
static void expected_double(char *buf, double v)
{
	char e_text[64], digits[32];
	int exp10;

	if (v == 0) {
		strcpy(buf, signbit(v) ? "-0" : "0");
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(e_text, sizeof(e_text), "%.*e", p - 1, fabs(v));
		e_parts(e_text, digits, &exp10);
		double near = decimal_value(digits, exp10);
		if (near != fabs(v)) {
			next_decimal(digits, &exp10, near < fabs(v) ? 1 : -1);
			if (decimal_value(digits, exp10) != fabs(v))
				continue;
			not_nearest++;
		}
		char *out = buf;
		if (signbit(v))
			*out++ = '-';
		g_text(out, digits, (int)strlen(digits), exp10, p > 15 ? p : 15);
		return;
	}
	strcpy(buf, "(no 17 digits read back)");
}

struct tally {
	unsigned long checked, wrong;
	char first_wrong[128];
};

/* No ck_assert per value: Check allocates for every one. */
static void check_double(struct tally *t, double v)
{
	char want[GPM_NUMBER_TEXT_MAX], got[GPM_NUMBER_TEXT_MAX];

	if (!isfinite(v))
		return;
	for (int sign = 0; sign < 2; sign++, v = -v) {
		expected_double(want, v);
		size_t len = gpm_double_text(got, v);
		t->checked++;
		if (strcmp(got, want) || len != strlen(got) ||
		    strtod(got, NULL) != v) {
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

/* Every binary exponent a double has, subnormals included, with random
 * fractions and the smallest and largest. */
START_TEST(test_every_exponent)
{
	struct tally t = { 0 };

	for (int biased = 0; biased < 2047; biased++) {
		for (int i = 0; i < 12; i++) {
			uint64_t fraction = i == 0 ? 0 : i == 1 ? (1ull << 52) - 1
				: i == 2 ? 1 : rng() >> 12;
			uint64_t bits = (uint64_t)biased << 52 | fraction;
			double v;

			memcpy(&v, &bits, sizeof(v));
			check_double(&t, v);
		}
	}
	assert_all_right(&t, 45000);
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
	/* 2^-77 is one: 6.617444900424221e-24 is nearer but reads back as
	 * another double; 6.617444900424222e-24 reads back. */
	ck_assert_uint_gt(not_nearest, 0);
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
	char want[GPM_NUMBER_TEXT_MAX], got[GPM_NUMBER_TEXT_MAX];

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]) + 10000; i++) {
		uint64_t v = i < sizeof(edges) / sizeof(edges[0]) ? edges[i]
			     : rng() >> (rng() % 64);

		snprintf(want, sizeof(want), "%" PRIu64, v);
		ck_assert_uint_eq(gpm_u64_text(got, v), strlen(want));
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
	tcase_add_test(tc, test_every_exponent);
	tcase_add_test(tc, test_powers_and_neighbours);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_counter_values);
	tcase_add_test(tc, test_u64);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(number_text_suite)
