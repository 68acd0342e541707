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

/* Perf revision 6 chooses the OA unit by engine; revision 7 takes the
 * video engines (MTL's media OAM unit) and its formats. */
#define GPD_I915_PERF_PROP_OA_ENGINE_CLASS 9
#define GPD_I915_PERF_PROP_OA_ENGINE_INSTANCE 10
#define GPD_I915_OAM_FORMAT_MPEC8u64_B8_C8 13
#define GPD_I915_OAM_FORMAT_MPEC8u32_B8_C8 14

/* Perf revisions that brought what the daemon uses. */
#define GPD_I915_PERF_REVISION_POLL_PERIOD 5    /* POLL_OA_PERIOD */
#define GPD_I915_PERF_REVISION_MEDIA 7          /* video engines' OA unit */

#endif
