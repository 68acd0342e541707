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
#include "daemon/subscription_internal.h"
#include "metrics/metric_binding.h"
#include "tests/unit/fake_machine_daemon.h"
#include "tests/unit/test_util.h"

#define MAX_FRAMES 12
#define MAX_VALUES 128

struct collector {
	struct gpd_daemon *daemon;
	struct gpd_subscription *sub;
	unsigned frames;
	unsigned stop_after;
	uint32_t reports[MAX_FRAMES];
	uint64_t gpu_end[MAX_FRAMES];
	size_t n_values;
	struct gpm_value values[MAX_FRAMES][MAX_VALUES];
	uint64_t lost_reports, buffers_lost;
};

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct collector *c = user;
	if (c->frames < MAX_FRAMES) {
		c->reports[c->frames] = f->reports;
		c->gpu_end[c->frames] = f->gpu_end_ns;
		c->n_values = f->n_values < MAX_VALUES ? f->n_values : MAX_VALUES;
		memcpy(c->values[c->frames], f->values,
		       c->n_values * sizeof(*f->values));
	}
	c->lost_reports += f->lost_reports;
	c->buffers_lost += f->buffer_lost;
	c->frames++;
	if (c->stop_after && c->frames >= c->stop_after)
		uv_stop(c->daemon->loop);
}

static const struct gpd_subscriber_ops collector_ops = { .frame = on_frame };

static int subscribe(struct fixture *fx, struct collector *c, uint64_t period_ns,
		     struct gpd_error *err)
{
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = period_ns,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	c->daemon = &fx->daemon;
	return gpd_subscribe(&fx->daemon.registry, &req, &collector_ops, c,
			     &c->sub, err);
}

START_TEST(frames_equal_the_sim_source)
{
	struct fixture fx;
	struct collector *kernel = calloc(1, sizeof(*kernel));
	struct collector *sim = calloc(1, sizeof(*sim));
	struct gpd_error err = { 0 };
	kernel->stop_after = sim->stop_after = MAX_FRAMES;

	fixture_start(&fx, "xe", "");
	ck_assert_msg(subscribe(&fx, kernel, 100000, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(kernel->sub);
	fixture_stop(&fx);

	fixture_daemon(&fx, "sim:tglgt2", 1);
	ck_assert_msg(subscribe(&fx, sim, 100000, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(sim->sub);
	fixture_stop(&fx);

	ck_assert_uint_ge(kernel->frames, MAX_FRAMES);
	ck_assert_uint_ge(sim->frames, MAX_FRAMES);
	ck_assert_uint_gt(kernel->n_values, 10);
	ck_assert_uint_eq(kernel->n_values, sim->n_values);
	for (unsigned f = 0; f < MAX_FRAMES; f++) {
		ck_assert_uint_gt(kernel->reports[f], 0);
		ck_assert_uint_eq(kernel->reports[f], sim->reports[f]);
		ck_assert_uint_eq(kernel->gpu_end[f], sim->gpu_end[f]);
		for (size_t i = 0; i < kernel->n_values; i++)
			ck_assert_msg(kernel->values[f][i].u == sim->values[f][i].u,
				      "frame %u value %zu differs", f, i);
	}
	free(kernel);
	free(sim);
	fake_machine_stop(&fx.machine);
}
END_TEST

START_TEST(one_register_list_registered_and_removed)
{
	struct fixture fx;
	struct collector c = { .stop_after = 2 };
	struct gpd_error err = { 0 };
	fixture_start(&fx, "xe", "");
	ck_assert_msg(subscribe(&fx, &c, 1000000, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, 2);
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

START_TEST(loss_comes_through_the_status)
{
	struct fixture fx;
	struct collector c = { .stop_after = 5 };
	struct gpd_error err = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fake_machine_control(&fx.machine, "report_loss=0.02\n");
	ck_assert_msg(subscribe(&fx, &c, 30000, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_gt(c.lost_reports, 0);
	ck_assert_uint_gt(fake_machine_requests(&fx.machine, "stream STATUS -> 0x1"), 0);
	fake_machine_control(&fx.machine, "stall_ms=2500\n");
	c.stop_after = c.frames + 5;
	fixture_run(&fx, 5000);
	ck_assert_uint_gt(c.buffers_lost, 0);
	ck_assert_uint_gt(fake_machine_requests(&fx.machine, "stream STATUS -> 0x2"), 0);
	const struct gpd_device *dev = gpd_daemon_find_device(&fx.daemon, NULL);
	/* The open window may hold loss not yet in a frame. */
	ck_assert_uint_ge(dev->stats.reports_lost, c.lost_reports);
	ck_assert_uint_ge(dev->stats.buffers_lost, c.buffers_lost);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

START_TEST(refusals_are_words)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fake_machine_control(&fx.machine, "busy=1\n");
	ck_assert_int_eq(subscribe(&fx, &c, 1000000, &err), -EBUSY);
	ck_assert_msg(strstr(err.message, "the OA unit of card0 is in use by "
			     "another process"), "%s", err.message);
	fake_machine_control(&fx.machine, "capable=0\n");
	ck_assert_int_eq(subscribe(&fx, &c, 1000000, &err), -EACCES);
	ck_assert_msg(strstr(err.message, "dev.xe.observation_paranoid is 1 and "
			     "gpuperfd lacks CAP_PERFMON"), "%s", err.message);
	fake_machine_control(&fx.machine, "einval=format\n");
	ck_assert_int_eq(subscribe(&fx, &c, 1000000, &err), -EINVAL);
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
