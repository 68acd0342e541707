/*
 * Reloading on the sim daemon, in-process: metric definitions that a
 * device takes at once when idle and only after its last subscriber when
 * busy, definitions nobody uses freed, a failed reload that changes
 * nothing, gpd_reload reading the --config file again, and tokens
 * replaced by gpd_auth_reload.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/net/auth.h"
#include "daemon/reload.h"
#include "metrics/metrics_db.h"
#include "tests/unit/test_util.h"

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	struct gpd_device *dev;
};

static void fixture_start_lingering(struct fixture *fx, uint64_t linger_ms)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 3,
		.linger_ms = linger_ms,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&fx->loop);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(fx->daemon.registry.n_devices, 1);
	fx->dev = fx->daemon.registry.devices[0];
}

static void fixture_start(struct fixture *fx)
{
	fixture_start_lingering(fx, 0);
}

static void fixture_stop(struct fixture *fx)
{
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

static bool db_holds(const struct gpm_metrics_db *db,
		     const struct gpm_metrics_file *file)
{
	for (size_t i = 0; i < db->n_files; i++)
		if (db->files[i] == file)
			return true;
	return false;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
}

static void on_event(void *user, const struct gpd_event *ev)
{
}

static const struct gpd_subscriber_ops ops = {
	.frame = on_frame,
	.event = on_event,
};

/* The repository's sim definitions as a --metrics-dir: the reloaded
 * database finds the sim platform there, before the built-in copy. */
static const char *const sim_dir[] = { "metrics/sim" };

START_TEST(test_idle_device_takes_definitions_at_once)
{
	struct fixture fx;
	fixture_start(&fx);
	const struct gpm_metrics_file *before = fx.dev->metrics;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_daemon_reload_metrics(&fx.daemon, sim_dir, 1,
						   &err), 0);
	ck_assert_ptr_ne(fx.dev->metrics, before);
	ck_assert(db_holds(fx.daemon.metrics, fx.dev->metrics));
	ck_assert_ptr_null(fx.dev->next_metrics);
	/* Nothing uses the first definitions: they are gone. */
	ck_assert_uint_eq(fx.daemon.n_retired, 0);
	ck_assert_uint_eq(fx.daemon.options.n_metrics_dirs, 1);
	ck_assert_ptr_nonnull(gpd_device_find_set(fx.dev, "RenderBasic"));
	fixture_stop(&fx);
}
END_TEST

START_TEST(test_busy_device_waits_for_its_last_subscriber)
{
	struct fixture fx;
	fixture_start(&fx);
	struct gpd_error err = { 0 };
	struct gpd_subscribe_request req = {
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &ops, NULL, &sub,
				       &err), 0);
	ck_assert(fx.dev->open);
	const struct gpm_metrics_file *before = fx.dev->metrics;
	const struct gpm_metric_set *set = fx.dev->set;

	ck_assert_int_eq(gpd_daemon_reload_metrics(&fx.daemon, sim_dir, 1,
						   &err), 0);
	/* The subscriber's set is still the one it streams. */
	ck_assert_ptr_eq(fx.dev->metrics, before);
	ck_assert_ptr_eq(fx.dev->set, set);
	ck_assert_ptr_nonnull(fx.dev->next_metrics);
	ck_assert_uint_eq(fx.daemon.n_retired, 1);
	uv_run(&fx.loop, UV_RUN_NOWAIT);

	/* With linger 0 the stream closes with its last subscriber, and the
	 * device moves on. */
	gpd_unsubscribe(sub);
	ck_assert(!fx.dev->open);
	ck_assert_ptr_null(fx.dev->next_metrics);
	ck_assert_ptr_ne(fx.dev->metrics, before);
	ck_assert(db_holds(fx.daemon.metrics, fx.dev->metrics));
	ck_assert_uint_eq(fx.daemon.n_retired, 0);

	/* And streams the new definitions' sets. */
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &ops, NULL, &sub,
				       &err), 0);
	ck_assert(fx.dev->set >= fx.dev->metrics->sets &&
		  fx.dev->set < fx.dev->metrics->sets + fx.dev->metrics->n_sets);
	gpd_unsubscribe(sub);
	fixture_stop(&fx);
}
END_TEST

/* A subscriber that reopens a lingering stream at another period closes
 * it on the way: the device must not take the new definitions in the
 * middle of configuring the old set. */
