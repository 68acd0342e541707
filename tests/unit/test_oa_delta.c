/*
 * Report-pair deltas: the u32, u40 and u64 wrap rules, the timestamp
 * delta and its platform shift, GPU ticks, and adding into an accumulator.
 */
#include <string.h>

#include "metrics/oa_delta.h"
#include "metrics/oa_format.h"
#include "metrics/oa_report.h"
#include "tests/unit/test_util.h"

static struct gpm_oa_decoder decoder(enum gpm_oa_format_id id, unsigned version)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;

	ck_assert_int_eq(gpm_oa_format_get(id, &fmt), 0);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, version), 0);
	return dec;
}

START_TEST(test_u32)
{
	ck_assert_uint_eq(gpm_oa_delta_u32(10, 25), 15);
	ck_assert_uint_eq(gpm_oa_delta_u32(0xfffffff0, 0x10), 0x20);
	ck_assert_uint_eq(gpm_oa_delta_u32(5, 5), 0);
	ck_assert_uint_eq(gpm_oa_delta_u32(1, 0), 0xffffffff);
}
END_TEST

START_TEST(test_u40)
{
	const uint64_t top = ((uint64_t)1 << 40) - 1;

	ck_assert_uint_eq(gpm_oa_delta_u40(10, 25), 15);
	ck_assert_uint_eq(gpm_oa_delta_u40(0xfffffffful, 0x100000005ull), 6);
	ck_assert_uint_eq(gpm_oa_delta_u40(top - 0xf, 0x10), 0x20);
	ck_assert_uint_eq(gpm_oa_delta_u40(top, 0), 1);
	ck_assert_uint_eq(gpm_oa_delta_u40(1, 0), top);
}
END_TEST

START_TEST(test_u64)
{
	ck_assert_uint_eq(gpm_oa_delta_u64(10, 25), 15);
	ck_assert_uint_eq(gpm_oa_delta_u64(0xffffffffull, 0x100000005ull), 6);
	ck_assert_uint_eq(gpm_oa_delta_u64(UINT64_MAX, 4), 5);
}
END_TEST

START_TEST(test_a32u40_pair)
{
	struct gpm_oa_decoder dec = decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	struct gpm_oa_report r0, r1;
	struct gpm_accumulator acc;

	memset(&r0, 0, sizeof(r0));
	memset(&r1, 0, sizeof(r1));
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_TIME] = 0xffffff00;
	r1.value[GPM_ACC_GPU_TIME] = 0x00000100;
	r0.value[GPM_ACC_GPU_CLOCK] = 0xfffffffe;
	r1.value[GPM_ACC_GPU_CLOCK] = 0x00000003;
	r0.value[GPM_ACC_A + 0] = 100;
	r1.value[GPM_ACC_A + 0] = 350;
	r0.value[GPM_ACC_A + 7] = 0xfffffffff0ull;      /* 40-bit wrap */
	r1.value[GPM_ACC_A + 7] = 0x10;
	r0.value[GPM_ACC_A + 31] = 0xfffffffful;        /* carry into the high byte */
	r1.value[GPM_ACC_A + 31] = 0x100000001ull;
	r0.value[GPM_ACC_A + 35] = 0xffffffff;          /* 32-bit wrap */
	r1.value[GPM_ACC_A + 35] = 0;
	r0.value[GPM_ACC_B + 3] = 7;
	r1.value[GPM_ACC_B + 3] = 9;
	r0.value[GPM_ACC_C + 7] = 0x80000000;
	r1.value[GPM_ACC_C + 7] = 0x7fffffff;
	acc.slot[GPM_ACC_PEC] = 1234;                   /* not in this format */

	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x200);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_CLOCK], 5);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 0], 250);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 1], 0);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 7], 0x20);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 31], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 35], 1);
	ck_assert_uint_eq(acc.slot[GPM_ACC_B + 3], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_C + 7], 0xffffffff);
	ck_assert_uint_eq(acc.slot[GPM_ACC_PEC], 1234);

	/* Deltas add up. */
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x400);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 7], 0x40);
	ck_assert_uint_eq(acc.slot[GPM_ACC_C + 7], 2 * 0xffffffffull);
}
END_TEST

