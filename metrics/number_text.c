/*
 * Numbers as text (see number_text.h).
 *
 * A double is written with the fewest significant digits that read back
 * as the same double, and of those digits the ones nearest its exact
 * value. They are found the way Ulf Adams's Ryu does (PLDI 2018): the
 * double v = m * 2^e and the halfway points to its neighbours, v - u and
 * v + u, are scaled by 10^-q with one multiplication each by a 125-bit
 * approximation of 5^-q (or of 5^i), which the paper shows is exact in
 * every bit the digits depend on. Digits are then dropped from all three
 * together while the scaled bounds still differ, and the last one rounds
 * the scaled v. Whether the parts dropped below the bounds were zero
 * (the bound is exact, so it belongs to the interval when m is even, as
 * strtod() rounds ties to even) is tracked exactly with divisibility.
 *
 * The tables are computed once, with a few lines of bignum arithmetic,
 * on first use.
 */
#include "metrics/number_text.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

typedef unsigned __int128 u128;

#define FRACTION_BITS 52
#define FRACTION_MASK (((uint64_t)1 << FRACTION_BITS) - 1)
#define EXPONENT_BIAS 1023

/* Bits kept of 5^i and of 2^k / 5^q. */
#define POW5_BITS 125
/* 5^i for every i a negative binary exponent needs: i <= 325. */
#define POW5_COUNT 326
/* 2^k / 5^q for every q a positive binary exponent needs: q <= 291. */
#define POW5_INV_COUNT 292

/* printf's "%g" writes plain notation up to this many digits before the
 * point, and the precision was 15 digits where they sufficed: a shorter
 * number is laid out as if it had 15. */
#define LAYOUT_PRECISION 15

static uint64_t pow5_table[POW5_COUNT][2];      /* low, high */
static uint64_t pow5_inv_table[POW5_INV_COUNT][2];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* "00" to "99": two digits a division. */
static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The number of decimal digits of v, 1 to 20. */
static unsigned decimal_length(uint64_t v)
{
	unsigned n = 1;

	for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
		n++;
	return n;
}

/* The n digits of v, backwards from end. */
static void write_digits(char *end, uint64_t v, unsigned n)
{
	while (n >= 2) {
		unsigned two = (unsigned)(v % 100);
		v /= 100;
		end -= 2;
		memcpy(end, two_digits + 2 * two, 2);
		n -= 2;
	}
	if (n)
		end[-1] = (char)('0' + v);
}

size_t gpm_u64_text(char *buf, uint64_t v)
{
	unsigned n = decimal_length(v);

	write_digits(buf + n, v, n);
	buf[n] = '\0';
	return n;
}

/* ceil(log2(5^e)), the bits of 5^e, for 0 <= e <= 3528 (1 for e = 0). */
static int pow5_bits(int e)
{
	return (int)(((uint32_t)e * 1217359) >> 19) + 1;
}

/* floor(e * log10(2)) for 0 <= e <= 1650. */
static int log10_pow2(int e)
{
	return (int)(((uint32_t)e * 78913) >> 18);
}

/* floor(e * log10(5)) for 0 <= e <= 2620. */
static int log10_pow5(int e)
{
	return (int)(((uint32_t)e * 732923) >> 20);
}

/* Bignums for the tables: 32-bit limbs, least significant first. */
#define BIG_LIMBS 36

struct big {
	uint32_t limb[BIG_LIMBS];
};

static uint32_t big_limb(const struct big *b, int i)
{
	return i >= 0 && i < BIG_LIMBS ? b->limb[i] : 0;
}

/* Bits [shift, shift + 128) of b, shift possibly negative (b shifted
 * left), into out[0] (low) and out[1] (high). */
static void big_bits(const struct big *b, int shift, uint64_t out[2])
{
	uint32_t w[4];

	for (int j = 0; j < 4; j++) {
		int p = shift + 32 * j;
		int i = p >= 0 ? p / 32 : -((31 - p) / 32);
		int off = p - 32 * i;
		w[j] = big_limb(b, i) >> off;
		if (off)
			w[j] |= big_limb(b, i + 1) << (32 - off);
	}
	out[0] = (uint64_t)w[1] << 32 | w[0];
	out[1] = (uint64_t)w[3] << 32 | w[2];
}

static void big_mul_small(struct big *b, uint32_t k)
{
	uint64_t carry = 0;

	for (int i = 0; i < BIG_LIMBS; i++) {
		uint64_t x = (uint64_t)b->limb[i] * k + carry;
		b->limb[i] = (uint32_t)x;
		carry = x >> 32;
	}
}

