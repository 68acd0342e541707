/*
 * Report-pair deltas: the u32, u40 and u64 wrap rules, the timestamp
 * delta and its platform shift, GPU ticks, and adding into an accumulator.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/oa_delta.h"
#include "metrics/oa_format.h"
#include "metrics/oa_report.h"
#include "tests/unit/test_oa.h"
#include "tests/unit/test_util.h"

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
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
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

/* DG2: GPU_TIME is the field's u32 delta, in ticks of the OA clock the
 * kernel reports; the kernel's oa_exponent_to_ns() makes 2 << exponent of
 * them a sampling period, unshifted. */
START_TEST(test_dg2_timestamp_ticks)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1255);
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
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x20);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 3], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 4], 2);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 37], 1);
}
END_TEST

START_TEST(test_hsw_has_no_clock)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A45_B8_C8, 750);
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
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_PEC64u64, 2000);
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

	/* MTL OAM: the 64-bit timestamp delta as it is. */
	dec = test_oa_decoder(GPM_OA_FORMAT_MPEC8u32_B8_C8, 1270);
	memset(&acc, 0, sizeof(acc));
	r0.value[GPM_ACC_GPU_TIME] = 0xfffffff0ull;
	r1.value[GPM_ACC_GPU_TIME] = 0x100000010ull;
	r0.value[GPM_ACC_A + 0] = 0xffffffff;
	r1.value[GPM_ACC_A + 0] = 3;
	gpm_oa_delta_add(&dec, &r0, &r1, &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0x20);
	ck_assert_uint_eq(acc.slot[GPM_ACC_A + 0], 4);
}
END_TEST

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

enum run_kind {
	RUN_RANDOM_BYTES,       /* every field anything: wraps half the time */
	RUN_STEPS,              /* small steps, mostly up, from near the top */
	RUN_EDGES,              /* 0, 1, the top, and 40-bit values one off a
				 * high-byte boundary */
	RUN_KINDS,
};

static uint64_t edge_value(unsigned width)
{
	static const uint64_t edges[] = {
		0, 1, 0xffffffffull, 0x100000000ull, 0x1ffffffffull,
		0xff00000000ull, 0xfeffffffffull, UINT64_MAX, UINT64_MAX - 1,
	};

	return edges[rng() % (sizeof(edges) / sizeof(edges[0]))] & test_bits_max(width);
}

static uint64_t next_value(enum run_kind kind, uint64_t prev, unsigned width, bool first)
{
	uint64_t max = test_bits_max(width);

	if (kind == RUN_EDGES)
		return edge_value(width);
	if (first)
		return (max - (rng() & 0xffff)) & max;
	/* One step in eight goes back, as garbage after a reset would. */
	uint64_t step = rng() & 0x3ffff;
	return (rng() % 8 ? prev + step : prev - step) & max;
}

/* n reports stride bytes apart at buf, of the given kind. */
static void fill_run(const struct gpm_oa_decoder *dec, unsigned char *buf, size_t stride,
		     size_t n, enum run_kind kind)
{
	const struct gpm_oa_format *fmt = dec->format;
	struct gpm_oa_report r;

	memset(&r, 0, sizeof(r));
	for (size_t k = 0; k < n; k++) {
		unsigned char *p = buf + k * stride;

		if (kind == RUN_RANDOM_BYTES) {
			for (size_t i = 0; i < fmt->size; i++)
				p[i] = (unsigned char)rng();
			continue;
		}
		r.value[GPM_ACC_GPU_TIME] = next_value(kind, r.value[GPM_ACC_GPU_TIME],
						       fmt->header_bits, k == 0);
		for (unsigned g = 0; g < fmt->n_groups; g++) {
			const struct gpm_oa_counter_group *grp = &fmt->group[g];

			for (unsigned i = 0; i < grp->count; i++)
				r.value[grp->slot + i] = next_value(kind, r.value[grp->slot + i],
								    grp->width, k == 0);
		}
		ck_assert_int_eq(gpm_oa_report_encode(dec, &r, p, fmt->size), 0);
	}
}

static void random_acc(struct gpm_accumulator *acc)
{
	for (unsigned i = 0; i < GPM_ACC_SLOTS; i++)
		acc->slot[i] = rng();
}

/* The deltas of the n - 1 pairs of a run, decoded pair by pair. */
static void add_decoded_pairs(const struct gpm_oa_decoder *dec, const unsigned char *buf,
			      size_t stride, size_t n, struct gpm_accumulator *acc)
{
	struct gpm_oa_report r[2];

	for (size_t k = 0; k < n; k++) {
		ck_assert_int_eq(gpm_oa_report_decode(dec, buf + k * stride, dec->format->size,
						      &r[k & 1]), 0);
		if (k)
			gpm_oa_delta_add(dec, &r[(k - 1) & 1], &r[k & 1], acc);
	}
}

