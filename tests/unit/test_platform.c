/*
 * The platform table and the PCI id lookup.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics_db.h"
#include "metrics/platform.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"

static const char *platform_of(uint32_t pci_id, unsigned eus)
{
	const struct gpm_platform *p = NULL;
	int ret = gpm_platform_by_pci_id(pci_id, eus, &p);
	ck_assert_msg(ret == 0, "0x%04x: %d", pci_id, ret);
	return p->name;
}

START_TEST(pci_ids)
{
	ck_assert_str_eq(platform_of(0x0412, 0), "hsw");
	ck_assert_str_eq(platform_of(0x1616, 0), "bdw");
	ck_assert_str_eq(platform_of(0x22b0, 0), "chv");
	ck_assert_str_eq(platform_of(0x1916, 0), "sklgt2");
	ck_assert_str_eq(platform_of(0x1926, 0), "sklgt3");
	ck_assert_str_eq(platform_of(0x193b, 0), "sklgt4");
	ck_assert_str_eq(platform_of(0x5916, 0), "kblgt2");
	ck_assert_str_eq(platform_of(0x87c0, 0), "kblgt2");   /* AML */
	ck_assert_str_eq(platform_of(0x5926, 0), "kblgt3");
	ck_assert_str_eq(platform_of(0x3e92, 0), "cflgt2");
	ck_assert_str_eq(platform_of(0x9bc4, 0), "cflgt2");   /* CML */
	ck_assert_str_eq(platform_of(0x3ea0, 0), "cflgt2");   /* WHL */
	ck_assert_str_eq(platform_of(0x3ea5, 0), "cflgt3");
	ck_assert_str_eq(platform_of(0x5a84, 0), "bxt");
	ck_assert_str_eq(platform_of(0x3185, 0), "glk");
	ck_assert_str_eq(platform_of(0x5a52, 0), "cnl");
	ck_assert_str_eq(platform_of(0x8a52, 0), "icl");
	ck_assert_str_eq(platform_of(0x4571, 0), "ehl");
	ck_assert_str_eq(platform_of(0x4e61, 0), "ehl");      /* JSL */
	ck_assert_str_eq(platform_of(0x9a60, 0), "tglgt1");
	ck_assert_str_eq(platform_of(0x9a49, 0), "tglgt2");
	ck_assert_str_eq(platform_of(0x4c8a, 0), "rkl");
	ck_assert_str_eq(platform_of(0x4905, 0), "dg1");
	ck_assert_str_eq(platform_of(0x46a6, 0), "adl");      /* ADL-P */
	ck_assert_str_eq(platform_of(0x4680, 0), "adl");      /* ADL-S */
	ck_assert_str_eq(platform_of(0xa7a0, 0), "adl");      /* RPL-P */
	ck_assert_str_eq(platform_of(0x56a0, 0), "acmgt3");   /* DG2-G10 */
	ck_assert_str_eq(platform_of(0x5693, 0), "acmgt1");   /* DG2-G11 */
	ck_assert_str_eq(platform_of(0x56a3, 0), "acmgt2");   /* DG2-G12 */
	ck_assert_str_eq(platform_of(0x0bd5, 0), "pvc");
	ck_assert_str_eq(platform_of(0x64a0, 0), "lnl");
	ck_assert_str_eq(platform_of(0xe20b, 0), "bmg");
	ck_assert_str_eq(platform_of(0xb080, 0), "ptl");
	ck_assert_str_eq(platform_of(GPM_SIM_PCI_ID, 0), "simgen12");

	/* MTL and ARL ids need the EU count: up to 64 is GT2. */
	const struct gpm_platform *p;
	ck_assert_int_eq(gpm_platform_by_pci_id(0x7d55, 0, &p), -ENODATA);
	ck_assert_str_eq(platform_of(0x7d55, 64), "mtlgt2");
	ck_assert_str_eq(platform_of(0x7d55, 128), "mtlgt3");
	ck_assert_str_eq(platform_of(0x7d45, 48), "mtlgt2");
	ck_assert_str_eq(platform_of(0x7d41, 128), "mtlgt3");  /* ARL */

	/* SKL GT1 has no metric file; 0x1234 is no GPU. */
	ck_assert_int_eq(gpm_platform_by_pci_id(0x1906, 0, &p), -ENOENT);
	ck_assert_int_eq(gpm_platform_by_pci_id(0x1234, 0, &p), -ENOENT);
}
END_TEST

/* Platforms with an Intel OA unit; NVIDIA's are found by chip name. */
static bool has_oa_unit(const struct gpm_platform *p)
{
	return p->i915_oa_format || p->xe_oa_format;
}

START_TEST(every_platform_default_id_maps_back)
{
	for (size_t i = 0; i < gpm_platform_count(); i++) {
		const struct gpm_platform *p = gpm_platform_get(i), *q = NULL;
		if (!has_oa_unit(p)) {
			ck_assert_int_eq(gpm_platform_by_pci_id(p->default_pci_id,
								0, &q), -ENOENT);
			continue;
		}
		unsigned eus = (unsigned)p->slices * p->subslices_per_slice *
			       p->eus_per_subslice;
		ck_assert_int_eq(gpm_platform_by_pci_id(p->default_pci_id, eus,
							&q), 0);
		ck_assert_ptr_eq(q, p);
	}
	ck_assert_ptr_null(gpm_platform_get(gpm_platform_count()));
}
END_TEST

