/*
 * gpuperf run: a command measured from its start to its exit. A mark
 * opens the window just before the command starts and closes it when the
 * command has exited; that window's frame is the run's totals. With an
 * interval the windows in between stream too. gpuperf exits with the
 * command's status, so it fits where the command stood in a script.
 *
 * --repeat N does all of it N times, a result file per run (what
 * compare's statistics take), and stops at the first run that fails.
 *
 * --own-contexts measures the command's own context instead of the
 * device: the command runs with libgpuperf-preload.so, which offers each
 * context it creates (context_offers.h); the first on the device is
 * subscribed to with the kernel's filter before its create returns, and
 * the window opens then. The unit takes one context filter (i915's
 * PERF_OPEN takes one CTX_HANDLE), so later contexts are counted and
 * named, not measured.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/catalog_names.h"
#include "client/cli_args.h"
#include "client/commands.h"
#include "client/context_offers.h"
#include "client/cuda_activity_env.h"
#include "client/library_path.h"
#include "client/process_tree.h"
#include "client/streaming.h"

static const char *const cmd = "run";

static const char usage[] =
	"gpuperf run [-m SET] [-c C1,C2|all] [-i INTERVAL] [--format FORMAT]\n"
	"       [-o FILE] [--repeat N] [--own-contexts] [--cuda-activity]\n"
	"       [stream options] [CONNECTION OPTIONS] -- CMD [ARGS...]";

static const char help[] =
	"Runs CMD and measures the device from CMD's start to its exit. Writes\n"
	"the totals of that window (the row with mark 1) to standard output or\n"
	"-o FILE; with -i INTERVAL, the rows of each interval come first (mark\n"
	"0). CMD keeps gpuperf's standard input, output and error; Ctrl-C and\n"
	"SIGTERM go to CMD. Exits with CMD's status (128+N when signal N ended\n"
	"it), or 127 when CMD cannot be started; when the measurement fails\n"
	"but CMD succeeded, with gpuperf's own status.\n\n"
	"Where the device has a usage stream, the totals row also carries\n"
	"CMD's own use of the GPU, summed over its process tree:\n"
	"process_gpu_time_ns (engine time of its DRM clients) and\n"
	"process_memory_bytes (the most GPU memory they held at once). It\n"
	"needs a controller's view of the processes (the daemon's\n"
	"--process-details), and misses up to 200 ms of a process's last\n"
	"moments: its files close as it exits.\n\n"
	"  --repeat N          run CMD N times, one after the other, each run\n"
	"                      measured on its own and written to a file of\n"
	"                      its own: -o DIR/NAME.EXT gives DIR/NAME-1.EXT\n"
	"                      to DIR/NAME-N.EXT (compare's statistics want 5\n"
	"                      or more a side). Stops at the first run that\n"
	"                      fails, with its status.\n"
	"  --own-contexts      measure CMD's own GPU context, not the whole\n"
	"                      device: CMD runs with libgpuperf-preload.so\n"
	"                      (next to gpuperf, or in " GPM_LIBDIR "),\n"
	"                      which hands the DRM file of each context CMD\n"
	"                      (or a process it starts) creates to gpuperf,\n"
	"                      and gpuperf to the daemon over its Unix\n"
	"                      socket (--unix): the kernel streams that\n"
	"                      context alone. One context per run: the\n"
	"                      kernel's stream takes one context, so the\n"
	"                      first context CMD creates on the device is\n"
	"                      measured, from its creation to CMD's exit,\n"
	"                      and later ones are named on standard error\n"
	"                      and counted, not measured (run CMD again to\n"
	"                      measure another). The totals are that\n"
	"                      context's alone; --per-context is implied, so\n"
	"                      the totals and each interval of -i have the\n"
	"                      context's row with its hardware id. Needs an\n"
	"                      i915 device nobody else streams from (xe\n"
	"                      does not filter the OA buffer by exec queue);\n"
	"                      exits 1 when CMD created no context there.\n"
	"  --cuda-activity     CMD's CUDA processes measure their own kernel\n"
	"                      time (CUPTI, in libgpuperf-cuda-activity.so\n"
	"                      through CUDA_INJECTION64_PATH) and report it to\n"
	"                      the daemon over --unix PATH's PATH.activity:\n"
	"                      their NVIDIA shares are then theirs, not the\n"
	"                      driver's samples. Refused where\n"
	"                      CUDA_INJECTION64_PATH names another library.\n\n"
	"Options are those of 'gpuperf stream' (without an interval only the\n"
	"totals are written; the default format is table):\n";

/* Started or exec failures, as a shell reports them. */
#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126

