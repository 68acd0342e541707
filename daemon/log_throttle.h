/*
 * A log message that a client can make the daemon repeat at will (a
 * refused token, a malformed upgrade, a slow reader dropped): said at most
 * once an interval, the next time with how many like it were held back.
 * Whoever raises it keeps the throttle.
 */
#ifndef GPD_LOG_THROTTLE_H
#define GPD_LOG_THROTTLE_H

#include <stdint.h>

#include "daemon/log.h"

struct gpd_log_throttle {
	uint64_t interval_ns;           /* 0: 10 s */
	uint64_t last_ns;               /* when one was last said */
	unsigned long long held_back;   /* since then */
	unsigned long long total;       /* ever */
};

void gpd_log_throttled(struct gpd_log_throttle *t, enum gpd_log_level level,
		       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
