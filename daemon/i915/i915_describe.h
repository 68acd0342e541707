/*
 * What an i915 card is, asked of the kernel: chip id and revision
 * (GETPARAM), topology (DRM_I915_QUERY_TOPOLOGY_INFO), the OA timestamp
 * frequency (falling back to the command streamer's on kernels without
 * it), the perf revision, and the GPU frequency range from sysfs.
 */
#ifndef GPD_I915_DESCRIBE_H
#define GPD_I915_DESCRIBE_H

#include "daemon/error.h"
#include "metrics/device.h"
#include "metrics/platform.h"

struct gpd_i915_description {
	struct gpm_device_info info;
	const struct gpm_platform *platform;
	int perf_revision;
};

/* card names the card in messages. 0, or a negative code with err filled. */
int gpd_i915_describe(int fd, const char *card, const char *card_dir,
		      struct gpd_i915_description *out, struct gpd_error *err);

#endif