/* DG2: the u32 field delta first, then >> 1, so a wrap of the top bit is
 * still counted right. */
START_TEST(test_dg2_timestamp_shift)
{
	struct gpm_oa_decoder dec = decoder(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1255);
	struct gpm_oa_report r0, r1;
	struct gpm_accumulator acc;

	memset(&r0, 0, sizeof(r0));
	memset(&r1, 0, sizeof(r1));
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_TIME] = 0xfffffff0;
	r1.value[GPM_ACC_GPU_TIME] = 0x00000010;
	r0.value[GPM_ACC_A + 3] = 0xffffffff;           /* 32-bit on DG2 */
	r1.value[GPM_ACC_A + 3] = 1;
	r0.value[GPM_ACC_A + 4] = 0xffffffffffull;      /* 40-bit on DG2 */
	r1.value[GPM_ACC_A + 4] = 1;
	r0.value[GPM_ACC_A + 37] = 5;
	r1.value[GPM_ACC_A + 37] = 6;
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x10);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 3], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 4], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 37], 1);
}
END_TEST

START_TEST(test_hsw_has_no_clock)
{
	struct gpm_oa_decoder dec = decoder(GPM_OA_FORMAT_A45_B8_C8, 750);
	struct gpm_oa_report r0, r1;
	struct gpm_accumulator acc;

	memset(&r0, 0, sizeof(r0));
	memset(&r1, 0, sizeof(r1));
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_CLOCK] = 1;                /* no such field */
	r1.value[GPM_ACC_GPU_CLOCK] = 100;
	r0.value[GPM_ACC_A + 44] = 0xffffffff;
	r1.value[GPM_ACC_A + 44] = 0;
	r1.value[GPM_ACC_GPU_TIME] = 80;
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_CLOCK], 0);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 44], 1);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 80);
}
END_TEST

START_TEST(test_64bit_fields)
{
	struct gpm_oa_decoder dec = decoder(GPM_OA_FORMAT_PEC64u64, 2000);
	struct gpm_oa_report r0, r1;
	struct gpm_accumulator acc;

	memset(&r0, 0, sizeof(r0));
	memset(&r1, 0, sizeof(r1));
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_TIME] = 0xffffffffull;
	r1.value[GPM_ACC_GPU_TIME] = 0x100000010ull;    /* no 32-bit wrap */
	r0.value[GPM_ACC_GPU_CLOCK] = 0x1ffffffffull;
	r1.value[GPM_ACC_GPU_CLOCK] = 0x200000001ull;
	r0.value[GPM_ACC_PEC + 0] = 10;
	r1.value[GPM_ACC_PEC + 0] = 0x10000000aull;
	r0.value[GPM_ACC_PEC + 63] = UINT64_MAX;
	r1.value[GPM_ACC_PEC + 63] = 0;
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x11);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_CLOCK], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_PEC + 0], 0x100000000ull);
	ck_assert_uint_eq(acc.slot[GPM_ACC_PEC + 63], 1);

	/* MTL OAM: 64-bit timestamp delta, then the MTL shift. */
	dec = decoder(GPM_OA_FORMAT_MPEC8u32_B8_C8, 1270);
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_TIME] = 0xfffffff0ull;
	r1.value[GPM_ACC_GPU_TIME] = 0x100000010ull;
	r0.value[GPM_ACC_A + 0] = 0xffffffff;
	r1.value[GPM_ACC_A + 0] = 3;
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x10);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 0], 4);
}
END_TEST

static Suite *oa_delta_suite(void)
{
	Suite *s = suite_create("oa_delta");
	TCase *tc = tcase_create("delta");

	tcase_add_test(tc, test_u32);
	tcase_add_test(tc, test_u40);
	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_a32u40_pair);
	tcase_add_test(tc, test_dg2_timestamp_shift);
	tcase_add_test(tc, test_hsw_has_no_clock);
	tcase_add_test(tc, test_64bit_fields);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_delta_suite)