static void big_div_small(struct big *b, uint32_t k)
{
	uint64_t rem = 0;

	for (int i = BIG_LIMBS - 1; i >= 0; i--) {
		uint64_t x = rem << 32 | b->limb[i];
		b->limb[i] = (uint32_t)(x / k);
		rem = x % k;
	}
}

/*
 * pow5_table[i] = floor(5^i / 2^(pow5_bits(i) - POW5_BITS)): the top 125
 * bits of 5^i. pow5_inv_table[q] = floor(2^k / 5^q) + 1 with
 * k = pow5_bits(q) - 1 + POW5_BITS: 126 bits of 1 / 5^q, rounded up. The
 * quotient comes from dividing 2^INV_SHIFT by 5 q times (floor of floor
 * is floor of the whole), then shifting.
 */
#define INV_SHIFT 1088

static void compute_tables(void)
{
	struct big b;

	memset(&b, 0, sizeof(b));
	b.limb[0] = 1;
	for (int i = 0; i < POW5_COUNT; i++) {
		big_bits(&b, pow5_bits(i) - POW5_BITS, pow5_table[i]);
		big_mul_small(&b, 5);
	}
	memset(&b, 0, sizeof(b));
	b.limb[INV_SHIFT / 32] = 1;
	for (int q = 0; q < POW5_INV_COUNT; q++) {
		int k = pow5_bits(q) - 1 + POW5_BITS;
		uint64_t *t = pow5_inv_table[q];

		big_bits(&b, INV_SHIFT - k, t);
		t[0]++;
		t[1] += !t[0];
		big_div_small(&b, 5);
	}
}

/* (m * mul) >> j for j >= 64, m below 2^55 and mul below 2^126. */
static uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
	u128 low = (u128)m * mul[0];
	u128 high = (u128)m * mul[1];

	return (uint64_t)(((low >> 64) + high) >> (j - 64));
}

static unsigned pow5_factor(uint64_t v)
{
	unsigned n = 0;

	while (v && v % 5 == 0) {
		v /= 5;
		n++;
	}
	return n;
}

static bool multiple_of_pow5(uint64_t v, int p)
{
	return pow5_factor(v) >= (unsigned)p;
}

static bool multiple_of_pow2(uint64_t v, int p)
{
	return (v & (((uint64_t)1 << p) - 1)) == 0;
}

/* digits * 10^exponent: the shortest decimal that reads back as a
 * positive finite double, the nearest of them. */
struct shortest {
	uint64_t digits;
	int exponent;
};

static struct shortest shortest_decimal(uint64_t fraction, unsigned biased)
{
	/* v = m * 2^e; everything is scaled by 4 so that the halfway
	 * points are integers too: 4v - 2 (or 4v - 1 at a power of two,
	 * whose lower neighbour is half as far) and 4v + 2. */
	int e = biased ? (int)biased - EXPONENT_BIAS - FRACTION_BITS - 2
		       : 1 - EXPONENT_BIAS - FRACTION_BITS - 2;
	uint64_t m = biased ? fraction | (uint64_t)1 << FRACTION_BITS : fraction;
	bool bounds_included = (m & 1) == 0;
	uint64_t mv = 4 * m;
	unsigned low_gap = fraction != 0 || biased <= 1;
	uint64_t mp = mv + 2, mm = mv - 1 - low_gap;
	uint64_t vr, vp, vm;
	int e10;
	bool vm_exact = false, vr_exact = false;

	if (e >= 0) {
		int q = log10_pow2(e) - (e > 3);
		int k = POW5_BITS + pow5_bits(q) - 1;
		int j = -e + q + k;

		e10 = q;
		vr = mul_shift(mv, pow5_inv_table[q], j);
		vp = mul_shift(mp, pow5_inv_table[q], j);
		vm = mul_shift(mm, pow5_inv_table[q], j);
		/* v * 10^-q = m' * 2^(e - q) / 5^q is whole only when 5^q
		 * divides it; 5^22 > 2^55 > every m'. */
		if (q <= 21) {
			if (mv % 5 == 0)
				vr_exact = multiple_of_pow5(mv, q);
			else if (bounds_included)
				vm_exact = multiple_of_pow5(mm, q);
			else
				vp -= multiple_of_pow5(mp, q);
		}
	} else {
		int q = log10_pow5(-e) - (-e > 1);
		int i = -e - q;
		int j = q - (pow5_bits(i) - POW5_BITS);

		e10 = q + e;
		vr = mul_shift(mv, pow5_table[i], j);
		vp = mul_shift(mp, pow5_table[i], j);
		vm = mul_shift(mm, pow5_table[i], j);
		/* v * 10^-e10 = m' * 5^i / 2^q: whole when 2^q divides m'. */
		if (q <= 1) {
			vr_exact = true;
			if (bounds_included)
				vm_exact = low_gap == 1;
			else
				vp--;
		} else if (q < 63) {
			vr_exact = multiple_of_pow2(mv, q);
		}
	}