struct run {
	struct gpuperf_streaming s;
	uv_process_t child;
	bool child_running;
	bool child_exited;
	int child_status;
	uint64_t started_ms;
	/* The command's process tree in the usage stream. */
	struct gpc_usage_subscription *usage;
	struct gpuperf_process_tree tree;
	bool tree_started;
	/* --own-contexts */
	bool own_contexts;
	const struct gpc_device *device;
	struct gpuperf_stream_options *options;
	struct gpuperf_offers offers;
	bool offers_open;
	bool has_offer;                 /* the first, waiting to be measured */
	struct gpuperf_offer_received first;
	bool measuring;
	bool refused;                   /* its subscription failed */
	uint64_t declined;              /* later contexts, not measured */
	uint64_t elsewhere;             /* contexts of another driver's GPU */
};

/* Frequent enough that a short command is seen at all. */
#define RUN_USAGE_INTERVAL_NS 200000000ull

static void close_child(struct run *r)
{
	uv_close((uv_handle_t *)&r->child, NULL);
}

/* The END mark's answer; its frame follows when accepted. */
static void on_end_marked(struct gpc_client *c, const struct gpc_error *err,
			  void *user)
{
	struct run *r = user;

	if (!err)
		return;
	int code = gpuperf_report(cmd, "the daemon did not close the "
				  "measured window", err);
	gpuperf_streaming_stop(&r->s, r->child_status ? r->child_status : code);
}

static void close_window(struct run *r);

static void on_child_exit(uv_process_t *p, int64_t status, int signum)
{
	struct run *r = p->data;

	r->child_running = false;
	r->child_exited = true;
	r->child_status = signum ? 128 + signum : (int)status;
	close_child(r);
	double seconds = (double)(uv_now(&r->s.loop) - r->started_ms) / 1e3;
	if (signum)
		fprintf(stderr, "gpuperf run: the command ended by signal %d "
			"after %.3f s\n", signum, seconds);
	/* The measured window ends with the command: a context offered
	 * later is nobody's to measure. */
	if (r->offers_open) {
		gpuperf_offers_close(&r->offers);
		r->offers_open = false;
	}
	/* --own-contexts with nothing measured (yet): run_own_contexts()
	 * goes on. */
	if (r->own_contexts && !r->measuring)
		return;
	close_window(r);
}

/* The command has exited: the END mark closes the measured window. */
static void close_window(struct run *r)
{
	if (r->s.stopping) {
		/* The measurement failed while the command ran: the command's
		 * failure, else the measurement's, is the status. */
		if (r->child_status)
			r->s.exit_code = r->child_status;
		return;
	}
	int ret = gpc_mark(r->s.sub, GPC_MARK_END, on_end_marked, r);
	if (ret) {
		fprintf(stderr, "gpuperf run: cannot close the measured window: "
			"%s\n", gpc_strerror(ret));
		gpuperf_streaming_stop(&r->s, r->child_status ? r->child_status :
				       gpuperf_exit_for(ret));
	}
}

/* The rows run writes: the intervals within the measured window, which
 * add up to it, and its totals. */
static bool wanted_frame(struct gpuperf_streaming *s, const struct gpc_frame *f)
{
	return f->mark || f->within_mark;
}

static void on_mark_frame(struct gpuperf_streaming *s, const struct gpc_frame *f)
{
	struct run *r = s->user;

	if (!r->child_exited)
		return;
	gpuperf_streaming_stop(s, r->child_status);
}

static void on_signal(struct gpuperf_streaming *s, int signum)
{
	struct run *r = s->user;

	/* A terminal's Ctrl-C reaches the command itself too; a signal sent
	 * to gpuperf alone is passed on. Either way the command decides. */
	if (r->child_running)
		uv_process_kill(&r->child, signum);
	else
		gpuperf_streaming_stop(s, 128 + signum);
}

