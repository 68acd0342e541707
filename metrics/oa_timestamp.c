/*
 * The 64-bit OA timestamp extender (see oa_timestamp.h).
 */
#include "metrics/oa_timestamp.h"

void gpm_oa_ts_extender_init(struct gpm_oa_ts_extender *ext, uint64_t mask)
{
	ext->mask = mask;
	ext->last = 0;
	ext->extended = 0;
	ext->started = false;
}
