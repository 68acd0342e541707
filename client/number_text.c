/*
 * Numbers as text (see number_text.h).
 *
 * printf's "%.Pg" writes the P significant digits nearest the double's
 * exact binary value, ties to even; strtod() reads a decimal as the double
 * nearest it, ties to even. Both are exact, so both are done here with
 * integers: a double m * 2^e, scaled by 10^-q to P digits, is the fraction
 * num / den, and for |v| from 2^-18 to 2^64 (every percentage, ratio and
 * rate a counter gives) num, den and their products fit 128 bits at every
 * precision asked for. Other doubles (zero, tiny, huge, subnormal) are
 * rare enough to go through printf and strtod.
 */
#include "client/number_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

#define FRACTION_BITS 52
#define FRACTION_MASK (((uint64_t)1 << FRACTION_BITS) - 1)
#define EXPONENT_BIAS (1023 + FRACTION_BITS)

/* Binary exponents of the doubles done with integers: 2^-18 <= |v| < 2^64.
 * At the low end 10^22 * m needs 126 bits, at the high end m << 11 fits
 * 64 (see the bounds in scale()). */
#define MIN_EXACT_EXPONENT (-70)
#define MAX_EXACT_EXPONENT 11

/* The precisions tried, shortest first; 17 digits always read back. */
#define MIN_PRECISION 15
#define MAX_PRECISION 17

/* "00" to "99": two digits a division. */
static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t gpuperf_u64_text(char *buf, uint64_t v)
{
	char reversed[20];
	char *p = reversed + sizeof(reversed);

	while (v >= 100) {
		unsigned two = (unsigned)(v % 100);
		v /= 100;
		*--p = two_digits[2 * two + 1];
		*--p = two_digits[2 * two];
	}
	if (v >= 10) {
		*--p = two_digits[2 * v + 1];
		*--p = two_digits[2 * v];
	} else {
		*--p = (char)('0' + v);
	}
	size_t n = (size_t)(reversed + sizeof(reversed) - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return n;
}

/* 10^k for k <= 38, the most 128 bits hold. */
static u128 pow10_u128(unsigned k)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull,
		10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};

	return k < 20 ? pow10[k] : (u128)pow10[19] * pow10[k - 19];
}

/* The sign of m * 2^e - 10^x. x is within one of the exponent of
 * m * 2^e, which keeps both sides below 2^81. */
static int compare_pow10(uint64_t m, int e, int x)
{
	u128 value = m, power = 1;

	if (e >= 0)
		value <<= e;
	else
		power <<= -e;
	if (x >= 0)
		power *= pow10_u128((unsigned)x);
	else
		value *= pow10_u128((unsigned)-x);
	return value < power ? -1 : value > power;
}

/* The decimal exponent of m * 2^e: 10^x <= m * 2^e < 10^(x + 1). The
 * guess from the binary exponent, floor(b * log10(2)) with log10(2) as
 * 78913 / 2^18, is at most one off; the comparisons are exact. */
static int decimal_exponent(uint64_t m, int e)
{
	int b = e + FRACTION_BITS;      /* 2^b <= m * 2^e < 2^(b + 1) */
	int x = (b * 78913) >> 18;

	while (compare_pow10(m, e, x) < 0)
		x--;
	while (compare_pow10(m, e, x + 1) >= 0)
		x++;
	return x;
}

/*
 * m * 2^e on the grid of MAX_PRECISION significant digits, exactly:
 * m * 2^e / 10^q = num / den with q = x - MAX_PRECISION + 1 (x its
 * decimal exponent), whole = floor(num / den), rem = num - whole * den,
 * and one ulp of it (2^e) is ulp / den. Every shorter precision is read
 * off these without dividing again.
 */
struct scaled {
	u128 num, den, ulp;
	uint64_t whole;
	u128 rem;
};

static void scale(uint64_t m, int e, int x, struct scaled *s)
{
	int q = x - MAX_PRECISION + 1;

	/* With e >= -70 the exponent x is at least -6, so q >= -22 and num
	 * stays below 2^53 * 10^22 < 2^127; den is at most 2^70 (q < 0) or
	 * 2^6 * 10^5 (q >= 0, |v| >= 10^16), so den * 10^17 < 2^127. */
	s->num = m;
	s->den = 1;
	s->ulp = 1;
	if (e >= 0) {
		s->num <<= e;
		s->ulp <<= e;
	} else {
		s->den <<= -e;
	}
	if (q >= 0) {
		s->den *= pow10_u128((unsigned)q);
	} else {
		s->num *= pow10_u128((unsigned)-q);
		s->ulp *= pow10_u128((unsigned)-q);
	}
	/* Below 10^17, where most values are, den is a power of two. */
	u128 whole = q < 0 ? s->num >> (e < 0 ? -e : 0) : s->num / s->den;
	s->whole = (uint64_t)whole;
	s->rem = s->num - whole * s->den;
}

