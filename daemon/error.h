/*
 * Filling a struct gpd_error: the code and the words that say what to do.
 */
#ifndef GPD_ERROR_H
#define GPD_ERROR_H

#include "daemon/subscription.h"

/* Sets err's code and message; returns code, so that callers can
 * `return gpd_fail(err, -EINVAL, "...")`. */
int gpd_fail(struct gpd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
