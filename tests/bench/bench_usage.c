/*
 * What the usage stream costs: an i915 card's usage source reading a fake
 * /proc of 500 processes (eight files each; 50 of them DRM clients of the
 * card, one with its client on two fds), as a subscriber with processes at
 * 1 s makes it, each reading then differenced against the one before.
 * Prints the CPU time of one reading and the share of a core at 1 s,
 * against the target of 1%, and, as a reference measured in the same run,
 * one bare walk of the same /proc (readdir of every process's fd
 * directory) with the ratio of the two.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/drm/drm_usage.h"
#include "daemon/log.h"

#define PROCESSES 500
#define CLIENTS 50
#define FDS 8
#define ROUNDS 21

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* The machine: a card's sysfs directory (whose device links to its PCI
 * function) and /proc. */
static void build(const char *root, int round)
{
	char path[512], text[512];
	snprintf(path, sizeof(path), "%s/sys/devices/pci/0000:00:02.0/drm/card0", root);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s %s/proc", path, root);
	if (round == 0 && system(cmd))
		exit(1);
	if (round == 0) {
		snprintf(path, sizeof(path), "%s/sys/devices/pci/0000:00:02.0/drm/card0/device",
			 root);
		if (symlink("../..", path))
			exit(1);
	}
	for (int p = 0; p < PROCESSES; p++) {
		int pid = 1000 + p;
		if (round == 0) {
			snprintf(path, sizeof(path), "%s/proc/%d/fd", root, pid);
			snprintf(cmd, sizeof(cmd), "mkdir -p %s %s/proc/%d/fdinfo", path,
				 root, pid);
			if (system(cmd))
				exit(1);
			snprintf(path, sizeof(path), "%s/proc/%d/stat", root, pid);
			snprintf(text, sizeof(text), "%d (proc%d) S 1 %d %d 0 -1\n", pid,
				 p, pid, pid);
			write_file(path, text);
			for (int fd = 0; fd < FDS; fd++) {
				bool drm = p < CLIENTS && fd >= FDS - 1 - (p == 0);
				snprintf(path, sizeof(path), "%s/proc/%d/fd/%d", root, pid, fd);
				if (symlink(drm ? "/dev/dri/renderD128" : "/dev/null", path))
					exit(1);
			}
		}
		if (p >= CLIENTS)
			continue;
		for (int fd = FDS - 1 - (p == 0); fd < FDS; fd++) {
			snprintf(path, sizeof(path), "%s/proc/%d/fdinfo/%d", root, pid, fd);
			snprintf(text, sizeof(text),
				 "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1047\n"
				 "drm-driver:\ti915\ndrm-client-id:\t%d\n"
				 "drm-pdev:\t0000:00:02.0\ndrm-total-system0:\t4 MiB\n"
				 "drm-resident-system0:\t4 MiB\n"
				 "drm-engine-render:\t%d ns\ndrm-engine-copy:\t0 ns\n"
				 "drm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\n"
				 "drm-engine-video-enhance:\t0 ns\n", 100 + p,
				 round * 1000000 + p);
			write_file(path, text);
		}
	}
}

/* The reference: every process's fd directory listed, nothing read. */
static void walk(const char *proc)
{
	DIR *d = opendir(proc);
	char path[512];
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/fd", proc, e->d_name);
		DIR *fds = opendir(path);
		while (fds && readdir(fds))
			;
		if (fds)
			closedir(fds);
	}
	if (d)
		closedir(d);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	char root[] = "/dev/shm/gpd-bench-usage-XXXXXX";
	if (!mkdtemp(root))
		return 1;
	gpd_log_set_level(GPD_LOG_ERROR);
	build(root, 0);
	char sysfs[128], proc[128], card[256];
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(card, sizeof(card), "%s/devices/pci/0000:00:02.0/drm/card0", sysfs);
	struct gpd_drm_roots roots = { .dev = "/dev", .sysfs = sysfs, .proc = proc };
	struct gpd_usage_source *src;
	struct gpd_error err;
	if (gpd_drm_usage_create_at(&gpd_i915_usage_driver, card, &roots, &src, &err)) {
		fprintf(stderr, "bench_usage: %s\n", err.message);
		return 1;
	}
	struct gpd_usage_reading prev, cur;
	struct gpd_usage_frame f;
	gpd_usage_reading_init(&prev);
	gpd_usage_reading_init(&cur);
	gpd_usage_frame_init(&f);
	double reading[ROUNDS], reference[ROUNDS];
	size_t processes = 0;
	for (int round = 0; round < ROUNDS; round++) {
		build(root, round + 1);
		double t0 = cpu_s();
		gpd_usage_reading_clear(&cur);
		if (src->ops->read(src, &cur, true, &err))
			return 1;
		gpd_usage_reading_sort(&cur);
		if (round && gpd_usage_diff(&src->layout, &prev, &cur, &f))
			return 1;
		double t1 = cpu_s();
		walk(proc);
		double t2 = cpu_s();
		reading[round] = t1 - t0;
		reference[round] = t2 - t1;
		processes = cur.n_processes;
		if (gpd_usage_reading_copy(&prev, &cur))
			return 1;
	}
	qsort(reading, ROUNDS, sizeof(double), compare);
	qsort(reference, ROUNDS, sizeof(double), compare);
	double median = reading[ROUNDS / 2], walk_median = reference[ROUNDS / 2];
	printf("bench_usage: a reading of %d processes (%zu with DRM clients): "
	       "%.2f ms CPU (median of %d), %.3f%% of a core at 1 s (target < 1%%: "
	       "%s); a bare walk of their fd directories %.2f ms, ratio %.1f\n",
	       PROCESSES, processes, median * 1e3, ROUNDS, median * 100,
	       median < 0.01 ? "met" : "NOT met", walk_median * 1e3,
	       median / walk_median);
	src->ops->destroy(src);
	gpd_usage_reading_fini(&prev);
	gpd_usage_reading_fini(&cur);
	gpd_usage_frame_fini(&f);
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
