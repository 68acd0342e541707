/*
 * The `$Variables` of the metric XML: their names, and their values for one
 * device, derived from its identity and topology the way IGT's
 * intel_perf_for_devinfo() derives them, so that equations and availability
 * expressions give the numbers IGT would.
 */
#include <errno.h>
#include <string.h>

#include "metrics/device.h"

struct var_name {
	const char *name;
	enum gpm_var var;
};

/*
 * Fixed names and their aliases. The XML files name one quantity in several
 * ways as Intel's terminology moved from EU/subslice to vector engine/Xe core;
 * IGT's and Mesa's generators map them onto the same device fields.
 */
static const struct var_name fixed_vars[] = {
	{ "EuCoresTotalCount", GPM_VAR_EU_CORES_TOTAL_COUNT },
	{ "VectorEngineTotalCount", GPM_VAR_EU_CORES_TOTAL_COUNT },
	{ "EuSlicesTotalCount", GPM_VAR_EU_SLICES_TOTAL_COUNT },
	{ "SliceTotalCount", GPM_VAR_EU_SLICES_TOTAL_COUNT },
	{ "EuSubslicesTotalCount", GPM_VAR_EU_SUBSLICES_TOTAL_COUNT },
	{ "EuDualSubslicesTotalCount", GPM_VAR_EU_SUBSLICES_TOTAL_COUNT },
	{ "XeCoreTotalCount", GPM_VAR_EU_SUBSLICES_TOTAL_COUNT },
	{ "EuDualSubslicesSlice0123Count", GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT },
	{ "EuThreadsCount", GPM_VAR_EU_THREADS_COUNT },
	{ "VectorEngineThreadsCount", GPM_VAR_EU_THREADS_COUNT },
	{ "VectorEnginePerXeCoreCount", GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT },
	{ "SliceMask", GPM_VAR_SLICE_MASK },
	{ "GtSliceMask", GPM_VAR_SLICE_MASK },
	{ "SubsliceMask", GPM_VAR_SUBSLICE_MASK },
	{ "DualSubsliceMask", GPM_VAR_SUBSLICE_MASK },
	{ "GtSubsliceMask", GPM_VAR_SUBSLICE_MASK },
	{ "GtDualSubsliceMask", GPM_VAR_SUBSLICE_MASK },
	{ "XeCoreMask", GPM_VAR_XE_CORE_MASK },
	{ "GtXeCoreMask", GPM_VAR_XE_CORE_MASK },
	{ "GpuTimestampFrequency", GPM_VAR_GPU_TIMESTAMP_FREQUENCY },
	{ "GpuMinFrequency", GPM_VAR_GPU_MIN_FREQUENCY },
	{ "GpuMaxFrequency", GPM_VAR_GPU_MAX_FREQUENCY },
	{ "SkuRevisionId", GPM_VAR_SKU_REVISION_ID },
	{ "QueryMode", GPM_VAR_QUERY_MODE },
	{ "L3BankTotalCount", GPM_VAR_L3_BANK_TOTAL_COUNT },
	{ "L3NodeTotalCount", GPM_VAR_L3_NODE_TOTAL_COUNT },
	{ "SqidiTotalCount", GPM_VAR_SQIDI_TOTAL_COUNT },
	{ "ComputeEngineTotalCount", GPM_VAR_COMPUTE_ENGINE_TOTAL_COUNT },
	{ "CopyEngineTotalCount", GPM_VAR_COPY_ENGINE_TOTAL_COUNT },
	{ "GeometryPipeTotalCount", GPM_VAR_GEOMETRY_PIPE_TOTAL_COUNT },
	{ "DepthPipeTotalCount", GPM_VAR_DEPTH_PIPE_TOTAL_COUNT },
	{ "ColorPipeTotalCount", GPM_VAR_COLOR_PIPE_TOTAL_COUNT },
};

/* Consumes "prefix" at *p if it is there. */
static bool eat_prefix(const char **p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);
	if ((size_t)(end - *p) < n || memcmp(*p, prefix, n))
		return false;
	*p += n;
	return true;
}

/*
 * Consumes a decimal number below limit at *p. Leading zeros are accepted,
 * as the generators' [0-9]+ patterns accept them.
 */
static bool eat_number(const char **p, const char *end, unsigned limit,
		       unsigned *out)
{
	const char *s = *p;
	unsigned v = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v >= limit)
			return false;
	}
	*p = s;
	*out = v;
	return true;
}

