/*
 * Offline replay throughput against IGT's i915-perf-reader on the same
 * file in the same run, on 1M-report tglgt2 RenderBasic recordings:
 *
 * - every counter per 1 ms window (`gpuperf replay --interval 1ms -c all`,
 *   a report every 3.3 us) against `i915-perf-reader -c all`, for the file
 *   as it was written and again once read back into the page cache;
 * - equal work, a report every 107 us (exponent 10): every counter of every
 *   report pair as CSV (`gpuperf replay --per-report -c all --format csv`)
 *   against `i915-perf-reader -c all -r`, which prints every pair; and the
 *   per-context totals (`gpuperf replay -c all`) against
 *   `i915-perf-reader -c all`. Both tools run as processes, the metric
 *   files' load included, best of N each, with their peak RSS; beside
 *   them, how fast one core reads the file's bytes, the memory's limit.
 *
 * The recording comes from the simulated OA unit, so it has the workload's
 * context switches and idle stretches like a real capture.
 *
 * The replay reads the file on a second core where it has one; the 10M
 * reports/s target is for one core, so that rate is taken with the
 * process held to one CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/commands.h"
#include "tests/bench/bench_recording.h"
#include "daemon/sim/oa_model.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_record.h"
#include "metrics/platform.h"
#include "metrics/recording.h"

#define N_REPORTS 1000000
#define IGT_READER "/usr/bin/i915-perf-reader"
/* A report every 64 ticks (3.3 us) for the windows; every 2048 ticks
 * (107 us, the "100 us") for the equal-work comparisons. */
#define WINDOW_EXPONENT 5
#define EQUAL_WORK_EXPONENT 10
#define EQUAL_WORK_ROUNDS 5

extern char **environ;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One replay of the recording, in seconds; negative when it fails. */
static double time_replay(char *path, char *dir)
{
	char *args[] = { "replay", path, "--metrics-dir", dir,
			 "--interval", "1ms", "--format", "csv",
			 "-c", "all", "-o", "/dev/null", NULL };
	double t0 = now_s();
	int status = gpuperf_cmd_replay(12, args);
	double t = now_s() - t0;

	if (status) {
		fprintf(stderr, "bench_replay: gpuperf replay failed (%d)\n", status);
		return -1;
	}
	return t;
}

/* Best of seven of each, to shed the noise of a shared machine (a
 * virtual one's neighbours come and go); igt stays 1e9 without the reader.
 * Returns -1 when the replay fails. */
static int compare(char *path, char *dir, double *ours, double *igt)
{
	*ours = *igt = 1e9;
	for (int round = 0; round < 7; round++) {
		double t = time_replay(path, dir);
		if (t < 0)
			return -1;
		if (t < *ours)
			*ours = t;
		if (access(IGT_READER, X_OK) == 0) {
			char cmd[2048];
			snprintf(cmd, sizeof(cmd), "%s -c all %s >/dev/null 2>&1",
				 IGT_READER, path);
			double t0 = now_s();
			if (system(cmd) == 0 && now_s() - t0 < *igt)
				*igt = now_s() - t0;
		}
	}
	return 0;
}

/*
 * Puts the file back into the page cache the way reading it does. A file
 * just written sits there in the pieces the writes made; read back after
 * being dropped, it comes in the larger pieces of the kernel's read-ahead,
 * which copy out faster: both tools gain, the reader more, as copying is
 * more of its time. Returns false where the cache would not let go.
 */
