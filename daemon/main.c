/*
 * gpuperfd: the GPU profiling daemon's entry point: options, the loop.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperfd [OPTIONS]\n"
		"\n"
		"Owns the GPU's performance counter unit and serves its counters.\n"
		"\n"
		"  -d, --device SPEC      a device to serve (repeatable; default auto):\n"
		"                           auto             every Intel GPU, else sim\n"
		"                           sim[:PLATFORM]   the simulated OA unit, e.g. sim:tglgt2\n"
		"                           replay:FILE[,loop][,speed=X|max]\n"
		"                           i915:/dev/dri/cardN, xe:/dev/dri/cardN\n"
		"  -m, --metrics-dir DIR  load oa-*.xml metric definitions from DIR\n"
		"                         (repeatable; the sim GPU's are built in)\n"
		"      --seed N           seed of the simulated workload (default 1)\n"
		"      --linger MS        keep a stream open MS ms after its last\n"
		"                         subscriber leaves (default 2000)\n"
		"      --dev-root DIR     where device nodes are: DIR/dri/cardN (default /dev)\n"
		"      --sysfs-root DIR   where sysfs is (default /sys)\n"
		"      --log-level LEVEL  error, warning, info (default) or debug\n"
		"      --foreground       stay in the foreground (the default)\n"
		"  -h, --help             show this help\n"
		"      --version          print the version\n");
}

enum {
	OPT_SEED = 256,
	OPT_LINGER,
	OPT_LOG_LEVEL,
	OPT_FOREGROUND,
	OPT_VERSION,
	OPT_DEV_ROOT,
	OPT_SYSFS_ROOT,
};

static int parse_u64(const char *text, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || end == text || *end || *text == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "metrics-dir", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "linger", required_argument, NULL, OPT_LINGER },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "foreground", no_argument, NULL, OPT_FOREGROUND },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "dev-root", required_argument, NULL, OPT_DEV_ROOT },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
		{ NULL, 0, NULL, 0 },
	};
	const char **devices = calloc((size_t)argc, sizeof(*devices));
	const char **dirs = calloc((size_t)argc, sizeof(*dirs));
	if (!devices || !dirs) {
		fprintf(stderr, "gpuperfd: out of memory\n");
		return 1;
	}
	struct gpd_options options = {
		.device_specs = devices,
		.metrics_dirs = dirs,
		.seed = 1,
		.linger_ms = 2000,
	};
	int c;
	while ((c = getopt_long(argc, argv, "d:m:h", longopts, NULL)) != -1) {
		enum gpd_log_level level;
		switch (c) {
		case 'd':
			devices[options.n_device_specs++] = optarg;
			break;
		case 'm':
			dirs[options.n_metrics_dirs++] = optarg;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &options.seed)) {
				fprintf(stderr, "gpuperfd: --seed takes a number, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_LINGER:
			if (parse_u64(optarg, &options.linger_ms)) {
				fprintf(stderr, "gpuperfd: --linger takes milliseconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_LOG_LEVEL:
			if (gpd_log_parse_level(optarg, &level)) {
				fprintf(stderr, "gpuperfd: --log-level takes error, warning, info or debug\n");
				return 2;
			}
			gpd_log_set_level(level);
			break;
		case OPT_DEV_ROOT:
			options.dev_root = optarg;
			break;
		case OPT_SYSFS_ROOT:
			options.sysfs_root = optarg;
			break;
		case OPT_FOREGROUND:
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("gpuperfd %s\n", GPUPERF_VERSION);
			return 0;
		default:
			fprintf(stderr, "see 'gpuperfd --help'\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuperfd: unexpected argument '%s'; see 'gpuperfd --help'\n",
			argv[optind]);
		return 2;
	}

	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_daemon daemon;
	struct gpd_error err = { 0 };
	int status = 0;
	if (gpd_daemon_init(&daemon, &loop, &options, &err)) {
		gpd_error("%s", err.message);
		status = 1;
		gpd_daemon_stop(&daemon);
	} else {
		gpd_daemon_handle_signals(&daemon);
		gpd_info("gpuperfd %s ready with %zu device(s)", GPUPERF_VERSION,
			 daemon.n_devices);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&daemon);
	if (uv_loop_close(&loop))
		gpd_warn("some handles were still open at exit");
	free(devices);
	free(dirs);
	return status;
}
