/*
 * Numbers for people: gpuperf_human_value() against its definition,
 * printf's "%.3g" (numbers of four digits and more written whole) and
 * "%.1f" for percentages, over values of every magnitude the table
 * shows, with the halfway cases where printf rounds the exact binary
 * value (0.1245 is below 0.1245 and gives 0.124) and their neighbours.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/human_text.h"
#include "tests/unit/test_util.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

/* The digits as printf writes them. */
static void expected_digits(char *buf, size_t size, double v, bool percent)
{
	if (percent) {
		snprintf(buf, size, "%.1f", v);
		return;
	}
	snprintf(buf, size, "%.3g", v);
	if (strchr(buf, 'e'))
		snprintf(buf, size, "%.0f", strtod(buf, NULL));
}

struct tally {
	unsigned long checked, wrong;
	char first_wrong[320];
};

/* v in a word unit (whole prefixes only, from 999.5 up: the prefix under
 * which the rounded value is below 1000) or as a percentage. */
static void check(struct tally *t, double v, bool percent)
{
	static const struct {
		double factor;
		const char *text;
	} prefixes[] = {
		{ 1e12, "T " }, { 1e9, "G " }, { 1e6, "M " }, { 1e3, "k " },
	};
	char want[2 * GPUPERF_HUMAN_TEXT_MAX], digits[GPUPERF_HUMAN_TEXT_MAX];
	char got[GPUPERF_HUMAN_TEXT_MAX];
	const char *prefix = "";
	double shown = v;

	for (size_t i = 0; !percent && i < 4; i++) {
		if (fabs(v) >= prefixes[i].factor * 0.9995) {
			shown = v / prefixes[i].factor;
			prefix = prefixes[i].text;
			break;
		}
	}
	expected_digits(digits, sizeof(digits), shown, percent);
	snprintf(want, sizeof(want), "%s %s%s", digits, prefix,
		 percent ? "%" : "events");
	gpuperf_human_value(got, sizeof(got), v, percent ? "%" : "events");
	t->checked++;
	if (strcmp(got, want) && !t->wrong++)
		snprintf(t->first_wrong, sizeof(t->first_wrong),
			 "%a (%.17g): got '%s', want '%s'", v, v, got, want);
}

static void assert_all_right(const struct tally *t, unsigned long at_least)
{
	ck_assert_msg(t->wrong == 0, "%lu of %lu wrong, first %s", t->wrong,
		      t->checked, t->first_wrong);
	ck_assert_uint_ge(t->checked, at_least);
}

START_TEST(test_random_values)
{
	struct tally t = { 0 };

	for (int i = 0; i < 200000; i++) {
		/* 1e-6 to 1e12: words keep small values unprefixed. */
		double v = ldexp((double)(rng() >> 11) / 9007199254740992.0 + 0.5,
				 (int)(rng() % 60) - 20);
		check(&t, i % 2 ? v : -v, false);
		check(&t, i % 2 ? v : -v, true);
	}
	assert_all_right(&t, 400000);
}
END_TEST

/* Decimal halves at the rounding digit, and the doubles around them. */
START_TEST(test_halfway)
{
	struct tally t = { 0 };

	for (int i = 0; i < 20000; i++) {
		int k = (int)(rng() % 12) - 6;
		double ddd5 = (double)(rng() % 9000 + 1000) * 10 + 5;
		double v = k < 0 ? ddd5 / pow(10, -k) : ddd5 * pow(10, k);
		double percent = (double)(rng() % 100000) + 0.05 * (double)(rng() % 2 + 1);

		for (int j = 0; j < 3; j++) {
			check(&t, v, false);
			check(&t, percent / 10, true);
			check(&t, -percent / 10, true);
			v = nextafter(v, j ? 0 : INFINITY);
			percent = nextafter(percent, j ? 0 : INFINITY);
		}
	}
	/* Exact halves in binary: printf goes to the even digit. */
	for (double v = 0.125; v < 1e6; v *= 2)
		for (double step = 0; step < 20; step++)
			check(&t, v + step * 0.25, false);
	check(&t, 0.25, true);
	check(&t, 0.75, true);
	check(&t, -0.25, true);
	check(&t, 0.0, true);
	check(&t, -0.0, true);
	check(&t, 0.0, false);
	check(&t, 999.5, false);
	check(&t, 99.95, false);
	check(&t, 9.995, false);
	assert_all_right(&t, 150000);
}
END_TEST

/* Integers: counts written whole from 1000 up. */
START_TEST(test_whole_numbers)
{
	struct tally t = { 0 };

	for (int i = 0; i < 100000; i++) {
		check(&t, (double)(rng() % 1000000), false);
		check(&t, (double)(rng() % 1000000), true);
	}
	assert_all_right(&t, 200000);
}
END_TEST

