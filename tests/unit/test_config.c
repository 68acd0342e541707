/*
 * gpuperfd's configuration: the command line and the --config file read
 * into the same options, the command line winning, and what a reload
 * would find changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config.h"
#include "daemon/config_flight.h"
#include "tests/unit/test_util.h"

static char path[64];

static void write_file(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/gpd-config-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Loads the NULL-terminated arguments after "gpuperfd". */
#define LOAD(cfg, err, ...)                                                  \
	({                                                                   \
		static char *args_[] = { "gpuperfd", __VA_ARGS__, NULL };    \
		gpd_config_load((cfg), (int)(sizeof(args_) /                 \
					     sizeof(args_[0])) - 1,          \
				args_, (err));                               \
	})

START_TEST(test_defaults)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	char *argv[] = { "gpuperfd", NULL };
	ck_assert_int_eq(gpd_config_load(&c, 1, argv, &err), 0);
	ck_assert_uint_eq(c.daemon.n_device_specs, 0);
	ck_assert_uint_eq(c.daemon.n_metrics_dirs, 0);
	ck_assert_uint_eq(c.daemon.seed, 1);
	ck_assert_uint_eq(c.daemon.linger_ms, 2000);
	ck_assert_int_eq(c.log_level, GPD_LOG_INFO);
	ck_assert_ptr_null(c.path);
	ck_assert_ptr_null(c.user);
	ck_assert_uint_eq(c.server.n_listen, 0);
	ck_assert(!c.help && !c.version);
	gpd_config_fini(&c);
}
END_TEST

START_TEST(test_command_line)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(LOAD(&c, &err, "-dsim", "--device", "sim:tglgt2",
			      "-m", "/a", "--metrics-dir=/b", "--seed", "7",
			      "--linger", "0", "-l", "127.0.0.1:0",
			      "--listen", "[::1]:0", "--unix", "/run/x.sock",
			      "--token-file", "/t", "--tls-cert", "/c",
			      "--tls-key", "/k", "--web-root", "/w",
			      "--metrics-window", "500", "--max-connections", "3",
			      "--max-message-bytes", "4096",
			      "--max-request-rate", "9", "--queue-frames", "5",
			      "--log-level", "debug", "--user", "nobody",
			      "--dev-root", "/d", "--sysfs-root", "/s",
			      "--foreground"), 0);
	ck_assert_uint_eq(c.daemon.n_device_specs, 2);
	ck_assert_str_eq(c.daemon.device_specs[0], "sim");
	ck_assert_str_eq(c.daemon.device_specs[1], "sim:tglgt2");
	ck_assert_uint_eq(c.daemon.n_metrics_dirs, 2);
	ck_assert_str_eq(c.daemon.metrics_dirs[1], "/b");
	ck_assert_uint_eq(c.daemon.seed, 7);
	ck_assert_uint_eq(c.daemon.linger_ms, 0);
	ck_assert_str_eq(c.daemon.dev_root, "/d");
	ck_assert_str_eq(c.daemon.sysfs_root, "/s");
	ck_assert_uint_eq(c.server.n_listen, 2);
	ck_assert_str_eq(c.server.listen[1], "[::1]:0");
	ck_assert_str_eq(c.server.unix_path, "/run/x.sock");
	ck_assert_str_eq(c.server.token_file, "/t");
	ck_assert_str_eq(c.server.tls_cert, "/c");
	ck_assert_str_eq(c.server.tls_key, "/k");
	ck_assert_str_eq(c.server.web_root, "/w");
	ck_assert_uint_eq(c.server.metrics_window_ms, 500);
	ck_assert_uint_eq(c.server.max_connections, 3);
	ck_assert_uint_eq(c.server.max_message_bytes, 4096);
	ck_assert_uint_eq(c.server.max_requests_per_second, 9);
	ck_assert_uint_eq(c.server.queue_frames, 5);
	ck_assert_int_eq(c.log_level, GPD_LOG_DEBUG);
	ck_assert_str_eq(c.user, "nobody");
	gpd_config_fini(&c);
}
END_TEST

