/*
 * The i915 uAPI as this daemon uses it: libdrm's i915_drm.h, plus what
 * kernels added after the libdrm headers a distribution may ship
 * (docs/oa-reference.md §1).
 */
#ifndef GPD_I915_UAPI_H
#define GPD_I915_UAPI_H

#include <i915_drm.h>

#ifndef I915_PARAM_OA_TIMESTAMP_FREQUENCY
#define I915_PARAM_OA_TIMESTAMP_FREQUENCY 57
#endif

/* Perf revisions that brought what the daemon uses. */
#define GPD_I915_PERF_REVISION_CONFIG 2         /* I915_PERF_IOCTL_CONFIG */
#define GPD_I915_PERF_REVISION_POLL_PERIOD 5    /* POLL_OA_PERIOD */

#endif
