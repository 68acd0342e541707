/*
 * gpuperfd: the GPU profiling daemon's entry point: options, the loop.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperfd [OPTIONS]\n"
		"\n"
		"Owns the GPU's performance counter unit and serves its counters.\n"
		"\n"
		"  -d, --device SPEC      a device to serve (repeatable; default auto):\n"
		"                           auto             every Intel and NVIDIA GPU, else sim\n"
		"                           sim[:PLATFORM]   the simulated OA unit, e.g. sim:tglgt2\n"
		"                           replay:FILE[,loop][,speed=X|max]\n"
		"                           i915:/dev/dri/cardN, xe:/dev/dri/cardN\n"
		"                           nvidia:N         CUDA device N (CUPTI PM sampling)\n"
		"  -m, --metrics-dir DIR  load oa-*.xml metric definitions from DIR\n"
		"                         (repeatable; the sim GPU's are built in)\n"
		"      --seed N           seed of the simulated workload (default 1)\n"
		"      --linger MS        keep a stream open MS ms after its last\n"
		"                         subscriber leaves (default 2000)\n"
		"      --dev-root DIR     where device nodes are: DIR/dri/cardN (default /dev)\n"
		"      --sysfs-root DIR   where sysfs is (default /sys)\n"
		"\n"
		"Serving (HTTP: / the web UI, /ws the protocol, /metrics, /healthz):\n"
		"  -l, --listen ADDR:PORT listen there (repeatable; default "
		GPD_DEFAULT_LISTEN ";\n"
		"                         PORT 0 picks one; 'none': only --unix).\n"
		"                         Addresses other than loopback need\n"
		"                         --token-file\n"
		"      --unix PATH        also listen on a Unix socket (no token needed)\n"
		"      --token-file FILE  bearer tokens, one `TOKEN viewer|controller`\n"
		"                         a line\n"
		"      --tls-cert FILE    serve TLS with this PEM certificate ...\n"
		"      --tls-key FILE     ... and key\n"
		"      --web-root DIR     the web UI's built files (default\n"
		"                         " GPM_DATADIR "/web when installed)\n"
		"      --metrics-window MS  /metrics reports windows of MS ms\n"
		"                         (default 1000)\n"
		"      --max-connections N      (default 256)\n"
		"      --max-message-bytes N    largest request (default 65536)\n"
		"      --max-request-rate N     requests a second per connection\n"
		"                               (default 100)\n"
		"      --queue-frames N   frames queued for a slow client before it\n"
		"                         loses some (default 64)\n"
		"\n"
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
	OPT_UNIX,
	OPT_TOKEN_FILE,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_WEB_ROOT,
	OPT_METRICS_WINDOW,
	OPT_MAX_CONNECTIONS,
	OPT_MAX_MESSAGE_BYTES,
	OPT_MAX_REQUEST_RATE,
	OPT_QUEUE_FRAMES,
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

/* A positive 32-bit number. */
static int parse_u32(const char *text, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(text, &v) || !v || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int run(struct gpd_daemon *daemon, const struct gpd_server_options *so,
	       struct gpd_server *server)
{
	struct gpd_error err = { 0 };
	if (gpd_server_init(server, daemon, so, &err) ||
	    gpd_server_listen(server, &err)) {
		gpd_error("%s", err.message);
		return 1;
	}
	gpd_daemon_handle_signals(daemon);
	gpd_info("gpuperfd %s ready with %zu device(s)%s%s", GPUPERF_VERSION,
		 daemon->n_devices, server->url[0] ? ": open " : "",
		 server->url);
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
		{ "listen", required_argument, NULL, 'l' },
		{ "unix", required_argument, NULL, OPT_UNIX },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
		{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
		{ "web-root", required_argument, NULL, OPT_WEB_ROOT },
		{ "metrics-window", required_argument, NULL, OPT_METRICS_WINDOW },
		{ "max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS },
		{ "max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE_BYTES },
		{ "max-request-rate", required_argument, NULL, OPT_MAX_REQUEST_RATE },
		{ "queue-frames", required_argument, NULL, OPT_QUEUE_FRAMES },
		{ NULL, 0, NULL, 0 },
	};
	const char **devices = calloc((size_t)argc, sizeof(*devices));
	const char **dirs = calloc((size_t)argc, sizeof(*dirs));
	const char **listen = calloc((size_t)argc, sizeof(*listen));
	if (!devices || !dirs || !listen) {
		fprintf(stderr, "gpuperfd: out of memory\n");
		return 1;
	}
	struct gpd_options options = {
		.device_specs = devices,
		.metrics_dirs = dirs,
		.seed = 1,
		.linger_ms = 2000,
	};
	struct gpd_server_options so = { .listen = listen };
	int c;
	while ((c = getopt_long(argc, argv, "d:m:l:h", longopts, NULL)) != -1) {
		enum gpd_log_level level;
		uint32_t *limit = NULL;
		const char *limit_name = NULL;
		switch (c) {
		case 'l':
			if (!strcmp(optarg, "none"))
				so.no_tcp = true;
			else
				listen[so.n_listen++] = optarg;
			break;
		case OPT_UNIX:
			so.unix_path = optarg;
			break;
		case OPT_TOKEN_FILE:
			so.token_file = optarg;
			break;
		case OPT_TLS_CERT:
			so.tls_cert = optarg;
			break;
		case OPT_TLS_KEY:
			so.tls_key = optarg;
			break;
		case OPT_WEB_ROOT:
			so.web_root = optarg;
			break;
		case OPT_METRICS_WINDOW:
			if (parse_u64(optarg, &so.metrics_window_ms) ||
			    !so.metrics_window_ms) {
				fprintf(stderr, "gpuperfd: --metrics-window takes "
					"milliseconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_MAX_CONNECTIONS:
			limit = &so.max_connections;
			limit_name = "--max-connections";
			break;
		case OPT_MAX_MESSAGE_BYTES:
			limit = &so.max_message_bytes;
			limit_name = "--max-message-bytes";
			break;
		case OPT_MAX_REQUEST_RATE:
			limit = &so.max_requests_per_second;
			limit_name = "--max-request-rate";
			break;
		case OPT_QUEUE_FRAMES:
			limit = &so.queue_frames;
			limit_name = "--queue-frames";
			break;
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
		if (limit && parse_u32(optarg, limit)) {
			fprintf(stderr, "gpuperfd: %s takes a positive number, "
				"not '%s'\n", limit_name, optarg);
			return 2;
		}
	}
	/* `make install` puts the web UI there. */
	if (!so.web_root && !access(GPM_DATADIR "/web/index.html", R_OK))
		so.web_root = GPM_DATADIR "/web";
	if (so.no_tcp && so.n_listen) {
		fprintf(stderr, "gpuperfd: --listen none goes alone\n");
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "gpuperfd: unexpected argument '%s'; see 'gpuperfd --help'\n",
			argv[optind]);
		return 2;
	}

	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_daemon daemon;
	struct gpd_server server;
	struct gpd_error err = { 0 };
	int status = 0;
	memset(&server, 0, sizeof(server));
	if (gpd_daemon_init(&daemon, &loop, &options, &err)) {
		gpd_error("%s", err.message);
		status = 1;
	} else {
		status = run(&daemon, &so, &server);
	}
	if (status)
		gpd_daemon_stop(&daemon);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_server_fini(&server);
	gpd_daemon_fini(&daemon);
	if (uv_loop_close(&loop))
		gpd_warn("some handles were still open at exit");
	free(devices);
	free(dirs);
	free(listen);
	return status;
}
