/*
 * The server at its connection cap, and the whole path from the GPU to a
 * client, against a gpuperfd started here on the simulated Skylake GT2
 * (whose RenderBasic has 50 counters to stream).
 *
 * Fan-out: 256 WebSocket clients, each streaming 50 counters at 100
 * frames a second. 256 is the daemon's default --max-connections, and
 * all of it is theirs: loopback clients authenticate as they connect (no
 * pre-authentication slot, no per-address limit applies to them) and
 * without --unix nothing is reserved for the Unix socket. So the daemon
 * runs with its defaults, and the bench waits for its reference client to
 * be gone (/metrics' gpuperf_connections) before the 256 connect. The
 * clients are spread over client processes (BENCH_WS_PROCESSES, 4) so
 * that one client thread is not what limits a machine with the cores.
 * Prints the frames' latency from the end of their window to their
 * arrival (p50, p99), the daemon's CPU time as a share of one core and
 * its RSS, beside a one-client reference in the same run, and the goals:
 * p99 under 20 ms, under 50% of a core, RSS under 128 MB.
 *
 * End to end: one client at 10 ms and 100 ms windows; from the GPU time
 * of the oldest report in a frame (its window's start) to the frame's
 * arrival, p50 and p99; the goal is the window length plus 10 ms. The
 * sim paces its unit by CLOCK_MONOTONIC and tells the daemon when its
 * clock read what (gpd_source_listener.clock), so the CPU times of its
 * frames are the reports' true times, not a bound from when they were
 * read.
 *
 * The machine's load average is printed beside the figures: on a busy
 * machine the clients and the daemon wait for a core, and the figures
 * say more of the machine than of the daemon. Printed, not enforced.
 *
 * Environment: GPM_BUILD_DIR (gpuperfd), GPM_SHARED_DIR (Intel's metric
 * files), BENCH_WS_CLIENTS, BENCH_WS_SECONDS, BENCH_WS_PROCESSES.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/bench_gpuperfd.h"
#include "tests/integration/ws_client.h"

#define COUNTERS 50
#define FANOUT_WINDOW_NS 10000000ull
#define MAX_PROCESSES 64

/* What a client process saw while measuring. */
struct run {
	uint64_t *since_end;            /* ns, arrival - window end */
	uint64_t *since_start;          /* ns, arrival - window start */
	size_t n, cap;
	uint64_t frames;
	uint64_t dropped;
	bool measuring;
};

struct summary {
	uint32_t open;
	uint64_t frames, dropped, n;
	double cpu_s;                   /* the client process's */
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
	if (f->n_values != COUNTERS || !f->cpu_end_ns || !f->cpu_start_ns)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 65536;
		uint64_t *e = realloc(r->since_end, cap * sizeof(*e));
		if (e)
			r->since_end = e;
		uint64_t *s = realloc(r->since_start, cap * sizeof(*s));
		if (s)
			r->since_start = s;
		if (!e || !s)
			return;
		r->cap = cap;
	}
	r->since_end[r->n] = recv_ns > f->cpu_end_ns ? recv_ns - f->cpu_end_ns : 0;
	r->since_start[r->n] = recv_ns > f->cpu_start_ns ?
			       recv_ns - f->cpu_start_ns : 0;
	r->n++;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double percentile_ms(const uint64_t *sorted, size_t n, double p)
{
	return n ? (double)sorted[(size_t)(p * (double)(n - 1))] * 1e-6 : 0;
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

static double own_cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
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

/* A gauge of the daemon's /metrics at 127.0.0.1:port; -1 if unread. */
static long long metric(int port, const char *name)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	static char buf[1 << 20];
	size_t len = 0;
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
				  "Connection: close\r\n\r\n";
	if (write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1)) {
		close(fd);
		return -1;
	}
	ssize_t n;
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	char key[128];
	snprintf(key, sizeof(key), "\n%s ", name);
	const char *at = strstr(buf, key);
	return at ? atoll(at + strlen(key)) : -1;
}

static pid_t start_daemon(const char *build, const char *shared,
			  const char *log, int *port)
{
	char metrics[512];
	snprintf(metrics, sizeof(metrics), "%s/intel-metrics/i915", shared);
	char *args[] = { NULL, "--allow-root", "--device", "sim:sklgt2",
		"--metrics-dir", metrics, "--listen", "127.0.0.1:0",
		"--linger", "0", NULL };
	return bench_start_gpuperfd(build, args, log, port, "bench_ws");
}

