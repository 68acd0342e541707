/*
 * The OA ring buffer: capacity and overflow, reset, the zeroing after a
 * read, reports that straddle the ring's end, and reports written in
 * place at the tail, which land as pushed ones do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_buffer.h"
#include "tests/unit/test_util.h"

#define SIZE (128u * 1024)

static void fill_report(unsigned char *r, size_t size, unsigned n)
{
	for (size_t i = 0; i < size; i++)
		r[i] = (unsigned char)(n * 7 + i + 1);
}

START_TEST(test_capacity_and_overflow)
{
	struct gpd_oa_buffer buf;
	unsigned char r[256], out[256];

	ck_assert_int_eq(gpd_oa_buffer_init(&buf, SIZE, 256), 0);
	/* One report's room stays free: head == tail means empty. */
	for (unsigned n = 0; n < SIZE / 256 - 1; n++) {
		fill_report(r, 256, n);
		ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), 0);
	}
	ck_assert_uint_eq(gpd_oa_buffer_reports(&buf), SIZE / 256 - 1);
	ck_assert(!buf.overflow);
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), -ENOSPC);
	ck_assert(buf.overflow);
	/* Once the reader makes room, reports land again; the flag stays
	 * until someone clears it (i915 resets, xe reads the status). */
	gpd_oa_buffer_peek(&buf, out);
	gpd_oa_buffer_pop(&buf);
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), 0);
	ck_assert(buf.overflow);
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), -ENOSPC);
	fill_report(r, 256, 0);
	ck_assert_int_eq(memcmp(out, r, 256), 0);
	/* Cleared while the ring stays full, the flag stays clear: only the
	 * first report dropped since one landed sets it. */
	buf.overflow = false;
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), -ENOSPC);
	ck_assert(!buf.overflow);
	gpd_oa_buffer_pop(&buf);
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), 0);
	ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), -ENOSPC);
	ck_assert(buf.overflow);

	gpd_oa_buffer_reset(&buf);
	ck_assert(!buf.overflow);
	ck_assert_uint_eq(gpd_oa_buffer_reports(&buf), 0);
	for (size_t i = 0; i < SIZE; i++)
		ck_assert_uint_eq(buf.mem[i], 0);
	gpd_oa_buffer_free(&buf);
}
END_TEST

START_TEST(test_pop_clears_id_and_timestamp)
{
	struct gpd_oa_buffer buf;
	unsigned char r[256];

	ck_assert_int_eq(gpd_oa_buffer_init(&buf, SIZE, 256), 0);
	fill_report(r, 256, 3);
	gpd_oa_buffer_push(&buf, r);
	gpd_oa_buffer_pop(&buf);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(buf.mem[i], 0);
	ck_assert_int_eq(memcmp(buf.mem + 8, r + 8, 248), 0);
	gpd_oa_buffer_free(&buf);
}
END_TEST

/* 192-byte reports do not divide the ring: one straddles its end, goes
 * in and comes out in two parts, and is cleared whole. */
START_TEST(test_report_straddles_end)
{
	struct gpd_oa_buffer buf;
	unsigned char r[192], out[192];
	unsigned n = 0;

	ck_assert_int_eq(gpd_oa_buffer_init(&buf, SIZE, 192), 0);
	for (int round = 0; round < 3; round++) {
		while (gpd_oa_buffer_reports(&buf) < SIZE / 192 - 1) {
			fill_report(r, 192, n++);
			ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), 0);
		}
		unsigned first = n - gpd_oa_buffer_reports(&buf);
		while (gpd_oa_buffer_reports(&buf)) {
			fill_report(r, 192, first++);
			gpd_oa_buffer_peek(&buf, out);
			ck_assert_int_eq(memcmp(out, r, 192), 0);
			gpd_oa_buffer_pop(&buf);
		}
	}
	ck_assert(!buf.overflow);
	for (size_t i = 0; i < SIZE; i++)
		ck_assert_uint_eq(buf.mem[i], 0);
	gpd_oa_buffer_free(&buf);
}
END_TEST

/* A ring over lent memory leaves it as it found it, all zero, for the
 * next stream: the sim keeps one from stream to stream. */
