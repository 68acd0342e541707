/*
 * gpuperf trigger: watches a condition over a device's windows while it
 * stays connected, and each time it fires saves a snapshot of the flight
 * recorder around that moment into a directory.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <uv.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/human_text.h"
#include "client/snapshot_files.h"
#include "metrics/trigger.h"

static const char *const cmd = "trigger";

static const char usage[] =
	"gpuperf trigger --when EXPR [--before D] [--after D] -o DIR\n"
	"       [-d DEVICE] [-m SET] [-i WINDOW] [--count N]\n"
	"       [CONNECTION OPTIONS]";

static const char help[] =
	"Watches a condition over a device's counters, window after window,\n"
	"for as long as it runs, and each time the condition fires saves what\n"
	"the device's flight recorder (gpuperfd --flight-recorder) holds from\n"
	"--before until --after that moment into DIR, as IGT i915-perf\n"
	"recordings named DEVICE-YYYYMMDD-HHMMSS-N.i915perf (local time of the\n"
	"firing, N its count). Each file written is printed on standard\n"
	"output. Ends on Ctrl-C, after --count snapshots, or when the device's\n"
	"stream ends (a replay), saving the snapshots still due first.\n\n"
	"  --when EXPR           the condition, e.g. 'GpuBusy > 95 for 200ms',\n"
	"                        'AvgGpuCoreFrequency < 600MHz for 1s',\n"
	"                        'lost > 0' (see below)\n"
	"  --before D            the past saved with a firing (default 5s)\n"
	"  --after D             and what follows it (default 2s)\n"
	"  -o, --output DIR      an existing directory for the snapshots\n"
	"  -d, --device DEVICE   the device (default: the first)\n"
	"  -m, --metric-set SET  the set to stream (default: what the device\n"
	"                        runs); a viewer takes what runs\n"
	"  -i, --interval WINDOW the windows the condition is checked over\n"
	"                        (default 10ms of GPU time)\n"
	"  --count N             end after N snapshots (default: no end)\n\n"
	"The condition: COUNTER OP NUMBER[UNIT] [for D] [hysteresis\n"
	"NUMBER[UNIT]] [rearm D]. COUNTER is a counter of the set streamed, or\n"
	"`lost` (OA_REPORT_LOST and OA_BUFFER_LOST records in a window); OP is\n"
	"one of > >= < <= == !=. A plain number is in the counter's unit\n"
	"(percent, hz, ns, bytes; k, M, G allowed); a unit must be of the\n"
	"counter's kind (%, MHz, ms, GB, ...). It fires once the condition has\n"
	"held for the `for` time (default one window), then not again until it\n"
	"has been cleared, past the threshold by the hysteresis, for the rearm\n"
	"time (default the `for` time, at least a window).\n\n";

#define DEFAULT_BEFORE_NS 5000000000ull
#define DEFAULT_AFTER_NS 2000000000ull
#define DEFAULT_WINDOW_NS 10000000ull
/* Firings waiting for their snapshot; more are counted and said. */
#define MAX_PENDING 16
/* Wall time past --after that a firing waits for the stream to reach its
 * end before its snapshot is taken with what the recorder has. */
#define STALL_SLACK_MS 2000

struct firing {
	uint64_t cpu_ns;                /* the firing window's end, daemon clock */
	uint64_t queued_ms;             /* uv_now() when it fired */
	char *path;
};

struct trigger_cmd {
	struct gpuperf_connection conn;
	const char *when;
	const char *dir;
	const char *device;
	const char *metric_set;
	uint64_t before_ns, after_ns, window_ns;
	unsigned long count;            /* 0: no end */
	struct gpm_trigger trigger;
	struct gpm_trigger_state state;
	bool bound;
	long counter;                   /* in the subscription's; -1: none */
	uv_loop_t loop;
	bool loop_ready;
	uv_signal_t sigint, sigterm;
	uv_timer_t stall;
	bool handles_ready;
	struct gpc_client *client;
	struct gpc_subscription *sub;
	struct firing pending[MAX_PENDING];
	size_t n_pending;
	uint64_t firings_dropped;
	uint64_t newest_cpu_ns;         /* the newest window's end */
	bool fetching;
	unsigned long written;
	bool stopping;                  /* no more firings: save what is due */
	bool closed;
	int exit_code;
};

