/*
 * A token bucket: requests at a sustained rate, with bursts of twice that.
 */
#ifndef GPD_NET_RATE_LIMIT_H
#define GPD_NET_RATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct gpd_rate_limit {
	double rate;                    /* tokens per second */
	double burst;                   /* the bucket's size */
	double tokens;
	uint64_t last_ns;
};

void gpd_rate_limit_init(struct gpd_rate_limit *r, uint32_t per_second,
			 uint64_t now_ns);

/* A bucket of burst tokens, refilled at per_second. */
void gpd_rate_limit_init_burst(struct gpd_rate_limit *r, uint32_t per_second,
			       uint32_t burst, uint64_t now_ns);

/* Takes a token; false when the bucket is empty. */
bool gpd_rate_limit_take(struct gpd_rate_limit *r, uint64_t now_ns);

#endif
