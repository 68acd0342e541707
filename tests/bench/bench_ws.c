/*
 * The server under load: 100 WebSocket clients, each streaming 50 counters
 * (of the first metric set that has them) at 100 frames a second from the
 * simulated Skylake GT2 (whose ComputeL3Cache has that many), against a
 * gpuperfd started here. Prints the daemon's CPU time (share of one core),
 * its RSS, and the latency of frames from the end of their window (the
 * CPU time of its last report) to their arrival at the client, p50 and
 * p99, beside a one-client reference run of the same daemon.
 *
 * Targets: p99 under 20 ms, the daemon under 25% of one core, RSS under
 * 64 MB. Printed, not enforced: the machine running it may be busy.
 *
 * A frame's CPU times come from the device's GPU-to-CPU anchor, taken when
 * its first report is read, which is up to a poll period (5 ms for sim)
 * after the report was written: the latencies printed can be that much
 * short of the truth.
 *
 * Environment: GPM_BUILD_DIR (gpuperfd), GPM_SHARED_DIR (Intel's metric
 * files), BENCH_WS_CLIENTS, BENCH_WS_SECONDS.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/bench_gpuperfd.h"
#include "tests/integration/ws_client.h"

#define COUNTERS 50
#define WINDOW_NS 10000000ull

struct run {
	uint64_t *latency;              /* ns, one per frame */
	size_t n, cap;
	uint64_t frames;
	uint64_t dropped;
	bool measuring;
};

static void on_message(struct wsc *c, const Gpuperf__Envelope *env,
		       uint64_t recv_ns, void *user)
{
	struct run *r = user;
	if (env->kind_case != GPUPERF__ENVELOPE__KIND_FRAME || !r->measuring)
		return;
	const Gpuperf__Frame *f = env->frame;
	r->frames++;
	r->dropped += f->frames_dropped;
	if (f->n_values != COUNTERS || !f->cpu_end_ns)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 65536;
		uint64_t *l = realloc(r->latency, cap * sizeof(*l));
		if (!l)
			return;
		r->latency = l;
		r->cap = cap;
	}
	r->latency[r->n++] = recv_ns > f->cpu_end_ns ? recv_ns - f->cpu_end_ns : 0;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double percentile_ms(struct run *r, double p)
{
	if (!r->n)
		return 0;
	size_t i = (size_t)(p * (double)(r->n - 1));
	return (double)r->latency[i] * 1e-6;
}

/* utime + stime of pid, in seconds. */
static double cpu_seconds(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields after the command's closing parenthesis; utime is the
	 * 14th field of the line, stime the 15th. */
	char *p = strrchr(buf, ')');
	unsigned long utime = 0, stime = 0;
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		       &utime, &stime);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = atol(line + strlen(field) + 1);
	if (f)
		fclose(f);
	return kb;
}

static pid_t start_daemon(const char *build, const char *shared,
			  const char *log, int *port)
{
	char metrics[512];
	snprintf(metrics, sizeof(metrics), "%s/intel-metrics/i915", shared);
	char *args[] = { NULL, "--allow-root", "--device", "sim:sklgt2",
		"--metrics-dir", metrics, "--listen", "127.0.0.1:0",
		"--max-connections", "1024", NULL };
	return bench_start_gpuperfd(build, args, log, port, "bench_ws");
}

/* The first set with COUNTERS counters on the device, from the Hello:
 * its symbol into set, the first COUNTERS counters into out. */
static int pick_counters(struct wsc *c, char *set_out, size_t size, char **out)
{
	Gpuperf__Envelope *h = wsc_next_kind(c, GPUPERF__ENVELOPE__KIND_HELLO, 5000);
	int n = 0;
	for (size_t d = 0; h && n < COUNTERS && d < h->hello->n_devices; d++) {
		const Gpuperf__Device *dev = h->hello->devices[d];
		for (size_t s = 0; n < COUNTERS && s < dev->n_metric_sets; s++) {
			const Gpuperf__MetricSet *set = dev->metric_sets[s];
			if (set->n_counters < COUNTERS)
				continue;
			snprintf(set_out, size, "%s", set->symbol);
			for (; n < COUNTERS; n++)
				out[n] = strdup(set->counters[n]->symbol);
		}
	}
	wsc_free_message(h);
	return n;
}

static void subscribe(struct wsc *c, char *set, char **counters)
{
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = set;
	s.window_ns = WINDOW_NS;
	s.counters = counters;
	s.n_counters = COUNTERS;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 1;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBE;
	env.subscribe = &s;
	wsc_send(c, &env);
}

struct result {
	double p50, p99, cpu_share, fps;
	long rss_kb, hwm_kb;
	uint64_t dropped;
};

