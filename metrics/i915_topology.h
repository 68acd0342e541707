/*
 * The topology blob of DRM_I915_QUERY_TOPOLOGY_INFO
 * (struct drm_i915_query_topology_info), to and from struct gpm_topology.
 *
 * The blob is a 16-byte fixed part (u16 flags, max_slices, max_subslices,
 * max_eus_per_subslice, subslice_offset, subslice_stride, eu_offset,
 * eu_stride) followed by data[]: the slice mask, then subslice_stride bytes
 * of subslice mask per slice, then eu_stride bytes of EU mask per
 * subslice; bit i of each byte is unit i, low bytes first. Recordings store
 * it verbatim in their DEVICE_TOPOLOGY record.
 */
#ifndef GPM_I915_TOPOLOGY_H
#define GPM_I915_TOPOLOGY_H

#include <stddef.h>

#include "device.h"

#define GPM_I915_TOPOLOGY_FIXED_SIZE 16

/*
 * Lays t out as i915 does: one slice-mask byte, subslice_offset 1,
 * subslice_stride ceil(max_subslices / 8), eu_stride
 * ceil(max_eus_per_subslice / 8), no padding. Mask bits beyond the maxima
 * are dropped. Sets *len to the blob's length; with buf NULL only
 * computes it. -EINVAL when a maximum is 0 or above the gpm_topology
 * limits, -ENOSPC when size is below *len.
 */
int gpm_i915_topology_encode(const struct gpm_topology *t, void *buf,
			     size_t size, size_t *len);

/*
 * Reads a blob of len bytes (trailing padding allowed) into t. -EBADMSG
 * with *reason set to a static phrase when the fixed part or the offsets
 * and strides do not describe masks inside the blob, or the maxima exceed
 * what struct gpm_topology holds.
 */
int gpm_i915_topology_decode(const void *buf, size_t len,
			     struct gpm_topology *t, const char **reason);

#endif