/* The file alone gives the same options as the same command line. */
START_TEST(test_file_equals_command_line)
{
	write_file("device = sim\n"
		   "device = sim:tglgt2\n"
		   "metrics-dir = /a\n"
		   "seed = 7\n"
		   "listen = none\n"
		   "unix = /run/x.sock\n"
		   "max-connections = 3\n"
		   "log-level = warning\n"
		   "user = nobody\n"
		   "foreground\n");
	struct gpd_config f, c;
	struct gpd_error err = { 0 };
	char *fargs[] = { "gpuperfd", "--config", path, NULL };
	ck_assert_int_eq(gpd_config_load(&f, 3, fargs, &err), 0);
	ck_assert_int_eq(LOAD(&c, &err, "--device", "sim", "-d", "sim:tglgt2",
			      "-m", "/a", "--seed", "7", "--listen", "none",
			      "--unix", "/run/x.sock", "--max-connections", "3",
			      "--log-level", "warning", "--user", "nobody",
			      "--foreground"), 0);
	unlink(path);
	ck_assert_str_eq(f.path, path);
	ck_assert_uint_eq(f.daemon.n_device_specs, 2);
	ck_assert_str_eq(f.daemon.device_specs[1], "sim:tglgt2");
	ck_assert_str_eq(f.daemon.metrics_dirs[0], "/a");
	ck_assert_uint_eq(f.daemon.seed, 7);
	ck_assert(f.server.no_tcp);
	ck_assert_str_eq(f.server.unix_path, "/run/x.sock");
	ck_assert_uint_eq(f.server.max_connections, 3);
	ck_assert_int_eq(f.log_level, GPD_LOG_WARNING);
	ck_assert_str_eq(f.user, "nobody");
	char changed[128];
	static const char *const skip[] = { "config", NULL };
	ck_assert_uint_eq(gpd_config_changes(&f, &c, skip, changed,
					     sizeof(changed)), 0);
	gpd_config_fini(&f);
	gpd_config_fini(&c);
}
END_TEST

/* An option on the command line replaces all of the file's lines for it;
 * the file's other options stay. */
START_TEST(test_command_line_wins)
{
	write_file("device = sim\n"
		   "device = sim:tglgt2\n"
		   "metrics-dir = /from-file\n"
		   "seed = 7\n"
		   "linger = 5\n"
		   "log-level = debug\n");
	struct gpd_config c;
	struct gpd_error err = { 0 };
	char *args[] = { "gpuperfd", "--seed", "9", "--config", path,
			 "-d", "replay:/r", NULL };
	ck_assert_int_eq(gpd_config_load(&c, 7, args, &err), 0);
	unlink(path);
	ck_assert_uint_eq(c.daemon.n_device_specs, 1);
	ck_assert_str_eq(c.daemon.device_specs[0], "replay:/r");
	ck_assert_uint_eq(c.daemon.n_metrics_dirs, 1);
	ck_assert_str_eq(c.daemon.metrics_dirs[0], "/from-file");
	ck_assert_uint_eq(c.daemon.seed, 9);
	ck_assert_uint_eq(c.daemon.linger_ms, 5);
	ck_assert_int_eq(c.log_level, GPD_LOG_DEBUG);
	gpd_config_fini(&c);
}
END_TEST

static void check_load_error(char **args, int argc, int code,
			     const char *message)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_config_load(&c, argc, args, &err), code);
	ck_assert_msg(!strcmp(err.message, message), "'%s' is not '%s'",
		      err.message, message);
	gpd_config_fini(&c);
}

#define CHECK_ERROR(message, ...)                                            \
	do {                                                                 \
		char *args_[] = { "gpuperfd", __VA_ARGS__, NULL };           \
		check_load_error(args_, (int)(sizeof(args_) /                \
					      sizeof(args_[0])) - 1,         \
				 -EINVAL, (message));                        \
	} while (0)

START_TEST(test_command_line_errors)
{
	CHECK_ERROR("unknown option '--frobnicate'; see 'gpuperfd --help'",
		    "--frobnicate");
	CHECK_ERROR("unknown option '-x'; see 'gpuperfd --help'", "-x");
	CHECK_ERROR("--seed needs a value; see 'gpuperfd --help'", "--seed");
	CHECK_ERROR("--foreground=1 takes no value", "--foreground=1");
	CHECK_ERROR("--seed takes a number, not 'x'", "--seed", "x");
	CHECK_ERROR("--linger takes milliseconds, not '-1'", "--linger", "-1");
	CHECK_ERROR("--max-connections takes a positive number, not '0'",
		    "--max-connections", "0");
	CHECK_ERROR("--metrics-window takes milliseconds, not '0'",
		    "--metrics-window", "0");
	CHECK_ERROR("--log-level takes error, warning, info or debug, not "
		    "'loud'", "--log-level", "loud");
	CHECK_ERROR("--listen none goes alone", "--listen", "none", "-l",
		    "127.0.0.1:0");
	CHECK_ERROR("unexpected argument 'sim'; see 'gpuperfd --help'",
		    "--seed", "1", "sim", "--linger", "2");
	/* Options that name a device or an address are checked whole here,
	 * so that they are refused as bad options, as a misspelled one is. */
	CHECK_ERROR("--device foo: unknown device kind; use auto, "
		    "sim[:PLATFORM][,load=X], replay:FILE[,loop][,speed=X|max], "
		    "i915:PATH, xe:PATH, nvidia:N or amdgpu:cardN", "--device", "foo");
	CHECK_ERROR("--listen 7890: expected ADDR:PORT, e.g. 127.0.0.1:7890 "
		    "or [::1]:7890", "--listen", "7890");
	CHECK_ERROR("--listen 0.0.0.0:0 is not a loopback address: other "
		    "machines could reach the GPU's counters, so it needs "
		    "--token-file (and --tls-cert/--tls-key to keep the tokens "
		    "secret)", "-l", "127.0.0.1:0", "-l", "0.0.0.0:0");
	CHECK_ERROR("--tls-cert and --tls-key go together", "--tls-cert", "/c");
}
END_TEST

