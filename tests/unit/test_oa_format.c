/*
 * The OA report format table: every row is self-consistent (fields inside
 * the report, no two fields sharing a byte or a slot) and places counters
 * where the metric equations read them.
 */
#include <errno.h>
#include <string.h>

#include "metrics/accumulator.h"
#include "metrics/oa_format.h"
#include "tests/unit/test_util.h"

static const struct gpm_oa_format *format(enum gpm_oa_format_id id)
{
	const struct gpm_oa_format *fmt = NULL;

	ck_assert_int_eq(gpm_oa_format_get(id, &fmt), 0);
	ck_assert_ptr_nonnull(fmt);
	return fmt;
}

/* Marks bytes [offset, offset + n) of the report as used; fails on a byte
 * used twice or outside the report. */
static void claim(unsigned char *used, unsigned size, unsigned offset, unsigned n)
{
	ck_assert_uint_le(offset + n, size);
	for (unsigned i = offset; i < offset + n; i++) {
		ck_assert_msg(!used[i], "byte %u used twice", i);
		used[i] = 1;
	}
}

/* Claims every byte a format's fields occupy; returns how many. */
static unsigned claim_all(const struct gpm_oa_format *fmt, unsigned char *used)
{
	unsigned header_bytes = fmt->header_bits / 8;
	unsigned total = 0;

	memset(used, 0, GPM_OA_MAX_REPORT_SIZE);
	claim(used, fmt->size, 0, header_bytes);
	claim(used, fmt->size, fmt->ts_offset, header_bytes);
	claim(used, fmt->size, fmt->ctx_offset, 4);
	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		unsigned stride = grp->width == 64 ? 8 : 4;

		ck_assert(grp->width == 32 || grp->width == 40 || grp->width == 64);
		for (unsigned i = 0; i < grp->count; i++) {
			claim(used, fmt->size, grp->offset + i * stride, stride);
			if (grp->width == 40)
				claim(used, fmt->size, grp->high_offset + i, 1);
		}
	}
	for (unsigned i = 0; i < fmt->size; i++)
		total += used[i];
	return total;
}

START_TEST(test_rows_are_consistent)
{
	/* Bytes a field covers per format; the rest is padding. */
	static const unsigned covered[GPM_OA_FORMAT_COUNT] = {
		[GPM_OA_FORMAT_A45_B8_C8] = 256,
		[GPM_OA_FORMAT_A32u40_A4u32_B8_C8] = 256,
		[GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8] = 256,
		[GPM_OA_FORMAT_A24u40_A14u32_B8_C8] = 256,
		[GPM_OA_FORMAT_MPEC8u64_B8_C8] = 156,   /* dword 5, bytes 160.. */
		[GPM_OA_FORMAT_MPEC8u32_B8_C8] = 124,   /* dword 5 */
		[GPM_OA_FORMAT_PEC64u64] = 540,         /* dword 5, bytes 544.. */
		[GPM_OA_FORMAT_NVPM32u64] = 284,        /* dword 5 */
	};
	unsigned char used[GPM_OA_MAX_REPORT_SIZE];

	for (int id = 0; id < GPM_OA_FORMAT_COUNT; id++) {
		const struct gpm_oa_format *fmt = format(id);
		unsigned char slot_used[GPM_ACC_SLOTS] = { 0 };

		ck_assert_int_eq(fmt->id, id);
		ck_assert_uint_le(fmt->size, GPM_OA_MAX_REPORT_SIZE);
		ck_assert_uint_le(fmt->n_groups, GPM_OA_MAX_GROUPS);
		ck_assert_uint_eq(claim_all(fmt, used), covered[id]);

		slot_used[GPM_ACC_GPU_TIME] = 1;
		for (unsigned g = 0; g < fmt->n_groups; g++) {
			const struct gpm_oa_counter_group *grp = &fmt->group[g];

			ck_assert_uint_le(grp->slot + grp->count, GPM_ACC_SLOTS);
			for (unsigned i = 0; i < grp->count; i++) {
				ck_assert(!slot_used[grp->slot + i]);
				slot_used[grp->slot + i] = 1;
			}
		}
	}
}
END_TEST

/* How many consecutive slots from base the format fills. */
static unsigned slot_run(const struct gpm_oa_format *fmt, unsigned base, unsigned max)
{
	unsigned char filled[GPM_ACC_SLOTS] = { 0 };
	unsigned n = 0;

	for (unsigned g = 0; g < fmt->n_groups; g++)
		for (unsigned i = 0; i < fmt->group[g].count; i++)
			filled[fmt->group[g].slot + i] = 1;
	while (n < max && filled[base + n])
		n++;
	for (unsigned i = base + n; i < base + max; i++)
		ck_assert_msg(!filled[i], "slot %u filled after a gap", i);
	return n;
}