/* Raw deltas equal decoded ones on every format, whatever the bytes. */
START_TEST(test_raw_equals_decoded)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(_i);
	size_t size = dec.format->size;
	unsigned char bytes[2 * GPM_OA_MAX_REPORT_SIZE + 8];

	for (int n = 0; n < 600; n++) {
		enum run_kind kind = (enum run_kind)(n % RUN_KINDS);
		/* Odd offsets: reports sit anywhere in a recording. */
		unsigned char *start = bytes + n % 8;
		struct gpm_accumulator raw, decoded;

		fill_run(&dec, start, size, 2, kind);
		random_acc(&raw);
		decoded = raw;
		gpm_oa_delta_add_raw(&dec, start, start + size, &raw);
		add_decoded_pairs(&dec, start, size, 2, &decoded);
		ck_assert_mem_eq(&raw, &decoded, sizeof(raw));
	}
}
END_TEST

/* A run sums what its pairs do, for runs of every length up to a few
 * thousand, wrapping any number of times, at any stride and alignment. */
static void check_run_equals_pairs(struct gpm_oa_decoder dec)
{
	enum { MAX_RUN = 3000 };
	size_t size = dec.format->size;
	unsigned char *buf = malloc(MAX_RUN * (size + 17) + 8);

	ck_assert_ptr_nonnull(buf);
	for (int t = 0; t < 240; t++) {
		enum run_kind kind = (enum run_kind)(t % RUN_KINDS);
		size_t n = t < 200 ? (size_t)t % 41 + 1 : MAX_RUN - rng() % 100;
		size_t stride = size + (size_t)(rng() % 3) * 8 + (size_t)(t & 1);
		unsigned char *first = buf + t % 8;
		struct gpm_accumulator run, pairs, decoded;

		fill_run(&dec, first, stride, n, kind);
		random_acc(&run);
		pairs = run;
		decoded = run;
		gpm_oa_delta_add_run(&dec, first, stride, n, &run);
		for (size_t k = 1; k < n; k++)
			gpm_oa_delta_add_raw(&dec, first + (k - 1) * stride, first + k * stride,
					     &pairs);
		add_decoded_pairs(&dec, first, stride, n, &decoded);
		ck_assert_mem_eq(&pairs, &decoded, sizeof(pairs));
		ck_assert_mem_eq(&run, &pairs, sizeof(run));
	}
	free(buf);
}

START_TEST(test_run_equals_pairs)
{
	check_run_equals_pairs(test_oa_format_decoder(_i));
}
END_TEST

/* No format has a 40-bit group whose runs take blocks of 8 or 1 lanes
 * (the shipped ones are 16 and 4 wide): a format made here has two, of
 * 13 counters (8, 4 and 1 lanes) and 6 (4, 1 and 1), so every way a run
 * counts 40-bit wraps is held against the pairs. */
START_TEST(test_run_u40_blocks_of_8_and_1)
{
	const struct gpm_oa_format *a32u40;
	struct gpm_oa_decoder dec;

	ck_assert_int_eq(gpm_oa_format_get(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, &a32u40), 0);
	struct gpm_oa_format odd = *a32u40;
	odd.n_groups = 3;
	odd.group[1] = (struct gpm_oa_counter_group){
		.slot = GPM_ACC_A + 0, .offset = 16, .high_offset = 160, .count = 13, .width = 40,
	};
	odd.group[2] = (struct gpm_oa_counter_group){
		.slot = GPM_ACC_A + 16, .offset = 80, .high_offset = 176, .count = 6, .width = 40,
	};
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, &odd, 1200), 0);
	check_run_equals_pairs(dec);
}
END_TEST

/* Clearing zeroes what deltas add to and leaves every other slot. */
START_TEST(test_clear)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(_i);
	unsigned char bytes[2 * GPM_OA_MAX_REPORT_SIZE];
	struct gpm_accumulator acc, touched;

	for (size_t i = 0; i < GPM_ACC_SLOTS; i++)
		acc.slot[i] = i + 1;
	memset(&touched, 0, sizeof(touched));
	memset(bytes, 0, sizeof(bytes));
	memset(bytes + dec.format->size, 0xff, dec.format->size);
	gpm_oa_delta_add_raw(&dec, bytes, bytes + dec.format->size, &touched);
	gpm_oa_delta_clear(&dec, &acc);
	for (size_t i = 0; i < GPM_ACC_SLOTS; i++) {
		if (touched.slot[i])
			ck_assert_uint_eq(acc.slot[i], 0);
		else if (i != GPM_ACC_GPU_TIME)
			ck_assert_uint_eq(acc.slot[i], i + 1);
	}
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 0);
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
	tcase_add_test(tc, test_dg2_timestamp_ticks);
	tcase_add_test(tc, test_hsw_has_no_clock);
	tcase_add_test(tc, test_64bit_fields);
	tcase_add_loop_test(tc, test_raw_equals_decoded, 0, GPM_OA_FORMAT_COUNT);
	tcase_add_loop_test(tc, test_run_equals_pairs, 0, GPM_OA_FORMAT_COUNT);
	tcase_add_test(tc, test_run_u40_blocks_of_8_and_1);
	tcase_add_loop_test(tc, test_clear, 0, GPM_OA_FORMAT_COUNT);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_delta_suite)
