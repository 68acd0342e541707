/*
 * client/preload/offer.c: which ioctls libgpuperf-preload.so offers, by
 * the uAPI's numbers (include/uapi/drm/i915_drm.h, xe_drm.h), and where
 * it finds the id each create returned.
 */
#include <string.h>

#include <i915_drm.h>

#include "client/preload/offer.h"
#include "tests/integration/xe_queue_create.h"
#include "tests/unit/test_util.h"

START_TEST(the_creates_of_both_drivers_are_offered)
{
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_CREATE),
			 GPUPERF_OFFER_I915_CONTEXT);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT),
			 GPUPERF_OFFER_I915_CONTEXT);
	ck_assert_int_eq(gpuperf_offer_kind_of(IOCTL_XE_EXEC_QUEUE_CREATE),
			 GPUPERF_OFFER_XE_EXEC_QUEUE);
	ck_assert_uint_eq(sizeof(struct xe_exec_queue_create), 48);
}
END_TEST

/* Another command of the same number (i915's FLIP is 0x06 too; another
 * driver's at 0x2d), the destroys and the perf ioctls are not creates. */
START_TEST(other_requests_are_not)
{
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_DESTROY),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_PERF_OPEN),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IO(DRM_COMMAND_BASE + 0x06)),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOWR(DRM_COMMAND_BASE + 0x06,
							struct drm_i915_getparam)),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOWR(DRM_COMMAND_BASE + 0x2d,
							uint64_t[4])),
			 GPUPERF_OFFER_NONE);
}
END_TEST

START_TEST(the_id_is_read_where_each_create_writes_it)
{
	struct drm_i915_gem_context_create create = { .ctx_id = 5 };
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_I915_CONTEXT,
						   &create), 5);
	struct drm_i915_gem_context_create_ext ext = { .ctx_id = 6, .flags = 1 };
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_I915_CONTEXT,
						   &ext), 6);
	struct xe_exec_queue_create queue;
	memset(&queue, 0xff, sizeof(queue));
	queue.exec_queue_id = 7;
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_XE_EXEC_QUEUE,
						   &queue), 7);
}
END_TEST

static Suite *offer_suite(void)
{
	Suite *s = suite_create("offer");
	TCase *tc = tcase_create("uapi");
	tcase_add_test(tc, the_creates_of_both_drivers_are_offered);
	tcase_add_test(tc, other_requests_are_not);
	tcase_add_test(tc, the_id_is_read_where_each_create_writes_it);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(offer_suite)
