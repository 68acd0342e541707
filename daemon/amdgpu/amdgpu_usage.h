/*
 * An AMD GPU's usage source, from what amdgpu gives every reader in sysfs
 * and procfs (no counter unit is involved):
 *
 *   DEVICE/gpu_metrics        the firmware's table (host/gpu_metrics.h):
 *                             activity of gfx, memory and media, clocks,
 *                             temperature, socket power, energy
 *   DEVICE/gpu_busy_percent   gfx busy, %, where the table lacks it
 *   DEVICE/mem_busy_percent   memory controller busy, %
 *   DEVICE/pp_dpm_sclk        the gfx clock's levels: its range
 *   DEVICE/hwmon/hwmonN/      power1_average or power1_input (uW) and
 *                             temp1_input, where the table lacks them
 *   /proc/PID/fdinfo/N        drm-engine-gfx/compute/dma/dec/enc/jpeg/vpe
 *                             (ns) and memory of each DRM client
 *                             (amdgpu_show_fdinfo(), amdgpu_fdinfo.c)
 *
 * (Documentation/gpu/amdgpu/thermal.rst documents the sysfs files.)
 * Percentages and power are levels at the moment of a read: each is held
 * over the time since the previous read to give counters, as the usage
 * stream wants them. The energy counter of v1.4 tables is taken as it is.
 */
#ifndef GPD_AMDGPU_AMDGPU_USAGE_H
#define GPD_AMDGPU_AMDGPU_USAGE_H

#include "daemon/drm/card.h"
#include "daemon/error.h"
#include "daemon/usage_source.h"

/* amdgpu's engine classes: its fdinfo keys (amdgpu_ip_name[] in
 * amdgpu_fdinfo.c), then the two gpu_metrics measures that no fdinfo
 * key has. */
#define GPD_AMDGPU_CLASS_GFX "gfx"
#define GPD_AMDGPU_CLASS_MEDIA "media"
#define GPD_AMDGPU_CLASS_MEMORY "memory"

/*
 * The usage source of the card whose sysfs directory is card_dir
 * (".../drm/card1"), its processes found under roots->proc. Its engines
 * are those the card's files show at creation. 0, or -ENOMEM with err.
 */
int gpd_amdgpu_usage_create(const char *card_dir,
			    const struct gpd_drm_roots *roots,
			    struct gpd_usage_source **out, struct gpd_error *err);

#endif
