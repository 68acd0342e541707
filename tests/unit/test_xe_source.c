/*
 * The xe source on the fake kernel, driven in-process through the
 * subscription API: bare reports framed into the same frames the sim
 * source gives, ADD_CONFIG's one register list, loss learned through EIO
 * and the status ioctl, and refusals in words.
 */
#include <errno.h>
#include <string.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "metrics/metric_binding.h"
#include "tests/unit/fake_machine_daemon.h"
#include "tests/unit/test_util.h"

START_TEST(frames_equal_the_sim_source)
{
	fixture_check_frames_equal_the_sim_source("xe");
}
END_TEST

START_TEST(one_register_list_registered_and_removed)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "xe", "");
	fixture_stream(&fx, &c);
	const struct gpm_binding *b = gpd_daemon_find_device(&fx.daemon, NULL)->binding;
	size_t n = b->n_registers[GPM_REGISTERS_MUX] +
		   b->n_registers[GPM_REGISTERS_BOOLEAN] +
		   b->n_registers[GPM_REGISTERS_FLEX];
	char want[160];
	/* xe numbers its configs from 1. */
	snprintf(want, sizeof(want), "OA_ADD_CONFIG uuid=%s n_regs=%zu -> 1",
		 b->set->hw_config_guid, n);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, want), 1);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_STREAM_OPEN OA_UNIT_ID=0 SAMPLE_OA=1 OA_METRIC_SET=1 "
		"OA_FORMAT=1280 OA_PERIOD_EXPONENT=13 -> "), 1);
	gpd_unsubscribe(c.sub);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
						"OA_REMOVE_CONFIG id=1 -> 0"), 1);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* xe says what was lost in the stream's status, read after EIO. */
static void lost_reports_in_the_status(struct fixture *fx)
{
	ck_assert_uint_gt(fake_machine_requests(&fx->machine,
						"stream STATUS -> 0x1"), 0);
}

START_TEST(loss_comes_through_the_status)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fixture_check_loss(&fx, &c, lost_reports_in_the_status);
	ck_assert_uint_gt(fake_machine_requests(&fx.machine, "stream STATUS -> 0x2"), 0);
	fixture_finish(&fx, &c);
}
END_TEST

START_TEST(refusals_are_words)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fake_machine_control(&fx.machine, "busy=1\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EBUSY);
	ck_assert_msg(strstr(err.message, "the OA unit of card0 is in use by "
			     "another process"), "%s", err.message);
	fake_machine_control(&fx.machine, "capable=0\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EACCES);
	ck_assert_msg(strstr(err.message, "dev.xe.observation_paranoid is 1 and "
			     "gpuperfd lacks CAP_PERFMON"), "%s", err.message);
	fake_machine_control(&fx.machine, "einval=format\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "card0 rejected the stream parameters "
			     "(EINVAL): OA format A32u40_A4u32_B8_C8 (0x500)"),
		      "%s", err.message);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

static Suite *xe_source_suite(void)
{
	Suite *s = suite_create("xe_source");
	TCase *tc = tcase_create("fake kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frames_equal_the_sim_source);
	tcase_add_test(tc, one_register_list_registered_and_removed);
	tcase_add_test(tc, loss_comes_through_the_status);
	tcase_add_test(tc, refusals_are_words);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(xe_source_suite)
