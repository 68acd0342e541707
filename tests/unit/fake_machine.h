/*
 * For Check suites that run the daemon on the fake kernel
 * (tests/fake-kernel): the suite's binary starts again with the fake
 * kernel preloaded, as the real daemon would run under it, and each test
 * gets a machine of its own in a fresh directory.
 *
 * The preloaded library is build/tests/libfake-kernel.so next to the test
 * binary; an ASan build puts its runtime first, as ASan requires.
 */
#ifndef GPM_TEST_FAKE_MACHINE_H
#define GPM_TEST_FAKE_MACHINE_H

#include <check.h>
#include <ftw.h>
#include <link.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fake_machine {
	char dir[64];                   /* the test's temporary directory */
	char root[96];                  /* the machine: dir/m */
	char node[128];                 /* dir/m/dev/dri/card0 */
	char dev_root[112], sysfs_root[112];
	char log[96], control[96];
};

static int fake_machine_find_asan(struct dl_phdr_info *info, size_t size,
				  void *data)
{
	if (info->dlpi_name && strstr(info->dlpi_name, "libasan")) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Runs before main: starts the binary again with the fake kernel
 * preloaded, unless it already is. */
__attribute__((constructor))
static void fake_machine_preload(int argc, char **argv)
{
	if (getenv("GPD_FAKE_KERNEL_PRELOADED"))
		return;
	char exe[PATH_MAX], asan[PATH_MAX] = "", preload[3 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		exit(1);
	}
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	dl_iterate_phdr(fake_machine_find_asan, asan);
	snprintf(preload, sizeof(preload), "%s%s%s/libfake-kernel.so", asan,
		 *asan ? " " : "", exe);
	setenv("LD_PRELOAD", preload, 1);
	setenv("GPD_FAKE_KERNEL_PRELOADED", "1", 1);
	(void)argc;
	execv("/proc/self/exe", argv);
	perror("execv");
	exit(1);
}

/* A fresh machine with cards ("i915:tglgt2"), the sets of the metric
 * directory metrics ("" for none) and the boot sets ("" for none); -1
 * when no directory can be made. Outside a test (a suite's main()). */
static inline int fake_machine_prepare(struct fake_machine *m, const char *cards,
				       const char *metrics, const char *boot_sets)
{
	snprintf(m->dir, sizeof(m->dir), "/tmp/gpd-fake-XXXXXX");
	if (!mkdtemp(m->dir))
		return -1;
	snprintf(m->root, sizeof(m->root), "%s/m", m->dir);
	snprintf(m->node, sizeof(m->node), "%s/dev/dri/card0", m->root);
	snprintf(m->dev_root, sizeof(m->dev_root), "%s/dev", m->root);
	snprintf(m->sysfs_root, sizeof(m->sysfs_root), "%s/sys", m->root);
	snprintf(m->log, sizeof(m->log), "%s/requests", m->dir);
	snprintf(m->control, sizeof(m->control), "%s/control", m->dir);
	setenv("GPD_FAKE_KERNEL_CARDS", cards, 1);
	setenv("GPD_FAKE_KERNEL_METRICS", metrics, 1);
	setenv("GPD_FAKE_KERNEL_SETS", boot_sets, 1);
	setenv("GPD_FAKE_KERNEL_LOG", m->log, 1);
	setenv("GPD_FAKE_KERNEL_CONTROL", m->control, 1);
	/* Last: a new root makes the fake kernel build the machine. */
	setenv("GPD_FAKE_KERNEL_ROOT", m->root, 1);
	return 0;
}

/* The same inside a test. */
static inline void fake_machine_start(struct fake_machine *m, const char *cards,
				      const char *metrics, const char *boot_sets)
{
	ck_assert_int_eq(fake_machine_prepare(m, cards, metrics, boot_sets), 0);
}

/* Replaces the control file with the given lines. */
static inline void fake_machine_control(const struct fake_machine *m,
					const char *lines)
{
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s.new", m->control);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	fputs(lines, f);
	fclose(f);
	ck_assert_int_eq(rename(tmp, m->control), 0);
}

/* How many lines of the request log contain text. */
static inline unsigned fake_machine_requests(const struct fake_machine *m,
					     const char *text)
{
	FILE *f = fopen(m->log, "r");
	if (!f)
		return 0;
	char line[1024];
	unsigned n = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, text))
			n++;
	fclose(f);
	return n;
}

/* The number right after text in the last request log line holding
 * text; false if none does. */
static inline bool fake_machine_request_value(const struct fake_machine *m,
					      const char *text,
					      unsigned long long *value)
{
	FILE *f = fopen(m->log, "r");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, text);
		char *end;
		if (at) {
			unsigned long long v = strtoull(at + strlen(text), &end, 10);
			if (end != at + strlen(text)) {
				*value = v;
				found = true;
			}
		}
	}
	fclose(f);
	return found;
}

static int fake_machine_remove(const char *path, const struct stat *st,
			       int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static inline void fake_machine_stop(struct fake_machine *m)
{
	unsetenv("GPD_FAKE_KERNEL_ROOT");
	nftw(m->dir, fake_machine_remove, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
