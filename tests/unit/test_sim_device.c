/*
 * The description of the sim source's virtual GPU (metrics/sim_device.c)
 * against metrics/sim/README.md, and the equation variables it yields.
 */
#include <string.h>

#include "metrics/device.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"

START_TEST(test_identity_and_clocks)
{
	struct gpm_device_info dev;

	memset(&dev, 0xa5, sizeof(dev));
	gpm_sim_device_info(&dev);
	ck_assert_uint_eq(dev.pci_id, 0x5f00);
	ck_assert_uint_eq(dev.revision, 0);
	ck_assert_uint_eq(dev.graphics_version, 1200);
	ck_assert_uint_eq(dev.eu_threads_count, 7);
	ck_assert_uint_eq(dev.timestamp_frequency, 19200000);
	ck_assert_uint_eq(dev.gpu_min_freq, 300000000);
	ck_assert_uint_eq(dev.gpu_max_freq, 1300000000);
	ck_assert_uint_eq(dev.l3_bank_count, 8);
	ck_assert_uint_eq(dev.sqidi_count, 0);
	ck_assert_uint_eq(dev.color_pipe_count, 0);
}
END_TEST

START_TEST(test_topology)
{
	struct gpm_device_info dev;
	const struct gpm_topology *t = &dev.topology;

	gpm_sim_device_info(&dev);
	ck_assert_uint_eq(t->max_slices, 1);
	ck_assert_uint_eq(t->max_subslices, 6);
	ck_assert_uint_eq(t->max_eus_per_subslice, 16);
	ck_assert_uint_eq(t->slice_mask, 0x1);
	ck_assert_uint_eq(t->subslice_mask[0], 0x3f);
	for (unsigned s = 1; s < GPM_MAX_SLICES; s++)
		ck_assert_uint_eq(t->subslice_mask[s], 0);
	for (unsigned ss = 0; ss < 6; ss++) {
		ck_assert(gpm_topology_has_subslice(t, 0, ss));
		ck_assert_uint_eq(t->eu_mask[0][ss], 0xffff);
	}
	ck_assert(!gpm_topology_has_subslice(t, 0, 6));
	ck_assert(!gpm_topology_has_subslice(t, 1, 0));
	ck_assert_uint_eq(gpm_topology_eu_count(t), 96);
}
END_TEST

static uint64_t var(const struct gpm_device_vars *vars, const char *name)
{
	int idx = gpm_var_lookup(name, strlen(name));

	ck_assert_int_ge(idx, 0);
	return vars->value[idx];
}

/* The variables the sim metric sets use, as the equations see them. */
START_TEST(test_equation_variables)
{
	struct gpm_device_info dev;
	struct gpm_device_vars vars;

	gpm_sim_device_info(&dev);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(var(&vars, "EuCoresTotalCount"), 96);
	ck_assert_uint_eq(var(&vars, "EuSlicesTotalCount"), 1);
	ck_assert_uint_eq(var(&vars, "EuDualSubslicesTotalCount"), 6);
	ck_assert_uint_eq(var(&vars, "EuThreadsCount"), 7);
	ck_assert_uint_eq(var(&vars, "SliceMask"), 0x1);
	ck_assert_uint_eq(var(&vars, "SubsliceMask"), 0x3f);
	ck_assert_uint_eq(var(&vars, "GpuTimestampFrequency"), 19200000);
	ck_assert_uint_eq(var(&vars, "GpuMinFrequency"), 300000000);
	ck_assert_uint_eq(var(&vars, "GpuMaxFrequency"), 1300000000);
	ck_assert_uint_eq(var(&vars, "L3BankTotalCount"), 8);
}
END_TEST

static Suite *sim_device_suite(void)
{
	Suite *s = suite_create("sim_device");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_identity_and_clocks);
	tcase_add_test(tc, test_topology);
	tcase_add_test(tc, test_equation_variables);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(sim_device_suite)
