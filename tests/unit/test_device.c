/*
 * Device variables: names and aliases, the parametrised availability
 * variables, and the values derived from a topology.
 */
#include <errno.h>
#include <string.h>

#include "metrics/device.h"
#include "tests/unit/test_gpus.h"
#include "tests/unit/test_util.h"

static int lookup(const char *name)
{
	return gpm_var_lookup(name, strlen(name));
}

/* slices x subslices, each subslice with eus EUs enabled. */
static void make_device(struct gpm_device_info *dev, uint16_t version,
			unsigned slices, unsigned subslices, unsigned eus)
{
	memset(dev, 0, sizeof(*dev));
	dev->graphics_version = version;
	dev->eu_threads_count = 7;
	dev->timestamp_frequency = 19200000;
	dev->gpu_min_freq = 300000000;
	dev->gpu_max_freq = 1500000000;
	dev->revision = 3;
	make_full_topology(&dev->topology, slices, subslices, eus);
}

START_TEST(fixed_names_and_aliases)
{
	ck_assert_int_eq(lookup("EuCoresTotalCount"), GPM_VAR_EU_CORES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("VectorEngineTotalCount"), GPM_VAR_EU_CORES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("EuSlicesTotalCount"), GPM_VAR_EU_SLICES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("SliceTotalCount"), GPM_VAR_EU_SLICES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("EuSubslicesTotalCount"), GPM_VAR_EU_SUBSLICES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("EuDualSubslicesTotalCount"), GPM_VAR_EU_SUBSLICES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("XeCoreTotalCount"), GPM_VAR_EU_SUBSLICES_TOTAL_COUNT);
	ck_assert_int_eq(lookup("EuDualSubslicesSlice0123Count"),
			 GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT);
	ck_assert_int_eq(lookup("EuThreadsCount"), GPM_VAR_EU_THREADS_COUNT);
	ck_assert_int_eq(lookup("VectorEngineThreadsCount"), GPM_VAR_EU_THREADS_COUNT);
	ck_assert_int_eq(lookup("VectorEnginePerXeCoreCount"),
			 GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT);
	ck_assert_int_eq(lookup("SliceMask"), GPM_VAR_SLICE_MASK);
	ck_assert_int_eq(lookup("GtSliceMask"), GPM_VAR_SLICE_MASK);
	ck_assert_int_eq(lookup("SubsliceMask"), GPM_VAR_SUBSLICE_MASK);
	ck_assert_int_eq(lookup("DualSubsliceMask"), GPM_VAR_SUBSLICE_MASK);
	ck_assert_int_eq(lookup("GtSubsliceMask"), GPM_VAR_SUBSLICE_MASK);
	ck_assert_int_eq(lookup("GtDualSubsliceMask"), GPM_VAR_SUBSLICE_MASK);
	ck_assert_int_eq(lookup("XeCoreMask"), GPM_VAR_XE_CORE_MASK);
	ck_assert_int_eq(lookup("GtXeCoreMask"), GPM_VAR_XE_CORE_MASK);
	ck_assert_int_eq(lookup("GpuTimestampFrequency"), GPM_VAR_GPU_TIMESTAMP_FREQUENCY);
	ck_assert_int_eq(lookup("GpuMinFrequency"), GPM_VAR_GPU_MIN_FREQUENCY);
	ck_assert_int_eq(lookup("GpuMaxFrequency"), GPM_VAR_GPU_MAX_FREQUENCY);
	ck_assert_int_eq(lookup("SkuRevisionId"), GPM_VAR_SKU_REVISION_ID);
	ck_assert_int_eq(lookup("QueryMode"), GPM_VAR_QUERY_MODE);
	ck_assert_int_eq(lookup("L3BankTotalCount"), GPM_VAR_L3_BANK_TOTAL_COUNT);
	ck_assert_int_eq(lookup("L3NodeTotalCount"), GPM_VAR_L3_NODE_TOTAL_COUNT);
	ck_assert_int_eq(lookup("SqidiTotalCount"), GPM_VAR_SQIDI_TOTAL_COUNT);
	ck_assert_int_eq(lookup("ComputeEngineTotalCount"),
			 GPM_VAR_COMPUTE_ENGINE_TOTAL_COUNT);
	ck_assert_int_eq(lookup("CopyEngineTotalCount"), GPM_VAR_COPY_ENGINE_TOTAL_COUNT);
	ck_assert_int_eq(lookup("GeometryPipeTotalCount"),
			 GPM_VAR_GEOMETRY_PIPE_TOTAL_COUNT);
	ck_assert_int_eq(lookup("DepthPipeTotalCount"), GPM_VAR_DEPTH_PIPE_TOTAL_COUNT);
	ck_assert_int_eq(lookup("ColorPipeTotalCount"), GPM_VAR_COLOR_PIPE_TOTAL_COUNT);
}
END_TEST

