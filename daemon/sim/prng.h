/*
 * A small deterministic pseudo-random generator for the simulated GPU:
 * xoshiro256** seeded through splitmix64.
 *
 * The model must produce the same bytes for the same seed on every host and
 * every run, so it never touches rand() or any process-wide state; each user
 * owns its generator. Streams derived with gpd_prng_fork() are independent
 * of how many numbers the parent has drawn since, which keeps one part of
 * the model (say, the workload) from perturbing another (report loss).
 */
#ifndef GPD_SIM_PRNG_H
#define GPD_SIM_PRNG_H

#include <stdint.h>

struct gpd_prng {
	uint64_t s[4];
};

/* Seeds the generator; every seed, 0 included, gives a usable state. */
void gpd_prng_seed(struct gpd_prng *prng, uint64_t seed);

/* A child generator for the named purpose (any constant tag), seeded from
 * seed and tag alone. */
void gpd_prng_fork(struct gpd_prng *child, uint64_t seed, uint64_t tag);

uint64_t gpd_prng_next(struct gpd_prng *prng);

/* Uniform in [0, 1), 53 bits. */
double gpd_prng_unit(struct gpd_prng *prng);

/* Uniform in [lo, hi). */
double gpd_prng_range(struct gpd_prng *prng, double lo, double hi);

/* Uniform integer in [0, n); n = 0 gives 0. Unbiased. */
uint64_t gpd_prng_below(struct gpd_prng *prng, uint64_t n);

/* Exponentially distributed with the given mean, cut to [mean/8, 4*mean]
 * so one draw can neither vanish nor stall the model. */
double gpd_prng_exponential(struct gpd_prng *prng, double mean);

#endif