/* Prefixes: the rounded value stays below 1000 under its prefix. */
START_TEST(test_prefixes)
{
	static const struct {
		double v;
		const char *unit, *text;
	} cases[] = {
		{ 43.6e9, "B/s", "43.6 GB/s" },
		{ 1.21e9, "cycles/s", "1.21 G cycles/s" },
		{ 834e-6, "s", "834 µs" },
		{ 999.5, "B", "1 kB" },
		{ 999.4, "B", "999 B" },
		{ 0.0012345, "s", "1.23 ms" },
		{ 1234, "", "1.23 k" },
		{ 0.9996, "", "1" },
		{ 0.9996, "B", "1 B" },
		{ 0.5, "events", "0.5 events" },
		{ -2.5e6, "Hz", "-2.5 MHz" },
		{ NAN, "Hz", "-" },
		{ 55.94, "%", "55.9 %" },
	};
	char got[GPUPERF_HUMAN_TEXT_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gpuperf_human_value(got, sizeof(got), cases[i].v, cases[i].unit);
		ck_assert_str_eq(got, cases[i].text);
	}
}
END_TEST

/* v with decimals digits as printf's "%.*f" writes it, checked. */
static void check_fixed(struct tally *t, double v, int decimals)
{
	char want[512], got[512];

	snprintf(want, sizeof(want), "%.*f", decimals, v);
	size_t len = gpuperf_fixed_text(got, sizeof(got), v, decimals);
	t->checked++;
	if ((strcmp(got, want) || len != strlen(want)) && !t->wrong++)
		snprintf(t->first_wrong, sizeof(t->first_wrong),
			 "%a (%.17g, %d decimals): got '%.80s' (%zu), want '%.80s'",
			 v, v, decimals, got, len, want);
}

/*
 * Fixed decimals: the table's seconds ("%.3f", CLOCK_MONOTONIC times of
 * machines up for years among them) and percentages ("%.1f"), at every
 * magnitude, at the decimal halves of the last digit and the doubles
 * next to them, where the exact binary value decides.
 */
START_TEST(test_fixed_decimals)
{
	struct tally t = { 0 };

	for (int i = 0; i < 100000; i++) {
		int decimals = (int)(rng() % 10);
		double v = ldexp((double)(rng() >> 11) / 9007199254740992.0 + 0.5,
				 (int)(rng() % 70) - 20);
		check_fixed(&t, i % 2 ? v : -v, decimals);
		check_fixed(&t, v, 3);
		check_fixed(&t, v, 1);
	}
	for (int i = 0; i < 30000; i++) {
		int decimals = i % 2 ? 3 : (int)(rng() % 10);
		/* n + 1/2 at the last digit, n up to 10^15 */
		double n = (double)(rng() % 1000000000000000ull >>
				    (rng() % 50));
		double v = (n + 0.5) / pow(10, decimals);

		for (int j = 0; j < 3; j++) {
			check_fixed(&t, v, decimals);
			check_fixed(&t, -v, decimals);
			v = nextafter(v, j ? 0 : INFINITY);
		}
	}
	static const double special[] = { 0.0, -0.0, 0.5, 1.5, 2.5, 0.0005,
					  1e22, 1e300, -1e-300, INFINITY,
					  -INFINITY, NAN };
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		for (int decimals = 0; decimals <= 9; decimals++)
			check_fixed(&t, special[i], decimals);
	assert_all_right(&t, 400000);
}
END_TEST

/*
 * A unit made ready gives gpuperf_human_value()'s text, and the terminal
 * cells it takes (the table right-aligns by them): with the two-byte µ
 * of the prefixes, units of more than one byte a cell, and texts cut
 * short by a small buffer.
 */
START_TEST(test_unit_made_ready)
{
	static const char *const units[] = { "", "s", "B/s", "%", "Hz",
					      "cycles/s", "°C", "µm/s" };
	char want[GPUPERF_HUMAN_TEXT_MAX], got[GPUPERF_HUMAN_TEXT_MAX];
	unsigned long checked = 0;

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		struct gpuperf_human_unit ready;

		gpuperf_human_unit_init(&ready, units[u]);
		for (int i = 0; i < 4000; i++) {
			double v = ldexp((double)(rng() >> 11) /
					 9007199254740992.0 + 0.5,
					 (int)(rng() % 90) - 45);
			size_t size = i % 4 ? sizeof(got) : 1 + rng() % 12;
			int cells = -1;

			if (i % 3 == 0)
				v = -v;
			gpuperf_human_value(want, size, v, units[u]);
			size_t len = gpuperf_human_unit_value(got, size, v,
							      &ready, &cells);
			ck_assert_str_eq(got, want);
			ck_assert_uint_eq(len, strlen(want));
			ck_assert_msg(cells == gpuperf_text_width(want),
				      "'%s': %d cells, not %d", want, cells,
				      gpuperf_text_width(want));
			checked++;
		}
	}
	ck_assert_uint_ge(checked, 32000);
}
END_TEST

static Suite *human_text_suite(void)
{
	Suite *s = suite_create("human_text");
	TCase *tc = tcase_create("values");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_values);
	tcase_add_test(tc, test_halfway);
	tcase_add_test(tc, test_whole_numbers);
	tcase_add_test(tc, test_prefixes);
	tcase_add_test(tc, test_fixed_decimals);
	tcase_add_test(tc, test_unit_made_ready);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(human_text_suite)