static bool read_back(const char *path)
{
	int fd = open(path, O_RDONLY);
	bool dropped = fd >= 0 && fdatasync(fd) == 0 &&
		       posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
	static char buf[1 << 20];

	while (dropped && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
	/* Writing the file out leaves the kernel's threads busy for a while
	 * on the CPU the replay's helper would use. */
	sync();
	usleep(500000);
	return dropped;
}

static void print_comparison(const char *what, double ours, double igt)
{
	printf("  %s:\n", what);
	printf("    gpuperf replay    %8.3f s  %12.0f reports/s\n", ours, N_REPORTS / ours);
	if (igt < 1e9) {
		printf("    i915-perf-reader  %8.3f s  %12.0f reports/s\n", igt, N_REPORTS / igt);
		printf("    ratio (gpuperf / i915-perf-reader): %.2fx (target >= 3x)\n",
		       igt / ours);
	} else {
		printf("    i915-perf-reader not installed: no reference this run\n");
	}
}

struct process_run {
	double wall_s, cpu_s;
	long peak_rss_kb;
};

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The child's peak RSS so far (VmHWM), in kB; 0 when unknown. */
static long peak_rss_kb(pid_t pid)
{
	char path[64], line[128];
	long kb = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Runs argv[0] with its output thrown away; -1 when it fails. The peak
 * RSS is read from /proc every 2 ms while it runs: the kernel's
 * ru_maxrss of a child also counts this process's memory from before
 * the exec.
 */
static int run_process(char *const argv[], struct process_run *run)
{
	posix_spawn_file_actions_t actions;
	struct rusage usage;
	int status, ret;
	pid_t pid;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
					 O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	double t0 = now_s();
	ret = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (ret)
		return -1;
	run->peak_rss_kb = 0;
	for (;;) {
		pid_t done = wait4(pid, &status, WNOHANG, &usage);
		if (done == pid)
			break;
		if (done < 0)
			return -1;
		long kb = peak_rss_kb(pid);
		if (kb > run->peak_rss_kb)
			run->peak_rss_kb = kb;
		usleep(2000);
	}
	run->wall_s = now_s() - t0;
	run->cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Both tools' best run (by wall time), their least CPU time, the median
 * of the rounds' ratios and the largest peak RSS of each. */
struct equal_work {
	const char *what, *ours_line, *igt_line;
	struct process_run ours, igt;
	double ours_cpu_s, igt_cpu_s;
	double median_ratio, median_cpu_ratio;
	bool have_igt;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void keep_best(struct process_run *best, const struct process_run *run)
{
	long rss = best->peak_rss_kb > run->peak_rss_kb ? best->peak_rss_kb :
			   run->peak_rss_kb;

	if (run->wall_s < best->wall_s)
		*best = *run;
	best->peak_rss_kb = rss;
}

static double median(double *values, size_t n)
{
	qsort(values, n, sizeof(values[0]), cmp_double);
	return n ? values[n / 2] : 0;
}

/* Rounds alternate between the tools, so both see the same neighbours. */
static int race(struct equal_work *e, char *const ours[], char *const igt[])
{
	double ratios[EQUAL_WORK_ROUNDS], cpu_ratios[EQUAL_WORK_ROUNDS];
	size_t n_ratios = 0;

	e->ours.wall_s = e->igt.wall_s = 1e9;
	e->ours_cpu_s = e->igt_cpu_s = 1e9;
	e->have_igt = access(IGT_READER, X_OK) == 0;
	for (int round = 0; round < EQUAL_WORK_ROUNDS; round++) {
		struct process_run a, b;

		if (run_process(ours, &a) < 0) {
			fprintf(stderr, "bench_replay: %s failed\n", e->ours_line);
			return -1;
		}
		keep_best(&e->ours, &a);
		if (a.cpu_s < e->ours_cpu_s)
			e->ours_cpu_s = a.cpu_s;
		if (!e->have_igt || run_process(igt, &b) < 0)
			continue;
		keep_best(&e->igt, &b);
		if (b.cpu_s < e->igt_cpu_s)
			e->igt_cpu_s = b.cpu_s;
		cpu_ratios[n_ratios] = b.cpu_s / a.cpu_s;
		ratios[n_ratios++] = b.wall_s / a.wall_s;
	}
	e->median_ratio = median(ratios, n_ratios);
	e->median_cpu_ratio = median(cpu_ratios, n_ratios);
	e->have_igt = n_ratios > 0;
	return 0;
}

static void print_run(const char *line, const struct process_run *r)
{
	printf("    %-52s %7.3f s  %11.0f reports/s  CPU %6.3f s  peak RSS %4ld MB\n",
	       line, r->wall_s, N_REPORTS / r->wall_s, r->cpu_s,
	       r->peak_rss_kb / 1024);
}

static void print_equal_work(const struct equal_work *e)
{
	printf("  %s:\n", e->what);
	print_run(e->ours_line, &e->ours);
	if (!e->have_igt) {
		printf("    i915-perf-reader not installed: no reference this run\n");
		return;
	}
	print_run(e->igt_line, &e->igt);
	printf("    ratio (i915-perf-reader / gpuperf), target >= 3x:\n"
	       "      CPU time %.2fx best of %d (%.3f s against %.3f s), "
	       "%.2fx median\n"
	       "      wall     %.2fx best of %d, %.2fx median\n",
	       e->igt_cpu_s / e->ours_cpu_s, EQUAL_WORK_ROUNDS, e->ours_cpu_s,
	       e->igt_cpu_s, e->median_cpu_ratio,
	       e->igt.wall_s / e->ours.wall_s, EQUAL_WORK_ROUNDS,
	       e->median_ratio);
}

/* How fast one core reads the file's bytes out of memory: the most any
 * replay of it can do. Returns seconds, negative when it cannot map it. */
static double read_limit(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size / sizeof(uint64_t) * sizeof(uint64_t);
	const uint64_t *words = mmap(NULL, len, PROT_READ,
				     MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (words == MAP_FAILED)
		return -1;
	double best = 1e9;
	for (int round = 0; round < 20; round++) {
		uint64_t sum = 0;
		double t0 = now_s();
		for (size_t i = 0; i < len / sizeof(uint64_t); i += 4)
			sum += words[i] ^ words[i + 1] ^ words[i + 2] ^ words[i + 3];
		double t = now_s() - t0;
		/* Keeps the sum, so the loop is not thrown away. */
		__asm__ volatile("" : : "r"(sum));
		if (t < best)
			best = t;
	}
	munmap((void *)words, len);
	return best;
}

/* The equal-work comparisons, on a recording of their own. */
static int equal_work(const char *dir, const char *keep)
{
	const char *build = getenv("GPM_BUILD_DIR");
	char path[] = "/tmp/gpm-bench-replay-XXXXXX", gpuperf[1024];
	char metrics_dir[1024];

	snprintf(gpuperf, sizeof(gpuperf), "%s/gpuperf", build ? build : "build");
	snprintf(metrics_dir, sizeof(metrics_dir), "%s", dir);
	close(mkstemp(path));
	if (bench_write_recording(path, dir, N_REPORTS, EQUAL_WORK_EXPONENT)) {
		unlink(path);
		return -1;
	}
	read_back(path);

	char *pairs_ours[] = { gpuperf, "replay", path, "--metrics-dir", metrics_dir,
			       "--per-report", "-c", "all", "--format", "csv",
			       "-o", "/dev/null", NULL };
	char *pairs_igt[] = { IGT_READER, "-c", "all", "-r", path, NULL };
	char *totals_ours[] = { gpuperf, "replay", path, "--metrics-dir",
				metrics_dir, "-c", "all", "-o", "/dev/null", NULL };
	char *totals_igt[] = { IGT_READER, "-c", "all", path, NULL };
	struct equal_work pairs = {
		.what = "every counter of every report pair as CSV",
		.ours_line = "gpuperf replay --per-report -c all --format csv",
		.igt_line = "i915-perf-reader -c all -r",
	};
	struct equal_work totals = {
		.what = "per-context totals, the metric files' load included",
		.ours_line = "gpuperf replay -c all",
		.igt_line = "i915-perf-reader -c all",
	};
	if (race(&pairs, pairs_ours, pairs_igt) < 0 ||
	    race(&totals, totals_ours, totals_igt) < 0) {
		unlink(path);
		return -1;
	}
	double limit = read_limit(path);

	double load[3] = { 0 };
	getloadavg(load, 3);
	printf("replay, equal work: %d tglgt2 RenderBasic reports, one every "
	       "%u ticks (107 us), both tools as processes (load average "
	       "%.1f; on a busy machine CPU time is the steadier figure):\n",
	       N_REPORTS, 2u << EQUAL_WORK_EXPONENT, load[0]);
	print_equal_work(&pairs);
	print_equal_work(&totals);
	if (limit > 0)
		printf("  one core reading the file's bytes (the memory's limit): "
		       "%.3f s, %.1f M reports/s\n", limit, N_REPORTS / limit / 1e6);
	if (keep && rename(path, keep) == 0)
		printf("  recording kept in %s\n", keep);
	unlink(path);
	return 0;
}

/* With arguments, the recordings are also kept there for profiling: the
 * 3.3 us one in the first, the 107 us one in the second. */
int main(int argc, char **argv)
{
	const char *shared = getenv("GPM_SHARED_DIR");
	char dir[1024], path[] = "/tmp/gpm-bench-replay-XXXXXX";
	snprintf(dir, sizeof(dir), "%s/intel-metrics/i915", shared ? shared : "../shared");

	if (equal_work(dir, argc > 2 ? argv[2] : NULL) < 0)
		return 1;

	close(mkstemp(path));
	if (bench_write_recording(path, dir, N_REPORTS, WINDOW_EXPONENT)) {
		unlink(path);
		return 1;
	}

	double ours, igt, ours_read = 1e9, igt_read = 1e9;
	if (compare(path, dir, &ours, &igt) ||
	    (read_back(path) && compare(path, dir, &ours_read, &igt_read))) {
		unlink(path);
		return 1;
	}
	bool have_read_back = ours_read < 1e9;
	double one_core = 1e9;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		for (int round = 0; round < 3; round++) {
			double t = time_replay(path, dir);
			if (t < 0) {
				unlink(path);
				return 1;
			}
			if (t < one_core)
				one_core = t;
		}
	}
	printf("replay, %d tglgt2 RenderBasic reports, every counter per 1 ms window:\n",
	       N_REPORTS);
	print_comparison("the file as written", ours, igt);
	if (have_read_back)
		print_comparison("the file read back into the page cache", ours_read,
				 igt_read);
	else
		printf("  (the page cache kept the file as written: no read-back "
		       "comparison)\n");
	if (one_core < 1e9) {
		printf("  gpuperf, one CPU    %8.3f s  %12.0f reports/s\n", one_core,
		       N_REPORTS / one_core);
		printf("  target 10M reports/s on one core: %s\n",
		       N_REPORTS / one_core >= 1e7 ? "met" : "not met");
	} else {
		printf("  cannot hold the process to one CPU: no one-core rate this run\n");
	}
	if (argc > 1 && rename(path, argv[1]) == 0)
		printf("  recording kept in %s\n", argv[1]);
	unlink(path);
	return 0;
}
