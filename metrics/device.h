/*
 * A GPU as the metric equations see it: identity, clocks and topology, and
 * the `$Variables` of the metric XML derived from them.
 *
 * The topology mirrors what DRM_I915_QUERY_TOPOLOGY_INFO reports, so a
 * description read from the kernel, from a recording or made up for the
 * simulated GPU all land in the same struct.
 */
#ifndef GPM_DEVICE_H
#define GPM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPM_MAX_SLICES 8
#define GPM_MAX_SUBSLICES 64            /* per slice (DSS / Xe cores) */
#define GPM_MAX_EUS_PER_SUBSLICE 16

struct gpm_topology {
	uint16_t max_slices;
	uint16_t max_subslices;         /* per slice */
	uint16_t max_eus_per_subslice;
	uint8_t slice_mask;             /* bit s: slice s present */
	uint64_t subslice_mask[GPM_MAX_SLICES];                 /* bit ss */
	uint16_t eu_mask[GPM_MAX_SLICES][GPM_MAX_SUBSLICES];    /* bit eu */
};

struct gpm_device_info {
	uint32_t pci_id;
	uint32_t revision;
	/* Graphics IP version times 100: 750 HSW, 900 SKL, 1200 TGL,
	 * 1255 DG2, 1270 MTL, 2000 LNL. Decides mask packing and quirks. */
	uint16_t graphics_version;
	uint32_t eu_threads_count;      /* hardware threads per EU */
	uint64_t timestamp_frequency;   /* Hz of the OA timestamp */
	/* Hz of the command streamer's timestamp, the RCS TIMESTAMP register
	 * recordings correlate with CPU time. The OA unit's runs faster on
	 * DG2, MTL and PVC, which ignore CTC_SHIFT; 0 where unknown (then it
	 * is taken to be the OA unit's). */
	uint64_t cs_timestamp_frequency;
	uint64_t gpu_min_freq;          /* Hz */
	uint64_t gpu_max_freq;          /* Hz */
	struct gpm_topology topology;
	/* Units that only xe-era metric files count; 0 where unknown. */
	uint32_t l3_bank_count;
	uint32_t sqidi_count;
	uint32_t compute_engine_count;
	uint32_t copy_engine_count;
	uint32_t geometry_pipe_count;
	uint32_t depth_pipe_count;
	uint32_t color_pipe_count;
};

/*
 * Every `$Variable` the equation language knows, as a dense index into
 * struct gpm_device_vars. The parametrised availability variables
 * (`$GtSlice<N>`, `$GtSlice<N>DualSubslice<M>`, `$GtSlice<N>XeCore<M>`,
 * `$GtXeCore<N>`) occupy ranges starting at the *_BASE entries.
 */
enum gpm_var {
	GPM_VAR_EU_CORES_TOTAL_COUNT,           /* also $VectorEngineTotalCount */
	GPM_VAR_EU_SLICES_TOTAL_COUNT,          /* also $SliceTotalCount */
	GPM_VAR_EU_SUBSLICES_TOTAL_COUNT,       /* also Dual/XeCore totals */
	GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT,
	GPM_VAR_EU_THREADS_COUNT,               /* also $VectorEngineThreadsCount */
	GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT,
	GPM_VAR_SLICE_MASK,                     /* also $GtSliceMask */
	GPM_VAR_SUBSLICE_MASK,                  /* also Dual/Gt variants */
	GPM_VAR_XE_CORE_MASK,
	GPM_VAR_GPU_TIMESTAMP_FREQUENCY,
	GPM_VAR_GPU_MIN_FREQUENCY,
	GPM_VAR_GPU_MAX_FREQUENCY,
	GPM_VAR_SKU_REVISION_ID,
	GPM_VAR_QUERY_MODE,
	GPM_VAR_L3_BANK_TOTAL_COUNT,
	GPM_VAR_L3_NODE_TOTAL_COUNT,
	GPM_VAR_SQIDI_TOTAL_COUNT,
	GPM_VAR_COMPUTE_ENGINE_TOTAL_COUNT,
	GPM_VAR_COPY_ENGINE_TOTAL_COUNT,
	GPM_VAR_GEOMETRY_PIPE_TOTAL_COUNT,
	GPM_VAR_DEPTH_PIPE_TOTAL_COUNT,
	GPM_VAR_COLOR_PIPE_TOTAL_COUNT,
	GPM_VAR_GT_SLICE_BASE,                                  /* + N */
	GPM_VAR_GT_SLICE_SUBSLICE_BASE = GPM_VAR_GT_SLICE_BASE + GPM_MAX_SLICES,
	                                        /* + N * GPM_MAX_SUBSLICES + M */
	GPM_VAR_GT_XE_CORE_BASE = GPM_VAR_GT_SLICE_SUBSLICE_BASE +
				  GPM_MAX_SLICES * GPM_MAX_SUBSLICES,
	                                        /* + N (flat Xe core index) */
	GPM_VAR_COUNT = GPM_VAR_GT_XE_CORE_BASE + GPM_MAX_SLICES * GPM_MAX_SUBSLICES,
};

/* The values of every variable for one device, computed once. */
struct gpm_device_vars {
	uint64_t value[GPM_VAR_COUNT];
};

/* Maps a variable name without the leading '$' (len bytes, not
 * necessarily NUL-terminated) to its index; -ENOENT if it is not one. */
int gpm_var_lookup(const char *name, size_t len);

/* Fills vars from dev. */
void gpm_device_vars_init(struct gpm_device_vars *vars,
			  const struct gpm_device_info *dev);

/* Topology helpers. */
bool gpm_topology_has_subslice(const struct gpm_topology *t, unsigned s,
			       unsigned ss);
unsigned gpm_topology_eu_count(const struct gpm_topology *t);

/* The command streamer's ticks at OA timestamp ts: where the OA unit
 * ignores CTC_SHIFT (DG2, MTL) its clock runs 2^(3 - CTC_SHIFT) times
 * faster. Recordings correlate in the command streamer's ticks. */
uint64_t gpm_device_cs_ticks(const struct gpm_device_info *dev, uint64_t ts);
/* The inverse: OA ticks at the command streamer's ticks cs. */
uint64_t gpm_device_oa_ticks(const struct gpm_device_info *dev, uint64_t cs);

#endif
