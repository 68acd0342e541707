/*
 * /metrics under Prometheus' load, and what it costs everyone else: a
 * gpuperfd with four simulated GPUs (sim, Tiger Lake GT2, Skylake GT2,
 * Meteor Lake GT2) exporting every counter and every process is scraped
 * for everything ten times a second, in OpenMetrics, while a second client
 * asks /healthz a hundred times a second. Prints the scrapes' latency
 * (connect to the last byte) p50, p99 and max, the exposition's size, and
 * /healthz's p99 while scraped against a reference run of /healthz alone
 * on the same daemon: a scrape that held up the event loop would hold up
 * /healthz with it.
 *
 * Target: scrape p99 under 5 ms, /healthz p99 ratio near 1. Printed, not
 * enforced: the machine running it may be busy, and /healthz alone then
 * shows how busy (its p99 is the floor no scrape can beat).
 *
 * Environment: GPM_BUILD_DIR (gpuperfd), GPM_SHARED_DIR (Intel's metric
 * files), BENCH_SCRAPE_SECONDS (10).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/bench/bench_gpuperfd.h"

#define SCRAPES_PER_SECOND 10
#define HEALTH_PER_SECOND 100

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* GET path over a new connection, as Prometheus' first scrape does; the
 * body's size, or -1. */
static long http_get(int port, const char *path, const char *accept)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char req[512];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
			 "Accept: %s\r\nConnection: close\r\n\r\n", path, port, accept);
	if (write(fd, req, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	char buf[65536];
	long total = 0;
	ssize_t got;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		total += got;
	close(fd);
	return got < 0 ? -1 : total;
}

struct series {
	uint64_t *ns;
	size_t n, cap;
	long bytes;
};

static void add(struct series *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *p = realloc(s->ns, cap * sizeof(*p));
		if (!p)
			return;
		s->ns = p;
		s->cap = cap;
	}
	s->ns[s->n++] = ns;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double percentile_ms(struct series *s, double p)
{
	if (!s->n)
		return 0;
	qsort(s->ns, s->n, sizeof(*s->ns), compare_u64);
	return (double)s->ns[(size_t)(p * (double)(s->n - 1))] * 1e-6;
}

struct loop_args {
	int port;
	const char *path, *accept;
	unsigned per_second;
	uint64_t until_ns;
	struct series out;
};

static void *request_loop(void *arg)
{
	struct loop_args *a = arg;
	uint64_t period = 1000000000ull / a->per_second;
	for (uint64_t next = now_ns(); next < a->until_ns; next += period) {
		sleep_until(next);
		uint64_t t0 = now_ns();
		long bytes = http_get(a->port, a->path, a->accept);
		if (bytes < 0)
			continue;
		add(&a->out, now_ns() - t0);
		a->out.bytes = bytes;
	}
	return NULL;
}

static pid_t start_daemon(const char *build, const char *shared,
			  const char *log, int *port)
{
	char metrics[512];
	snprintf(metrics, sizeof(metrics), "%s/intel-metrics/i915", shared);
	char *args[] = { NULL, "--allow-root", "--device", "sim", "--device", "sim:tglgt2",
		"--device", "sim:sklgt2", "--device", "sim:mtlgt2",
		"--metrics-dir", metrics, "--listen", "127.0.0.1:0",
		"--metrics-processes", "--metrics-max-processes", "4096",
		"--metrics-window", "100", NULL };
	return bench_start_gpuperfd(build, args, log, port, "bench_scrape");
}

static const char openmetrics[] =
	"application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";

int main(void)
{
	const char *build = getenv("GPM_BUILD_DIR") ? getenv("GPM_BUILD_DIR") : "build";
	const char *shared = getenv("GPM_SHARED_DIR") ? getenv("GPM_SHARED_DIR") : "../shared";
	unsigned seconds = getenv("BENCH_SCRAPE_SECONDS") ?
			   (unsigned)atoi(getenv("BENCH_SCRAPE_SECONDS")) : 10;
	char log[] = "/tmp/bench-scrape-XXXXXX";
	int fd = mkstemp(log);
	if (fd < 0)
		return 1;
	close(fd);
	int port = 0;
	pid_t daemon = start_daemon(build, shared, log, &port);
	if (daemon < 0)
		return 1;
	int status = 1;
	/* The first scrape starts the streams and waits for a window. */
	if (http_get(port, "/metrics", openmetrics) <= 0) {
		fprintf(stderr, "bench_scrape: no first scrape\n");
		goto out;
	}
	struct loop_args alone = {
		.port = port, .path = "/healthz", .accept = "*/*",
		.per_second = HEALTH_PER_SECOND,
		.until_ns = now_ns() + 3000000000ull,
	};
	request_loop(&alone);
	uint64_t until = now_ns() + seconds * 1000000000ull;
	struct loop_args scrapes = {
		.port = port, .path = "/metrics", .accept = openmetrics,
		.per_second = SCRAPES_PER_SECOND, .until_ns = until,
	};
	struct loop_args health = {
		.port = port, .path = "/healthz", .accept = "*/*",
		.per_second = HEALTH_PER_SECOND, .until_ns = until,
	};
	pthread_t t;
	if (pthread_create(&t, NULL, request_loop, &health))
		goto out;
	request_loop(&scrapes);
	pthread_join(t, NULL);
	if (!scrapes.out.n || !health.out.n || !alone.out.n) {
		fprintf(stderr, "bench_scrape: requests failed\n");
		goto out;
	}
	size_t n = scrapes.out.n;
	double p50 = percentile_ms(&scrapes.out, 0.5);
	double p99 = percentile_ms(&scrapes.out, 0.99);
	double max = percentile_ms(&scrapes.out, 1);
	double h99 = percentile_ms(&health.out, 0.99);
	double a99 = percentile_ms(&alone.out, 0.99);
	printf("bench_scrape: %zu scrapes of everything (4 sim GPUs, every "
	       "counter and process, OpenMetrics, %ld bytes) at %d/s\n", n,
	       scrapes.out.bytes, SCRAPES_PER_SECOND);
	printf("  scrape p50 %5.2f ms  p99 %5.2f ms  max %5.2f ms\n", p50, p99, max);
	printf("  scrape p99 %5.2f ms against the 5 ms target: %s\n", p99,
	       p99 < 5 ? "met" : "missed");
	printf("  /healthz p99 %5.2f ms while scraped, %5.2f ms alone (ratio %.2f)\n",
	       h99, a99, a99 > 0 ? h99 / a99 : 0);
	status = 0;
out:
	kill(daemon, SIGTERM);
	waitpid(daemon, NULL, 0);
	unlink(log);
	return status;
}
