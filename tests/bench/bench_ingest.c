/*
 * Ingest at tglgt2's fastest period: a recording at exponent 0 (a report
 * every 104 ns, 9.6M reports/s, 2.5 GB/s) replayed through the daemon in
 * process at speed=1 (real time, looped), held to one CPU, with 1, 2, 5
 * and 10 subscribers: 100 ms windows, every counter, per-context rows,
 * half of them filtered to the recording's busiest context.
 *
 * Reference in the same run: the recording's own rate. Printed for each:
 * the reports ingested a second against it, the daemon's CPU against the
 * wall time (its share of the one CPU it may use), the CPU each report
 * costs against the 104 ns the hardware takes to write one (on a loaded
 * machine the process gets only part of its CPU, so this is the fair
 * figure: one core keeps up while it is under 104 ns), how far the
 * replay fell behind (what a real unit's buffer would have had to hold,
 * lost beyond it), and what each subscriber added costs.
 *
 * Goal: nothing lost to the daemon, at most one core; subscribers that
 * share a window length and filter share one sum of the pairs, so the
 * cost does not grow with their number.
 *
 * With GPM_INGEST_BASE naming this bench built against the code of
 * another revision (make bench BENCH_BASE=REV), each count is measured
 * on that code too, in turn with ours, on the same recording: the
 * ratio against the code before a change, in the same run. It is run
 * as `bench_ingest --measure RECORDING SUBSCRIBERS CONTEXT`, which
 * prints the CPU and the kernel's CPU a report.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "tests/bench/bench_recording.h"

#define N_REPORTS 1000000               /* 104 ms of reports, looped */
#define PERIOD_NS 104.167               /* 2 ticks of 19.2 MHz */
#define WINDOW_NS 100000000ull
#define WARM_S 0.5                      /* and until each had a frame */
#define MEASURE_S 3.0

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The process's CPU time, and of it the kernel's (*sys: reading the
 * recording out of the page cache). */
static double cpu_s(double *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       *sys;
}

struct subscriber {
	struct gpd_subscription *sub;
	unsigned long frames;
	uint64_t buffers_lost, reports_lost;
	/* The context with the most reports in the frames seen. */
	uint32_t busiest;
	uint32_t busiest_reports;
};

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct subscriber *s = user;
	s->frames++;
	s->buffers_lost += f->buffer_lost;
	s->reports_lost += f->lost_reports;
	for (size_t i = 0; i < f->n_contexts; i++)
		if (f->contexts[i].ctx_id != GPD_CTX_IDLE &&
		    f->contexts[i].reports > s->busiest_reports) {
			s->busiest = f->contexts[i].ctx_id;
			s->busiest_reports = f->contexts[i].reports;
		}
}

static const struct gpd_subscriber_ops ops = { .frame = on_frame };

static void on_stop(uv_timer_t *t)
{
	uv_stop(t->loop);
}

static void run_for(uv_loop_t *loop, double seconds)
{
	uv_timer_t timer;
	uv_timer_init(loop, &timer);
	uv_timer_start(&timer, on_stop, (uint64_t)(seconds * 1000), 0);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&timer, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

struct ingest_run {
	double wall, cpu, sys;
	uint64_t reports;
	unsigned long frames;
	uint64_t buffers_lost, reports_lost;
	uint32_t busiest;
};

/* n subscribers, those past the first half filtered to ctx (when
 * filter); the figures of MEASURE_S after WARM_S. */
static int ingest(const char *spec, const char *metrics_dir, unsigned n,
		  bool filter, uint32_t ctx, struct ingest_run *run)
{
	const char *devices[] = { spec };
	const char *dirs[] = { metrics_dir };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1,
		.metrics_dirs = dirs, .n_metrics_dirs = 1,
	};
	uv_loop_t loop;
	struct gpd_daemon d;
	struct gpd_error err;
	uv_loop_init(&loop);
	if (gpd_daemon_init(&d, &loop, &opts, &err)) {
		fprintf(stderr, "bench_ingest: %s\n", err.message);
		return -1;
	}
	struct subscriber subs[10] = { 0 };
	for (unsigned i = 0; i < n; i++) {
		struct gpd_subscribe_request req = {
			.window_ns = WINDOW_NS,
			.per_context = true,
			.ctx_filter = filter && i >= (n + 1) / 2,
			.ctx_id = ctx,
			.role = GPD_ROLE_CONTROLLER,
		};
		if (gpd_subscribe(&d.registry, &req, &ops, &subs[i],
				  &subs[i].sub, &err)) {
			fprintf(stderr, "bench_ingest: %s\n", err.message);
			return -1;
		}
	}
	struct gpd_device *dev = d.registry.devices[0];
	/* A subscriber sums its first window alone and shares from its end
	 * on: the figures are of the steady state, which a loaded machine
	 * may take several seconds to reach. */
	run_for(&loop, WARM_S);
	for (unsigned i = 0, tries = 0; i < n && tries < 600; tries++) {
		if (subs[i].frames)
			i++;
		else
			run_for(&loop, 0.05);
	}
	struct gpd_device_stats before = dev->stats;
	unsigned long frames = 0;
	for (unsigned i = 0; i < n; i++)
		frames += subs[i].frames;
	double s0, s1;
	double w0 = now_s(), c0 = cpu_s(&s0);
	run_for(&loop, MEASURE_S);
	run->wall = now_s() - w0;
	run->cpu = cpu_s(&s1) - c0;
	run->sys = s1 - s0;
	run->reports = dev->stats.reports - before.reports;
	run->frames = 0;
	run->buffers_lost = run->reports_lost = 0;
	for (unsigned i = 0; i < n; i++) {
		run->frames += subs[i].frames;
		run->buffers_lost += subs[i].buffers_lost;
		run->reports_lost += subs[i].reports_lost;
	}
	run->frames -= frames;
	run->busiest = subs[0].busiest;
	for (unsigned i = 0; i < n; i++)
		gpd_unsubscribe(subs[i].sub);
	gpd_daemon_stop(&d);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);
	uv_loop_close(&loop);
	return 0;
}