START_TEST(lookup_is_exact)
{
	/* Case-sensitive, no prefixes or extensions, length-bounded. */
	ck_assert_int_eq(lookup("eucorestotalcount"), -ENOENT);
	ck_assert_int_eq(lookup("EuCoresTotalCoun"), -ENOENT);
	ck_assert_int_eq(lookup("EuCoresTotalCountX"), -ENOENT);
	ck_assert_int_eq(lookup(""), -ENOENT);
	ck_assert_int_eq(lookup("GpuTime"), -ENOENT);
	ck_assert_int_eq(lookup("Self"), -ENOENT);
	/* The name need not be NUL-terminated. */
	ck_assert_int_eq(gpm_var_lookup("SliceMaskAND", 9), GPM_VAR_SLICE_MASK);
	ck_assert_int_eq(gpm_var_lookup("GtSlice12", 8), GPM_VAR_GT_SLICE_BASE + 1);
}
END_TEST

START_TEST(parametrised_names)
{
	ck_assert_int_eq(lookup("GtSlice0"), GPM_VAR_GT_SLICE_BASE);
	ck_assert_int_eq(lookup("GtSlice7"), GPM_VAR_GT_SLICE_BASE + 7);
	ck_assert_int_eq(lookup("GtSlice1XeCore3"),
			 GPM_VAR_GT_SLICE_SUBSLICE_BASE + 1 * GPM_MAX_SUBSLICES + 3);
	ck_assert_int_eq(lookup("GtSlice2DualSubslice5"),
			 GPM_VAR_GT_SLICE_SUBSLICE_BASE + 2 * GPM_MAX_SUBSLICES + 5);
	ck_assert_int_eq(lookup("GtSlice7XeCore63"),
			 GPM_VAR_GT_SLICE_SUBSLICE_BASE + 7 * GPM_MAX_SUBSLICES + 63);
	ck_assert_int_eq(lookup("GtXeCore0"), GPM_VAR_GT_XE_CORE_BASE);
	ck_assert_int_eq(lookup("GtXeCore27"), GPM_VAR_GT_XE_CORE_BASE + 27);
	ck_assert_int_eq(lookup("GtXeCore511"), GPM_VAR_COUNT - 1);
	ck_assert_int_eq(lookup("GtSlice01"), GPM_VAR_GT_SLICE_BASE + 1);

	ck_assert_int_eq(lookup("GtSlice8"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice0XeCore64"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice0DualSubslice64"), -ENOENT);
	ck_assert_int_eq(lookup("GtXeCore512"), -ENOENT);
	ck_assert_int_eq(lookup("GtXeCore99999999999999999999"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice0XeCore"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice0Subslice1"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice0XeCore1x"), -ENOENT);
	ck_assert_int_eq(lookup("GtSlice-1"), -ENOENT);
	ck_assert_int_eq(lookup("GtXeCore"), -ENOENT);
	ck_assert_int_eq(lookup("gtslice0"), -ENOENT);
}
END_TEST

START_TEST(every_index_in_range)
{
	/* Every name lookup can return must index gpm_device_vars. */
	const char *names[] = { "GtSlice7", "GtSlice7XeCore63", "GtXeCore511",
				"ColorPipeTotalCount" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int v = lookup(names[i]);
		ck_assert_int_ge(v, 0);
		ck_assert_int_lt(v, GPM_VAR_COUNT);
	}
}
END_TEST

START_TEST(gen9_packs_three_bits_per_slice)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;

	/* SKL GT3: 2 slices x 3 subslices x 8 EUs. */
	make_device(&dev, 900, 2, 3, 8);
	dev.topology.subslice_mask[1] = 0x5;    /* slice 1, subslice 1 fused */
	dev.topology.eu_mask[0][0] = 0x7f;      /* one EU fused */
	gpm_device_vars_init(&vars, &dev);

	ck_assert_uint_eq(vars.value[GPM_VAR_SLICE_MASK], 0x3);
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x7 | 0x5 << 3);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SLICES_TOTAL_COUNT], 2);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT], 5);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_CORES_TOTAL_COUNT], 39);
	ck_assert_uint_eq(vars.value[GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT], 7);
	ck_assert_uint_eq(vars.value[GPM_VAR_XE_CORE_MASK], 0x3);
	/* IGT: packed-mask bits below max_subslices / 2 = 1. */
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT], 1);

	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_BASE + 0], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_BASE + 1], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_BASE + 2], 0);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_SUBSLICE_BASE +
				     1 * GPM_MAX_SUBSLICES + 0], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_SUBSLICE_BASE +
				     1 * GPM_MAX_SUBSLICES + 1], 0);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_SLICE_SUBSLICE_BASE +
				     1 * GPM_MAX_SUBSLICES + 2], 1);
	/* Flat Xe core numbering: slice 1's subslices are 3, 4, 5. */
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 3], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 4], 0);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 5], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 6], 0);
}
END_TEST

