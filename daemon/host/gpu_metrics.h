/*
 * amdgpu's gpu_metrics: the binary table the power-management firmware's
 * readings are copied into, read whole from
 * /sys/class/drm/cardN/device/gpu_metrics (amdgpu_get_gpu_metrics() in
 * drivers/gpu/drm/amd/pm/amdgpu_pm.c). Its first four bytes say its size
 * and version (struct metrics_table_header); the layouts are struct
 * gpu_metrics_vF_C in drivers/gpu/drm/amd/include/kgd_pp_interface.h:
 * v1.x for discrete GPUs, v2.x and v3.x for APUs. This decoder knows
 * v1.0-v1.6, v2.0-v2.4 and v3.0 as that header has them at
 * torvalds/linux 00dedab07b52; any other version is refused by name, not
 * guessed at, since a new content revision may move every field (v1.4 did).
 *
 * Pure: the bytes in, the values in common units out.
 */
#ifndef GPD_HOST_GPU_METRICS_H
#define GPD_HOST_GPU_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Media engines a table may list (NUM_VCN in the header). */
#define GPD_GPU_METRICS_MAX_MEDIA 4

/* What a table had (gpd_gpu_metrics.have): a field the firmware does not
 * fill reads as all ones (smu_cmn_init_soft_gpu_metrics() in
 * drivers/gpu/drm/amd/pm/swsmu/smu_cmn.c sets the table so first). */
enum {
	GPD_GPU_METRICS_GFX_ACTIVITY = 1 << 0,
	GPD_GPU_METRICS_MEMORY_ACTIVITY = 1 << 1,
	GPD_GPU_METRICS_GFX_CLOCK = 1 << 2,
	GPD_GPU_METRICS_MEMORY_CLOCK = 1 << 3,
	GPD_GPU_METRICS_TEMPERATURE = 1 << 4,
	GPD_GPU_METRICS_POWER = 1 << 5,
	GPD_GPU_METRICS_ENERGY = 1 << 6,
};

struct gpd_gpu_metrics {
	unsigned format_revision, content_revision;
	unsigned have;                  /* GPD_GPU_METRICS_* */
	double gfx_activity;            /* busy share, [0, 1] (more is cut) */
	double memory_activity;         /* of the memory controller (UMC) */
	/* UVD/VCN: one share per instance the table has (v1.4 on lists
	 * four, older tables one for all); NaN for one it leaves unfilled. */
	unsigned n_media;
	double media_activity[GPD_GPU_METRICS_MAX_MEDIA];
	double gfx_clock_mhz;           /* average, or current where only that */
	double memory_clock_mhz;
	double temperature_c;           /* edge, hotspot (v1.4 on) or gfx (APUs) */
	double power_w;                 /* socket power */
	/* energy_accumulator, a counter in units of energy_unit_j; only
	 * where the header gives its unit (v1.4 on: 15.259 uJ). */
	uint64_t energy_count;
	double energy_unit_j;
};

/*
 * Decodes len bytes of a gpu_metrics file. 0; -EBADMSG for a table that
 * is cut short (fewer bytes than its header says, or than its version
 * has); -EPROTONOSUPPORT for a version this decoder does not know. why
 * (size bytes) says which, for a person.
 */
int gpd_gpu_metrics_decode(const void *data, size_t len,
			   struct gpd_gpu_metrics *out, char *why, size_t size);

#endif
