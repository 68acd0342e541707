/*
 * The command line and the configuration file, through one getopt_long
 * table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/config_flight.h"
#include "daemon/config_trigger.h"
#include "daemon/device_spec.h"
#include "daemon/error.h"
#include "metrics/quantity.h"

void gpd_config_usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperfd [OPTIONS]\n"
		"\n"
		"Owns the GPU's performance counter unit and serves its counters.\n"
		"\n"
		"  -d, --device SPEC      a device to serve (repeatable; default auto):\n"
		"                           auto             every Intel and NVIDIA GPU, else sim\n"
		"                           sim[:PLATFORM][,load=X]\n"
		"                                            the simulated OA unit, e.g. sim:tglgt2;\n"
		"                                            load=1.2: its work 20%% heavier;\n"
		"                                            sim:amd: a simulated AMD GPU's SPM\n"
		"                           replay:FILE[,loop][,speed=X|max]\n"
		"                           i915:/dev/dri/cardN, xe:/dev/dri/cardN\n"
		"                           nvidia:N         CUDA device N (CUPTI PM sampling)\n"
		"  -m, --metrics-dir DIR  load oa-*.xml metric definitions from DIR\n"
		"                         (repeatable; the sim GPU's are built in)\n"
		"      --seed N           seed of the simulated workload (default 1)\n"
		"      --linger MS        keep a stream open MS ms after its last\n"
		"                         subscriber leaves (default 2000)\n"
		"      --min-period DURATION  the shortest sampling period anyone\n"
		"                         may ask for (default 10us; 0: any the\n"
		"                         unit has, down to about 80 ns, where\n"
		"                         decoding alone takes a core)\n"
		"      --dev-root DIR     where device nodes are: DIR/dri/cardN (default /dev)\n"
		"      --sysfs-root DIR   where sysfs is (default /sys)\n"
		"      --proc-root DIR    where procfs is (default /proc): the\n"
		"                         processes that use a GPU are found there\n"
		"\n"
		"Serving (HTTP: / the web UI, /ws the protocol, /metrics, /healthz):\n"
		"  -l, --listen ADDR:PORT listen there (repeatable; default "
		GPD_DEFAULT_LISTEN ";\n"
		"                         PORT 0 picks one; 'none': only --unix).\n"
		"                         Addresses other than loopback need\n"
		"                         --token-file\n"
		"      --unix PATH        also listen on a Unix socket (no token needed),\n"
		"                         and on PATH.fds, where its clients pass DRM files\n"
		"      --max-passed-fds N  DRM files passed and not yet used, all\n"
		"                         connections together (default 64; 4 each)\n"
		"      --token-file FILE  bearer tokens, one `TOKEN viewer|controller`\n"
		"                         a line\n"
		"      --tls-cert FILE    serve TLS with this PEM certificate ...\n"
		"      --tls-key FILE     ... and key\n"
		"      --web-root DIR     the web UI's built files (default\n"
		"                         " GPM_DATADIR "/web when installed);\n"
		"                         links out of DIR are not followed\n"
		"      --server-name NAME a name requests may give as Host besides\n"
		"                         the listener's address (repeatable; e.g.\n"
		"                         the host name a proxy or DNS gives it)\n"
		"      --allow-origin URL pages of this origin (SCHEME://HOST[:PORT])\n"
		"                         may open WebSockets too (repeatable)\n"
		"      --metrics-window MS  /metrics reports windows of MS ms\n"
		"                         (default 1000)\n"
		"      --max-connections N      authenticated connections at once\n"
		"                               (default 256)\n"
		"      --reserved-unix N        of those, kept for --unix clients\n"
		"                               (default 16 with --unix)\n"
		"      --max-unauthenticated N  connections waiting to authenticate\n"
		"                               (default 32) ...\n"
		"      --max-unauthenticated-per-peer N  ... from one address (default 4)\n"
		"      --auth-timeout MS        time to authenticate in (default 3000)\n"
		"      --send-budget SIZE       bytes queued for all clients together\n"
		"                               (such as 64Mi or 100M; default 64Mi); a\n"
		"                               client that leaves\n"
		"                               more than its share unread is dropped\n"
		"      --max-message-bytes N    largest request (default 65536)\n"
		"      --max-request-rate N     requests a second per connection\n"
		"                               (default 100)\n"
		"      --max-evaluations N  counter evaluations a second per\n"
		"                         connection, its subscriptions and\n"
		"                         recordings together (default 1000000);\n"
		"                         a request that would take any connection\n"
		"                         over it is refused\n"
		"      --queue-frames N   frames queued for a slow client before it\n"
		"                         loses some (default 64)\n"
		"      --process-details WHO  who sees the pid, command and client\n"
		"                         ids of the processes using a GPU:\n"
		"                         controllers (default), all, or none (no\n"
		"                         process rows at all); others see rows\n"
		"                         without them\n"
		"      --metrics-counters LIST  the counters /metrics exports: all\n"
		"                         (default), none, or names (GpuBusy,EuActive)\n"
		"      --metrics-processes  /metrics also has per-process series\n"
		"                         (labelled pid and command): each process\n"
		"                         adds series, so Prometheus stores more;\n"
		"                         for scrapers --process-details shows them to\n"
		"      --metrics-max-processes N  of them, the N of most GPU time\n"
		"                         (default 20; the others are counted)\n"
		"\n"
		"Flight recorder (snapshots of the recent past):\n"
		"      --flight-recorder [DEVICE=]SIZE|DURATION\n"
		"                         keep the device's newest records in a ring of\n"
		"                         SIZE bytes (64Mi, 500M) or of what DURATION\n"
		"                         (30s) takes at its --keep-streaming period\n"
		"                         (else 1 ms); without DEVICE=, every device\n"
		"                         (repeatable)\n"
		"      --flight-recorder-memory SIZE  all rings together at most\n"
		"                         (default 256Mi); snapshots being sent take\n"
		"                         as much again at most\n"
		"      --keep-streaming [DEVICE=]SET[@PERIOD]\n"
		"                         stream SET with nobody subscribed, and go back\n"
		"                         to it when clients that changed it leave\n"
		"                         (repeatable)\n"
		"      --snapshot-role ROLE  who may take snapshots: viewer (anyone,\n"
		"                         the default) or controller\n"
		"      --trigger [DEVICE=]EXPR  when EXPR holds over the device's\n"
		"                         10 ms windows (e.g. 'GpuBusy > 95 for\n"
		"                         200ms'; the grammar is gpuperf trigger's),\n"
		"                         save a snapshot into --trigger-dir and tell\n"
		"                         the device's clients; without DEVICE=,\n"
		"                         every device with a flight recorder\n"
		"                         (repeatable; SIGHUP re-reads them)\n"
		"      --trigger-dir DIR  where triggers save snapshots, as\n"
		"                         trigger-DEVICE-YYYYMMDD-HHMMSS-N.i915perf\n"
		"      --trigger-dir-max SIZE  those files take at most SIZE there\n"
		"                         (default 1Gi): the oldest go first\n"
		"      --trigger-before D, --trigger-after D  the span a snapshot\n"
		"                         covers around its firing (default 5s, 2s)\n"
		"\n"
		"Running as a service:\n"
		"      --config FILE      read options from FILE, `name = value` a\n"
		"                         line (the service uses /etc/gpuperfd.conf);\n"
		"                         the command line wins. SIGHUP re-reads it:\n"
		"                         metric directories, tokens, log level\n"
		"      --user NAME        started as root: open the devices and\n"
		"                         listeners, then run as NAME keeping only\n"
		"                         CAP_PERFMON (started as root, gpuperfd\n"
		"                         needs --user or --allow-root)\n"
		"      --allow-root       started as root without --user, serve as\n"
		"                         root with every privilege\n"
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
	OPT_CONFIG,
	OPT_USER,
	OPT_ALLOW_ROOT,
	OPT_SERVER_NAME,
	OPT_ALLOW_ORIGIN,
	OPT_PROC_ROOT,
	OPT_PROCESS_DETAILS,
	OPT_METRICS_PROCESSES,
	OPT_RESERVED_UNIX,
	OPT_MAX_UNAUTHENTICATED,
	OPT_MAX_UNAUTHENTICATED_PER_PEER,
	OPT_AUTH_TIMEOUT,
	OPT_SEND_BUDGET,
	OPT_FLIGHT_RECORDER,
	OPT_FLIGHT_RECORDER_MEMORY,
	OPT_KEEP_STREAMING,
	OPT_SNAPSHOT_ROLE,
	OPT_TRIGGER,
	OPT_TRIGGER_DIR,
	OPT_TRIGGER_DIR_MAX,
	OPT_TRIGGER_BEFORE,
	OPT_TRIGGER_AFTER,
	OPT_METRICS_COUNTERS,
	OPT_METRICS_MAX_PROCESSES,
	OPT_MIN_PERIOD,
	OPT_MAX_EVALUATIONS,
	OPT_MAX_PASSED_FDS,
};

static const struct option table[] = {
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
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "user", required_argument, NULL, OPT_USER },
	{ "allow-root", no_argument, NULL, OPT_ALLOW_ROOT },
	{ "server-name", required_argument, NULL, OPT_SERVER_NAME },
	{ "allow-origin", required_argument, NULL, OPT_ALLOW_ORIGIN },
	{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
	{ "process-details", required_argument, NULL, OPT_PROCESS_DETAILS },
	{ "metrics-processes", no_argument, NULL, OPT_METRICS_PROCESSES },
	{ "reserved-unix", required_argument, NULL, OPT_RESERVED_UNIX },
	{ "max-unauthenticated", required_argument, NULL, OPT_MAX_UNAUTHENTICATED },
	{ "max-unauthenticated-per-peer", required_argument, NULL,
	  OPT_MAX_UNAUTHENTICATED_PER_PEER },
	{ "auth-timeout", required_argument, NULL, OPT_AUTH_TIMEOUT },
	{ "send-budget", required_argument, NULL, OPT_SEND_BUDGET },
	{ "flight-recorder", required_argument, NULL, OPT_FLIGHT_RECORDER },
	{ "flight-recorder-memory", required_argument, NULL,
	  OPT_FLIGHT_RECORDER_MEMORY },
	{ "keep-streaming", required_argument, NULL, OPT_KEEP_STREAMING },
	{ "snapshot-role", required_argument, NULL, OPT_SNAPSHOT_ROLE },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "trigger-dir", required_argument, NULL, OPT_TRIGGER_DIR },
	{ "trigger-dir-max", required_argument, NULL, OPT_TRIGGER_DIR_MAX },
	{ "trigger-before", required_argument, NULL, OPT_TRIGGER_BEFORE },
	{ "trigger-after", required_argument, NULL, OPT_TRIGGER_AFTER },
	{ "metrics-counters", required_argument, NULL, OPT_METRICS_COUNTERS },
	{ "metrics-max-processes", required_argument, NULL, OPT_METRICS_MAX_PROCESSES },
	{ "min-period", required_argument, NULL, OPT_MIN_PERIOD },
	{ "max-evaluations", required_argument, NULL, OPT_MAX_EVALUATIONS },
	{ "max-passed-fds", required_argument, NULL, OPT_MAX_PASSED_FDS },
	{ NULL, 0, NULL, 0 },
};

#define N_OPTIONS (sizeof(table) / sizeof(table[0]) - 1)

/* '+': stop at the first non-option instead of moving it to the end, so
 * every argument keeps its index (and its origin). ':': a missing value
 * is returned as ':' for our own message. */