/* $GtSlice<N>, $GtSlice<N>DualSubslice<M>, $GtSlice<N>XeCore<M>, $GtXeCore<N>. */
static int lookup_parametrised(const char *p, const char *end)
{
	unsigned n, m;

	if (eat_prefix(&p, end, "GtXeCore")) {
		if (!eat_number(&p, end, GPM_MAX_SLICES * GPM_MAX_SUBSLICES, &n) ||
		    p != end)
			return -ENOENT;
		return GPM_VAR_GT_XE_CORE_BASE + (int)n;
	}
	if (!eat_prefix(&p, end, "GtSlice") ||
	    !eat_number(&p, end, GPM_MAX_SLICES, &n))
		return -ENOENT;
	if (p == end)
		return GPM_VAR_GT_SLICE_BASE + (int)n;
	if (!eat_prefix(&p, end, "DualSubslice") && !eat_prefix(&p, end, "XeCore"))
		return -ENOENT;
	if (!eat_number(&p, end, GPM_MAX_SUBSLICES, &m) || p != end)
		return -ENOENT;
	return GPM_VAR_GT_SLICE_SUBSLICE_BASE + (int)(n * GPM_MAX_SUBSLICES + m);
}

int gpm_var_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(fixed_vars) / sizeof(fixed_vars[0]); i++) {
		if (strlen(fixed_vars[i].name) == len &&
		    !memcmp(fixed_vars[i].name, name, len))
			return fixed_vars[i].var;
	}
	return lookup_parametrised(name, name + len);
}

bool gpm_topology_has_subslice(const struct gpm_topology *t, unsigned s,
			       unsigned ss)
{
	if (s >= GPM_MAX_SLICES || s >= t->max_slices ||
	    ss >= GPM_MAX_SUBSLICES || ss >= t->max_subslices)
		return false;
	return (t->slice_mask >> s & 1) && (t->subslice_mask[s] >> ss & 1);
}

static unsigned subslice_eu_count(const struct gpm_topology *t, unsigned s,
				  unsigned ss)
{
	unsigned max_eus = t->max_eus_per_subslice;
	uint32_t mask = t->eu_mask[s][ss];

	if (max_eus < GPM_MAX_EUS_PER_SUBSLICE)
		mask &= (1u << max_eus) - 1;
	return (unsigned)__builtin_popcount(mask);
}

unsigned gpm_topology_eu_count(const struct gpm_topology *t)
{
	unsigned n = 0;

	for (unsigned s = 0; s < GPM_MAX_SLICES; s++) {
		for (unsigned ss = 0; ss < GPM_MAX_SUBSLICES; ss++) {
			if (gpm_topology_has_subslice(t, s, ss))
				n += subslice_eu_count(t, s, ss);
		}
	}
	return n;
}

/*
 * Xe_HP did away with slices: i915 reports the GT as one slice of all its
 * dual-subslices (xehp_sseu_info_init(), Linux 5.15 on) and xe's
 * query_gt_topology() as a flat DSS mask. The metric files still count
 * slices of four Xe cores: $GtSlice1XeCore0 is DSS 4, and MTL GT3's
 * eight Xe cores are $GtSlice0 and $GtSlice1. Mesa regroups the flat
 * topology that way for i915 (update_from_single_slice_topology()) and
 * xe (xe_compute_topology(), up to Xe2; Xe3 takes the slice size from the
 * GuC's HWCONFIG table, which gpuperf does not read).
 */
#define XE_CORES_PER_SLICE 4

static bool flat_topology(const struct gpm_device_info *dev)
{
	return dev->graphics_version >= 1250 && dev->topology.max_slices == 1;
}