START_TEST(table_facts)
{
	static const struct {
		const char *name;
		uint16_t version;
		uint8_t threads;
		uint8_t i915_format;
	} expected[] = {
		{ "hsw", 750, 7, 5 }, { "bdw", 800, 7, 10 }, { "chv", 800, 7, 10 },
		{ "sklgt2", 900, 7, 10 }, { "sklgt3", 900, 7, 10 },
		{ "sklgt4", 900, 7, 10 }, { "kblgt2", 900, 7, 10 },
		{ "kblgt3", 900, 7, 10 }, { "cflgt2", 900, 7, 10 },
		{ "cflgt3", 900, 7, 10 }, { "bxt", 900, 6, 10 },
		{ "glk", 900, 6, 10 }, { "cnl", 1000, 7, 10 },
		{ "icl", 1100, 7, 10 }, { "ehl", 1100, 7, 10 },
		{ "tglgt1", 1200, 7, 10 }, { "tglgt2", 1200, 7, 10 },
		{ "rkl", 1200, 7, 10 }, { "dg1", 1200, 7, 10 },
		{ "adl", 1200, 7, 10 }, { "acmgt1", 1255, 8, 12 },
		{ "acmgt2", 1255, 8, 12 }, { "acmgt3", 1255, 8, 12 },
		{ "mtlgt2", 1270, 8, 12 }, { "mtlgt3", 1270, 8, 12 },
		{ "pvc", 1260, 8, 0 }, { "lnl", 2004, 8, 0 },
		{ "bmg", 2001, 8, 0 }, { "ptl", 3000, 8, 0 },
		{ "simgen12", 1200, 7, 10 }, { "gh100", 0, 64, 0 },
		{ "amdgpu", 0, 0, 0 }, { "simamd", 0, 0, 0 },
	};

	ck_assert_uint_eq(gpm_platform_count(),
			  sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct gpm_platform *p =
			gpm_platform_by_name(expected[i].name);
		ck_assert_msg(p, "no platform %s", expected[i].name);
		ck_assert_uint_eq(p->graphics_version, expected[i].version);
		ck_assert_uint_eq(p->eu_threads_count, expected[i].threads);
		ck_assert_uint_eq(p->i915_oa_format, expected[i].i915_format);
		ck_assert_ptr_eq(gpm_platform_by_name(p->chipset), p);
		if (!has_oa_unit(p))
			continue;
		/* DG2 and MTL (Wa_18013179988) and PVC (Wa_14015568240):
		 * the OA unit ignores CTC_SHIFT and counts at twice the
		 * command streamer's clock with the usual shift. */
		bool unshifted = p->graphics_version == 1255 ||
				 p->graphics_version == 1260 ||
				 p->graphics_version == 1270;
		ck_assert_uint_eq(p->timestamp_frequency,
				  (unshifted ? 2 : 1) * p->cs_timestamp_frequency);
		ck_assert_uint_eq(p->oa_report_size,
				  p->graphics_version >= 2000 ? 576 : 256);
	}
	ck_assert_ptr_null(gpm_platform_by_name("nope"));
}
END_TEST

/* Every shipped metric file has its platform, and the names agree. */
static void check_dir(const char *rel)
{
	char dir[4096];
	struct gpm_metrics_db db;

	test_shared_path(dir, sizeof(dir), rel);
	gpm_metrics_db_init(&db);
	ck_assert_int_gt(gpm_metrics_db_add_dir(&db, dir), 0);
	for (size_t i = 0; i < db.n_files; i++) {
		const struct gpm_platform *p =
			gpm_platform_by_name(db.files[i]->platform);
		ck_assert_msg(p, "no platform for %s", db.files[i]->path);
		ck_assert_str_eq(p->chipset, db.files[i]->chipset);
	}
	gpm_metrics_db_fini(&db);
}

START_TEST(covers_the_shared_metric_files)
{
	check_dir("intel-metrics/i915");
	check_dir("intel-metrics/xe");
}
END_TEST

START_TEST(default_devices)
{
	struct gpm_device_info dev, sim;

	gpm_platform_default_device(gpm_platform_by_name("tglgt2"), &dev);
	ck_assert_uint_eq(dev.pci_id, 0x9a49);
	ck_assert_uint_eq(dev.graphics_version, 1200);
	ck_assert_uint_eq(gpm_topology_eu_count(&dev.topology), 96);
	ck_assert_uint_eq(dev.timestamp_frequency, 19200000);
	ck_assert_uint_eq(dev.gpu_max_freq, 1350000000ull);

	gpm_platform_default_device(gpm_platform_by_name("hsw"), &dev);
	ck_assert_uint_eq(dev.timestamp_frequency, 12500000);
	ck_assert_uint_eq(gpm_topology_eu_count(&dev.topology), 20);

	/* The sim platform describes exactly the sim source's GPU. */
	gpm_platform_default_device(gpm_platform_by_name("simgen12"), &dev);
	gpm_sim_device_info(&sim);
	ck_assert_int_eq(memcmp(&dev, &sim, sizeof(dev)), 0);
}
END_TEST

static Suite *platform_suite(void)
{
	Suite *s = suite_create("platform");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, pci_ids);
	tcase_add_test(tc, every_platform_default_id_maps_back);
	tcase_add_test(tc, table_facts);
	tcase_add_test(tc, covers_the_shared_metric_files);
	tcase_add_test(tc, default_devices);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(platform_suite)
