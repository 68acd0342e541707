/*
 * --device SPEC parsing.
 */
#include <errno.h>

#include "daemon/device_spec.h"
#include "tests/unit/test_util.h"

START_TEST(parses_auto_and_sim)
{
	struct gpd_device_spec spec;
	const char *why;
	ck_assert_int_eq(gpd_device_spec_parse("auto", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_AUTO);
	gpd_device_spec_fini(&spec);

	ck_assert_int_eq(gpd_device_spec_parse("sim", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_SIM);
	ck_assert_ptr_null(spec.platform);
	gpd_device_spec_fini(&spec);

	ck_assert_int_eq(gpd_device_spec_parse("sim:tglgt2", &spec, &why), 0);
	ck_assert_str_eq(spec.platform, "tglgt2");
	ck_assert(spec.load == 1.0);
	gpd_device_spec_fini(&spec);

	/* A heavier workload of the same pattern. */
	ck_assert_int_eq(gpd_device_spec_parse("sim,load=1.2", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_SIM);
	ck_assert_ptr_null(spec.platform);
	ck_assert(spec.load == 1.2);
	gpd_device_spec_fini(&spec);
	ck_assert_int_eq(gpd_device_spec_parse("sim:tglgt2,load=0.5", &spec,
					       &why), 0);
	ck_assert_str_eq(spec.platform, "tglgt2");
	ck_assert(spec.load == 0.5);
	gpd_device_spec_fini(&spec);
}
END_TEST

START_TEST(parses_replay_options)
{
	struct gpd_device_spec spec;
	const char *why;
	ck_assert_int_eq(gpd_device_spec_parse("replay:/tmp/a.i915perf", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_REPLAY);
	ck_assert_str_eq(spec.path, "/tmp/a.i915perf");
	ck_assert(!spec.loop);
	ck_assert(spec.speed == 1.0);
	gpd_device_spec_fini(&spec);

	ck_assert_int_eq(gpd_device_spec_parse("replay:f,loop,speed=max", &spec, &why), 0);
	ck_assert_str_eq(spec.path, "f");
	ck_assert(spec.loop);
	ck_assert(spec.speed == 0);
	gpd_device_spec_fini(&spec);

	ck_assert_int_eq(gpd_device_spec_parse("replay:f,speed=2.5", &spec, &why), 0);
	ck_assert(spec.speed == 2.5);
	gpd_device_spec_fini(&spec);
}
END_TEST

START_TEST(rejects_bad_specs_with_words)
{
	static const char *const bad[] = {
		"", "gpu", "sim:", "replay", "replay:", "replay:f,speed=0",
		"replay:f,speed=-1", "replay:f,speed=x", "replay:f,fast",
		"i915", "xe:", "auto:1", "nvidia", "nvidia:", "nvidia:x",
		"nvidia:-1", "nvidia:1a", "nvidia:99999", "sim,load=0",
		"sim,load=11", "sim,load=x", "sim,heavy", "simx", "sim:,load=2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gpd_device_spec spec;
		const char *why = NULL;
		ck_assert_msg(gpd_device_spec_parse(bad[i], &spec, &why) == -EINVAL,
			      "accepted '%s'", bad[i]);
		ck_assert_msg(why && *why, "no reason for '%s'", bad[i]);
	}
}
END_TEST

START_TEST(parses_kernel_devices)
{
	struct gpd_device_spec spec;
	const char *why;
	ck_assert_int_eq(gpd_device_spec_parse("i915:/dev/dri/card1", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_I915);
	ck_assert_str_eq(spec.path, "/dev/dri/card1");
	gpd_device_spec_fini(&spec);
	ck_assert_int_eq(gpd_device_spec_parse("xe:/dev/dri/card0", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_XE);
	gpd_device_spec_fini(&spec);
	ck_assert_int_eq(gpd_device_spec_parse("nvidia:3", &spec, &why), 0);
	ck_assert_int_eq(spec.kind, GPD_SOURCE_NVIDIA);
	ck_assert_uint_eq(spec.index, 3);
	ck_assert_str_eq(gpd_source_kind_name(spec.kind), "nvidia");
	gpd_device_spec_fini(&spec);
}
END_TEST

static Suite *device_spec_suite(void)
{
	Suite *s = suite_create("device_spec");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, parses_auto_and_sim);
	tcase_add_test(tc, parses_replay_options);
	tcase_add_test(tc, rejects_bad_specs_with_words);
	tcase_add_test(tc, parses_kernel_devices);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(device_spec_suite)