START_TEST(gen11_packs_eight_bits_per_slice)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;

	make_device(&dev, 1100, 2, 4, 8);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x0f0f);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT], 8);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_CORES_TOTAL_COUNT], 64);

	/* 1099 is still the 3-bit packing of Gen10 and before. */
	make_device(&dev, 1099, 2, 3, 8);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x3f);
	make_device(&dev, 1100, 2, 3, 8);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x0707);
}
END_TEST

START_TEST(device_values_pass_through)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;

	/* DG2 as i915 reports it: one slice of 32 Xe cores with 16 EUs,
	 * 8 threads. */
	make_device(&dev, 1255, 1, 32, 16);
	dev.eu_threads_count = 8;
	dev.l3_bank_count = 64;
	dev.sqidi_count = 2;
	dev.compute_engine_count = 4;
	dev.copy_engine_count = 1;
	dev.geometry_pipe_count = 8;
	dev.depth_pipe_count = 16;
	dev.color_pipe_count = 32;
	gpm_device_vars_init(&vars, &dev);

	ck_assert_uint_eq(vars.value[GPM_VAR_EU_CORES_TOTAL_COUNT], 512);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT], 32);
	/* ... which the files count as 8 slices of 4 (see below). */
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x0f0f0f0f0f0f0f0full);
	ck_assert_uint_eq(vars.value[GPM_VAR_SLICE_MASK], 0xff);
	ck_assert_uint_eq(vars.value[GPM_VAR_VECTOR_ENGINE_PER_XE_CORE_COUNT], 16);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_DUAL_SUBSLICES_SLICE0123_COUNT], 16);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_THREADS_COUNT], 8);
	ck_assert_uint_eq(vars.value[GPM_VAR_GPU_TIMESTAMP_FREQUENCY], 19200000);
	ck_assert_uint_eq(vars.value[GPM_VAR_GPU_MIN_FREQUENCY], 300000000);
	ck_assert_uint_eq(vars.value[GPM_VAR_GPU_MAX_FREQUENCY], 1500000000);
	ck_assert_uint_eq(vars.value[GPM_VAR_SKU_REVISION_ID], 3);
	ck_assert_uint_eq(vars.value[GPM_VAR_QUERY_MODE], 0);
	ck_assert_uint_eq(vars.value[GPM_VAR_L3_BANK_TOTAL_COUNT], 64);
	ck_assert_uint_eq(vars.value[GPM_VAR_L3_NODE_TOTAL_COUNT], 16);
	ck_assert_uint_eq(vars.value[GPM_VAR_SQIDI_TOTAL_COUNT], 2);
	ck_assert_uint_eq(vars.value[GPM_VAR_COMPUTE_ENGINE_TOTAL_COUNT], 4);
	ck_assert_uint_eq(vars.value[GPM_VAR_COPY_ENGINE_TOTAL_COUNT], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GEOMETRY_PIPE_TOTAL_COUNT], 8);
	ck_assert_uint_eq(vars.value[GPM_VAR_DEPTH_PIPE_TOTAL_COUNT], 16);
	ck_assert_uint_eq(vars.value[GPM_VAR_COLOR_PIPE_TOTAL_COUNT], 32);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 31], 1);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE + 32], 0);
}
END_TEST

