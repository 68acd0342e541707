/*
 * The fake kernel's perf PMUs: i915's and xe's per card, and RAPL's
 * "power" PMU with energy-gpu, in sysfs and through perf_event_open(2)
 * and read(2), for the daemon's usage sources.
 *
 * sysfs follows the drivers' create_event_attributes() (i915_pmu.c, Linux
 * 6.8: "config=0x..." event files, ENGINE-busy/-wait/-sema in ns,
 * actual-frequency and requested-frequency in "M", rc6-residency in ns,
 * format i915_eventid config:0-20, a cpumask) and xe_pmu.c (Linux 6.15:
 * "event=0x.." files, formats gt, function, engine_class,
 * engine_instance, event; units "ms" and "MHz"). The PMU of the first
 * i915 card is "i915", as i915_pmu_register() names an integrated GPU's;
 * the others "i915_" or "xe_" + the PCI slot with '_' for ':'.
 *
 * perf_event_open refuses as the kernel does: EACCES without CAP_PERFMON
 * when kernel.perf_event_paranoid is above 0 (perf_allow_cpu(),
 * include/linux/perf_event.h), EINVAL for a sample period or cpu < 0 and,
 * on i915, a CPU outside its cpumask (i915_pmu_event_init()), ENODEV for
 * an i915 engine the card lacks (engine_event_init()), ENOENT for an
 * unknown i915 counter (config_status()) and for any xe event it cannot
 * take (xe_pmu_event_init(): event_supported(), event_param_valid()),
 * EINVAL for a group leader of another PMU. read(2) lays the values out
 * as perf_read_group() and perf_read_one() do (kernel/events/core.c) and
 * answers ENOSPC to a buffer smaller than that (__perf_read()).
 *
 * Counts follow the control file (fake_kernel.h): each engine is busy,
 * waiting or on a semaphore a set share of the time since its event
 * opened, the clocks run at set frequencies, the GT is in RC6 a set share,
 * and every count starts at pmu_base, so that a test can make one wrap.
 * Environment: GPD_FAKE_KERNEL_PMU=0 builds no PMU, as on a kernel
 * without one.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

/* perf's dynamic PMU types start after the fixed ones; these are made up. */
#define FK_PMU_TYPE_BASE 40
#define FK_PMU_TYPE_POWER 39
/* i915's __I915_PMU_OTHER(0): configs at and past it are not engines'. */
#define I915_PMU_OTHER0 0x100000ull
/* The engines every fake card has: uabi class, instance, name. */
static const struct {
	unsigned class_id, instance;
	const char *name;
} engines[] = {
	{ 0, 0, "rcs0" }, { 1, 0, "bcs0" }, { 2, 0, "vcs0" }, { 2, 1, "vcs1" },
	{ 3, 0, "vecs0" },
};
#define N_ENGINES (sizeof(engines) / sizeof(engines[0]))
/* RAPL's energy unit: 2^-32 J (the .scale of energy-gpu). */
#define RAPL_SCALE "2.3283064365386962890625e-10"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* sysfs                                                                */

