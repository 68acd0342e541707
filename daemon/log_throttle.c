/*
 * Rate-limited log messages.
 */
#include <stdarg.h>
#include <stdio.h>

#include "daemon/clock.h"
#include "daemon/log_throttle.h"

#define DEFAULT_INTERVAL_NS 10000000000ull

void gpd_log_throttled(struct gpd_log_throttle *t, enum gpd_log_level level,
		       const char *fmt, ...)
{
	uint64_t now = gpd_monotonic_ns();
	uint64_t interval = t->interval_ns ? t->interval_ns : DEFAULT_INTERVAL_NS;
	t->total++;
	if (t->last_ns && now - t->last_ns < interval) {
		t->held_back++;
		return;
	}
	char line[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (t->held_back)
		gpd_log(level, "%s (and %llu more like it in the last %llu s)", line,
			t->held_back,
			(unsigned long long)((now - t->last_ns) / 1000000000ull));
	else
		gpd_log(level, "%s", line);
	t->last_ns = now;
	t->held_back = 0;
}