static const char short_options[] = "+:d:m:l:h";

static const struct option *option_of(int val)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (table[i].val == val)
			return &table[i];
	return NULL;
}

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

/* getopt_long's refusal of args[optind - 1] (or the option it names), in
 * words. */
static int refuse(int c, char *const *args, struct gpd_error *err)
{
	const char *arg = args[optind - 1];
	if (c == ':')
		return gpd_fail(err, -EINVAL, "%s needs a value; see 'gpuperfd "
			    "--help'", arg);
	if (optopt && option_of(optopt))
		return gpd_fail(err, -EINVAL, "%s takes no value", arg);
	if (optopt)
		return gpd_fail(err, -EINVAL, "unknown option '-%c'; see "
			    "'gpuperfd --help'", optopt);
	return gpd_fail(err, -EINVAL, "unknown option '%s'; see 'gpuperfd "
		    "--help'", arg);
}

/* The first pass, over the command line alone: which options it sets,
 * and --config, --help, --version. */
static int scan_command_line(struct gpd_config *cfg, bool given[N_OPTIONS],
			     struct gpd_error *err)
{
	char **args = calloc((size_t)cfg->argc + 1, sizeof(*args));
	if (!args)
		return gpd_fail(err, -ENOMEM, "out of memory");
	memcpy(args, cfg->argv, (size_t)cfg->argc * sizeof(*args));
	int ret = 0;
	int c;
	optind = 0;
	opterr = 0;
	while (!ret && (c = getopt_long(cfg->argc, args, short_options, table,
					NULL)) != -1) {
		const struct option *o = option_of(c);
		if (!o) {
			ret = refuse(c, args, err);
			break;
		}
		given[o - table] = true;
		if (c == OPT_CONFIG)
			cfg->path = optarg;
		else if (c == 'h')
			cfg->help = true;
		else if (c == OPT_VERSION)
			cfg->version = true;
	}
	free(args);
	return ret;
}

