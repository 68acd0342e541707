/*
 * The metric loader's bump allocator: zeroed, aligned blocks; big ones in
 * chunks of their own without wasting the current chunk's tail; sizes
 * that cannot be had refused rather than wrapped.
 */
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "metrics/arena.h"
#include "tests/unit/test_util.h"

/* More than a quarter of a 64 KiB chunk. */
#define BIG (20 * 1024)

static bool aligned(const void *p)
{
	return (uintptr_t)p % alignof(max_align_t) == 0;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

START_TEST(blocks_are_zeroed_and_aligned)
{
	struct gpm__arena arena = GPM__ARENA_INIT;

	for (size_t size = 1; size < 3000; size += 7) {
		unsigned char *p = gpm__arena_alloc(&arena, size);
		ck_assert_ptr_nonnull(p);
		ck_assert(aligned(p));
		ck_assert(all_zero(p, size));
		memset(p, 0xff, size);
	}
	char *s = gpm__arena_strdup(&arena, "EuActive");
	ck_assert_str_eq(s, "EuActive");
	ck_assert(aligned(s));
	ck_assert_ptr_nonnull(gpm__arena_memdup(&arena, NULL, 0));
	gpm__arena_free(&arena);
	ck_assert_ptr_null(arena.head);
}
END_TEST

/* A big block first, into an empty arena: it is whole, and small ones
 * after it still come. */
START_TEST(big_block_into_an_empty_arena)
{
	struct gpm__arena arena = GPM__ARENA_INIT;

	unsigned char *big = gpm__arena_alloc(&arena, BIG);
	ck_assert_ptr_nonnull(big);
	ck_assert(aligned(big));
	ck_assert(all_zero(big, BIG));
	memset(big, 0xff, BIG);
	unsigned char *small = gpm__arena_alloc(&arena, 16);
	ck_assert_ptr_nonnull(small);
	ck_assert(all_zero(small, 16));
	ck_assert(small + 16 <= big || small >= big + BIG);
	gpm__arena_free(&arena);
}
END_TEST

/* A big block that does not fit the current chunk's tail gets a chunk of
 * its own and leaves that tail in use: the small block after it follows
 * the one before it directly. */
START_TEST(big_block_keeps_the_current_chunk)
{
	struct gpm__arena arena = GPM__ARENA_INIT;
	unsigned char *last = NULL;

	/* 50 KiB of the 64 KiB chunk used: less than BIG is left. */
	for (int i = 0; i < 50; i++)
		last = gpm__arena_alloc(&arena, 1024);
	unsigned char *big = gpm__arena_alloc(&arena, BIG);
	unsigned char *b = gpm__arena_alloc(&arena, 16);
	unsigned char *big2 = gpm__arena_alloc(&arena, BIG);
	unsigned char *c = gpm__arena_alloc(&arena, 16);
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_nonnull(big2);
	ck_assert_ptr_eq(b, last + 1024);
	ck_assert_ptr_eq(c, b + 16);
	ck_assert(all_zero(big, BIG));
	ck_assert(all_zero(big2, BIG));
	memset(big, 0xff, BIG);
	memset(big2, 0xff, BIG);
	ck_assert(all_zero(b, 16));
	ck_assert(all_zero(c, 16));
	gpm__arena_free(&arena);
}
END_TEST

/* A size whose rounding to the alignment, or whose chunk header, would
 * wrap around is refused; the arena stays usable. */
START_TEST(sizes_that_wrap_are_refused)
{
	struct gpm__arena arena = GPM__ARENA_INIT;

	ck_assert_ptr_nonnull(gpm__arena_alloc(&arena, 8));
	ck_assert_ptr_null(gpm__arena_alloc(&arena, SIZE_MAX));
	ck_assert_ptr_null(gpm__arena_alloc(&arena, SIZE_MAX - 1));
	ck_assert_ptr_null(gpm__arena_alloc(
		&arena, SIZE_MAX - alignof(max_align_t) + 1));
	ck_assert_ptr_null(gpm__arena_alloc(
		&arena, (SIZE_MAX & ~(alignof(max_align_t) - 1)) - 8));
	unsigned char *p = gpm__arena_alloc(&arena, 32);
	ck_assert_ptr_nonnull(p);
	ck_assert(all_zero(p, 32));
	gpm__arena_free(&arena);
}
END_TEST

static Suite *arena_suite(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, blocks_are_zeroed_and_aligned);
	tcase_add_test(tc, big_block_into_an_empty_arena);
	tcase_add_test(tc, big_block_keeps_the_current_chunk);
	tcase_add_test(tc, sizes_that_wrap_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(arena_suite)
