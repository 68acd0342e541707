/*
 * The bounded outgoing queue: frames refused past their limit, other
 * messages past the byte limit, order kept, headroom reserved.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/net/send_queue.h"
#include "tests/unit/test_util.h"

static int push(struct gpd_send_queue *q, enum gpd_message_class class,
		size_t len, unsigned char tag)
{
	struct gpd_message *m = gpd_message_alloc(q, class, len);
	ck_assert_ptr_nonnull(m);
	memset(m->data, tag, len);
	return gpd_send_queue_push(q, m);
}

START_TEST(frames_are_bounded_by_count)
{
	struct gpd_send_queue q;
	gpd_send_queue_init(&q, 16, 3, 1 << 20);
	for (int i = 0; i < 3; i++) {
		ck_assert(gpd_send_queue_frame_fits(&q));
		ck_assert_int_eq(push(&q, GPD_MESSAGE_FRAME, 10, (unsigned char)i), 0);
	}
	ck_assert(!gpd_send_queue_frame_fits(&q));
	ck_assert_int_eq(push(&q, GPD_MESSAGE_FRAME, 10, 9), -ENOBUFS);
	/* Replies still go through. */
	ck_assert_int_eq(push(&q, GPD_MESSAGE_CONTROL, 10, 7), 0);
	struct gpd_message *m = gpd_send_queue_pop(&q);
	ck_assert_uint_eq(m->data[0], 0);
	ck_assert_ptr_eq(m->data, m->buf + 16);
	free(m);
	ck_assert(gpd_send_queue_frame_fits(&q));
	gpd_send_queue_clear(&q);
	ck_assert(gpd_send_queue_empty(&q));
	ck_assert_uint_eq(q.bytes, 0);
	ck_assert_uint_eq(q.frames, 0);
}
END_TEST

START_TEST(bytes_bound_everything_in_order)
{
	struct gpd_send_queue q;
	gpd_send_queue_init(&q, 0, 100, 100);
	ck_assert_int_eq(push(&q, GPD_MESSAGE_CONTROL, 40, 1), 0);
	ck_assert_int_eq(push(&q, GPD_MESSAGE_RECORDING, 40, 2), 0);
	ck_assert_uint_eq(q.recording_bytes, 40);
	ck_assert_int_eq(push(&q, GPD_MESSAGE_CONTROL, 40, 3), -ENOBUFS);
	ck_assert_int_eq(push(&q, GPD_MESSAGE_FRAME, 20, 4), 0);
	ck_assert_uint_eq(q.bytes, 100);
	for (unsigned char tag = 1; tag <= 4; tag++) {
		if (tag == 3)
			continue;
		struct gpd_message *m = gpd_send_queue_pop(&q);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->data[0], tag);
		free(m);
	}
	ck_assert_ptr_null(gpd_send_queue_pop(&q));
	ck_assert_uint_eq(q.recording_bytes, 0);
	ck_assert_uint_eq(q.bytes, 0);
}
END_TEST

static Suite *send_queue_suite(void)
{
	Suite *s = suite_create("send_queue");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, frames_are_bounded_by_count);
	tcase_add_test(tc, bytes_bound_everything_in_order);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(send_queue_suite)