static void on_usage_frame(struct gpc_usage_subscription *u,
			   const struct gpc_usage_frame *f, void *user)
{
	struct run *r = user;
	if (!r->tree_started || !r->s.view_ready)
		return;
	if (gpuperf_process_tree_frame(&r->tree, f))
		return;
	gpuperf_stream_view_set_process_tree(&r->s.view,
					     gpuperf_process_tree_gpu_time_ns(&r->tree),
					     r->tree.memory_peak_bytes);
}

/* Follows the command's processes where the device has a usage stream. */
static void watch_processes(struct run *r, const struct gpuperf_stream_options *o)
{
	const struct gpc_device *d = gpc_find_device(r->s.client, o->device);
	if (!d || !d->usage)
		return;
	struct gpc_usage_options uo = {
		.device = d->name,
		.interval_ns = RUN_USAGE_INTERVAL_NS,
		.processes = true,
	};
	struct gpc_usage_cbs cbs = { .frame = on_usage_frame };
	struct gpc_error err;
	if (gpc_usage_subscribe_sync(r->s.client, &uo, &cbs, r, &r->usage, &err))
		fprintf(stderr, "gpuperf run: the command's own GPU use is not "
			"measured: %s\n", err.message);
}

/* Runs are numbered from 1 up to this. */
#define MAX_REPEAT 10000

/* --cuda-activity was given. */
static bool cuda_activity;

static int parse(int argc, char **argv, struct gpuperf_stream_options *o,
		 int *command_index, unsigned *repeat, bool *own_contexts,
		 bool *show_help)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			*command_index = i + 1;
			break;
		}
		if (gpuperf_arg_flag(argv[i], "--help", "-h")) {
			*show_help = true;
			return 0;
		}
		if (gpuperf_arg_flag(argv[i], "--own-contexts", NULL)) {
			*own_contexts = true;
			continue;
		}
		if (gpuperf_arg_flag(argv[i], "--cuda-activity", NULL)) {
			cuda_activity = true;
			continue;
		}
		const char *value;
		int m = gpuperf_arg_value(argc, argv, &i, "--repeat", NULL, &value);
		if (m < 0)
			return gpuperf_usage_error(cmd, usage, "--repeat needs a "
						   "number of runs");
		if (m) {
			char *end;
			errno = 0;
			unsigned long n = strtoul(value, &end, 10);
			if (errno || *end || !*value || *value == '-' || !n ||
			    n > MAX_REPEAT)
				return gpuperf_usage_error(cmd, usage, "--repeat "
							   "takes a number of runs "
							   "from 1 to %d, not '%s'",
							   MAX_REPEAT, value);
			*repeat = (unsigned)n;
			continue;
		}
		m = gpuperf_stream_option(cmd, usage, argc, argv, &i, o);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m)
			continue;
		if (argv[i][0] == '-')
			return gpuperf_usage_error(cmd, usage, "unknown option "
						   "'%s'", argv[i]);
		*command_index = i;
		break;
	}
	if (!*command_index || *command_index >= argc)
		return gpuperf_usage_error(cmd, usage, "name the command to run "
					   "after --");
	if (o->duration_ns)
		return gpuperf_usage_error(cmd, usage, "--duration has no place "
					   "here: the command's run is the "
					   "duration");
	if (*own_contexts && (o->has_drm_fd || o->has_drm_context ||
			      o->filter_context))
		return gpuperf_usage_error(cmd, usage, "--own-contexts finds the "
					   "command's context itself: not with "
					   "--drm-fd, --context or --ctx");
	if (*repeat > 1 && (!o->output || !strcmp(o->output, "-")))
		return gpuperf_usage_error(cmd, usage, "--repeat %u writes a file "
					   "per run: name them with -o FILE "
					   "(FILE-1 to FILE-%u)", *repeat, *repeat);
	return 0;
}

/* -o DIR/NAME.EXT's file for run n: DIR/NAME-n.EXT (an extension is a
 * dot in the last component, not at its start). */
