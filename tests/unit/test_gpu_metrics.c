/*
 * amdgpu's gpu_metrics tables decoded (daemon/host/gpu_metrics.c): every
 * version the decoder knows, written through the kernel's layouts
 * (gpu_metrics_tables.h), each field where the compiler puts it; unknown
 * versions and tables cut short refused with words; unfilled fields
 * (all ones) unknown.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "daemon/host/gpu_metrics.h"
#include "tests/unit/gpu_metrics_tables.h"
#include "tests/unit/test_util.h"

static struct gpd_gpu_metrics decoded(const void *table, size_t len)
{
	struct gpd_gpu_metrics m;
	char why[256];
	int ret = gpd_gpu_metrics_decode(table, len, &m, why, sizeof(why));
	ck_assert_msg(ret == 0, "decode: %d (%s)", ret, why);
	return m;
}

#define CK_NEAR(a, b) ck_assert_double_eq_tol((a), (b), 1e-9)

/* v1.0-v1.3: %, degrees C, W, MHz; no energy unit. */
#define FILL_V1(t) do { \
	(t).temperature_edge = 61; \
	(t).temperature_hotspot = 75; \
	(t).gfx_activity = 40; \
	(t).umc_activity = 15; \
	(t).mm_activity = 5; \
	(t).socket_power = 180; \
	(t).average_gfxclk = 2100; \
	(t).average_uclk = 1000; \
} while (0)

static void check_v1(const struct gpd_gpu_metrics *m, unsigned content)
{
	ck_assert_uint_eq(m->format_revision, 1);
	ck_assert_uint_eq(m->content_revision, content);
	CK_NEAR(m->gfx_activity, 0.40);
	CK_NEAR(m->memory_activity, 0.15);
	ck_assert_uint_eq(m->n_media, 1);
	CK_NEAR(m->media_activity[0], 0.05);
	CK_NEAR(m->temperature_c, 61);
	CK_NEAR(m->power_w, 180);
	CK_NEAR(m->gfx_clock_mhz, 2100);
	CK_NEAR(m->memory_clock_mhz, 1000);
	ck_assert(!(m->have & GPD_GPU_METRICS_ENERGY));
}

START_TEST(test_v1_0_to_v1_3)
{
	struct gm_v1_0 t0;
	gpu_metrics_table_init(&t0, 1, 0);
	FILL_V1(t0);
	t0.energy_accumulator = 12345;
	struct gpd_gpu_metrics m = decoded(&t0, sizeof(t0));
	check_v1(&m, 0);
	struct gm_v1_1 t1;
	gpu_metrics_table_init(&t1, 1, 1);
	FILL_V1(t1);
	m = decoded(&t1, sizeof(t1));
	check_v1(&m, 1);
	struct gm_v1_2 t2;
	gpu_metrics_table_init(&t2, 1, 2);
	FILL_V1(t2);
	m = decoded(&t2, sizeof(t2));
	check_v1(&m, 2);
	struct gm_v1_3 t3;
	gpu_metrics_table_init(&t3, 1, 3);
	FILL_V1(t3);
	m = decoded(&t3, sizeof(t3));
	check_v1(&m, 3);
}
END_TEST

/* v1.4-v1.6: hotspot, current power, four VCNs, energy in 2^-16 J. */
#define FILL_V1_4(t) do { \
	(t).temperature_hotspot = 82; \
	(t).socket_power = 550; \
	(t).gfx_activity = 100; \
	(t).umc_activity = 30; \
	(t).vcn_activity[0] = 10; \
	(t).vcn_activity[1] = 20; \
	(t).vcn_activity[2] = 30; \
	(t).energy_accumulator = 3ull << 16; \
	(t).current_gfxclk[0] = 1900; \
	(t).current_uclk = 1300; \
} while (0)