START_TEST(test_no_switch_while_configuring)
{
	struct fixture fx;
	fixture_start_lingering(&fx, 60000);
	struct gpd_error err = { 0 };
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &ops, NULL, &sub,
				       &err), 0);
	unsigned exponent = fx.dev->exponent;
	gpd_unsubscribe(sub);
	ck_assert(fx.dev->open);        /* lingering */
	const struct gpm_metrics_file *before = fx.dev->metrics;
	ck_assert_int_eq(gpd_daemon_reload_metrics(&fx.daemon, sim_dir, 1,
						   &err), 0);
	ck_assert_ptr_nonnull(fx.dev->next_metrics);

	req.sampling_period_ns = 100000000;
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &ops, NULL, &sub,
				       &err), 0);
	ck_assert_uint_ne(fx.dev->exponent, exponent);
	ck_assert(fx.dev->open);
	ck_assert_ptr_eq(fx.dev->metrics, before);
	ck_assert(fx.dev->set >= before->sets &&
		  fx.dev->set < before->sets + before->n_sets);
	ck_assert_ptr_nonnull(fx.dev->next_metrics);
	uv_run(&fx.loop, UV_RUN_NOWAIT);
	gpd_unsubscribe(sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(test_failed_reload_changes_nothing)
{
	struct fixture fx;
	fixture_start(&fx);
	const struct gpm_metrics_db *db = fx.daemon.metrics;
	const struct gpm_metrics_file *before = fx.dev->metrics;
	static const char *const missing[] = { "/nonexistent/perf-configs" };
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_daemon_reload_metrics(&fx.daemon, missing, 1,
						   &err), -ENOENT);
	ck_assert_str_eq(err.message, "--metrics-dir /nonexistent/perf-configs: "
			 "No such file or directory");
	ck_assert_ptr_eq(fx.daemon.metrics, db);
	ck_assert_ptr_eq(fx.dev->metrics, before);
	ck_assert_uint_eq(fx.daemon.options.n_metrics_dirs, 0);
	fixture_stop(&fx);
}
END_TEST

/* Owner-only, as a token file should be. */
static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
}

/* gpd_reload reads the --config file again: the log level and metric
 * directories change; a file with an error changes nothing. */
START_TEST(test_reload_reads_the_file_again)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/gpd-reload-%d.conf", (int)getpid());
	write_text(path, "device = sim\nlog-level = warning\n");
	char *argv[] = { "gpuperfd", "--config", path, NULL };
	struct gpd_config cfg;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_config_load(&cfg, 3, argv, &err), 0);
	struct fixture fx;
	fixture_start(&fx);
	fx.daemon.config = &cfg;

	write_text(path, "device = sim\nlog-level = error\n"
			 "metrics-dir = metrics/sim\n");
	gpd_reload(&fx.daemon);
	ck_assert_int_eq(gpd_log_get_level(), GPD_LOG_ERROR);
	ck_assert_ptr_nonnull(fx.daemon.reloaded);
	ck_assert_uint_eq(fx.daemon.options.n_metrics_dirs, 1);
	ck_assert_str_eq(fx.daemon.options.metrics_dirs[0], "metrics/sim");
	const struct gpm_metrics_file *reloaded = fx.dev->metrics;

	write_text(path, "device = sim\nlog-level = warning\nseed = lots\n");
	gpd_reload(&fx.daemon);
	ck_assert_int_eq(gpd_log_get_level(), GPD_LOG_ERROR);
	ck_assert_ptr_eq(fx.dev->metrics, reloaded);
	ck_assert_str_eq(fx.daemon.options.metrics_dirs[0], "metrics/sim");

	/* Back to no directory: the built-in definitions again. */
	write_text(path, "device = sim\nlog-level = warning\n");
	gpd_reload(&fx.daemon);
	ck_assert_int_eq(gpd_log_get_level(), GPD_LOG_WARNING);
	ck_assert_uint_eq(fx.daemon.options.n_metrics_dirs, 0);
	ck_assert_ptr_ne(fx.dev->metrics, reloaded);
	unlink(path);
	fixture_stop(&fx);
	gpd_config_fini(&cfg);
}
END_TEST

#define OLD_TOKEN "old-token-0123456789abcdefghij"
#define NEW_TOKEN "new-token-0123456789abcdefghij"

START_TEST(test_tokens_reload)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/gpd-tokens-%d", (int)getpid());
	write_text(path, OLD_TOKEN " viewer\n");
	struct gpd_auth auth;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_auth_load(&auth, path, &err), 0);
	enum gpd_role role;
	ck_assert_int_eq(gpd_auth_check(&auth, OLD_TOKEN, strlen(OLD_TOKEN), &role), 0);

	write_text(path, NEW_TOKEN " controller\n");
	ck_assert_int_eq(gpd_auth_reload(&auth, path, &err), 0);
	ck_assert_int_eq(gpd_auth_check(&auth, OLD_TOKEN, strlen(OLD_TOKEN), &role), -EACCES);
	ck_assert_int_eq(gpd_auth_check(&auth, NEW_TOKEN, strlen(NEW_TOKEN), &role), 0);
	ck_assert_int_eq(role, GPD_ROLE_CONTROLLER);

	/* A broken file keeps the tokens loaded. */
	write_text(path, NEW_TOKEN " admin\n");
	ck_assert_int_eq(gpd_auth_reload(&auth, path, &err), -EINVAL);
	ck_assert_int_eq(gpd_auth_check(&auth, NEW_TOKEN, strlen(NEW_TOKEN), &role), 0);
	unlink(path);
	ck_assert_int_lt(gpd_auth_reload(&auth, path, &err), 0);
	ck_assert_int_eq(gpd_auth_check(&auth, NEW_TOKEN, strlen(NEW_TOKEN), &role), 0);
	gpd_auth_fini(&auth);
}
END_TEST

static Suite *reload_suite(void)
{
	Suite *s = suite_create("reload");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_idle_device_takes_definitions_at_once);
	tcase_add_test(tc, test_busy_device_waits_for_its_last_subscriber);
	tcase_add_test(tc, test_no_switch_while_configuring);
	tcase_add_test(tc, test_failed_reload_changes_nothing);
	tcase_add_test(tc, test_reload_reads_the_file_again);
	tcase_add_test(tc, test_tokens_reload);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(reload_suite)