static bool measure(struct wsc_ctx *ctx, const char *url, pid_t daemon,
		    char *set, char **counters, int n_clients, unsigned seconds,
		    struct result *res)
{
	struct run r = { 0 };
	struct wsc **clients = calloc((size_t)n_clients, sizeof(*clients));
	struct wsc_options o = { .on_message = on_message, .user = &r };
	int open = 0;
	for (int i = 0; i < n_clients; i++)
		clients[i] = wsc_connect(ctx, url, &o);
	for (int i = 0; i < n_clients; i++)
		open += wsc_wait_open(clients[i], 5000);
	for (int i = 0; i < n_clients; i++)
		subscribe(clients[i], set, counters);
	wsc_pump(ctx, 1000);            /* streams settle */
	r.measuring = true;
	double cpu0 = cpu_seconds(daemon);
	uint64_t t0 = wsc_now_ns();
	wsc_pump(ctx, seconds * 1000);
	double wall = (double)(wsc_now_ns() - t0) * 1e-9;
	double cpu1 = cpu_seconds(daemon);
	r.measuring = false;
	res->rss_kb = status_kb(daemon, "VmRSS");
	res->hwm_kb = status_kb(daemon, "VmHWM");
	for (int i = 0; i < n_clients; i++)
		wsc_close(clients[i]);
	free(clients);
	qsort(r.latency, r.n, sizeof(*r.latency), compare_u64);
	res->p50 = percentile_ms(&r, 0.50);
	res->p99 = percentile_ms(&r, 0.99);
	res->cpu_share = (cpu1 - cpu0) / wall;
	res->fps = (double)r.frames / wall / n_clients;
	res->dropped = r.dropped;
	free(r.latency);
	if (open != n_clients) {
		fprintf(stderr, "bench_ws: %d of %d clients connected\n", open,
			n_clients);
		return false;
	}
	return r.n > 0;
}

int main(void)
{
	const char *build = getenv("GPM_BUILD_DIR") ? getenv("GPM_BUILD_DIR") : "build";
	const char *shared = getenv("GPM_SHARED_DIR") ? getenv("GPM_SHARED_DIR") : "../shared";
	int n_clients = getenv("BENCH_WS_CLIENTS") ? atoi(getenv("BENCH_WS_CLIENTS")) : 100;
	unsigned seconds = getenv("BENCH_WS_SECONDS") ? (unsigned)atoi(getenv("BENCH_WS_SECONDS")) : 5;
	char log[] = "/tmp/bench-ws-XXXXXX";
	int fd = mkstemp(log);
	if (fd < 0)
		return 1;
	close(fd);
	int port = 0;
	pid_t daemon = start_daemon(build, shared, log, &port);
	if (daemon < 0)
		return 1;
	struct wsc_ctx ctx;
	char url[64];
	snprintf(url, sizeof(url), "ws://127.0.0.1:%d", port);
	char *counters[COUNTERS] = { 0 };
	int status = 1;
	if (wsc_ctx_init(&ctx, NULL)) {
		fprintf(stderr, "bench_ws: cannot start libwebsockets\n");
		goto out;
	}
	struct wsc *probe = wsc_connect(&ctx, url, NULL);
	char set[128] = "";
	int n = pick_counters(probe, set, sizeof(set), counters);
	wsc_close(probe);
	if (n != COUNTERS) {
		fprintf(stderr, "bench_ws: no metric set of %d counters on the "
			"simulated sklgt2\n", COUNTERS);
		wsc_ctx_fini(&ctx);
		goto out;
	}
	struct result one, all;
	if (measure(&ctx, url, daemon, set, counters, 1, seconds, &one) &&
	    measure(&ctx, url, daemon, set, counters, n_clients, seconds, &all)) {
		printf("bench_ws: %d clients x %.0f frames/s x %d counters "
		       "(sim sklgt2 %s, %u s)\n", n_clients, all.fps, COUNTERS,
		       set, seconds);
		printf("  latency p50 %6.2f ms  p99 %6.2f ms  (target p99 < 20 ms; "
		       "one client: p50 %.2f, p99 %.2f; ratio p99 %.2f)\n",
		       all.p50, all.p99, one.p50, one.p99,
		       one.p99 > 0 ? all.p99 / one.p99 : 0);
		printf("  daemon CPU %5.1f%% of one core  (target < 25%%; one "
		       "client: %.1f%%; ratio %.1f)\n", 100 * all.cpu_share,
		       100 * one.cpu_share,
		       one.cpu_share > 0 ? all.cpu_share / one.cpu_share : 0);
		printf("  daemon RSS %5.1f MB, peak %.1f MB  (target < 64 MB)\n",
		       all.rss_kb / 1024.0, all.hwm_kb / 1024.0);
		printf("  frames dropped for slow reading: %llu\n",
		       (unsigned long long)all.dropped);
		status = 0;
	} else {
		fprintf(stderr, "bench_ws: no frames measured\n");
	}
	wsc_ctx_fini(&ctx);
out:
	for (int i = 0; i < COUNTERS; i++)
		free(counters[i]);
	kill(daemon, SIGTERM);
	waitpid(daemon, NULL, 0);
	unlink(log);
	return status;
}
