/*
 * Describing an i915 card through GETPARAM, QUERY and sysfs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "daemon/error.h"
#include "daemon/drm/kernel_files.h"
#include "daemon/i915/i915_describe.h"
#include "daemon/i915/i915_uapi.h"
#include "daemon/log.h"
#include "metrics/i915_topology.h"

static int getparam(int fd, int param, int *value)
{
	struct drm_i915_getparam gp = { .param = param, .value = value };
	return drmIoctl(fd, DRM_IOCTL_I915_GETPARAM, &gp) ? -errno : 0;
}

static int query_topology(int fd, const char *card, struct gpm_topology *t,
			  struct gpd_error *err)
{
	struct drm_i915_query_item item = {
		.query_id = DRM_I915_QUERY_TOPOLOGY_INFO,
	};
	struct drm_i915_query q = {
		.num_items = 1,
		.items_ptr = (uintptr_t)&item,
	};
	/* A first call with length 0 asks for the size. */
	if (drmIoctl(fd, DRM_IOCTL_I915_QUERY, &q))
		return gpd_fail(err, -errno, "%s: DRM_IOCTL_I915_QUERY failed: %s",
				    card, strerror(errno));
	if (item.length <= 0)
		return gpd_fail(err, item.length ? item.length : -ENODATA,
				    "%s: the kernel has no topology to report (%s); it is "
				    "too old for OA metrics (Linux 4.17 or later needed)",
				    card, strerror(item.length ? -item.length : ENODATA));
	void *blob = calloc(1, (size_t)item.length);
	if (!blob)
		return gpd_fail(err, -ENOMEM, "out of memory");
	item.data_ptr = (uintptr_t)blob;
	int ret = 0;
	const char *reason = NULL;
	if (drmIoctl(fd, DRM_IOCTL_I915_QUERY, &q))
		ret = gpd_fail(err, -errno, "%s: DRM_IOCTL_I915_QUERY failed: %s",
				   card, strerror(errno));
	else if (item.length < 0)
		ret = gpd_fail(err, item.length, "%s: topology query refused: %s",
				   card, strerror(-item.length));
	else if (gpm_i915_topology_decode(blob, (size_t)item.length, t, &reason))
		ret = gpd_fail(err, -EBADMSG, "%s: the kernel's topology blob is "
				   "malformed: %s", card, reason);
	free(blob);
	return ret;
}

/* Sysfs gives the frequency range in MHz; a card without the files (a
 * virtual function) keeps the platform's typical range. */
static void read_frequencies(const char *card_dir, const struct gpm_platform *p,
			     struct gpm_device_info *info)
{
	uint64_t min_mhz, max_mhz;
	if (gpd_kernel_file_read_u64(card_dir, "gt_min_freq_mhz", &min_mhz))
		min_mhz = p->min_freq_mhz;
	if (gpd_kernel_file_read_u64(card_dir, "gt_max_freq_mhz", &max_mhz))
		max_mhz = p->max_freq_mhz;
	info->gpu_min_freq = min_mhz * 1000000;
	info->gpu_max_freq = max_mhz * 1000000;
}

int gpd_i915_describe(int fd, const char *card, const char *card_dir,
		      struct gpd_i915_description *out, struct gpd_error *err)
{
	struct gpm_device_info *info = &out->info;
	memset(out, 0, sizeof(*out));
	int chip, revision, freq, cs_freq;
	int ret = getparam(fd, I915_PARAM_CHIPSET_ID, &chip);
	if (!ret)
		ret = getparam(fd, I915_PARAM_REVISION, &revision);
	if (ret)
		return gpd_fail(err, ret, "%s: I915_GETPARAM for the chip id "
				    "failed: %s", card, strerror(-ret));
	/* Kernels before the parameter existed have revision 1 (as IGT
	 * reads it). */
	if (getparam(fd, I915_PARAM_PERF_REVISION, &out->perf_revision))
		out->perf_revision = 1;
	/* The OA unit's clock used to be the command streamer's, and still
	 * is where the kernel lacks the separate parameter, which came with
	 * DG2, the first GPU whose OA unit ignores CTC_SHIFT
	 * (i915_perf_oa_timestamp_frequency()). */
	if ((ret = getparam(fd, I915_PARAM_CS_TIMESTAMP_FREQUENCY, &cs_freq)))
		return gpd_fail(err, ret, "%s: the kernel reports no timestamp "
				    "frequency (%s); Linux 4.16 or later is needed",
				    card, strerror(-ret));
	if (getparam(fd, I915_PARAM_OA_TIMESTAMP_FREQUENCY, &freq))
		freq = cs_freq;
	ret = query_topology(fd, card, &info->topology, err);
	if (ret)
		return ret;

	info->pci_id = (uint32_t)chip;
	info->revision = (uint32_t)revision;
	info->timestamp_frequency = (uint64_t)(unsigned)freq;
	info->cs_timestamp_frequency = (uint64_t)(unsigned)cs_freq;
	ret = gpm_platform_by_pci_id(info->pci_id,
				     gpm_topology_eu_count(&info->topology),
				     &out->platform);
	if (ret)
		return gpd_fail(err, ret, "%s: no metric definitions exist "
				    "for this GPU (PCI id 0x%04x); its platform is "
				    "not in gpuperfd's table", card, info->pci_id);
	if (!out->platform->i915_oa_format)
		return gpd_fail(err, -EOPNOTSUPP, "%s: %s has no OA unit i915 can "
				    "stream; use the xe driver", card,
				    out->platform->description);
	info->graphics_version = out->platform->graphics_version;
	info->eu_threads_count = out->platform->eu_threads_count;
	read_frequencies(card_dir, out->platform, info);
	gpd_info("%s: %s, PCI 0x%04x rev %u, i915 perf revision %d, %u EUs, "
		 "OA timestamp %llu Hz, GPU %llu-%llu MHz", card,
		 out->platform->description, info->pci_id, info->revision,
		 out->perf_revision, gpm_topology_eu_count(&info->topology),
		 (unsigned long long)info->timestamp_frequency,
		 (unsigned long long)(info->gpu_min_freq / 1000000),
		 (unsigned long long)(info->gpu_max_freq / 1000000));
	return 0;
}
