/*
 * SPM rings decoded by PAL's rules (metrics/spm_ring.c), on rings this
 * test writes as the hardware does: garbage where nothing was written
 * (PAL does not clear the ring), the last slot's timestamp zeroed before
 * the trace, samples written slot after slot and wrapping, the write
 * pointer in units of its granularity. Unwrapped, wrapped once, wrapped
 * many times, the pointer at every sample it can be at, 32-bit counters
 * whose low half carries into the high half in another segment, and
 * pointers and layouts that lie.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/little_endian.h"
#include "metrics/spm_ring.h"
#include "tests/unit/test_util.h"

/* Global segment of 1 line, shader engines 0 and 1 of 2 lines each. */
static const uint32_t segment_lines[] = { 1, 2, 2 };
#define STRIDE (5 * GPM_SPM_LINE_BYTES)
#define N_COUNTERS 3

struct ring {
	uint8_t data[64 + STRIDE * 16];
	struct gpm_spm_counter counters[N_COUNTERS];
	struct gpm_spm_layout layout;
};

static uint32_t offset(unsigned segment, uint32_t slot)
{
	int64_t o = gpm_spm_segment_offset(segment_lines, 3, segment, slot);
	ck_assert_int_ge(o, 0);
	return (uint32_t)o;
}

/* A trace of max_samples slots at byte 64, the pointer at byte 4. */
static void ring_init(struct ring *r, uint32_t max_samples, uint32_t granularity)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof(r->data); i++)
		r->data[i] = (uint8_t)test_xorshift64(&state);
	/* A 16-bit counter in the global segment after the timestamp; a
	 * 32-bit one, low half in SE0, high half in SE1; a 16-bit one on
	 * SE1's last slot. */
	r->counters[0] = (struct gpm_spm_counter){ offset(0, 4), 0, false };
	r->counters[1] = (struct gpm_spm_counter){ offset(1, 5), offset(2, 9), true };
	r->counters[2] = (struct gpm_spm_counter){ offset(2, 31), 0, false };
	r->layout = (struct gpm_spm_layout){
		.wr_ptr_offset = 4,
		.wr_ptr_granularity = granularity,
		.sample_offset = 64,
		.sample_stride = STRIDE,
		.max_samples = max_samples,
		.n_counters = N_COUNTERS,
		.counters = r->counters,
	};
	uint8_t *last = r->data + 64 + (max_samples - 1) * STRIDE;
	memset(last, 0, 8);
}

static uint64_t sample_timestamp(uint64_t i)
{
	return 0x100000000ull + i * 4096;
}

static uint32_t sample_value(uint64_t i, unsigned c)
{
	/* The 32-bit one crosses 0xffff -> 0x10000 on the way. */
	return c == 1 ? (uint32_t)(0xfff0 + i * 7) : (uint32_t)((i * 31 + c) & 0xffff);
}

/* The hardware writing samples 0 .. n - 1, then its pointer. */
static void ring_write(struct ring *r, uint64_t n)
{
	const struct gpm_spm_layout *l = &r->layout;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *s = r->data + 64 + (i % l->max_samples) * STRIDE;
		gpm__le64_store(s, sample_timestamp(i));
		for (unsigned c = 0; c < N_COUNTERS; c++) {
			uint32_t v = sample_value(i, c);
			gpm__le16_store(s + r->counters[c].offset_lo, (uint16_t)v);
			if (r->counters[c].is_32bit)
				gpm__le16_store(s + r->counters[c].offset_hi,
						(uint16_t)(v >> 16));
		}
	}
	/* Where the next sample would go: back at the start after a wrap. */
	uint64_t bytes = n * STRIDE % ((uint64_t)l->max_samples * STRIDE);
	gpm__le32_store(r->data + 4, (uint32_t)(bytes / l->wr_ptr_granularity));
}

/* Decodes r, written n samples, and checks it holds the newest ones in
 * order. */
static void check_ring(struct ring *r, uint64_t n)
{
	struct gpm_spm_samples out;
	char why[256] = "";
	int ret = gpm_spm_decode(&r->layout, r->data, sizeof(r->data), &out, why,
				 sizeof(why));
	ck_assert_msg(ret == 0, "n=%llu: %d %s", (unsigned long long)n, ret, why);
	uint64_t max = r->layout.max_samples;
	uint64_t kept = n < max ? n : max;
	ck_assert_uint_eq(out.n_samples, kept);
	ck_assert_int_eq(out.wrapped, n >= max);
	for (uint64_t s = 0; s < kept; s++) {
		uint64_t i = n - kept + s;
		ck_assert_msg(out.timestamps[s] == sample_timestamp(i),
			      "n=%llu sample %llu", (unsigned long long)n,
			      (unsigned long long)s);
		for (unsigned c = 0; c < N_COUNTERS; c++)
			ck_assert_uint_eq(out.values[s * N_COUNTERS + c],
					  sample_value(i, c));
	}
	gpm_spm_samples_fini(&out);
}

