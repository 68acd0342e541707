/*
 * The token bucket behind the request rate limit.
 */
#include "daemon/net/rate_limit.h"

void gpd_rate_limit_init_burst(struct gpd_rate_limit *r, uint32_t per_second,
			       uint32_t burst, uint64_t now_ns)
{
	r->rate = per_second;
	r->burst = burst;
	r->tokens = r->burst;
	r->last_ns = now_ns;
}

void gpd_rate_limit_init(struct gpd_rate_limit *r, uint32_t per_second,
			 uint64_t now_ns)
{
	gpd_rate_limit_init_burst(r, per_second, 2 * per_second, now_ns);
}

bool gpd_rate_limit_take(struct gpd_rate_limit *r, uint64_t now_ns)
{
	if (now_ns > r->last_ns) {
		r->tokens += (double)(now_ns - r->last_ns) * 1e-9 * r->rate;
		if (r->tokens > r->burst)
			r->tokens = r->burst;
		r->last_ns = now_ns;
	}
	if (r->tokens < 1.0)
		return false;
	r->tokens -= 1.0;
	return true;
}