/* Xe_HP and later: i915 reports one slice of all dual-subslices
 * (xehp_sseu_info_init()), xe a flat mask; the files count slices of four
 * Xe cores, as Mesa regroups them. DG2-G11's eight Xe cores, PVC's
 * compute-only 64 and an Xe2 part with fused Xe cores all name theirs by
 * slice and by the kernel's flat number alike. */
START_TEST(xe_hp_topologies_regroup_into_slices_of_four)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	uint64_t *v = vars.value;
#define XE_CORE(s, ss) v[GPM_VAR_GT_SLICE_SUBSLICE_BASE + (s) * GPM_MAX_SUBSLICES + (ss)]

	/* DG2-G11 (acmgt1): DSS 0-3 and 8-11 present, 4-7 fused. */
	make_device(&dev, 1255, 1, 32, 16);
	dev.topology.subslice_mask[0] = 0x0f0f;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(v[GPM_VAR_SLICE_MASK], 0x5);
	ck_assert_uint_eq(v[GPM_VAR_EU_SLICES_TOTAL_COUNT], 2);
	ck_assert_uint_eq(v[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT], 8);
	ck_assert_uint_eq(v[GPM_VAR_EU_CORES_TOTAL_COUNT], 128);
	ck_assert_uint_eq(v[GPM_VAR_GT_SLICE_BASE + 0], 1);
	ck_assert_uint_eq(v[GPM_VAR_GT_SLICE_BASE + 1], 0);
	ck_assert_uint_eq(v[GPM_VAR_GT_SLICE_BASE + 2], 1);
	/* oa-acmgt1.xml gates counters on $GtSlice2XeCore0: DSS 8. */
	ck_assert_uint_eq(XE_CORE(2, 0), 1);
	ck_assert_uint_eq(XE_CORE(2, 3), 1);
	ck_assert_uint_eq(XE_CORE(0, 8), 0);
	ck_assert_uint_eq(XE_CORE(1, 0), 0);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 8], 1);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 4], 0);
	ck_assert_uint_eq(v[GPM_VAR_SUBSLICE_MASK], 0x0f000full);

	/* MTL GT3 (mtlgt3): 8 Xe cores, files gate on $GtSlice1XeCore3. */
	make_device(&dev, 1270, 1, 32, 16);
	dev.topology.subslice_mask[0] = 0xff;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(v[GPM_VAR_SLICE_MASK], 0x3);
	ck_assert_uint_eq(XE_CORE(1, 3), 1);
	ck_assert_uint_eq(XE_CORE(0, 7), 0);

	/* PVC: 64 compute-only DSS of 8 EUs; the files name slices up to 7
	 * only, but every Xe core counts and keeps its flat number. */
	make_device(&dev, 1260, 1, 64, 8);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(v[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT], 64);
	ck_assert_uint_eq(v[GPM_VAR_EU_CORES_TOTAL_COUNT], 512);
	ck_assert_uint_eq(v[GPM_VAR_SLICE_MASK], 0xff);
	ck_assert_uint_eq(XE_CORE(7, 3), 1);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 63], 1);

	/* Xe2 (bmg) as xe reports it, Xe core 5 fused: $GtXeCore<N>. */
	make_device(&dev, 2001, 1, 20, 8);
	dev.topology.subslice_mask[0] = 0xfffdf;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 4], 1);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 5], 0);
	ck_assert_uint_eq(v[GPM_VAR_GT_XE_CORE_BASE + 19], 1);
	ck_assert_uint_eq(v[GPM_VAR_EU_SLICES_TOTAL_COUNT], 5);
	ck_assert_uint_eq(XE_CORE(1, 1), 0);
	ck_assert_uint_eq(XE_CORE(1, 2), 1);

	/* Before Xe_HP one slice is one slice: TGL's six stay together. */
	make_device(&dev, 1200, 1, 6, 16);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(v[GPM_VAR_SLICE_MASK], 0x1);
	ck_assert_uint_eq(XE_CORE(0, 5), 1);