/* The file's lines the command line does not replace, then the command
 * line, as one argument vector. origins[i] names the file line of
 * args[i], NULL for the command line. */
static int merge(struct gpd_config *cfg, const bool given[N_OPTIONS],
		 unsigned *lines, size_t *n_from_file, struct gpd_error *err)
{
	const struct gpd_config_file *f = &cfg->file;
	cfg->args = calloc(f->n_lines + (size_t)cfg->argc + 1, sizeof(*cfg->args));
	if (!cfg->args)
		return gpd_fail(err, -ENOMEM, "out of memory");
	cfg->args[cfg->n_args++] = strdup(cfg->argv[0] ? cfg->argv[0] : "gpuperfd");
	for (size_t i = 0; i < f->n_lines; i++) {
		const struct gpd_config_line *l = &f->lines[i];
		if (given[l->option - table])
			continue;
		char *arg;
		if (asprintf(&arg, "--%s%s%s", l->option->name,
			     l->value ? "=" : "", l->value ? l->value : "") < 0)
			return gpd_fail(err, -ENOMEM, "out of memory");
		lines[cfg->n_args] = l->line;
		cfg->args[cfg->n_args++] = arg;
	}
	*n_from_file = cfg->n_args - 1;
	for (int i = 1; i < cfg->argc; i++)
		if (!(cfg->args[cfg->n_args++] = strdup(cfg->argv[i])))
			return gpd_fail(err, -ENOMEM, "out of memory");
	if (!cfg->args[0])
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* The value of one option into the fields; -EINVAL with err saying what
 * the option takes. */
static int apply(struct gpd_config *cfg, int c, const char *arg,
		 struct gpd_error *err)
{
	struct gpd_options *d = &cfg->daemon;
	struct gpd_server_options *s = &cfg->server;
	uint32_t *limit = NULL;
	switch (c) {
	case 'd': {
		struct gpd_device_spec spec;
		const char *why = NULL;
		int ret = gpd_device_spec_parse(arg, &spec, &why);
		if (ret)
			return gpd_fail(err, ret, "--device %s: %s", arg,
				    why ? why : strerror(-ret));
		gpd_device_spec_fini(&spec);
		d->device_specs[d->n_device_specs++] = arg;
		break;
	}
	case 'm':
		d->metrics_dirs[d->n_metrics_dirs++] = arg;
		break;
	case 'l':
		if (!strcmp(arg, "none"))
			s->no_tcp = true;
		else
			((const char **)s->listen)[s->n_listen++] = arg;
		break;
	case OPT_SEED:
		if (parse_u64(arg, &d->seed))
			return gpd_fail(err, -EINVAL, "--seed takes a number, not "
				    "'%s'", arg);
		break;
	case OPT_LINGER:
		if (parse_u64(arg, &d->linger_ms))
			return gpd_fail(err, -EINVAL, "--linger takes milliseconds, "
				    "not '%s'", arg);
		break;
	case OPT_MIN_PERIOD:
		/* 1 ns is below every period a unit has: no floor. */
		if (!strcmp(arg, "0"))
			d->min_period_ns = 1;
		else if (gpm_parse_duration(arg, &d->min_period_ns))
			return gpd_fail(err, -EINVAL, "--min-period takes a "
				    "duration such as 10us or 1ms (0: none), not "
				    "'%s'", arg);
		break;
	case OPT_MAX_EVALUATIONS:
		if (parse_u64(arg, &s->max_evaluations) || !s->max_evaluations)
			return gpd_fail(err, -EINVAL, "--max-evaluations takes a "
				    "positive number, not '%s'", arg);
		break;
	case OPT_LOG_LEVEL:
		if (gpd_log_parse_level(arg, &cfg->log_level))
			return gpd_fail(err, -EINVAL, "--log-level takes error, "
				    "warning, info or debug, not '%s'", arg);
		break;
	case OPT_DEV_ROOT:
		d->dev_root = arg;
		break;
	case OPT_SYSFS_ROOT:
		d->sysfs_root = arg;
		break;
	case OPT_PROC_ROOT:
		d->proc_root = arg;
		break;
	case OPT_PROCESS_DETAILS:
		if (gpd_process_details_parse(arg, &s->process_details))
			return gpd_fail(err, -EINVAL, "--process-details takes "
				    "controllers, all or none, not '%s'", arg);
		break;
	case OPT_METRICS_PROCESSES:
		s->metrics_processes = true;
		break;
	case OPT_METRICS_COUNTERS:
		s->metrics_counters = arg;
		break;
	case OPT_METRICS_MAX_PROCESSES:
		limit = &s->metrics_max_processes;
		break;
	case OPT_UNIX:
		s->unix_path = arg;
		break;
	case OPT_TOKEN_FILE:
		s->token_file = arg;
		break;
	case OPT_TLS_CERT:
		s->tls_cert = arg;
		break;
	case OPT_TLS_KEY:
		s->tls_key = arg;
		break;
	case OPT_WEB_ROOT:
		s->web_root = arg;
		break;
	case OPT_SERVER_NAME:
		((const char **)s->server_names)[s->n_server_names++] = arg;
		break;
	case OPT_ALLOW_ORIGIN:
		((const char **)s->allowed_origins)[s->n_allowed_origins++] = arg;
		break;
	case OPT_METRICS_WINDOW:
		if (parse_u64(arg, &s->metrics_window_ms) || !s->metrics_window_ms)
			return gpd_fail(err, -EINVAL, "--metrics-window takes "
				    "milliseconds, not '%s'", arg);
		break;
	case OPT_MAX_CONNECTIONS:
		limit = &s->max_connections;
		break;
	case OPT_MAX_MESSAGE_BYTES:
		limit = &s->max_message_bytes;
		break;
	case OPT_MAX_REQUEST_RATE:
		limit = &s->max_requests_per_second;
		break;
	case OPT_QUEUE_FRAMES:
		limit = &s->queue_frames;
		break;
	case OPT_MAX_PASSED_FDS:
		limit = &s->max_passed_fds;
		break;
	case OPT_RESERVED_UNIX:
		limit = &s->reserved_unix;
		break;
	case OPT_MAX_UNAUTHENTICATED:
		limit = &s->max_unauthenticated;
		break;
	case OPT_MAX_UNAUTHENTICATED_PER_PEER:
		limit = &s->max_unauthenticated_per_peer;
		break;
	case OPT_AUTH_TIMEOUT:
		limit = &s->auth_timeout_ms;
		break;
	case OPT_SEND_BUDGET:
		if (gpm_parse_bytes(arg, &s->send_budget) ||
		    s->send_budget < (1u << 20))
			return gpd_fail(err, -EINVAL, "--send-budget takes a size "
				    "such as 64Mi or 100M, at least 1Mi, not '%s'",
				    arg);
		break;
	case OPT_USER:
		cfg->user = arg;
		break;
	case OPT_ALLOW_ROOT:
		cfg->allow_root = true;
		break;
	case OPT_FLIGHT_RECORDER: {
		struct gpd_flight_recorder_spec spec;
		int ret = gpd_flight_recorder_spec_parse(arg, &spec, err);
		if (ret)
			return ret;
		d->flight_recorders[d->n_flight_recorders++] = arg;
		break;
	}
	case OPT_FLIGHT_RECORDER_MEMORY:
		if (gpm_parse_bytes(arg, &d->flight_recorder_memory) ||
		    !d->flight_recorder_memory)
			return gpd_fail(err, -EINVAL, "--flight-recorder-memory "
				    "takes a size such as 256Mi or 1G, not '%s'",
				    arg);
		break;
	case OPT_KEEP_STREAMING: {
		struct gpd_keep_streaming_spec spec;
		int ret = gpd_keep_streaming_spec_parse(arg, &spec, err);
		if (ret)
			return ret;
		d->keep_streaming[d->n_keep_streaming++] = arg;
		break;
	}
	case OPT_TRIGGER: {
		struct gpd_trigger_spec spec;
		int ret = gpd_trigger_spec_parse(arg, &spec, err);
		if (ret)
			return ret;
		d->triggers[d->n_triggers++] = arg;
		break;
	}
	case OPT_TRIGGER_DIR:
		d->trigger_dir = arg;
		break;
	case OPT_TRIGGER_DIR_MAX:
		if (gpm_parse_bytes(arg, &d->trigger_dir_max) ||
		    !d->trigger_dir_max)
			return gpd_fail(err, -EINVAL, "--trigger-dir-max takes a "
				    "size such as 1Gi or 500M, not '%s'", arg);
		break;
	case OPT_TRIGGER_BEFORE:
	case OPT_TRIGGER_AFTER: {
		uint64_t *ns = c == OPT_TRIGGER_BEFORE ? &d->trigger_before_ns :
			       &d->trigger_after_ns;
		if (gpm_parse_duration(arg, ns))
			return gpd_fail(err, -EINVAL, "--trigger-%s takes a "
				    "duration such as 5s or 500ms, not '%s'",
				    c == OPT_TRIGGER_BEFORE ? "before" : "after",
				    arg);
		break;
	}
	case OPT_SNAPSHOT_ROLE:
		if (!strcmp(arg, "viewer"))
			s->snapshots_need_controller = false;
		else if (!strcmp(arg, "controller"))
			s->snapshots_need_controller = true;
		else
			return gpd_fail(err, -EINVAL, "--snapshot-role takes viewer "
				    "or controller, not '%s'", arg);
		break;
	case OPT_FOREGROUND:
	case OPT_CONFIG:
		break;
	case 'h':
	case OPT_VERSION:
		/* The first pass has seen them; a file cannot hold them. */
		break;
	}
	if (limit && parse_u32(arg, limit))
		return gpd_fail(err, -EINVAL, "--%s takes a positive number, not "
			    "'%s'", option_of(c)->name, arg);
	return 0;
}

/* Options that make no sense in the file that --config reads. */
static int check_file(const struct gpd_config_file *f, struct gpd_error *err)
{
	for (size_t i = 0; i < f->n_lines; i++) {
		int val = f->lines[i].option->val;
		if (val == OPT_CONFIG || val == 'h' || val == OPT_VERSION)
			return gpd_fail(err, -EINVAL, "%s:%u: '%s' belongs on the "
				    "command line, not in the file",
				    f->path, f->lines[i].line,
				    f->lines[i].option->name);
	}
	return 0;
}

/* The second pass: every argument, file first, into the fields. */
static int parse(struct gpd_config *cfg, const unsigned *lines,
		 size_t n_from_file, struct gpd_error *err)
{
	int n = (int)cfg->n_args;
	cfg->values = calloc(cfg->n_args, sizeof(*cfg->values));
	cfg->lists = calloc(8 * cfg->n_args, sizeof(*cfg->lists));
	cfg->trigger_lines = calloc(cfg->n_args, sizeof(*cfg->trigger_lines));
	if (!cfg->values || !cfg->lists || !cfg->trigger_lines)
		return gpd_fail(err, -ENOMEM, "out of memory");
	cfg->daemon.device_specs = cfg->lists;
	cfg->daemon.metrics_dirs = cfg->lists + cfg->n_args;
	cfg->server.listen = cfg->lists + 2 * cfg->n_args;
	cfg->server.server_names = cfg->lists + 3 * cfg->n_args;
	cfg->server.allowed_origins = cfg->lists + 4 * cfg->n_args;
	cfg->daemon.flight_recorders = cfg->lists + 5 * cfg->n_args;
	cfg->daemon.keep_streaming = cfg->lists + 6 * cfg->n_args;
	cfg->daemon.triggers = cfg->lists + 7 * cfg->n_args;
	cfg->daemon.trigger_lines = cfg->trigger_lines;
	cfg->daemon.trigger_file = cfg->file.path;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(n, cfg->args, short_options, table, NULL)) != -1) {
		const struct option *o = option_of(c);
		if (!o)
			return refuse(c, cfg->args, err);
		cfg->values[cfg->n_values++] = (struct gpd_config_value){
			.name = o->name,
			.value = optarg,
		};
		int ret = apply(cfg, c, optarg, err);
		/* A file's line is one argument: the one just read. */
		size_t at = (size_t)optind - 1;
		bool from_file = at >= 1 && at <= n_from_file;
		if (!ret && c == OPT_TRIGGER && from_file)
			cfg->trigger_lines[cfg->daemon.n_triggers - 1] = lines[at];
		if (ret) {
			if (from_file) {
				char words[sizeof(err->message)];
				snprintf(words, sizeof(words), "%s", err->message);
				gpd_fail(err, ret, "%s:%u: %s", cfg->file.path,
				     lines[at], words);
			}
			return ret;
		}
	}
	if (optind < n)
		return gpd_fail(err, -EINVAL, "unexpected argument '%s'; see "
			    "'gpuperfd --help'", cfg->args[optind]);
	if (cfg->server.no_tcp && cfg->server.n_listen)
		return gpd_fail(err, -EINVAL, "--listen none goes alone");
	if (cfg->daemon.n_triggers && !cfg->daemon.trigger_dir)
		return gpd_fail(err, -EINVAL, "--trigger needs --trigger-dir DIR, "
			    "the directory its snapshots go to");
	cfg->server.snapshot_memory = cfg->daemon.flight_recorder_memory ?
				      cfg->daemon.flight_recorder_memory :
				      GPD_DEFAULT_FLIGHT_RECORDER_MEMORY;
	return gpd_server_check_options(&cfg->server, err);
}