static int parse(int argc, char **argv, struct trigger_cmd *t, bool *show_help)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m = gpuperf_connection_option(cmd, usage, argc, argv, &i,
						  &t->conn);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m)
			continue;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			*show_help = true;
			return 0;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--when", NULL, &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--before", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--after", NULL,
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--output", "-o",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--device", "-d",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--metric-set", "-m",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--interval", "-i",
					   &value)) ||
		    (m = gpuperf_arg_value(argc, argv, &i, "--count", NULL,
					   &value))) {
			if (m < 0 || !*value)
				return gpuperf_usage_error(cmd, usage, "%s needs "
							   "a value", arg);
		} else {
			return gpuperf_usage_error(cmd, usage, "unknown "
						   "argument '%s'", arg);
		}
		/* arg is the option as given; its long name decides. */
		uint64_t *duration = NULL;
		if (!strncmp(arg, "--when", 6)) {
			t->when = value;
		} else if (!strncmp(arg, "--output", 8) || !strcmp(arg, "-o")) {
			t->dir = value;
		} else if (!strncmp(arg, "--device", 8) || !strcmp(arg, "-d")) {
			t->device = value;
		} else if (!strncmp(arg, "--metric-set", 12) || !strcmp(arg, "-m")) {
			t->metric_set = value;
		} else if (!strncmp(arg, "--count", 7)) {
			char *end;
			errno = 0;
			t->count = strtoul(value, &end, 10);
			if (errno || *end || !t->count || *value == '-')
				return gpuperf_usage_error(cmd, usage, "--count "
							   "takes a number of "
							   "snapshots from 1, "
							   "not '%s'", value);
		} else {
			duration = !strncmp(arg, "--before", 8) ? &t->before_ns :
				   !strncmp(arg, "--after", 7) ? &t->after_ns :
				   &t->window_ns;
		}
		if (duration && gpuperf_parse_duration(value, duration) < 0) {
			const char *name = duration == &t->before_ns ? "--before" :
					   duration == &t->after_ns ? "--after" :
					   "--interval";
			return gpuperf_usage_error(cmd, usage, "%s takes a "
						   "duration such as 2s or "
						   "500ms, not '%s'", name,
						   value);
		}
	}
	if (!t->when)
		return gpuperf_usage_error(cmd, usage, "say when to take a "
					   "snapshot with --when, e.g. --when "
					   "'GpuBusy > 95 for 200ms'");
	if (!t->dir)
		return gpuperf_usage_error(cmd, usage, "name the directory for "
					   "the snapshots with -o");
	struct gpm_trigger_error err;
	if (gpm_trigger_parse(t->when, &t->trigger, &err)) {
		char text[1024];
		gpm_trigger_error_text(t->when, &err, text, sizeof(text));
		return gpuperf_usage_error(cmd, usage, "--when: %s", text);
	}
	struct stat st;
	if (stat(t->dir, &st))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write "
				    "snapshots into %s: %s", t->dir,
				    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write "
				    "snapshots into %s: not a directory", t->dir);
	return 0;
}

static void on_closed(void *user)
{
	struct trigger_cmd *t = user;
	t->closed = true;
}

/* Ends once no snapshot is due; exit_code given first wins. */
static void finish(struct trigger_cmd *t, int exit_code)
{
	if (!t->exit_code)
		t->exit_code = exit_code;
	if (t->handles_ready) {
		uv_close((uv_handle_t *)&t->sigint, NULL);
		uv_close((uv_handle_t *)&t->sigterm, NULL);
		uv_close((uv_handle_t *)&t->stall, NULL);
		t->handles_ready = false;
	}
	if (t->client) {
		gpc_close(t->client, on_closed, t);
		t->client = NULL;
		t->sub = NULL;
	}
	for (size_t i = 0; i < t->n_pending; i++)
		free(t->pending[i].path);
	t->n_pending = 0;
}