START_TEST(test_unwrapped)
{
	struct ring r;
	ring_init(&r, 16, 32);
	ring_write(&r, 0);
	check_ring(&r, 0);
	ring_init(&r, 16, 32);
	ring_write(&r, 5);
	check_ring(&r, 5);
}
END_TEST

START_TEST(test_wrapped_once)
{
	struct ring r;
	ring_init(&r, 16, 32);
	ring_write(&r, 16);
	check_ring(&r, 16);
	ring_init(&r, 16, 32);
	ring_write(&r, 21);
	check_ring(&r, 21);
}
END_TEST

START_TEST(test_wrapped_many_times)
{
	struct ring r;
	ring_init(&r, 16, 32);
	ring_write(&r, 16 * 9 + 11);
	check_ring(&r, 16 * 9 + 11);
}
END_TEST

/* Every place the pointer can be, at each granularity PAL uses (1 byte
 * on GFX9, 32 bytes, a whole sample), wrapped and not. */
START_TEST(test_every_pointer)
{
	static const uint32_t granularities[] = { 1, 32, STRIDE };
	for (size_t g = 0; g < 3; g++) {
		for (uint64_t n = 0; n <= 3 * 7; n++) {
			struct ring r;
			ring_init(&r, 7, granularities[g]);
			ring_write(&r, n);
			check_ring(&r, n);
		}
	}
}
END_TEST

START_TEST(test_32_bit_halves_carry)
{
	struct ring r;
	ring_init(&r, 16, 32);
	ring_write(&r, 10);
	struct gpm_spm_samples out;
	char why[128];
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), 0);
	/* 0xfff0, 0xfff7, 0xfffe, then 0x10005: the high half moved. */
	ck_assert_uint_eq(out.values[2 * N_COUNTERS + 1], 0xfffe);
	ck_assert_uint_eq(out.values[3 * N_COUNTERS + 1], 0x10005);
	gpm_spm_samples_fini(&out);
}
END_TEST

START_TEST(test_segments)
{
	/* SE0 starts after the global segment's line, SE1 after SE0's two. */
	ck_assert_int_eq(gpm_spm_segment_offset(segment_lines, 3, 0, 0), 0);
	ck_assert_int_eq(gpm_spm_segment_offset(segment_lines, 3, 1, 0), 32);
	ck_assert_int_eq(gpm_spm_segment_offset(segment_lines, 3, 2, 3), 96 + 6);
	ck_assert_int_eq(gpm_spm_segment_offset(segment_lines, 3, 0, 16), -1);
	ck_assert_int_eq(gpm_spm_segment_offset(segment_lines, 3, 3, 0), -1);
}
END_TEST

START_TEST(test_lying_pointers_refused)
{
	struct ring r;
	struct gpm_spm_samples out;
	char why[256];
	ring_init(&r, 16, 32);
	ring_write(&r, 3);
	/* Inside a sample. */
	gpm__le32_store(r.data + 4, 1);
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "inside a sample"));
	/* Past the ring's end. */
	gpm__le32_store(r.data + 4, 17 * STRIDE / 32);
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "past its end"));
	gpm__le32_store(r.data + 4, UINT32_MAX);
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), -EBADMSG);
}
END_TEST

START_TEST(test_bad_layouts_refused)
{
	struct ring r;
	struct gpm_spm_samples out;
	char why[256];
	ring_init(&r, 16, 32);
	ring_write(&r, 3);
	/* A ring longer than the data. */
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, 64 + 15 * STRIDE, &out,
					why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "past the trace's"));
	/* A counter past its sample. */
	r.counters[1].offset_hi = STRIDE - 1;
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "counter 1"));
	ring_init(&r, 16, 0);
	ck_assert_int_eq(gpm_spm_decode(&r.layout, r.data, sizeof(r.data), &out,
					why, sizeof(why)), -EINVAL);
}
END_TEST

static Suite *spm_ring_suite(void)
{
	Suite *s = suite_create("spm_ring");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_unwrapped);
	tcase_add_test(tc, test_wrapped_once);
	tcase_add_test(tc, test_wrapped_many_times);
	tcase_add_test(tc, test_every_pointer);
	tcase_add_test(tc, test_32_bit_halves_carry);
	tcase_add_test(tc, test_segments);
	tcase_add_test(tc, test_lying_pointers_refused);
	tcase_add_test(tc, test_bad_layouts_refused);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(spm_ring_suite)
