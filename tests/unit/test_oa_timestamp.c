/*
 * The 64-bit timestamp extender: monotonic across 32-bit and DG2's 31-bit
 * wraps.
 */
#include "metrics/oa_timestamp.h"
#include "tests/unit/test_util.h"

START_TEST(test_first_maps_to_itself)
{
	struct gpm_oa_ts_extender ext;

	gpm_oa_ts_extender_init(&ext, 0xffffffff);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x12345678), 0x12345678);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x12345678), 0x12345678);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x12345679), 0x12345679);
}
END_TEST

START_TEST(test_32bit_wraps)
{
	struct gpm_oa_ts_extender ext;
	uint64_t ts;

	gpm_oa_ts_extender_init(&ext, 0xffffffff);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0xfffff000), 0xfffff000);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0xffffffff), 0xffffffff);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x00000000), 0x100000000ull);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x00000010), 0x100000010ull);

	/* Three more wraps in steps of a quarter epoch. */
	ts = 0x100000010ull;
	for (int i = 0; i < 12; i++) {
		ts += 0x40000000;
		ck_assert_uint_eq(gpm_oa_ts_extend(&ext, ts & 0xffffffff), ts);
	}
	ck_assert_uint_eq(ts >> 32, 4);
}
END_TEST

START_TEST(test_31bit_wraps)
{
	struct gpm_oa_ts_extender ext;

	gpm_oa_ts_extender_init(&ext, 0x7fffffff);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x7ffffff0), 0x7ffffff0);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x00000010), 0x80000010ull);
	/* Bits above the mask are not part of the timestamp. */
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x80000020), 0x80000020ull);
}
END_TEST

START_TEST(test_never_goes_back)
{
	struct gpm_oa_ts_extender ext;

	gpm_oa_ts_extender_init(&ext, 0xffffffff);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 100), 100);
	/* Earlier than the last: read as a nearly full wrap forward. */
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 99), 100 + 0xffffffffull);
}
END_TEST

START_TEST(test_64bit)
{
	struct gpm_oa_ts_extender ext;

	gpm_oa_ts_extender_init(&ext, UINT64_MAX);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x123456789abcull), 0x123456789abcull);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 0x123456789abdull), 0x123456789abdull);
	/* Going back would run past 2^64: the line stops at its end. */
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 5), UINT64_MAX);
	ck_assert_uint_eq(gpm_oa_ts_extend(&ext, 6), UINT64_MAX);
}
END_TEST

static Suite *oa_timestamp_suite(void)
{
	Suite *s = suite_create("oa_timestamp");
	TCase *tc = tcase_create("extend");

	tcase_add_test(tc, test_first_maps_to_itself);
	tcase_add_test(tc, test_32bit_wraps);
	tcase_add_test(tc, test_31bit_wraps);
	tcase_add_test(tc, test_never_goes_back);
	tcase_add_test(tc, test_64bit);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_timestamp_suite)