static void put(const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[2 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wxe");
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void make_dirs(const char *dir)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

void fk_pmu_name(const struct fk_card *card, char *name, size_t size)
{
	bool first_i915 = card->driver == FK_I915;
	for (unsigned i = 0; i < card->index && first_i915; i++)
		first_i915 = fk.cards[i].driver != FK_I915;
	if (first_i915)
		snprintf(name, size, "i915");
	else
		snprintf(name, size, "%s_0000_00_%02x.0",
			 card->driver == FK_I915 ? "i915" : "xe", 2 + card->index);
}

static void pmu_dir(const char *name, char *dir, size_t size)
{
	snprintf(dir, size, "%s/sys/bus/event_source/devices/%s", fk.root, name);
}

static void build_i915(const char *dir)
{
	static const char *const samples[] = { "busy", "wait", "sema" };
	char events[PATH_MAX + 8], format[PATH_MAX + 8], name[64];
	snprintf(events, sizeof(events), "%s/events", dir);
	snprintf(format, sizeof(format), "%s/format", dir);
	make_dirs(events);
	make_dirs(format);
	put(dir, "cpumask", "0\n");
	put(format, "i915_eventid", "config:0-20\n");
	for (size_t e = 0; e < N_ENGINES; e++) {
		/* I915_SAMPLE_BUSY, WAIT, SEMA are 0, 1, 2; i915_drm.h's
		 * __I915_PMU_ENGINE(class, instance, sample). */
		static const unsigned sample_ids[] = { 0, 1, 2 };
		for (size_t s = 0; s < 3; s++) {
			snprintf(name, sizeof(name), "%s-%s", engines[e].name,
				 samples[s]);
			put(events, name, "config=0x%x\n",
			    engines[e].class_id << 12 | engines[e].instance << 4 |
			    sample_ids[s]);
			snprintf(name, sizeof(name), "%s-%s.unit", engines[e].name,
				 samples[s]);
			put(events, name, "ns\n");
		}
	}
	put(events, "actual-frequency", "config=0x%llx\n", I915_PMU_OTHER0);
	put(events, "actual-frequency.unit", "M\n");
	put(events, "requested-frequency", "config=0x%llx\n", I915_PMU_OTHER0 + 1);
	put(events, "requested-frequency.unit", "M\n");
	put(events, "interrupts", "config=0x%llx\n", I915_PMU_OTHER0 + 2);
	put(events, "rc6-residency", "config=0x%llx\n", I915_PMU_OTHER0 + 3);
	put(events, "rc6-residency.unit", "ns\n");
}

static void build_xe(const char *dir)
{
	char events[PATH_MAX + 8], format[PATH_MAX + 8];
	snprintf(events, sizeof(events), "%s/events", dir);
	snprintf(format, sizeof(format), "%s/format", dir);
	make_dirs(events);
	make_dirs(format);
	put(dir, "cpumask", "0\n");
	put(format, "gt", "config:60-63\n");
	put(format, "function", "config:44-59\n");
	put(format, "engine_class", "config:20-27\n");
	put(format, "engine_instance", "config:12-19\n");
	put(format, "event", "config:0-11\n");
	put(events, "gt-c6-residency", "event=0x01\n");
	put(events, "gt-c6-residency.unit", "ms\n");
	put(events, "engine-active-ticks", "event=0x02\n");
	put(events, "engine-total-ticks", "event=0x03\n");
	put(events, "gt-actual-frequency", "event=0x04\n");
	put(events, "gt-actual-frequency.unit", "MHz\n");
	put(events, "gt-requested-frequency", "event=0x05\n");
	put(events, "gt-requested-frequency.unit", "MHz\n");
}

void fk_pmu_build(void)
{
	const char *pmu = getenv("GPD_FAKE_KERNEL_PMU");
	if (pmu && !strcmp(pmu, "0"))
		return;
	char dir[PATH_MAX], name[64];
	for (unsigned i = 0; i < fk.n_cards; i++) {
		fk_pmu_name(&fk.cards[i], name, sizeof(name));
		pmu_dir(name, dir, sizeof(dir));
		make_dirs(dir);
		put(dir, "type", "%u\n", FK_PMU_TYPE_BASE + i);
		if (fk.cards[i].driver == FK_I915)
			build_i915(dir);
		else
			build_xe(dir);
	}
	pmu_dir("power", dir, sizeof(dir));
	char events[PATH_MAX + 8], format[PATH_MAX + 8];
	snprintf(events, sizeof(events), "%s/events", dir);
	snprintf(format, sizeof(format), "%s/format", dir);
	make_dirs(events);
	make_dirs(format);
	put(dir, "type", "%u\n", FK_PMU_TYPE_POWER);
	put(dir, "cpumask", "0\n");
	put(format, "event", "config:0-7\n");
	put(events, "energy-gpu", "event=0x04\n");
	put(events, "energy-gpu.unit", "Joules\n");
	put(events, "energy-gpu.scale", RAPL_SCALE "\n");
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

struct fk_pmu_event {
	struct fk_card *card;           /* NULL: RAPL's */
	uint64_t config;
	uint64_t read_format;
	uint64_t id;
	uint64_t opened_ns;
	unsigned reads;                 /* a leader's group reads */
	uint64_t reads_sum;             /* xe frequencies: summed per read */
	struct fk_pmu_event *leader;
	struct fk_pmu_event *members[64];
	unsigned n_members;             /* the leader's, itself first */
};

static uint64_t next_id = 1;

/* The engine an i915 or xe config names; -1 when the card has none. */
static int engine_of(unsigned class_id, unsigned instance)
{
	for (size_t e = 0; e < N_ENGINES; e++)
		if (engines[e].class_id == class_id &&
		    engines[e].instance == instance)
			return (int)e;
	return -1;
}

static int check_i915(uint64_t config)
{
	if (config < I915_PMU_OTHER0) {
		if (engine_of((unsigned)(config >> 12) & 0xff,
			      (unsigned)(config >> 4) & 0xff) < 0)
			return -ENODEV;
		return (config & 0xf) <= 2 ? 0 : -ENOENT;
	}
	return config <= I915_PMU_OTHER0 + 3 ? 0 : -ENOENT;
}

static int check_xe(uint64_t config)
{
	unsigned id = (unsigned)(config & 0xfff);
	unsigned gt = (unsigned)(config >> 60);
	unsigned class_id = (unsigned)(config >> 20) & 0xff;
	unsigned instance = (unsigned)(config >> 12) & 0xff;
	if (gt || id < 1 || id > 5)
		return -ENOENT;
	if (id == 2 || id == 3)
		return engine_of(class_id, instance) < 0 ? -ENOENT : 0;
	return class_id || instance ? -ENOENT : 0;
}

static double control_share(const char *kind, const char *engine)
{
	char key[64];
	snprintf(key, sizeof(key), "%s.%s", kind, engine);
	return fk_control_value(key, 0);
}

/* An event's count now. */
static uint64_t count_of(struct fk_pmu_event *ev, uint64_t now)
{
	uint64_t base = (uint64_t)fk_control_value("pmu_base", 0);
	uint64_t elapsed = now - ev->opened_ns;
	double seconds = (double)elapsed / 1e9;
	if (!ev->card)          /* RAPL energy-gpu, in 2^-32 J */
		return base + (uint64_t)(fk_control_value("rapl_watts", 0) *
					 seconds * 4294967296.0);
	if (ev->card->driver == FK_I915) {
		if (ev->config < I915_PMU_OTHER0) {
			static const char *const kinds[] = { "busy", "wait", "sema" };
			int e = engine_of((unsigned)(ev->config >> 12) & 0xff,
					  (unsigned)(ev->config >> 4) & 0xff);
			double share = control_share(kinds[ev->config & 0xf],
						     engines[e].name);
			return base + (uint64_t)(share * (double)elapsed);
		}
		switch (ev->config - I915_PMU_OTHER0) {
		case 0:         /* MHz x s */
			return base + (uint64_t)(fk_control_value("actual_mhz", 0) *
						 seconds);
		case 1:
			return base + (uint64_t)(fk_control_value("requested_mhz", 0) *
						 seconds);
		case 3:
			return base + (uint64_t)(fk_control_value("rc6", 0) *
						 (double)elapsed);
		default:
			return base;
		}
	}
	unsigned id = (unsigned)(ev->config & 0xfff);
	double ticks = seconds * (double)ev->card->info.timestamp_frequency;
	int e = engine_of((unsigned)(ev->config >> 20) & 0xff,
			  (unsigned)(ev->config >> 12) & 0xff);
	switch (id) {
	case 1:                 /* ms */
		return base + (uint64_t)(fk_control_value("rc6", 0) * seconds * 1e3);
	case 2:
		return base + (uint64_t)(control_share("busy", engines[e].name) *
					 ticks);
	case 3:
		return base + (uint64_t)ticks;
	default:                /* the frequency now, added at each read */
		ev->reads_sum += (uint64_t)fk_control_value(id == 4 ? "actual_mhz" :
							    "requested_mhz", 0);
		return base + ev->reads_sum;
	}
}

static int open_event(struct perf_event_attr *attr, int pid, int cpu,
		      int group_fd, unsigned long flags)
{
	struct fk_card *card = NULL;
	if (attr->type != FK_PMU_TYPE_POWER) {
		if (attr->type < FK_PMU_TYPE_BASE ||
		    attr->type >= FK_PMU_TYPE_BASE + fk.n_cards)
			return -ENOENT;
		card = &fk.cards[attr->type - FK_PMU_TYPE_BASE];
	}
	if (fk_sysctl("kernel/perf_event_paranoid", 2) > 0 &&
	    !fk_control()->capable)
		return -EACCES;
	if (attr->sample_period || cpu < 0 || pid != -1)
		return -EINVAL;
	/* i915 counts on the CPU of its cpumask only. */
	if (card && card->driver == FK_I915 && cpu != 0)
		return -EINVAL;
	int ret = !card ? (attr->config == 4 ? 0 : -ENOENT) :
		  card->driver == FK_I915 ? check_i915(attr->config) :
		  check_xe(attr->config);
	if (ret)
		return ret;
	struct fk_pmu_event *leader = NULL;
	if (group_fd >= 0) {
		struct fk_fd *g = fk_fd(group_fd);
		if (!g || g->kind != FK_FD_PMU || g->pmu->card != card ||
		    g->pmu->leader != g->pmu || g->pmu->n_members == 64)
			return -EINVAL;
		leader = g->pmu;
	}
	int fd = eventfd(0, (flags & PERF_FLAG_FD_CLOEXEC) ? EFD_CLOEXEC : 0);
	if (fd < 0)
		return -errno;
	if (fd >= FK_MAX_FDS) {
		close(fd);
		return -EMFILE;
	}
	struct fk_pmu_event *ev = calloc(1, sizeof(*ev));
	if (!ev) {
		close(fd);
		return -ENOMEM;
	}
	ev->card = card;
	ev->config = attr->config;
	ev->read_format = attr->read_format;
	ev->id = next_id++;
	ev->opened_ns = leader ? leader->opened_ns : now_ns();
	ev->leader = leader ? leader : ev;
	ev->leader->members[ev->leader->n_members++] = ev;
	fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_PMU, .card = card, .pmu = ev };
	return fd;
}

void fk_pmu_close(struct fk_pmu_event *ev)
{
	struct fk_pmu_event *leader = ev->leader;
	if (leader == ev) {
		/* Its members go on alone (perf_group_detach()). */
		for (unsigned i = 1; i < ev->n_members; i++) {
			struct fk_pmu_event *m = ev->members[i];
			m->leader = m;
			m->members[0] = m;
			m->n_members = 1;
		}
	} else {
		for (unsigned i = 0; i < leader->n_members; i++) {
			if (leader->members[i] == ev) {
				memmove(&leader->members[i], &leader->members[i + 1],
					(leader->n_members - i - 1) * sizeof(ev));
				leader->n_members--;
				break;
			}
		}
	}
	free(ev);
}

ssize_t fk_pmu_read(struct fk_pmu_event *ev, void *buf, size_t len)
{
	uint64_t f = ev->read_format;
	bool group = f & PERF_FORMAT_GROUP;
	unsigned n = group ? ev->leader->n_members : 1;
	unsigned per = 1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST);
	size_t words = group + !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING) + (size_t)n * per;
	if (len < words * 8)
		return -ENOSPC;
	/* pmu_read_lag_ms: the reader lost the CPU just before reading;
	 * the counts and the enabled time move on together. */
	double lag_ms = fk_control_value("pmu_read_lag_ms", 0);
	if (lag_ms > 0 && group && ev->card && ev->leader->reads++ % 3 == 1) {
		struct timespec lag = { 0, (long)(lag_ms * 1e6) };
		nanosleep(&lag, NULL);
	}
	uint64_t out[3 + 3 * 64], now = now_ns();
	size_t w = 0;
	uint64_t enabled = now - ev->opened_ns;
	if (group) {
		out[w++] = n;
	} else {
		out[w++] = count_of(ev, now);
	}
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out[w++] = enabled;
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out[w++] = enabled;
	for (unsigned i = 0; i < n; i++) {
		struct fk_pmu_event *m = group ? ev->leader->members[i] : ev;
		if (group)
			out[w++] = count_of(m, now);
		if (f & PERF_FORMAT_ID)
			out[w++] = m->id;
		if (f & PERF_FORMAT_LOST)
			out[w++] = 0;
	}
	memcpy(buf, out, w * 8);
	fk_log("%s pmu read config=0x%llx -> %zu bytes",
	       ev->card ? "card" : "power", (unsigned long long)ev->config, w * 8);
	return (ssize_t)(w * 8);
}

int fk_pmu_ioctl(struct fk_pmu_event *ev, unsigned long request, void *arg)
{
	if (request == PERF_EVENT_IOC_ID) {
		memcpy(arg, &ev->id, sizeof(ev->id));
		return 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* syscall(2)                                                           */

long syscall(long number, ...)
{
	static long (*next_syscall)(long, ...);
	if (!next_syscall)
		next_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number != SYS_perf_event_open || !fk_active())
		return next_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	struct perf_event_attr *attr = (struct perf_event_attr *)a[0];
	int ret = open_event(attr, (int)a[1], (int)a[2], (int)a[3],
			     (unsigned long)a[4]);
	fk_log("perf_event_open type=%u config=0x%llx group=%d -> %s%d",
	       attr->type, (unsigned long long)attr->config, (int)a[3],
	       ret < 0 ? fk_errname(ret) : "", ret < 0 ? 0 : ret);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