START_TEST(test_file_errors)
{
	char message[256];
	char *args[] = { "gpuperfd", "--config", path, NULL };

	write_file("device = sim\n\nseed = many\n");
	snprintf(message, sizeof(message),
		 "%s:3: --seed takes a number, not 'many'", path);
	check_load_error(args, 3, -EINVAL, message);
	unlink(path);

	write_file("queue-frames = 0\n");
	snprintf(message, sizeof(message),
		 "%s:1: --queue-frames takes a positive number, not '0'", path);
	check_load_error(args, 3, -EINVAL, message);
	unlink(path);

	static const char *const refused[] = { "config = /etc/x", "help",
					       "version" };
	for (size_t i = 0; i < 3; i++) {
		char text[64];
		snprintf(text, sizeof(text), "seed = 1\n%s\n", refused[i]);
		write_file(text);
		char name[16];
		sscanf(refused[i], "%15s", name);
		snprintf(message, sizeof(message), "%s:2: '%s' belongs on the "
			 "command line, not in the file", path, name);
		check_load_error(args, 3, -EINVAL, message);
		unlink(path);
	}

	snprintf(message, sizeof(message), "--config %s: No such file or "
		 "directory", path);
	check_load_error(args, 3, -ENOENT, message);
}
END_TEST

/* The flight recorder's options: repeatable, from the file too, their
 * words checked when read (what they name is checked against the
 * devices when the daemon starts). */
START_TEST(test_flight_recorder_options)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	write_file("flight-recorder = sim0=64Mi\nkeep-streaming = RenderBasic@100us\n"
		   "snapshot-role = controller\n");
	ck_assert_msg(LOAD(&c, &err, "--config", path, "--flight-recorder", "30s",
			   "--flight-recorder-memory", "1G") == 0, "%s",
		      err.message);
	/* The command line's --flight-recorder replaces the file's. */
	ck_assert_uint_eq(c.daemon.n_flight_recorders, 1);
	ck_assert_str_eq(c.daemon.flight_recorders[0], "30s");
	ck_assert_uint_eq(c.daemon.n_keep_streaming, 1);
	ck_assert_str_eq(c.daemon.keep_streaming[0], "RenderBasic@100us");
	ck_assert_uint_eq(c.daemon.flight_recorder_memory, 1000000000);
	ck_assert_uint_eq(c.server.snapshot_memory, 1000000000);
	ck_assert(c.server.snapshots_need_controller);
	gpd_config_fini(&c);
	unlink(path);

	ck_assert_int_eq(LOAD(&c, &err, "--flight-recorder", "sim0=1M"), 0);
	ck_assert(!c.server.snapshots_need_controller);
	ck_assert_uint_eq(c.server.snapshot_memory, 256u << 20);
	gpd_config_fini(&c);

	struct gpd_flight_recorder_spec fr;
	ck_assert_int_eq(gpd_flight_recorder_spec_parse("card1=2Gi", &fr, &err), 0);
	ck_assert_str_eq(fr.device, "card1");
	ck_assert_uint_eq(fr.bytes, 2ull << 30);
	ck_assert_int_eq(gpd_flight_recorder_spec_parse("90s", &fr, &err), 0);
	ck_assert_str_eq(fr.device, "");
	ck_assert_uint_eq(fr.duration_ns, 90000000000ull);
	struct gpd_keep_streaming_spec ks;
	ck_assert_int_eq(gpd_keep_streaming_spec_parse("sim1=ComputeBasic", &ks,
						       &err), 0);
	ck_assert_str_eq(ks.device, "sim1");
	ck_assert_str_eq(ks.metric_set, "ComputeBasic");
	ck_assert_uint_eq(ks.period_ns, 0);

	CHECK_ERROR("--flight-recorder takes [DEVICE=]SIZE or [DEVICE=]DURATION, "
		    "such as 64Mi, sim0=256M or 30s, not 'lots'",
		    "--flight-recorder", "lots");
	CHECK_ERROR("--flight-recorder 4k: a ring holds at least 262144 bytes "
		    "(256Ki)", "--flight-recorder", "4k");
	CHECK_ERROR("--flight-recorder =1M: '' is no device name",
		    "--flight-recorder", "=1M");
	CHECK_ERROR("--keep-streaming takes [DEVICE=]SET[@PERIOD], such as "
		    "RenderBasic@1ms or sim0=ComputeBasic@100us, not "
		    "'RenderBasic@soon'", "--keep-streaming", "RenderBasic@soon");
	CHECK_ERROR("--flight-recorder-memory takes a size such as 256Mi or 1G, "
		    "not '0'", "--flight-recorder-memory", "0");
	CHECK_ERROR("--snapshot-role takes viewer or controller, not 'anyone'",
		    "--snapshot-role", "anyone");
}
END_TEST

