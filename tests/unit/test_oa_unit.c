/*
 * Which OA unit a metric set counts on: OAG for the general formats, for
 * an MPEC set the OAM unit whose register block its configuration
 * programs, and the unit's name as messages give it.
 */
#include <errno.h>
#include <stddef.h>

#include "metrics/oa_unit.h"
#include "tests/unit/test_util.h"

/* Xe2's and MTL's graphics versions, times 100. */
#define XE2 2000
#define MTL 1270

/* A media set whose one register config writes the given addresses. */
struct media_set {
	struct gpm_register registers[3];
	struct gpm_register_config config;
	struct gpm_metric_set set;
};

static struct gpm_metric_set *media_set(struct media_set *m,
					const uint32_t *addresses,
					size_t n)
{
	*m = (struct media_set){ 0 };
	for (size_t i = 0; i < n; i++)
		m->registers[i] = (struct gpm_register){ addresses[i], 1 };
	m->config.kind = GPM_REGISTERS_MUX;
	m->config.n_registers = n;
	m->config.registers = m->registers;
	m->set.symbol_name = "MediaSet";
	m->set.oa_format = "128B_MPEC8_NOA16";
	m->set.n_register_configs = 1;
	m->set.register_configs = &m->config;
	return &m->set;
}

START_TEST(mpec_sets_count_on_the_unit_they_program)
{
	static const struct {
		uint32_t addresses[3];
		size_t n;
		enum gpm_oam_unit unit;
		const char *name;
	} cases[] = {
		/* The first register inside a unit's block decides. */
		{ { 0x393000 }, 1, GPM_OAM_SAG, "OAM SAG" },
		{ { 0x3937fc }, 1, GPM_OAM_SAG, "OAM SAG" },
		{ { 0x394000 }, 1, GPM_OAM_SCMI_0, "OAM SCMI_0" },
		{ { 0x3947fc }, 1, GPM_OAM_SCMI_0, "OAM SCMI_0" },
		{ { 0x394800 }, 1, GPM_OAM_SCMI_1, "OAM SCMI_1" },
		{ { 0x394ffc }, 1, GPM_OAM_SCMI_1, "OAM SCMI_1" },
		{ { 0x9888, 0x394800, 0x394000 }, 3, GPM_OAM_SCMI_1,
		  "OAM SCMI_1" },
		/* Registers of no OAM block (signal selection only): the
		 * first unit. */
		{ { 0x9888, 0x395000 }, 2, GPM_OAM_SAG, "OAM SAG" },
		{ { 0 }, 0, GPM_OAM_SAG, "OAM SAG" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct media_set m;
		struct gpm_oa_unit_need need;
		const struct gpm_metric_set *set =
			media_set(&m, cases[i].addresses, cases[i].n);
		ck_assert_int_eq(gpm_oa_unit_for_set(set, XE2, &need), 0);
		ck_assert_int_eq(need.kind, GPM_OA_UNIT_OAM);
		ck_assert_msg(need.oam == cases[i].unit, "case %zu: unit %d, "
			      "not %d", i, need.oam, cases[i].unit);
		ck_assert_int_eq(need.format->id, GPM_OA_FORMAT_MPEC8u32_B8_C8);
		ck_assert_str_eq(gpm_oa_unit_name(&need), cases[i].name);
	}
}
END_TEST

START_TEST(other_sets_count_on_oag)
{
	struct media_set m;
	struct gpm_oa_unit_need need;
	static const uint32_t scmi_1 = 0x394800;
	struct gpm_metric_set *set = media_set(&m, &scmi_1, 1);

	/* Registers in an OAM block do not make a set of the general
	 * format an OAM one. */
	set->oa_format = NULL;
	ck_assert_int_eq(gpm_oa_unit_for_set(set, MTL, &need), 0);
	ck_assert_int_eq(need.kind, GPM_OA_UNIT_OAG);
	ck_assert_int_eq(need.format->id, GPM_OA_FORMAT_A24u40_A14u32_B8_C8);
	ck_assert_str_eq(gpm_oa_unit_name(&need), "OAG");
	set->oa_format = "576B_PEC64LL";
	ck_assert_int_eq(gpm_oa_unit_for_set(set, XE2, &need), 0);
	ck_assert_int_eq(need.kind, GPM_OA_UNIT_OAG);
	ck_assert_int_eq(need.format->id, GPM_OA_FORMAT_PEC64u64);
	ck_assert_str_eq(gpm_oa_unit_name(&need), "OAG");
}
END_TEST

START_TEST(unknown_formats_refused)
{
	struct media_set m;
	struct gpm_oa_unit_need need = { .kind = GPM_OA_UNIT_OAG };
	struct gpm_metric_set *set = media_set(&m, NULL, 0);

	set->oa_format = "64B_FUTURE";
	ck_assert_int_eq(gpm_oa_unit_for_set(set, XE2, &need), -ENOENT);
	/* Xe2 has no 256-byte report; a GPU without OA has no format. */
	set->oa_format = "256B_GENERIC_NOA16";
	ck_assert_int_eq(gpm_oa_unit_for_set(set, XE2, &need), -ENOENT);
	set->oa_format = NULL;
	ck_assert_int_eq(gpm_oa_unit_for_set(set, 600, &need), -ENOENT);
}
END_TEST

static Suite *oa_unit_suite(void)
{
	Suite *s = suite_create("oa_unit");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, mpec_sets_count_on_the_unit_they_program);
	tcase_add_test(tc, other_sets_count_on_oag);
	tcase_add_test(tc, unknown_formats_refused);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_unit_suite)