static int numbered_path(const char *path, unsigned n, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = base + strlen(base);
	int len = snprintf(out, size, "%.*s-%u%s", (int)(dot - path), path, n, dot);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* env NULL: gpuperf's own environment. */
static int start_child(struct run *r, char **args, char **env)
{
	uv_stdio_container_t stdio[3] = {
		{ .flags = UV_INHERIT_FD, .data.fd = 0 },
		{ .flags = UV_INHERIT_FD, .data.fd = 1 },
		{ .flags = UV_INHERIT_FD, .data.fd = 2 },
	};
	uv_process_options_t po = {
		.exit_cb = on_child_exit,
		.file = args[0],
		.args = args,
		.stdio_count = 3,
		.stdio = stdio,
		.env = env,
	};

	/* Rows written before the command starts must not reach its
	 * output after it. */
	fflush(stdout);
	r->child.data = r;
	r->started_ms = uv_now(&r->s.loop);
	int ret = uv_spawn(&r->s.loop, &r->child, &po);
	if (ret) {
		fprintf(stderr, "gpuperf run: cannot run %s: %s\n", args[0],
			uv_strerror(ret));
		close_child(r);
		return ret == UV_ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
	}
	r->child_running = true;
	gpuperf_process_tree_init(&r->tree, r->child.pid, "/proc");
	r->tree_started = true;
	return 0;
}

/* --------------------------------------------------------------- */
/* --own-contexts                                                    */

#define PRELOAD_NAME "libgpuperf-preload.so"

/* The preload beside this gpuperf, else in GPM_LIBDIR. */
static int find_preload(char *path, size_t size)
{
	if (!gpuperf_library_path(PRELOAD_NAME, path, size))
		return 0;
	return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "--own-contexts needs "
			    PRELOAD_NAME ", which is neither beside gpuperf nor "
			    "in %s: install it with 'make install'", GPM_LIBDIR);
}

/* The command's environment: gpuperf's, with the preload first in
 * LD_PRELOAD (it must see ioctl() before other preloads answer it) and
 * the socket the offers go to. */