static void take_due(struct trigger_cmd *t);

static void on_saved(void *user, int exit_code, size_t n_files)
{
	struct trigger_cmd *t = user;
	struct firing done = t->pending[0];
	t->fetching = false;
	memmove(&t->pending[0], &t->pending[1],
		(t->n_pending - 1) * sizeof(t->pending[0]));
	t->n_pending--;
	if (exit_code) {
		/* The reason is on stderr; a directory that cannot take files
		 * will not take the next one either. */
		free(done.path);
		finish(t, exit_code);
		return;
	}
	printf("%s\n", done.path);
	fflush(stdout);
	free(done.path);
	t->written++;
	if (t->count && t->written >= t->count) {
		t->stopping = true;
		finish(t, GPUPERF_EXIT_OK);
		return;
	}
	take_due(t);
	if (t->stopping && !t->fetching)
		finish(t, GPUPERF_EXIT_OK);
}

/* Fetches the oldest firing's snapshot once the recorder holds its
 * --after (a window past it arrived), the stream stalled, or the command
 * is ending. */
static void take_due(struct trigger_cmd *t)
{
	if (t->fetching || !t->n_pending || !t->client)
		return;
	struct firing *f = &t->pending[0];
	bool reached = t->newest_cpu_ns >= f->cpu_ns + t->after_ns;
	bool stalled = uv_now(&t->loop) - f->queued_ms >=
		       t->after_ns / 1000000 + STALL_SLACK_MS;
	if (!reached && !stalled && !t->stopping)
		return;
	/* from 0 would ask for all the recorder holds. Short of --after
	 * (stopped, or the stream stalled) the snapshot ends at the newest
	 * frame: the daemon refuses an end it has not reached. */
	uint64_t end = f->cpu_ns + t->after_ns;
	if (!reached)
		end = t->newest_cpu_ns > f->cpu_ns ? t->newest_cpu_ns : f->cpu_ns;
	struct gpc_snapshot_options o = {
		.device = t->device,
		.from_cpu_ns = f->cpu_ns > t->before_ns ? f->cpu_ns - t->before_ns : 1,
		.to_cpu_ns = end,
	};
	t->fetching = true;
	int ret = gpuperf_snapshot_fetch(cmd, t->client, &o, f->path, on_saved, t,
					 NULL);
	if (ret) {
		t->fetching = false;
		finish(t, ret);
	}
}

/* DIR/DEVICE-YYYYMMDD-HHMMSS-N.i915perf, N the firing's count. */
static char *snapshot_path(const struct trigger_cmd *t)
{
	char stamp[32], *path;
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	if (asprintf(&path, "%s/%s-%s-%" PRIu64 ".i915perf", t->dir, t->device,
		     stamp, t->state.episodes) < 0)
		return NULL;
	return path;
}

