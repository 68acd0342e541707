/*
 * The daemon on a fake machine (fake_machine.h), run on a loop of its own
 * for a while at a time: what the i915 and xe source suites share.
 */
#ifndef GPM_TEST_FAKE_MACHINE_DAEMON_H
#define GPM_TEST_FAKE_MACHINE_DAEMON_H

#include <limits.h>
#include <stdio.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_util.h"

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	uv_timer_t deadline;
	struct fake_machine machine;
	char metrics[PATH_MAX];
};

static inline void fixture_on_deadline(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* The daemon serving spec on the fixture's machine, with its metrics. */
static inline void fixture_daemon(struct fixture *fx, const char *spec,
				  uint64_t seed)
{
	const char *devices[] = { spec };
	const char *dirs[] = { fx->metrics };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.metrics_dirs = dirs,
		.n_metrics_dirs = 1,
		.seed = seed,
		.dev_root = fx->machine.dev_root,
		.sysfs_root = fx->machine.sysfs_root,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_init(&fx->loop);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx->loop, &fx->deadline);
}

/* A machine with one Tiger Lake driven by driver ("i915", "xe"), the
 * metric sets boot_sets registered, and the daemon on it. */
static inline void fixture_start(struct fixture *fx, const char *driver,
				 const char *boot_sets)
{
	char rel[64], cards[32], spec[160];

	snprintf(rel, sizeof(rel), "intel-metrics/%s", driver);
	snprintf(cards, sizeof(cards), "%s:tglgt2", driver);
	test_shared_path(fx->metrics, sizeof(fx->metrics), rel);
	fake_machine_start(&fx->machine, cards, fx->metrics, boot_sets);
	snprintf(spec, sizeof(spec), "%s:%s", driver, fx->machine.node);
	fixture_daemon(fx, spec, 1);
}

static inline void fixture_run(struct fixture *fx, unsigned ms)
{
	/* Loading the metric files took a while since the loop last looked
	 * at the clock. */
	uv_update_time(&fx->loop);
	uv_timer_start(&fx->deadline, fixture_on_deadline, ms, 0);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	uv_timer_stop(&fx->deadline);
}

static inline void fixture_stop(struct fixture *fx)
{
	uv_close((uv_handle_t *)&fx->deadline, NULL);
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

#endif