int gpd_config_load(struct gpd_config *cfg, int argc, char *const *argv,
		    struct gpd_error *err)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->argc = argc;
	cfg->argv = argv;
	cfg->log_level = GPD_LOG_INFO;
	cfg->daemon.seed = 1;
	cfg->daemon.linger_ms = 2000;
	bool given[N_OPTIONS] = { false };
	int ret = scan_command_line(cfg, given, err);
	if (ret || cfg->help || cfg->version)
		return ret;
	if (cfg->path) {
		ret = gpd_config_file_read(&cfg->file, cfg->path, table, err);
		if (!ret)
			ret = check_file(&cfg->file, err);
		if (ret)
			return ret;
	}
	unsigned *lines = calloc(cfg->file.n_lines + 1, sizeof(*lines));
	size_t n_from_file = 0;
	if (!lines)
		return gpd_fail(err, -ENOMEM, "out of memory");
	ret = merge(cfg, given, lines, &n_from_file, err);
	if (!ret)
		ret = parse(cfg, lines, n_from_file, err);
	free(lines);
	return ret;
}

void gpd_config_fini(struct gpd_config *cfg)
{
	for (size_t i = 0; i < cfg->n_args; i++)
		free(cfg->args[i]);
	free(cfg->args);
	free(cfg->values);
	free(cfg->lists);
	free(cfg->trigger_lines);
	gpd_config_file_fini(&cfg->file);
	memset(cfg, 0, sizeof(*cfg));
}