static char **command_environment(const char *preload, const char *socket)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	const char *old = getenv("LD_PRELOAD");
	size_t k = 0;
	bool ok = asprintf(&env[k++], "LD_PRELOAD=%s%s%s", preload,
			   old && *old ? ":" : "", old ? old : "") >= 0;
	ok = ok && asprintf(&env[k++], "%s=%s", GPUPERF_OFFER_SOCKET_ENV,
			    socket) >= 0;
	for (size_t i = 0; ok && i < n; i++) {
		if (!strncmp(environ[i], "LD_PRELOAD=", 11) ||
		    !strncmp(environ[i], GPUPERF_OFFER_SOCKET_ENV "=",
			     sizeof(GPUPERF_OFFER_SOCKET_ENV)))
			continue;
		ok = (env[k++] = strdup(environ[i])) != NULL;
	}
	if (ok)
		return env;
	for (size_t i = 0; i < k; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void free_environment(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* The driver whose contexts the device streams: an xe device takes exec
 * queues, every other device taking a context filter i915 contexts. xe's
 * are refused before the command runs; the preload offers them all the
 * same, and an xe queue on an i915 device is another GPU's. */
static enum gpuperf_offer_kind device_kind(const struct gpc_device *d)
{
	return !strcmp(d->driver, "xe") ? GPUPERF_OFFER_XE_EXEC_QUEUE
		: GPUPERF_OFFER_I915_CONTEXT;
}

static void on_offer(struct gpuperf_offers *offers,
		     const struct gpuperf_offer_received *offer, void *user)
{
	struct run *r = user;
	const char *what = gpuperf_offer_kind_name(offer->kind);

	if (offer->kind != device_kind(r->device)) {
		r->elsewhere++;
		fprintf(stderr, "gpuperf run: %s %u of process %d is on another "
			"GPU than %s (%s): not measured\n", what, offer->id,
			(int)offer->pid, r->device->name, r->device->driver);
		gpuperf_offers_answer(offers, offer, GPUPERF_OFFER_DECLINED,
				      "on another GPU");
	} else if (r->refused || r->s.stopping) {
		gpuperf_offers_answer(offers, offer, GPUPERF_OFFER_FAILED,
				      "gpuperf run measures nothing (it said why)");
	} else if (!r->has_offer && !r->measuring) {
		/* Answered once its stream runs. */
		r->first = *offer;
		r->has_offer = true;
	} else {
		r->declined++;
		fprintf(stderr, "gpuperf run: %s %u of process %d is not measured: "
			"the OA unit takes one context filter, and it measures "
			"%s %u of process %d\n", what, offer->id, (int)offer->pid,
			gpuperf_offer_kind_name(r->first.kind), r->first.id,
			(int)r->first.pid);
		gpuperf_offers_answer(offers, offer, GPUPERF_OFFER_DECLINED,
				      "one context per run");
	}
}

/* Subscribes to the first context offered, opens the window, and lets
 * its create return. */
static int measure_first(struct run *r)
{
	struct gpuperf_stream_options *o = r->options;
	struct gpc_error err;
	const struct gpuperf_offer_received *f = &r->first;

	o->has_drm_fd = o->has_drm_context = true;
	o->drm_fd = f->drm_fd;
	o->drm_context = f->id;
	int ret = gpuperf_streaming_subscribe(&r->s, o, o->interval_ns, true, false);
	if (!ret && gpc_mark_sync(r->s.sub, GPC_MARK_BEGIN, &err))
		ret = gpuperf_report(cmd, "the daemon did not open the measured "
				     "window", &err);
	if (ret) {
		r->refused = true;
		gpuperf_offers_answer(&r->offers, f, GPUPERF_OFFER_FAILED,
				      "the daemon refused its stream (gpuperf "
				      "run said why)");
		return ret;
	}
	r->measuring = true;
	fprintf(stderr, "gpuperf run: measuring %s %u of process %d on %s\n",
		gpuperf_offer_kind_name(f->kind), f->id, (int)f->pid,
		r->device->name);
	gpuperf_offers_answer(&r->offers, f, GPUPERF_OFFER_MEASURED, "measured");
	return 0;
}

/* Starts the command with the preload, and measures the first context it
 * offers; 0 when a stream runs, else the status (the command has been
 * waited for). */
static int run_own_contexts(struct run *r, char **args)
{
	char preload[4096], err[512];
	int ret = find_preload(preload, sizeof(preload));
	if (ret)
		return ret;
	if (strpbrk(preload, ": "))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "%s cannot be "
				    "preloaded: LD_PRELOAD cannot hold a path "
				    "with ':' or ' '", preload);
	r->device = gpuperf_need_device(cmd, r->s.client, r->options->device);
	if (!r->device)
		return GPUPERF_EXIT_REFUSED;
	if (!r->device->kernel_context_filter)
		return gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s (%s) "
				    "takes no DRM file, so --own-contexts cannot "
				    "measure a command's context there (gpuperfd "
				    "streams one application's context on i915 "
				    "devices); without --own-contexts the whole "
				    "device is measured", r->device->name,
				    r->device->driver);
	/* The result names the context it measured, where reports name
	 * contexts (not Haswell's). */
	if (r->options->format != GPUPERF_FORMAT_PERFETTO &&
	    r->device->software_context_filter)
		r->options->per_context = true;
	ret = gpuperf_streaming_check_per_context(&r->s, r->options);
	if (ret)
		return ret;
	if (device_kind(r->device) == GPUPERF_OFFER_XE_EXEC_QUEUE)
		return gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s (xe): xe "
				    "does not filter the OA buffer by exec queue "
				    "(xe_oa_append_reports()), so a stream of the "
				    "command's queue counts the whole unit and "
				    "--own-contexts cannot give its own counters; "
				    "'gpuperf stream --drm-fd FD --context QUEUE "
				    "--per-context' splits such a stream by "
				    "hardware context", r->device->name);
	ret = gpuperf_offers_open(&r->offers, &r->s.loop, on_offer, r, err,
				  sizeof(err));
	if (ret)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "--own-contexts: %s",
				    err);
	r->offers_open = true;
	char **env = command_environment(preload, r->offers.path);
	if (!env)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	ret = start_child(r, args, env);
	free_environment(env);
	if (ret)
		return ret;
	while (!r->has_offer && !r->child_exited && !r->s.stopping)
		uv_run(&r->s.loop, UV_RUN_ONCE);
	if (r->has_offer) {
		ret = measure_first(r);
		/* A process of the command offered it, and the one gpuperf
		 * started ended while the stream opened. */
		if (!ret && r->child_exited)
			close_window(r);
		if (!ret)
			return 0;
	} else if (r->child_exited) {
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "%s created no %s on "
				   "%s: nothing was measured (it used no GPU, or "
				   "another one%s)", args[0],
				   gpuperf_offer_kind_name(device_kind(r->device)),
				   r->device->name, r->elsewhere ? ", as said" : "");
	} else {
		ret = r->s.exit_code;
	}
	/* Nothing is measured; the command decides when the run ends. */
	while (r->child_running)
		uv_run(&r->s.loop, UV_RUN_ONCE);
	return r->child_status ? r->child_status : ret;
}