static void fired(struct trigger_cmd *t, const struct gpc_frame *f)
{
	char before[GPUPERF_HUMAN_TEXT_MAX], after[GPUPERF_HUMAN_TEXT_MAX];
	gpuperf_duration_text(before, sizeof(before), (double)t->before_ns);
	gpuperf_duration_text(after, sizeof(after), (double)t->after_ns);
	if (t->n_pending == MAX_PENDING) {
		t->firings_dropped++;
		fprintf(stderr, "gpuperf %s: '%s' fired again (%" PRIu64 ") "
			"with %d snapshots still due; this one is not saved "
			"(%" PRIu64 " not saved so far)\n", cmd, t->when,
			t->state.episodes, MAX_PENDING, t->firings_dropped);
		return;
	}
	char *path = snapshot_path(t);
	if (!path) {
		finish(t, gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory"));
		return;
	}
	fprintf(stderr, "gpuperf %s: '%s' fired (%" PRIu64 "); saving %s "
		"before and %s after into %s\n", cmd, t->when, t->state.episodes,
		before, after, path);
	t->pending[t->n_pending++] = (struct firing){
		.cpu_ns = f->cpu_end_ns,
		.queued_ms = uv_now(&t->loop),
		.path = path,
	};
}

/* The counter's place in the subscription's counters and its unit, after
 * subscribing and after each change of set. */
static int bind_counter(struct trigger_cmd *t)
{
	const struct gpc_subscription_info *info = gpc_subscription_info(t->sub);
	t->counter = -1;
	t->bound = false;
	/* A new set breaks a run of windows; an episode under way goes on. */
	t->state.held_ns = t->state.cleared_ns = 0;
	const char *units = NULL;
	if (!t->trigger.lost) {
		const struct gpc_device *d = gpc_find_device(t->client, t->device);
		const struct gpc_metric_set *set =
			d ? gpc_find_metric_set(d, info->metric_set) : NULL;
		const struct gpc_counter *k =
			set ? gpc_find_counter(set, t->trigger.subject) : NULL;
		for (size_t i = 0; k && i < info->n_counters; i++)
			if (!strcasecmp(info->counters[i], k->symbol))
				t->counter = (long)i;
		if (t->counter < 0) {
			fprintf(stderr, "gpuperf %s: device %s streams %s, which has "
				"no counter '%s'; the trigger waits for a set that "
				"has it ('gpuperf counters %s -d %s' lists this "
				"one's)\n", cmd, t->device, info->metric_set,
				t->trigger.subject, info->metric_set, t->device);
			return 0;
		}
		units = k->units;
	}
	struct gpm_trigger_error err;
	if (gpm_trigger_bind(&t->trigger, units, &err)) {
		char text[1024];
		gpm_trigger_error_text(t->when, &err, text, sizeof(text));
		return gpuperf_fail(cmd, GPUPERF_EXIT_USAGE, "--when: %s", text);
	}
	t->bound = true;
	return 0;
}

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct trigger_cmd *t = user;
	if (t->stopping || !t->client)
		return;
	if (f->cpu_end_ns > t->newest_cpu_ns)
		t->newest_cpu_ns = f->cpu_end_ns;
	if (f->frames_dropped) {
		/* The windows that did not come break a run, as a gap does. */
		fprintf(stderr, "gpuperf %s: the daemon dropped %" PRIu32
			" windows (%" PRIu64 " so far) that this command read too "
			"slowly; the condition was not checked over them\n", cmd,
			f->frames_dropped, f->frames_dropped_total);
		gpm_trigger_step(&t->trigger, &t->state, NAN, 0);
	}
	if (t->bound) {
		double value = NAN;
		if (t->trigger.lost)
			value = (double)f->lost_reports + f->buffer_lost;
		else if (f->reports && (size_t)t->counter < f->n_values)
			value = f->values[t->counter];
		if (gpm_trigger_step(&t->trigger, &t->state, value,
				     f->gpu_end_ns - f->gpu_start_ns))
			fired(t, f);
	}
	take_due(t);
}

static void on_event(struct gpc_subscription *sub, const struct gpc_event *e,
		     void *user)
{
	struct trigger_cmd *t = user;
	const char *message = e->message && e->message[0] ? e->message : NULL;
	if (t->stopping || !t->client)
		return;
	switch (e->kind) {
	case GPC_EVENT_CONFIG_CHANGED: {
		fprintf(stderr, "gpuperf %s: device %s now runs %s\n", cmd,
			e->device, e->configuration.metric_set);
		int ret = bind_counter(t);
		if (ret)
			finish(t, ret);
		break;
	}
	case GPC_EVENT_ENDED:
		fprintf(stderr, "gpuperf %s: device %s's stream ended%s%s\n", cmd,
			e->device, message ? ": " : "", message ? message : "");
		t->stopping = true;
		take_due(t);
		if (!t->fetching)
			finish(t, GPUPERF_EXIT_OK);
		break;
	case GPC_EVENT_TRIGGER_FIRED:
		fprintf(stderr, "gpuperf %s: device %s: %s\n", cmd, e->device,
			message ? message : "a trigger of the daemon fired");
		break;
	case GPC_EVENT_BUSY_ELSEWHERE:
	case GPC_EVENT_DEVICE_LOST:
	case GPC_EVENT_RECOVERED:
	case GPC_EVENT_RESTARTED:
		/* The windows around it hold nothing: the run of either
		 * breaks there by itself. */
		fprintf(stderr, "gpuperf %s: device %s: %s\n", cmd, e->device,
			message ? message : "its stream was interrupted");
		break;
	}
}

