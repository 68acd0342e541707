/*
 * Filling a struct gpd_error in the DRM backends.
 */
#ifndef GPD_DRM_ERROR_H
#define GPD_DRM_ERROR_H

#include "daemon/subscription.h"

/* Sets err's code and message; returns code, so that callers can
 * `return gpd_drm_fail(err, -EINVAL, "...")`. */
int gpd_drm_fail(struct gpd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