/* One measured run of the command. */
static int run_once(struct gpuperf_stream_options *o, bool own_contexts,
		    int argc, char **argv, int command_index)
{
	struct run r = { 0 };
	struct gpc_error err;
	int ret;

	struct gpuperf_streaming_hooks hooks = {
		.wanted_frame = wanted_frame,
		.mark_frame = on_mark_frame,
		.signal = on_signal,
	};
	/* A trace names the marked window after the command. */
	char mark_name[256];
	size_t used = 0;
	mark_name[0] = '\0';
	for (int i = command_index; i < argc && used + 1 < sizeof(mark_name); i++)
		used += (size_t)snprintf(mark_name + used, sizeof(mark_name) - used,
					 "%s%s", i > command_index ? " " : "",
					 argv[i]);
	o->mark_name = mark_name;
	if (own_contexts) {
		r.own_contexts = true;
		r.options = o;
		ret = gpuperf_streaming_connect(&r.s, cmd, o, &hooks, &r);
		if (!ret)
			ret = run_own_contexts(&r, argv + command_index);
		if (!ret)
			watch_processes(&r, o);
	} else {
		ret = gpuperf_streaming_start(&r.s, cmd, o, o->interval_ns, true,
					      false, &hooks, &r);
		/* A stream that ended as it started (its output closed)
		 * measures nothing: the command is not run. */
		bool started = !ret && !r.s.stopping;
		if (started)
			watch_processes(&r, o);
		if (started && gpc_mark_sync(r.s.sub, GPC_MARK_BEGIN, &err))
			ret = gpuperf_report(cmd, "the daemon did not open the "
					     "measured window", &err);
		if (started && !ret)
			ret = start_child(&r, argv + command_index, NULL);
	}
	if (!ret)
		ret = gpuperf_streaming_run(&r.s);
	if (r.declined || r.elsewhere)
		fprintf(stderr, "gpuperf run: %" PRIu64 " more context(s) of the "
			"command not measured (%" PRIu64 " on another GPU)\n",
			r.declined + r.elsewhere, r.elsewhere);
	if (r.offers_open)
		gpuperf_offers_close(&r.offers);
	if (r.tree.saw_hidden)
		fprintf(stderr, "gpuperf run: this connection sees no process "
			"ids, so the command's own GPU use is not known (the "
			"daemon's --process-details)\n");
	gpuperf_streaming_fini(&r.s);
	gpuperf_process_tree_fini(&r.tree);
	return ret ? ret : r.s.exit_code;
}

int gpuperf_cmd_run(int argc, char **argv)
{
	struct gpuperf_stream_options o = { .format = GPUPERF_FORMAT_TABLE };
	int command_index = 0;
	unsigned repeat = 1;
	bool own_contexts = false, show_help = false;

	int ret = parse(argc, argv, &o, &command_index, &repeat, &own_contexts,
			&show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s%s\n%s", usage, help,
			       gpuperf_stream_options_help,
			       gpuperf_connection_help);
		return ret;
	}
	if (cuda_activity &&
	    (ret = gpuperf_cuda_activity_env(cmd, o.conn.unix_path)))
		return ret;
	if (repeat == 1)
		return run_once(&o, own_contexts, argc, argv, command_index);
	const char *output = o.output;
	char path[4096];
	for (unsigned n = 1; n <= repeat && !ret; n++) {
		if (numbered_path(output, n, path, sizeof(path)))
			return gpuperf_usage_error(cmd, usage, "-o %s is too long "
						   "a name", output);
		o.output = path;
		ret = run_once(&o, own_contexts, argc, argv, command_index);
		if (ret)
			fprintf(stderr, "gpuperf run: run %u of %u ended with "
				"status %d: no more runs\n", n, repeat, ret);
	}
	return ret;
}