static bool same_values(const struct gpd_config *a, const struct gpd_config *b,
			const char *name)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < a->n_values && strcmp(a->values[i].name, name))
			i++;
		while (j < b->n_values && strcmp(b->values[j].name, name))
			j++;
		if (i == a->n_values || j == b->n_values)
			return i == a->n_values && j == b->n_values;
		const char *va = a->values[i].value, *vb = b->values[j].value;
		if (!va != !vb || (va && strcmp(va, vb)))
			return false;
		i++;
		j++;
	}
}

size_t gpd_config_changes(const struct gpd_config *a, const struct gpd_config *b,
			  const char *const *skip, char *buf, size_t size)
{
	size_t n = 0, len = 0;
	if (size)
		buf[0] = '\0';
	for (size_t k = 0; k < N_OPTIONS; k++) {
		const char *name = table[k].name;
		bool skipped = false;
		for (const char *const *s = skip; s && *s; s++)
			skipped |= !strcmp(*s, name);
		if (skipped || same_values(a, b, name))
			continue;
		int w = snprintf(buf + len, len < size ? size - len : 0,
				 "%s--%s", n ? ", " : "", name);
		if (w > 0 && len + (size_t)w < size)
			len += (size_t)w;
		else if (len < size)
			buf[len] = '\0';       /* whole names only */
		n++;
	}
	return n;
}