START_TEST(test_lent_memory_is_left_zero)
{
	size_t size = GPD_OA_BUFFER_MIN_SIZE;
	unsigned char *mem = calloc(1, size);
	unsigned char r[256];
	struct gpd_oa_buffer buf;

	ck_assert_ptr_nonnull(mem);
	memset(r, 0xab, sizeof(r));
	ck_assert_int_eq(gpd_oa_buffer_init_lent(&buf, mem, size, sizeof(r)), 0);
	ck_assert_ptr_eq(buf.mem, mem);
	while (gpd_oa_buffer_push(&buf, r) == 0)
		;
	gpd_oa_buffer_free(&buf);
	for (size_t i = 0; i < size; i++)
		ck_assert_uint_eq(mem[i], 0);
	free(mem);
}
END_TEST

/* Written in place where they land whole, pushed where they wrap or the
 * ring is full: the reader sees the same reports, the overflow the same,
 * and lent memory is left all zero as pushed reports leave it. */
START_TEST(test_reports_written_in_place)
{
	unsigned char *mem = calloc(1, SIZE);
	struct gpd_oa_buffer buf;
	unsigned char r[192], out[192];
	unsigned in_place = 0, pushed = 0, read = 0;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(gpd_oa_buffer_init_lent(&buf, mem, SIZE, 192), 0);
	for (unsigned n = 0; n < 3 * SIZE / 192; n++) {
		unsigned char *slot = gpd_oa_buffer_tail_slot(&buf);
		fill_report(r, 192, n);
		if (slot) {
			ck_assert_ptr_eq(slot, buf.mem + buf.tail % SIZE);
			memcpy(slot, r, 192);
			gpd_oa_buffer_commit(&buf);
			in_place++;
		} else {
			/* 192-byte reports wrap across the end now and then. */
			ck_assert(buf.tail % SIZE + 192 > SIZE ||
				  gpd_oa_buffer_full(&buf));
			ck_assert_int_eq(gpd_oa_buffer_push(&buf, r), 0);
			pushed++;
		}
		/* A reader behind by a few reports. */
		if (gpd_oa_buffer_reports(&buf) > 5) {
			fill_report(r, 192, read++);
			gpd_oa_buffer_peek(&buf, out);
			ck_assert_int_eq(memcmp(out, r, 192), 0);
			gpd_oa_buffer_pop(&buf);
		}
	}
	ck_assert_uint_gt(in_place, 0);
	ck_assert_uint_gt(pushed, 0);
	ck_assert(!buf.overflow);
	/* Full: no slot, and the push that drops the report flags it. */
	while (gpd_oa_buffer_push(&buf, r) == 0)
		;
	ck_assert_ptr_null(gpd_oa_buffer_tail_slot(&buf));
	ck_assert(buf.overflow);
	gpd_oa_buffer_free(&buf);
	for (size_t i = 0; i < SIZE; i++)
		ck_assert_uint_eq(mem[i], 0);
	free(mem);
}
END_TEST

START_TEST(test_bad_sizes)
{
	struct gpd_oa_buffer buf;

	ck_assert_int_eq(gpd_oa_buffer_init(&buf, 64 * 1024, 256), -EINVAL);
	ck_assert_int_eq(gpd_oa_buffer_init(&buf, 3 * 64 * 1024, 256), -EINVAL);
	ck_assert_int_eq(gpd_oa_buffer_init(&buf, 32u * 1024 * 1024, 256), -EINVAL);
	ck_assert_int_eq(gpd_oa_buffer_init(&buf, SIZE, 0), -EINVAL);
}
END_TEST

static Suite *oa_buffer_suite(void)
{
	Suite *s = suite_create("oa_buffer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_capacity_and_overflow);
	tcase_add_test(tc, test_pop_clears_id_and_timestamp);
	tcase_add_test(tc, test_report_straddles_end);
	tcase_add_test(tc, test_lent_memory_is_left_zero);
	tcase_add_test(tc, test_reports_written_in_place);
	tcase_add_test(tc, test_bad_sizes);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_buffer_suite)