	int removed = 0;
	unsigned last = 0;
	uint64_t out;
	if (vm_exact || vr_exact) {
		while (vp / 10 > vm / 10) {
			vm_exact &= vm % 10 == 0;
			vr_exact &= last == 0;
			last = (unsigned)(vr % 10);
			vr /= 10;
			vp /= 10;
			vm /= 10;
			removed++;
		}
		/* The lower bound is in the interval: its zeros go too. */
		if (vm_exact) {
			while (vm % 10 == 0) {
				vr_exact &= last == 0;
				last = (unsigned)(vr % 10);
				vr /= 10;
				vp /= 10;
				vm /= 10;
				removed++;
			}
		}
		/* Exactly halfway: to the even digit. */
		if (vr_exact && last == 5 && vr % 2 == 0)
			last = 4;
		out = vr + ((vr == vm && (!bounds_included || !vm_exact)) ||
			    last >= 5);
	} else {
		bool round_up = false;

		while (vp / 100 > vm / 100) {
			round_up = vr % 100 >= 50;
			vr /= 100;
			vp /= 100;
			vm /= 100;
			removed += 2;
		}
		while (vp / 10 > vm / 10) {
			round_up = vr % 10 >= 5;
			vr /= 10;
			vp /= 10;
			vm /= 10;
			removed++;
		}
		out = vr + (vr == vm || round_up);
	}
	return (struct shortest){ out, e10 + removed };
}

/*
 * n digits times 10^(exp10 - n + 1) as printf's "%.{p}g" lays them out,
 * with p the larger of n and LAYOUT_PRECISION: plain notation for
 * exponents -4 to p - 1, else d.ddde+XX; the digits have no trailing
 * zeros.
 */
static size_t g_layout(char *buf, bool negative, uint64_t digits, unsigned n,
		       int exp10)
{
	char *out = buf;
	int p = n > LAYOUT_PRECISION ? (int)n : LAYOUT_PRECISION;

	if (negative)
		*out++ = '-';
	if (exp10 < -4 || exp10 >= p) {
		/* d[.ddd] */
		if (n > 1) {
			write_digits(out + n + 1, digits, n);
			out[0] = out[1];
			out[1] = '.';
			out += n + 1;
		} else {
			*out++ = (char)('0' + digits);
		}
		*out++ = 'e';
		*out++ = exp10 < 0 ? '-' : '+';
		unsigned magnitude = (unsigned)(exp10 < 0 ? -exp10 : exp10);
		if (magnitude < 10)
			*out++ = '0';
		out += gpm_u64_text(out, magnitude);
		return (size_t)(out - buf);
	}
	if (exp10 < 0) {
		unsigned zeros = (unsigned)-exp10;     /* "0." and the rest */

		memcpy(out, "0.0000", zeros + 1);
		out += zeros + 1;
		write_digits(out + n, digits, n);
		out += n;
	} else if ((unsigned)exp10 + 1 >= n) {
		/* a whole number: the digits, then zeros */
		unsigned whole = (unsigned)exp10 + 1;
		write_digits(out + n, digits, n);
		memset(out + n, '0', whole - n);
		out += whole;
	} else {
		unsigned whole = (unsigned)exp10 + 1;
		write_digits(out + n + 1, digits, n);
		memmove(out, out + 1, whole);
		out[whole] = '.';
		out += n + 1;
	}
	*out = '\0';
	return (size_t)(out - buf);
}

size_t gpm_double_text(char *buf, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	bool negative = bits >> 63;
	unsigned biased = (unsigned)(bits >> FRACTION_BITS) & 0x7ff;
	uint64_t fraction = bits & FRACTION_MASK;
	if (biased == 0 && fraction == 0) {
		const char *zero = negative ? "-0" : "0";
		size_t len = strlen(zero);

		memcpy(buf, zero, len + 1);
		return len;
	}
	pthread_once(&tables_once, compute_tables);
	struct shortest s = shortest_decimal(fraction, biased);
	/* Rounding up can carry into zeros. */
	while (s.digits % 10 == 0) {
		s.digits /= 10;
		s.exponent++;
	}
	unsigned n = decimal_length(s.digits);
	return g_layout(buf, negative, s.digits, n, s.exponent + (int)n - 1);
}
