/*
 * Small numbers the kernel publishes as files: sysfs attributes
 * (gt_max_freq_mhz, metrics/<guid>/id) and sysctls under /proc/sys
 * (dev.i915.perf_stream_paranoid, dev.i915.oa_max_sample_rate).
 */
#ifndef GPD_DRM_KERNEL_FILES_H
#define GPD_DRM_KERNEL_FILES_H

#include <stdint.h>

/* Reads the decimal number in dir/name. 0, -errno of opening or reading
 * it, or -EBADMSG when it holds no number. */
int gpd_kernel_file_read_u64(const char *dir, const char *name, uint64_t *out);

/* Reads the sysctl named like "dev.i915.oa_max_sample_rate" from
 * /proc/sys. Same returns. */
int gpd_sysctl_read_u64(const char *name, uint64_t *out);

#endif