static double ns_a_report(double seconds, uint64_t reports)
{
	return reports ? seconds * 1e9 / (double)reports : 0;
}

/* The base's CPU and kernel CPU a report for n subscribers: false if it
 * could not say. */
static bool measure_base(const char *base, const char *path, unsigned n,
			 uint32_t ctx, double *cpu, double *sys)
{
	char cmd[2400];
	snprintf(cmd, sizeof(cmd), "'%s' --measure '%s' %u %u", base, path, n,
		 (unsigned)ctx);
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	bool ok = fscanf(p, "%lf %lf", cpu, sys) == 2;
	return pclose(p) == 0 && ok;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("GPM_SHARED_DIR");
	const char *base = getenv("GPM_INGEST_BASE");
	char dir[1024], path[] = "/tmp/gpm-bench-ingest-XXXXXX", spec[1100];
	snprintf(dir, sizeof(dir), "%s/intel-metrics/i915",
		 shared ? shared : "../shared");
	gpd_log_set_level(GPD_LOG_WARNING);

	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	bool held = sched_setaffinity(0, sizeof(one), &one) == 0;

	if (argc == 5 && !strcmp(argv[1], "--measure")) {
		struct ingest_run r;
		snprintf(spec, sizeof(spec), "replay:%s,loop,speed=1", argv[2]);
		if (ingest(spec, dir, (unsigned)atoi(argv[3]), true,
			   (uint32_t)strtoul(argv[4], NULL, 10), &r))
			return 1;
		printf("%.2f %.2f\n", ns_a_report(r.cpu, r.reports),
		       ns_a_report(r.sys, r.reports));
		return 0;
	}

	close(mkstemp(path));
	if (bench_write_recording(path, dir, N_REPORTS, 0)) {
		unlink(path);
		return 1;
	}
	snprintf(spec, sizeof(spec), "replay:%s,loop,speed=1", path);

	/* The context the filtered half follows: the busiest one. */
	struct ingest_run first;
	if (ingest(spec, dir, 1, false, 0, &first)) {
		unlink(path);
		return 1;
	}
	double rate = 1e9 / PERIOD_NS;
	printf("daemon ingest of a tglgt2 recording at exponent 0 replayed at "
	       "speed=1 (%.2f M reports/s, a report every %.0f ns), %s, 100 ms "
	       "windows, every counter, per-context rows, half the "
	       "subscribers filtered to context 0x%x (goal: nothing lost to "
	       "the daemon, at most one core):\n", rate / 1e6, PERIOD_NS,
	       held ? "held to one CPU" : "on every CPU (could not hold it to one)",
	       (unsigned)first.busiest);
	static const unsigned counts[] = { 1, 2, 5, 10 };
	double per_report[4] = { 0 };
	for (unsigned k = 0; k < 4; k++) {
		struct ingest_run r;
		if (ingest(spec, dir, counts[k], true, first.busiest, &r)) {
			unlink(path);
			return 1;
		}
		double ingested = (double)r.reports / r.wall;
		per_report[k] = ns_a_report(r.cpu, r.reports);
		double sys_per_report = ns_a_report(r.sys, r.reports);
		double behind_ms = (rate * r.wall - (double)r.reports) * PERIOD_NS / 1e6;
		printf("  %2u subscribers: %5.2f M reports/s ingested (%.2fx the "
		       "recording's rate) with %3.0f%% of a core; %5.1f ns of "
		       "CPU a report (%4.1f of it the kernel's) against %.0f: "
		       "one core keeps up to %.2fx; "
		       "behind by %.0f ms of reports; %lu frames, %llu "
		       "BUFFER_LOST, %llu REPORT_LOST\n", counts[k],
		       ingested / 1e6, ingested / rate, 100 * r.cpu / r.wall,
		       per_report[k], sys_per_report, PERIOD_NS,
		       per_report[k] ? PERIOD_NS / per_report[k] : 0,
		       behind_ms > 0 ? behind_ms : 0, r.frames,
		       (unsigned long long)r.buffers_lost,
		       (unsigned long long)r.reports_lost);
		double base_cpu, base_sys;
		if (!base)
			continue;
		if (measure_base(base, path, counts[k], first.busiest,
				 &base_cpu, &base_sys))
			printf("      the code before, in turn with it: %5.1f ns "
			       "(%4.1f the kernel's): this costs %.2fx of it\n",
			       base_cpu, base_sys,
			       base_cpu ? per_report[k] / base_cpu : 0);
		else
			printf("      the code before (%s) did not measure\n",
			       base);
	}
	printf("  each subscriber added costs %.2f ns a report (1 to 10 "
	       "subscribers; goal: nothing growing with their number)\n",
	       (per_report[3] - per_report[0]) / 9);
	unlink(path);
	return 0;
}