static void check_v1_4(const struct gpd_gpu_metrics *m, unsigned content)
{
	ck_assert_uint_eq(m->content_revision, content);
	CK_NEAR(m->gfx_activity, 1.0);
	CK_NEAR(m->memory_activity, 0.30);
	ck_assert_uint_eq(m->n_media, 4);
	CK_NEAR(m->media_activity[0], 0.10);
	CK_NEAR(m->media_activity[1], 0.20);
	CK_NEAR(m->media_activity[2], 0.30);
	/* The fourth VCN left unfilled. */
	ck_assert(isnan(m->media_activity[3]));
	CK_NEAR(m->temperature_c, 82);
	CK_NEAR(m->power_w, 550);
	ck_assert(m->have & GPD_GPU_METRICS_ENERGY);
	CK_NEAR((double)m->energy_count * m->energy_unit_j, 3.0);
	CK_NEAR(m->gfx_clock_mhz, 1900);
	CK_NEAR(m->memory_clock_mhz, 1300);
}

START_TEST(test_v1_4_to_v1_6)
{
	struct gm_v1_4 t4;
	gpu_metrics_table_init(&t4, 1, 4);
	FILL_V1_4(t4);
	struct gpd_gpu_metrics m = decoded(&t4, sizeof(t4));
	check_v1_4(&m, 4);
	struct gm_v1_5 t5;
	gpu_metrics_table_init(&t5, 1, 5);
	FILL_V1_4(t5);
	m = decoded(&t5, sizeof(t5));
	check_v1_4(&m, 5);
	struct gm_v1_6 t6;
	gpu_metrics_table_init(&t6, 1, 6);
	FILL_V1_4(t6);
	m = decoded(&t6, sizeof(t6));
	check_v1_4(&m, 6);
}
END_TEST

/* v2.x: 1/100 %, 1/100 degree, mW. */
#define FILL_V2(t) do { \
	(t).temperature_gfx = 4550; \
	(t).gfx_activity = 2500; \
	(t).mm_activity = 1000; \
	(t).socket_power = 15000; \
	(t).average_gfxclk = 1600; \
	(t).average_uclk = 800; \
} while (0)

static void check_v2(const struct gpd_gpu_metrics *m, unsigned content)
{
	ck_assert_uint_eq(m->format_revision, 2);
	ck_assert_uint_eq(m->content_revision, content);
	CK_NEAR(m->gfx_activity, 0.25);
	ck_assert(!(m->have & GPD_GPU_METRICS_MEMORY_ACTIVITY));
	CK_NEAR(m->media_activity[0], 0.10);
	CK_NEAR(m->temperature_c, 45.5);
	CK_NEAR(m->power_w, 15);
	CK_NEAR(m->gfx_clock_mhz, 1600);
	CK_NEAR(m->memory_clock_mhz, 800);
}

START_TEST(test_v2_0_to_v2_4)
{
	struct gm_v2_0 t0;
	gpu_metrics_table_init(&t0, 2, 0);
	FILL_V2(t0);
	struct gpd_gpu_metrics m = decoded(&t0, sizeof(t0));
	check_v2(&m, 0);
	struct gm_v2_1 t1;
	gpu_metrics_table_init(&t1, 2, 1);
	FILL_V2(t1);
	m = decoded(&t1, sizeof(t1));
	check_v2(&m, 1);
	struct gm_v2_2 t2;
	gpu_metrics_table_init(&t2, 2, 2);
	FILL_V2(t2);
	m = decoded(&t2, sizeof(t2));
	check_v2(&m, 2);
	struct gm_v2_3 t3;
	gpu_metrics_table_init(&t3, 2, 3);
	FILL_V2(t3);
	m = decoded(&t3, sizeof(t3));
	check_v2(&m, 3);
	struct gm_v2_4 t4;
	gpu_metrics_table_init(&t4, 2, 4);
	FILL_V2(t4);
	m = decoded(&t4, sizeof(t4));
	check_v2(&m, 4);
}
END_TEST