/* Every size is read as README's "Units" says: k, M, G are powers of
 * 1000, Ki, Mi, Gi of 1024, whichever option takes it. */
START_TEST(sizes_read_alike_in_every_option)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	ck_assert_msg(LOAD(&c, &err, "--send-budget", "16M",
			   "--flight-recorder-memory", "16M") == 0, "%s",
		      err.message);
	ck_assert_uint_eq(c.server.send_budget, 16000000);
	ck_assert_uint_eq(c.daemon.flight_recorder_memory, 16000000);
	gpd_config_fini(&c);
	ck_assert_msg(LOAD(&c, &err, "--send-budget", "16Mi",
			   "--flight-recorder-memory", "16MiB") == 0, "%s",
		      err.message);
	ck_assert_uint_eq(c.server.send_budget, 16u << 20);
	ck_assert_uint_eq(c.daemon.flight_recorder_memory, 16u << 20);
	gpd_config_fini(&c);
	ck_assert_msg(LOAD(&c, &err, "--send-budget", "2G") == 0, "%s",
		      err.message);
	ck_assert_uint_eq(c.server.send_budget, 2000000000);
	gpd_config_fini(&c);
	CHECK_ERROR("--send-budget takes a size such as 64Mi or 100M, at least "
		    "1Mi, not '1000k'", "--send-budget", "1000k");
}
END_TEST

/* --help and --version answer without reading a file that may be
 * broken. */
START_TEST(test_help_skips_file)
{
	struct gpd_config c;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(LOAD(&c, &err, "--config", "/nonexistent", "--help"), 0);
	ck_assert(c.help);
	gpd_config_fini(&c);
	ck_assert_int_eq(LOAD(&c, &err, "--version", "--config", "/nonexistent"), 0);
	ck_assert(c.version);
	gpd_config_fini(&c);
}
END_TEST

START_TEST(test_changes)
{
	struct gpd_config a, b;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(LOAD(&a, &err, "-d", "sim", "-m", "/a", "--seed", "1",
			      "--foreground"), 0);
	ck_assert_int_eq(LOAD(&b, &err, "-d", "sim", "-d", "sim:tglgt2",
			      "-m", "/b", "--seed", "1", "--log-level",
			      "debug", "--linger", "5"), 0);
	char changed[128];
	ck_assert_uint_eq(gpd_config_changes(&a, &b, NULL, changed,
					     sizeof(changed)), 5);
	ck_assert_str_eq(changed, "--device, --metrics-dir, --linger, "
			 "--log-level, --foreground");
	static const char *const reloadable[] = { "metrics-dir", "log-level",
						  NULL };
	ck_assert_uint_eq(gpd_config_changes(&a, &b, reloadable, changed,
					     sizeof(changed)), 3);
	ck_assert_str_eq(changed, "--device, --linger, --foreground");
	/* A short buffer still counts every change. */
	ck_assert_uint_eq(gpd_config_changes(&a, &b, NULL, changed, 12), 5);
	ck_assert_str_eq(changed, "--device");
	gpd_config_fini(&a);
	gpd_config_fini(&b);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_command_line);
	tcase_add_test(tc, test_file_equals_command_line);
	tcase_add_test(tc, test_command_line_wins);
	tcase_add_test(tc, test_command_line_errors);
	tcase_add_test(tc, test_file_errors);
	tcase_add_test(tc, test_help_skips_file);
	tcase_add_test(tc, test_flight_recorder_options);
	tcase_add_test(tc, sizes_read_alike_in_every_option);
	tcase_add_test(tc, test_changes);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(config_suite)