/* The first set with COUNTERS counters on the device, from the Hello:
 * its symbol into set, the first COUNTERS counters into out; the
 * daemon's connection cap into max_connections. */
static int pick_counters(struct wsc *c, char *set_out, size_t size, char **out,
			 uint32_t *max_connections)
{
	Gpuperf__Envelope *h = wsc_next_kind(c, GPUPERF__ENVELOPE__KIND_HELLO, 5000);
	int n = 0;
	if (h && h->hello->limits)
		*max_connections = h->hello->limits->max_connections;
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

static void subscribe(struct wsc *c, char *set, char **counters,
		      uint64_t window_ns)
{
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = set;
	s.window_ns = window_ns;
	s.counters = counters;
	s.n_counters = COUNTERS;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 1;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBE;
	env.subscribe = &s;
	wsc_send(c, &env);
}

struct job {
	const char *url;
	char *set;
	char **counters;
	uint64_t window_ns;
};

static bool write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool read_all(int fd, void *data, size_t len)
{
	char *p = data;
	while (len) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* The command byte waiting on fd, or 0. */
static char command(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c = 0;
	if (poll(&p, 1, 0) == 1 && read(fd, &c, 1) != 1)
		c = 'E';
	return c;
}

/* A client process: n clients subscribe and stream; 'R' once they are
 * subscribed, measuring from 'S' to 'E', then its summary and latencies
 * on out. */
static void client_process(const struct job *job, int n, int in, int out)
{
	struct wsc_ctx ctx;
	struct run r = { 0 };
	struct summary sum = { 0 };
	if (wsc_ctx_init(&ctx, NULL))
		_exit(1);
	struct wsc **clients = calloc((size_t)n, sizeof(*clients));
	struct wsc_options o = { .on_message = on_message, .user = &r };
	for (int i = 0; i < n; i++)
		clients[i] = wsc_connect(&ctx, job->url, &o);
	for (int i = 0; i < n; i++)
		sum.open += wsc_wait_open(clients[i], 10000);
	for (int i = 0; i < n; i++)
		subscribe(clients[i], job->set, job->counters, job->window_ns);
	wsc_pump(&ctx, 200);
	write_all(out, "R", 1);
	char c;
	while ((c = command(in)) != 'S')
		wsc_pump(&ctx, 5);
	double cpu0 = own_cpu_seconds();
	r.measuring = true;
	while ((c = command(in)) != 'E')
		wsc_pump(&ctx, 5);
	r.measuring = false;
	sum.cpu_s = own_cpu_seconds() - cpu0;
	sum.frames = r.frames;
	sum.dropped = r.dropped;
	sum.n = r.n;
	write_all(out, &sum, sizeof(sum));
	write_all(out, r.since_end, r.n * sizeof(uint64_t));
	write_all(out, r.since_start, r.n * sizeof(uint64_t));
	for (int i = 0; i < n; i++)
		wsc_close(clients[i]);
	wsc_ctx_fini(&ctx);
	_exit(0);
}

struct result {
	int clients, processes;
	uint32_t open;
	double end_p50, end_p99, start_p50, start_p99;
	double cpu_share, clients_cpu_share, fps;
	long rss_kb, hwm_kb;
	uint64_t dropped;
	double load;                    /* 1-minute load average after */
};

/* n_clients streaming job->window_ns windows from `processes` client
 * processes, measured for seconds once all are subscribed. */
static bool measure(const struct job *job, pid_t daemon, int port,
		    int n_clients, int processes, unsigned seconds,
		    struct result *res)
{
	/* The connections of the run before must be gone first: together
	 * they would pass the cap. */
	for (int i = 0; i < 200 && metric(port, "gpuperf_connections") > 0; i++)
		usleep(50000);
	if (processes > n_clients)
		processes = n_clients;
	int to[MAX_PROCESSES], from[MAX_PROCESSES];
	pid_t pids[MAX_PROCESSES];
	for (int k = 0; k < processes; k++) {
		int a[2], b[2];
		if (pipe(a) || pipe(b))
			return false;
		int n = n_clients / processes + (k < n_clients % processes);
		pids[k] = fork();
		if (pids[k] == 0) {
			close(a[1]);
			close(b[0]);
			client_process(job, n, a[0], b[1]);
		}
		close(a[0]);
		close(b[1]);
		to[k] = a[1];
		from[k] = b[0];
	}
	bool ok = true;
	for (int k = 0; k < processes; k++) {
		char c = 0;
		ok &= read_all(from[k], &c, 1) && c == 'R';
	}
	sleep(1);                       /* streams settle */
	for (int k = 0; k < processes; k++)
		write_all(to[k], "S", 1);
	double cpu0 = cpu_seconds(daemon);
	uint64_t t0 = wsc_now_ns();
	sleep(seconds);
	double wall = (double)(wsc_now_ns() - t0) * 1e-9;
	double cpu1 = cpu_seconds(daemon);
	for (int k = 0; k < processes; k++)
		write_all(to[k], "E", 1);
	res->rss_kb = status_kb(daemon, "VmRSS");
	res->hwm_kb = status_kb(daemon, "VmHWM");

	uint64_t *end = NULL, *start = NULL;
	size_t n = 0;
	double clients_cpu = 0;
	uint64_t frames = 0;
	res->open = 0;
	res->dropped = 0;
	for (int k = 0; k < processes; k++) {
		struct summary s;
		if (!read_all(from[k], &s, sizeof(s))) {
			ok = false;
			continue;
		}
		uint64_t *e = realloc(end, (n + s.n) * sizeof(*e));
		if (e)
			end = e;
		uint64_t *st = realloc(start, (n + s.n) * sizeof(*st));
		if (st)
			start = st;
		if (!e || !st || !read_all(from[k], end + n, s.n * sizeof(*end)) ||
		    !read_all(from[k], start + n, s.n * sizeof(*start))) {
			ok = false;
			continue;
		}
		n += s.n;
		res->open += s.open;
		res->dropped += s.dropped;
		frames += s.frames;
		clients_cpu += s.cpu_s;
	}
	for (int k = 0; k < processes; k++) {
		close(to[k]);
		close(from[k]);
		waitpid(pids[k], NULL, 0);
	}
	qsort(end, n, sizeof(*end), compare_u64);
	qsort(start, n, sizeof(*start), compare_u64);
	res->clients = n_clients;
	res->processes = processes;
	res->end_p50 = percentile_ms(end, n, 0.50);
	res->end_p99 = percentile_ms(end, n, 0.99);
	res->start_p50 = percentile_ms(start, n, 0.50);
	res->start_p99 = percentile_ms(start, n, 0.99);
	res->cpu_share = (cpu1 - cpu0) / wall;
	res->clients_cpu_share = clients_cpu / wall;
	res->fps = (double)frames / wall / n_clients;
	double load[1] = { 0 };
	getloadavg(load, 1);
	res->load = load[0];
	free(end);
	free(start);
	if (res->open != (uint32_t)n_clients) {
		fprintf(stderr, "bench_ws: %u of %d clients connected\n",
			res->open, n_clients);
		return false;
	}
	return ok && n > 0;
}

static const char *verdict(bool met)
{
	return met ? "met" : "NOT MET";
}

int main(void)
{
	const char *build = getenv("GPM_BUILD_DIR") ? getenv("GPM_BUILD_DIR") : "build";
	const char *shared = getenv("GPM_SHARED_DIR") ? getenv("GPM_SHARED_DIR") : "../shared";
	int n_clients = getenv("BENCH_WS_CLIENTS") ? atoi(getenv("BENCH_WS_CLIENTS")) : 256;
	unsigned seconds = getenv("BENCH_WS_SECONDS") ? (unsigned)atoi(getenv("BENCH_WS_SECONDS")) : 5;
	int processes = getenv("BENCH_WS_PROCESSES") ? atoi(getenv("BENCH_WS_PROCESSES")) : 4;
	if (processes < 1 || processes > MAX_PROCESSES || n_clients < 1) {
		fprintf(stderr, "bench_ws: BENCH_WS_PROCESSES 1..%d, "
			"BENCH_WS_CLIENTS at least 1\n", MAX_PROCESSES);
		return 1;
	}
	char log[] = "/tmp/bench-ws-XXXXXX";
	int fd = mkstemp(log);
	if (fd < 0)
		return 1;
	close(fd);
	int port = 0;
	pid_t daemon = start_daemon(build, shared, log, &port);
	if (daemon < 0)
		return 1;
	char url[64];
	snprintf(url, sizeof(url), "ws://127.0.0.1:%d", port);
	char *counters[COUNTERS] = { 0 };
	char set[128] = "";
	int status = 1, n = 0;
	uint32_t max_connections = 0;
	struct wsc_ctx ctx;
	if (wsc_ctx_init(&ctx, NULL)) {
		fprintf(stderr, "bench_ws: cannot start libwebsockets\n");
		goto out;
	}
	struct wsc *probe = wsc_connect(&ctx, url, NULL);
	n = pick_counters(probe, set, sizeof(set), counters, &max_connections);
	wsc_close(probe);
	wsc_ctx_fini(&ctx);
	if (n != COUNTERS) {
		fprintf(stderr, "bench_ws: no metric set of %d counters on the "
			"simulated sklgt2\n", COUNTERS);
		goto out;
	}

	struct job fanout = { url, set, counters, FANOUT_WINDOW_NS };
	struct result one, all;
	if (!measure(&fanout, daemon, port, 1, 1, seconds, &one) ||
	    !measure(&fanout, daemon, port, n_clients, processes, seconds, &all)) {
		fprintf(stderr, "bench_ws: no frames measured; see %s\n", log);
		goto out;
	}
	bool lat_ok = all.end_p99 < 20, cpu_ok = all.cpu_share < 0.5,
	     rss_ok = all.hwm_kb < 128 * 1024;
	printf("bench_ws: fan-out: %d clients (%d processes) x %.0f frames/s x "
	       "%d counters (sim sklgt2 %s, %u s; daemon at its default "
	       "--max-connections %u; load average %.1f)\n", n_clients,
	       all.processes, all.fps, COUNTERS, set, seconds, max_connections,
	       all.load);
	printf("  latency, window end to arrival: p50 %6.2f ms  p99 %6.2f ms  "
	       "(goal p99 < 20 ms: %s; one client: p50 %.2f, p99 %.2f)\n",
	       all.end_p50, all.end_p99, verdict(lat_ok), one.end_p50, one.end_p99);
	printf("  daemon CPU %5.1f%% of one core  (goal < 50%%: %s; one client: "
	       "%.1f%%; ratio %.1f)\n", 100 * all.cpu_share, verdict(cpu_ok),
	       100 * one.cpu_share,
	       one.cpu_share > 0 ? all.cpu_share / one.cpu_share : 0);
	printf("  daemon RSS %5.1f MB, peak %.1f MB  (goal < 128 MB: %s; one "
	       "client: peak %.1f MB)\n", all.rss_kb / 1024.0, all.hwm_kb / 1024.0,
	       verdict(rss_ok), one.hwm_kb / 1024.0);
	printf("  frames dropped for slow reading: %llu; the clients used %.0f%% "
	       "of a core\n", (unsigned long long)all.dropped,
	       100 * all.clients_cpu_share);

	static const uint64_t windows[] = { 10000000ull, 100000000ull };
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct job e2e = { url, set, counters, windows[w] };
		struct result r;
		unsigned s = seconds < 3 ? 3 : seconds;
		if (!measure(&e2e, daemon, port, 1, 1, s, &r)) {
			fprintf(stderr, "bench_ws: no frames measured; see %s\n", log);
			goto out;
		}
		double goal = windows[w] * 1e-6 + 10;
		printf("bench_ws: end to end, %.0f ms windows, 1 client: from the "
		       "oldest report's GPU time to the frame's arrival p50 %.2f ms, "
		       "p99 %.2f ms (goal p99 < %.0f ms: %s); from the window's end "
		       "p50 %.2f, p99 %.2f (load average %.1f)\n",
		       windows[w] * 1e-6, r.start_p50, r.start_p99, goal,
		       verdict(r.start_p99 < goal), r.end_p50, r.end_p99, r.load);
	}
	status = 0;
out:
	for (int i = 0; i < COUNTERS; i++)
		free(counters[i]);
	kill(daemon, SIGTERM);
	waitpid(daemon, NULL, 0);
	unlink(log);
	return status;
}