void gpm_device_vars_init(struct gpm_device_vars *vars,
			  const struct gpm_device_info *dev)
{
	const struct gpm_topology *t = &dev->topology;
	uint64_t *v = vars->value;
	/* The XML's subslice masks give each slice 3 bits before Gen11 and 8
	 * bits from Gen11 on (IGT and Mesa agree). */
	unsigned bits_per_slice = dev->graphics_version >= 1100 ? 8 : 3;
	bool regroup = flat_topology(dev);
	uint64_t slice_mask = 0, subslice_mask = 0;
	unsigned n_slices = 0, n_subslices = 0, first_half = 0;
	unsigned xe_core_stride = t->max_subslices < GPM_MAX_SUBSLICES ?
				  t->max_subslices : GPM_MAX_SUBSLICES;

	memset(vars, 0, sizeof(*vars));

	for (unsigned s = 0; s < GPM_MAX_SLICES && s < t->max_slices; s++) {
		if (!(t->slice_mask >> s & 1))
			continue;
		if (!regroup) {
			slice_mask |= 1ull << s;
			v[GPM_VAR_GT_SLICE_BASE + s] = 1;
		}
		for (unsigned ss = 0; ss < GPM_MAX_SUBSLICES; ss++) {
			if (!gpm_topology_has_subslice(t, s, ss))
				continue;
			/* The kernel's numbering, which $GtXeCore<N> counts
			 * in (Mesa's byte stride only works for one slice). */
			unsigned flat = s * xe_core_stride + ss;
			unsigned gs = regroup ? ss / XE_CORES_PER_SLICE : s;
			unsigned gss = regroup ? ss % XE_CORES_PER_SLICE : ss;
			unsigned bit = gs * bits_per_slice + gss;

			n_subslices++;
			if (s == 0 && ss < t->max_subslices / 2u)
				first_half++;
			v[GPM_VAR_GT_XE_CORE_BASE + flat] = 1;
			if (gs >= GPM_MAX_SLICES)
				continue;       /* beyond what the files name */
			slice_mask |= 1ull << gs;
			v[GPM_VAR_GT_SLICE_BASE + gs] = 1;
			v[GPM_VAR_GT_SLICE_SUBSLICE_BASE +
			  gs * GPM_MAX_SUBSLICES + gss] = 1;
			/* IGT shifts past bit 63 here (undefined); such
			 * subslices cannot be named by a 64-bit mask anyway. */
			if (bit < 64)
				subslice_mask |= 1ull << bit;
		}
	}
	n_slices = (unsigned)__builtin_popcountll(slice_mask);

	/* IGT popcounts the packed mask; counting the topology directly gives
	 * the same number without losing subslices the packing overlaps. */
	v[GPM_VAR_EU_CORES_TOTAL_COUNT] = gpm_topology_eu_count(t);
	v[GPM_VAR_EU_SLICES_TOTAL_COUNT] = n_slices;
	v[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT] = n_subslices;

	/* IGT counts the packed mask's bits below max_subslices / 2, i.e.
	 * the first half of slice 0; Mesa counts the subslices of slices 0-3,
	 * which on a flat Xe_HP topology of 32 is the same first half. No
	 * shipped file uses the variable. */
	v[GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT] = first_half;

	v[GPM_VAR_EU_THREADS_COUNT] = dev->eu_threads_count;
	/* IGT maps this one to the subslice count, which contradicts its
	 * name; the files mean EUs per Xe core. */
	v[GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT] =
		n_subslices ? v[GPM_VAR_EU_CORES_TOTAL_COUNT] / n_subslices : 0;

	v[GPM_VAR_SLICE_MASK] = slice_mask;
	v[GPM_VAR_SUBSLICE_MASK] = subslice_mask;
	/* IGT uses the slice mask; Mesa uses the subslice mask. The files
	 * test `$XeCoreMask 1 AND`, which both readings satisfy on a part
	 * with slice 0 / Xe core 0 present. */
	v[GPM_VAR_XE_CORE_MASK] = slice_mask;

	v[GPM_VAR_GPU_TIMESTAMP_FREQUENCY] = dev->timestamp_frequency;
	v[GPM_VAR_GPU_MIN_FREQUENCY] = dev->gpu_min_freq;
	v[GPM_VAR_GPU_MAX_FREQUENCY] = dev->gpu_max_freq;
	v[GPM_VAR_SKU_REVISION_ID] = dev->revision;
	/* The daemon streams from the OA buffer; query mode (MI_RPC
	 * begin/end snapshots) is never used. */
	v[GPM_VAR_QUERY_MODE] = 0;

	v[GPM_VAR_L3_BANK_TOTAL_COUNT] = dev->l3_bank_count;
	/* Mesa: an L3 node groups four banks. */
	v[GPM_VAR_L3_NODE_TOTAL_COUNT] = dev->l3_bank_count / 4;
	v[GPM_VAR_SQIDI_TOTAL_COUNT] = dev->sqidi_count;
	/* IGT's xe generator maps the engine counts to the EU count, which
	 * looks like a slip; Mesa uses the engine counts. */
	v[GPM_VAR_COMPUTE_ENGINE_TOTAL_COUNT] = dev->compute_engine_count;
	v[GPM_VAR_COPY_ENGINE_TOTAL_COUNT] = dev->copy_engine_count;
	v[GPM_VAR_GEOMETRY_PIPE_TOTAL_COUNT] = dev->geometry_pipe_count;
	v[GPM_VAR_DEPTH_PIPE_TOTAL_COUNT] = dev->depth_pipe_count;
	v[GPM_VAR_COLOR_PIPE_TOTAL_COUNT] = dev->color_pipe_count;
}

uint64_t gpm_device_cs_ticks(const struct gpm_device_info *dev, uint64_t ts)
{
	uint64_t cs = dev->cs_timestamp_frequency, oa = dev->timestamp_frequency;
	if (!cs || !oa || cs == oa)
		return ts;
	return (uint64_t)((unsigned __int128)ts * cs / oa);
}

uint64_t gpm_device_oa_ticks(const struct gpm_device_info *dev, uint64_t cs)
{
	uint64_t cs_hz = dev->cs_timestamp_frequency, oa = dev->timestamp_frequency;
	if (!cs_hz || !oa || cs_hz == oa)
		return cs;
	return (uint64_t)((unsigned __int128)cs * oa / cs_hz);
}