/*
 * The p significant digits nearest m * 2^e, ties to even, as printf rounds
 * them: *digits gets them and *exp10 (x on entry, the decimal exponent of
 * m * 2^e) the exponent of the first, one more where rounding carried into
 * a new digit. Returns whether strtod() reads them back as m * 2^e, that
 * is, whether they lie within half an ulp of it (the ulp below is half as
 * big when m is a power of two, narrow_below), a tie going to the even m.
 */
static bool nearest_digits(const struct scaled *s, bool even_m, bool narrow_below,
			   unsigned p, int *exp10, uint64_t *digits)
{
	/* p digits are the MAX_PRECISION ones over step: the part below
	 * the kept digits is (below * den + rem) / den steps of the grid. */
	uint64_t step = (uint64_t)pow10_u128(MAX_PRECISION - p);
	uint64_t d = s->whole / step, below = s->whole % step;
	u128 twice_below = 2 * ((u128)below * s->den + s->rem);
	u128 half_way = (u128)step * s->den;
	if (twice_below > half_way || (twice_below == half_way && (d & 1)))
		d++;

	u128 near = (u128)d * step * s->den;
	u128 gap = near >= s->num ? 2 * (near - s->num)
				  : (s->num - near) * (narrow_below ? 4 : 2);
	bool reads_back = even_m ? gap <= s->ulp : gap < s->ulp;

	if (d == pow10_u128(p)) {
		d /= 10;
		(*exp10)++;
	}
	*digits = d;
	return reads_back;
}

/*
 * What "%.{p}g" makes of digits * 10^(exp10 - p + 1), digits holding p
 * digits: plain notation for exponents -4 to p - 1, else d.ddde+XX, and
 * no trailing zeros after the point.
 */
static size_t g_text(char *buf, bool negative, uint64_t digits, int exp10,
		     unsigned p)
{
	char s[MAX_PRECISION];
	char *out = buf;
	unsigned n = p;

	unsigned left = p;
	for (; left >= 2; left -= 2) {
		unsigned two = (unsigned)(digits % 100);
		digits /= 100;
		s[left - 1] = two_digits[2 * two + 1];
		s[left - 2] = two_digits[2 * two];
	}
	if (left)
		s[0] = (char)('0' + digits);
	while (n > 1 && s[n - 1] == '0')
		n--;

	if (negative)
		*out++ = '-';
	if (exp10 < -4 || exp10 >= (int)p) {
		*out++ = s[0];
		if (n > 1) {
			*out++ = '.';
			memcpy(out, s + 1, n - 1);
			out += n - 1;
		}
		*out++ = 'e';
		*out++ = exp10 < 0 ? '-' : '+';
		unsigned magnitude = (unsigned)(exp10 < 0 ? -exp10 : exp10);
		if (magnitude < 10)
			*out++ = '0';
		out += gpuperf_u64_text(out, magnitude);
	} else if (exp10 >= 0) {
		unsigned whole = (unsigned)exp10 + 1;

		memcpy(out, s, whole);
		out += whole;
		if (n > whole) {
			*out++ = '.';
			memcpy(out, s + whole, n - whole);
			out += n - whole;
		}
	} else {
		*out++ = '0';
		*out++ = '.';
		for (int i = -1; i > exp10; i--)
			*out++ = '0';
		memcpy(out, s, n);
		out += n;
	}
	*out = '\0';
	return (size_t)(out - buf);
}

/* The same through printf and strtod, for doubles outside the exact range. */
static size_t printf_text(char *buf, double v)
{
	int n = 0;

	for (int precision = MIN_PRECISION; precision <= MAX_PRECISION; precision++) {
		n = snprintf(buf, GPUPERF_NUMBER_TEXT_MAX, "%.*g", precision, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return (size_t)n;
}

size_t gpuperf_double_text(char *buf, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	unsigned biased = (unsigned)(bits >> FRACTION_BITS) & 0x7ff;
	int e = (int)biased - EXPONENT_BIAS;
	if (biased == 0 || e < MIN_EXACT_EXPONENT || e > MAX_EXACT_EXPONENT)
		return printf_text(buf, v);

	uint64_t fraction = bits & FRACTION_MASK;
	uint64_t m = fraction | (uint64_t)1 << FRACTION_BITS;
	int x = decimal_exponent(m, e);
	struct scaled s;
	uint64_t digits;
	int exp10;
	unsigned p;

	scale(m, e, x, &s);
	for (p = MIN_PRECISION;; p++) {
		exp10 = x;
		if (nearest_digits(&s, !(m & 1), fraction == 0, p, &exp10, &digits) ||
		    p == MAX_PRECISION)
			break;
	}
	return g_text(buf, bits >> 63, digits, exp10, p);
}