#undef XE_CORE
}
END_TEST

START_TEST(topology_helpers)
{
	struct gpm_device_info dev;
	struct gpm_topology *t = &dev.topology;

	make_device(&dev, 1200, 1, 6, 16);
	t->subslice_mask[0] = 0x3d;             /* subslice 1 fused */
	t->eu_mask[0][2] = 0x00ff;
	ck_assert(gpm_topology_has_subslice(t, 0, 0));
	ck_assert(!gpm_topology_has_subslice(t, 0, 1));
	ck_assert(gpm_topology_has_subslice(t, 0, 5));
	ck_assert(!gpm_topology_has_subslice(t, 0, 6));
	ck_assert(!gpm_topology_has_subslice(t, 1, 0));
	ck_assert(!gpm_topology_has_subslice(t, GPM_MAX_SLICES, 0));
	ck_assert(!gpm_topology_has_subslice(t, 0, GPM_MAX_SUBSLICES));
	ck_assert_uint_eq(gpm_topology_eu_count(t), 4 * 16 + 8);

	/* EU bits beyond max_eus_per_subslice do not count. */
	t->max_eus_per_subslice = 8;
	ck_assert_uint_eq(gpm_topology_eu_count(t), 5 * 8);

	/* Bits beyond max_slices / max_subslices are ignored. */
	t->slice_mask = 0xff;
	t->subslice_mask[0] = ~0ull;
	ck_assert_uint_eq(gpm_topology_eu_count(t), 6 * 8);
}
END_TEST

START_TEST(oversized_topology_is_safe)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;

	/* Claims beyond the struct's arrays must not index past them. */
	memset(&dev, 0xff, sizeof(dev));
	dev.graphics_version = 1200;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SLICES_TOTAL_COUNT], GPM_MAX_SLICES);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_SUBSLICES_TOTAL_COUNT],
			  GPM_MAX_SLICES * GPM_MAX_SUBSLICES);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_CORES_TOTAL_COUNT],
			  GPM_MAX_SLICES * GPM_MAX_SUBSLICES *
			  GPM_MAX_EUS_PER_SUBSLICE);
	ck_assert_uint_eq(vars.value[GPM_VAR_GT_XE_CORE_BASE +
				     GPM_MAX_SLICES * GPM_MAX_SUBSLICES - 1], 1);
}
END_TEST

static Suite *device_suite(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("variables");

	tcase_add_test(tc, fixed_names_and_aliases);
	tcase_add_test(tc, lookup_is_exact);
	tcase_add_test(tc, parametrised_names);
	tcase_add_test(tc, every_index_in_range);
	tcase_add_test(tc, gen9_packs_three_bits_per_slice);
	tcase_add_test(tc, gen11_packs_eight_bits_per_slice);
	tcase_add_test(tc, device_values_pass_through);
	tcase_add_test(tc, xe_hp_topologies_regroup_into_slices_of_four);
	tcase_add_test(tc, topology_helpers);
	tcase_add_test(tc, oversized_topology_is_safe);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(device_suite)