START_TEST(test_counter_ranges)
{
	static const struct {
		enum gpm_oa_format_id id;
		unsigned clock, a, b, c, pec;
	} expect[] = {
		{ GPM_OA_FORMAT_A45_B8_C8, 0, 45, 8, 8, 0 },
		{ GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1, 36, 8, 8, 0 },
		{ GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8, 1, 36, 8, 8, 0 },
		{ GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1, 38, 8, 8, 0 },
		{ GPM_OA_FORMAT_MPEC8u64_B8_C8, 1, 8, 8, 8, 0 },
		{ GPM_OA_FORMAT_MPEC8u32_B8_C8, 1, 8, 8, 8, 0 },
		{ GPM_OA_FORMAT_PEC64u64, 1, 0, 0, 0, 64 },
		{ GPM_OA_FORMAT_NVPM32u64, 1, 0, 0, 0, 32 },
	};

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct gpm_oa_format *fmt = format(expect[i].id);

		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_GPU_CLOCK, 1), expect[i].clock);
		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_A, GPM_ACC_A_COUNT), expect[i].a);
		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_B, GPM_ACC_B_COUNT), expect[i].b);
		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_C, GPM_ACC_C_COUNT), expect[i].c);
		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_PERFCNT, GPM_ACC_PERFCNT_COUNT), 0);
		ck_assert_uint_eq(slot_run(fmt, GPM_ACC_PEC, GPM_ACC_PEC_COUNT), expect[i].pec);
	}
}
END_TEST

START_TEST(test_sizes_and_headers)
{
	static const struct {
		enum gpm_oa_format_id id;
		unsigned size, header_bits;
	} expect[] = {
		{ GPM_OA_FORMAT_A45_B8_C8, 256, 32 },
		{ GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 256, 32 },
		{ GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 256, 32 },
		{ GPM_OA_FORMAT_MPEC8u64_B8_C8, 192, 64 },
		{ GPM_OA_FORMAT_MPEC8u32_B8_C8, 128, 64 },
		{ GPM_OA_FORMAT_PEC64u64, 576, 64 },
		{ GPM_OA_FORMAT_NVPM32u64, 288, 64 },
	};

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct gpm_oa_format *fmt = format(expect[i].id);

		ck_assert_uint_eq(fmt->size, expect[i].size);
		ck_assert_uint_eq(fmt->header_bits, expect[i].header_bits);
	}
}
END_TEST

START_TEST(test_i915_values)
{
	static const struct {
		uint32_t value;
		enum gpm_oa_format_id id;
	} map[] = {
		{ 5, GPM_OA_FORMAT_A45_B8_C8 },
		{ 10, GPM_OA_FORMAT_A32u40_A4u32_B8_C8 },
		{ 11, GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8 },
		{ 12, GPM_OA_FORMAT_A24u40_A14u32_B8_C8 },
		{ 13, GPM_OA_FORMAT_MPEC8u64_B8_C8 },
		{ 14, GPM_OA_FORMAT_MPEC8u32_B8_C8 },
	};
	const struct gpm_oa_format *fmt;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		ck_assert_int_eq(gpm_oa_format_from_i915(map[i].value, &fmt), 0);
		ck_assert_int_eq(fmt->id, map[i].id);
	}
	ck_assert_int_eq(gpm_oa_format_from_i915(0, &fmt), -ENOENT);
	ck_assert_int_eq(gpm_oa_format_from_i915(1, &fmt), -ENOENT);
	ck_assert_int_eq(gpm_oa_format_from_i915(15, &fmt), -ENOENT);
	ck_assert_int_eq(gpm_oa_format_get(GPM_OA_FORMAT_COUNT, &fmt), -EINVAL);
	ck_assert_str_eq(format(GPM_OA_FORMAT_A32u40_A4u32_B8_C8)->name,
			 "A32u40_A4u32_B8_C8");
}
END_TEST

START_TEST(test_format_for_set)
{
	static const struct {
		unsigned version;
		const char *xml;
		int ret;
		enum gpm_oa_format_id id;
	} cases[] = {
		{ 750, NULL, 0, GPM_OA_FORMAT_A45_B8_C8 },
		{ 900, NULL, 0, GPM_OA_FORMAT_A32u40_A4u32_B8_C8 },
		{ 1200, NULL, 0, GPM_OA_FORMAT_A32u40_A4u32_B8_C8 },
		{ 1255, NULL, 0, GPM_OA_FORMAT_A24u40_A14u32_B8_C8 },
		{ 1270, "256B_GENERIC_NOA16", 0, GPM_OA_FORMAT_A24u40_A14u32_B8_C8 },
		{ 1270, "128B_MPEC8_NOA16", 0, GPM_OA_FORMAT_MPEC8u32_B8_C8 },
		{ 2000, "576B_PEC64LL", 0, GPM_OA_FORMAT_PEC64u64 },
		{ 2000, "128B_MPEC8_NOA16", 0, GPM_OA_FORMAT_MPEC8u32_B8_C8 },
		{ 2000, NULL, 0, GPM_OA_FORMAT_PEC64u64 },
		{ 2000, "256B_GENERIC_NOA16", -ENOENT, 0 },
		{ 1200, "64B_SOMETHING", -ENOENT, 0 },
		{ 600, NULL, -ENOENT, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gpm_oa_format *fmt = NULL;
		int ret = gpm_oa_format_for_set(cases[i].version, cases[i].xml, &fmt);

		ck_assert_int_eq(ret, cases[i].ret);
		if (!ret)
			ck_assert_int_eq(fmt->id, cases[i].id);
	}
}
END_TEST

static Suite *oa_format_suite(void)
{
	Suite *s = suite_create("oa_format");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_rows_are_consistent);
	tcase_add_test(tc, test_counter_ranges);
	tcase_add_test(tc, test_sizes_and_headers);
	tcase_add_test(tc, test_i915_values);
	tcase_add_test(tc, test_format_for_set);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_format_suite)
