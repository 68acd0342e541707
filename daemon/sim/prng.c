/*
 * xoshiro256** (Blackman and Vigna) with its state filled by splitmix64, as
 * its authors recommend: splitmix64 spreads any 64-bit seed, zero included,
 * over a state that is never all zero.
 */
#include <math.h>

#include "daemon/sim/prng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void gpd_prng_seed(struct gpd_prng *prng, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		prng->s[i] = splitmix64(&x);
}

void gpd_prng_fork(struct gpd_prng *child, uint64_t seed, uint64_t tag)
{
	uint64_t x = seed ^ rotl(tag * 0xd1342543de82ef95ull, 17);

	gpd_prng_seed(child, splitmix64(&x));
}

uint64_t gpd_prng_next(struct gpd_prng *prng)
{
	uint64_t *s = prng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double gpd_prng_unit(struct gpd_prng *prng)
{
	return (double)(gpd_prng_next(prng) >> 11) * 0x1.0p-53;
}

double gpd_prng_range(struct gpd_prng *prng, double lo, double hi)
{
	return lo + (hi - lo) * gpd_prng_unit(prng);
}

uint64_t gpd_prng_below(struct gpd_prng *prng, uint64_t n)
{
	if (n == 0)
		return 0;
	/* Rejecting the top partial block keeps every value equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = gpd_prng_next(prng);
	while (x >= limit);
	return x % n;
}

double gpd_prng_exponential(struct gpd_prng *prng, double mean)
{
	double x = -mean * log1p(-gpd_prng_unit(prng));

	if (x < mean / 8)
		return mean / 8;
	if (x > 4 * mean)
		return 4 * mean;
	return x;
}