static void on_disconnect(struct gpc_client *c, const struct gpc_error *err,
			  void *user)
{
	struct trigger_cmd *t = user;
	int code = gpuperf_report(cmd, "the connection to the daemon ended", err);
	if (t->n_pending)
		fprintf(stderr, "gpuperf %s: %zu snapshots due were not saved\n",
			cmd, t->n_pending);
	finish(t, code);
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct trigger_cmd *t = h->data;
	if (t->stopping) {
		finish(t, GPUPERF_EXIT_OK);
		return;
	}
	/* The snapshots due are saved with what the recorder has; a
	 * second signal ends without them. */
	t->stopping = true;
	if (t->sub) {
		gpc_unsubscribe(t->sub);
		t->sub = NULL;
	}
	take_due(t);
	if (!t->fetching)
		finish(t, GPUPERF_EXIT_OK);
}

static void on_stall(uv_timer_t *h)
{
	take_due(h->data);
}

static int start(struct trigger_cmd *t)
{
	int ret = gpuperf_connect(cmd, &t->conn, &t->loop, &t->client);
	if (ret)
		return ret;
	gpc_set_disconnect_cb(t->client, on_disconnect, t);
	const struct gpc_device *d = gpuperf_snapshot_device(cmd, t->client,
							     t->device);
	if (!d)
		return GPUPERF_EXIT_REFUSED;
	t->device = d->name;
	/* `lost` reads no counter: every one comes, the fewest asked. */
	const char *counters[] = { t->trigger.subject };
	struct gpc_subscribe_options so = {
		.device = t->device,
		.metric_set = t->metric_set,
		.window_ns = t->window_ns,
		.counters = counters,
		.n_counters = t->trigger.lost ? 0 : 1,
	};
	static const struct gpc_subscription_cbs cbs = {
		.frame = on_frame,
		.event = on_event,
	};
	struct gpc_error err;
	if (gpc_subscribe_sync(t->client, &so, &cbs, t, &t->sub, &err))
		return gpuperf_report(cmd, "cannot watch the device", &err);
	if ((ret = bind_counter(t)))
		return ret;
	uv_signal_init(&t->loop, &t->sigint);
	uv_signal_init(&t->loop, &t->sigterm);
	uv_timer_init(&t->loop, &t->stall);
	t->sigint.data = t->sigterm.data = t->stall.data = t;
	t->handles_ready = true;
	uv_signal_start(&t->sigint, on_signal, SIGINT);
	uv_signal_start(&t->sigterm, on_signal, SIGTERM);
	uv_timer_start(&t->stall, on_stall, 250, 250);
	const struct gpc_subscription_info *info = gpc_subscription_info(t->sub);
	fprintf(stderr, "gpuperf %s: watching '%s' on %s (%s)\n", cmd, t->when,
		t->device, info->metric_set);
	return 0;
}

int gpuperf_cmd_trigger(int argc, char **argv)
{
	struct trigger_cmd t = {
		.before_ns = DEFAULT_BEFORE_NS,
		.after_ns = DEFAULT_AFTER_NS,
		.window_ns = DEFAULT_WINDOW_NS,
		.counter = -1,
	};
	bool show_help = false;
	int ret = parse(argc, argv, &t, &show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s%s", usage, help,
			       gpuperf_connection_help);
		return ret;
	}
	if (uv_loop_init(&t.loop))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot start an "
				    "event loop");
	ret = start(&t);
	if (!ret) {
		uv_run(&t.loop, UV_RUN_DEFAULT);
		ret = t.exit_code;
	}
	finish(&t, ret);
	uv_run(&t.loop, UV_RUN_DEFAULT);
	uv_loop_close(&t.loop);
	return ret;
}