START_TEST(test_v3_0)
{
	struct gm_v3_0 t;
	gpu_metrics_table_init(&t, 3, 0);
	t.temperature_gfx = 5025;
	t.gfx_activity = 60;
	t.vcn_activity = 12;
	t.socket_power = 70000;         /* 32 bits: 70 W does not fit in 16 */
	t.average_gfxclk = 2700;
	t.average_uclk = 2800;
	struct gpd_gpu_metrics m = decoded(&t, sizeof(t));
	CK_NEAR(m.gfx_activity, 0.60);
	CK_NEAR(m.media_activity[0], 0.12);
	CK_NEAR(m.temperature_c, 50.25);
	CK_NEAR(m.power_w, 70);
	CK_NEAR(m.gfx_clock_mhz, 2700);
	CK_NEAR(m.memory_clock_mhz, 2800);
}
END_TEST

START_TEST(test_unfilled_fields_are_unknown)
{
	struct gm_v1_1 t;
	gpu_metrics_table_init(&t, 1, 1);
	t.gfx_activity = 7;
	struct gpd_gpu_metrics m = decoded(&t, sizeof(t));
	ck_assert_uint_eq(m.have, GPD_GPU_METRICS_GFX_ACTIVITY);
	ck_assert(isnan(m.media_activity[0]));
}
END_TEST

START_TEST(test_activity_over_all_is_cut)
{
	struct gm_v1_1 t;
	gpu_metrics_table_init(&t, 1, 1);
	t.gfx_activity = 300;
	struct gpd_gpu_metrics m = decoded(&t, sizeof(t));
	CK_NEAR(m.gfx_activity, 1.0);
}
END_TEST

START_TEST(test_unknown_versions_refused)
{
	static const uint8_t versions[][2] = {
		{ 1, 7 }, { 2, 5 }, { 3, 1 }, { 4, 0 }, { 0, 0 },
	};
	uint8_t table[512];
	struct gpd_gpu_metrics m;
	char why[256];
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		memset(table, 0, sizeof(table));
		table[0] = sizeof(table) & 0xff;
		table[1] = sizeof(table) >> 8;
		table[2] = versions[i][0];
		table[3] = versions[i][1];
		ck_assert_int_eq(gpd_gpu_metrics_decode(table, sizeof(table), &m,
							why, sizeof(why)),
				 -EPROTONOSUPPORT);
		char version[16];
		snprintf(version, sizeof(version), "version %u.%u", versions[i][0],
			 versions[i][1]);
		ck_assert_msg(strstr(why, version), "%s", why);
		ck_assert_ptr_nonnull(strstr(why, "does not know"));
		ck_assert_uint_eq(m.have, 0);
	}
}
END_TEST

START_TEST(test_truncated_refused)
{
	struct gm_v1_4 t;
	gpu_metrics_table_init(&t, 1, 4);
	FILL_V1_4(t);
	struct gpd_gpu_metrics m;
	char why[256];
	/* Fewer bytes than the version has. */
	ck_assert_int_eq(gpd_gpu_metrics_decode(&t, sizeof(t) - 1, &m, why,
						sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "cut short"));
	/* A header that says less than the version has. */
	t.h.structure_size = 200;
	ck_assert_int_eq(gpd_gpu_metrics_decode(&t, sizeof(t), &m, why,
						sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "the header says 200"));
	/* Not even a header. */
	ck_assert_int_eq(gpd_gpu_metrics_decode(&t, 3, &m, why, sizeof(why)),
			 -EBADMSG);
	ck_assert_int_eq(gpd_gpu_metrics_decode(&t, 0, &m, why, sizeof(why)),
			 -EBADMSG);
}
END_TEST

static Suite *gpu_metrics_suite(void)
{
	Suite *s = suite_create("gpu_metrics");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_v1_0_to_v1_3);
	tcase_add_test(tc, test_v1_4_to_v1_6);
	tcase_add_test(tc, test_v2_0_to_v2_4);
	tcase_add_test(tc, test_v3_0);
	tcase_add_test(tc, test_unfilled_fields_are_unknown);
	tcase_add_test(tc, test_activity_over_all_is_cut);
	tcase_add_test(tc, test_unknown_versions_refused);
	tcase_add_test(tc, test_truncated_refused);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(gpu_metrics_suite)
