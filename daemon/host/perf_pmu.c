/*
 * Kernel PMUs through perf_event_open(2) (see perf_pmu.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/host/perf_pmu.h"
#include "daemon/host/sysfs_file.h"

int gpd_perf_parse_format(const char *name, const char *text,
			  struct gpd_perf_format *f)
{
	unsigned lo, hi;
	char tail;
	int n = sscanf(text, "config:%u-%u%c", &lo, &hi, &tail);
	if (n < 2) {
		n = sscanf(text, "config:%u%c", &lo, &tail);
		if (n < 1 || (n == 2 && tail != '\n'))
			return -EINVAL;
		hi = lo;
	} else if (n == 3 && tail != '\n') {
		return -EINVAL;
	}
	if (lo > hi || hi > 63)
		return -EINVAL;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->lo = lo;
	f->hi = hi;
	return 0;
}

/* Sets one "term=value" (value in C notation) into *config. */
static int apply_term(const struct gpd_perf_pmu *pmu, const char *term,
		      size_t len, uint64_t *config)
{
	const char *eq = memchr(term, '=', len);
	char name[32], value[32];
	if (!eq || (size_t)(eq - term) >= sizeof(name) ||
	    len - (size_t)(eq - term) - 1 >= sizeof(value))
		return -EINVAL;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - term), term);
	snprintf(value, sizeof(value), "%.*s", (int)(len - (size_t)(eq - term) - 1),
		 eq + 1);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 0);
	if (errno || end == value || *end)
		return -EINVAL;
	unsigned lo = 0, hi = 63;
	if (strcmp(name, "config")) {
		const struct gpd_perf_format *f = NULL;
		for (unsigned i = 0; i < pmu->n_formats; i++)
			if (!strcmp(pmu->formats[i].name, name))
				f = &pmu->formats[i];
		if (!f)
			return -EINVAL;
		lo = f->lo;
		hi = f->hi;
	}
	unsigned width = hi - lo + 1;
	if (width < 64 && (v >> width))
		return -EINVAL;
	uint64_t mask = width < 64 ? ((1ull << width) - 1) << lo : UINT64_MAX;
	*config = (*config & ~mask) | ((uint64_t)v << lo);
	return 0;
}

static int apply_terms(const struct gpd_perf_pmu *pmu, const char *text,
		       uint64_t *config)
{
	while (*text && *text != '\n') {
		size_t len = strcspn(text, ",\n");
		int ret = apply_term(pmu, text, len, config);
		if (ret)
			return ret;
		text += len;
		if (*text == ',')
			text++;
	}
	return 0;
}

int gpd_perf_event_config(const struct gpd_perf_pmu *pmu, const char *text,
			  const char *extra, uint64_t *config)
{
	*config = 0;
	int ret = apply_terms(pmu, text, config);
	if (!ret && extra)
		ret = apply_terms(pmu, extra, config);
	return ret;
}

int gpd_perf_pmu_open(const char *sysfs_root, const char *name,
		      struct gpd_perf_pmu *pmu)
{
	char text[256];
	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	snprintf(pmu->dir, sizeof(pmu->dir), "%s/bus/event_source/devices/%s",
		 sysfs_root, name);
	int ret = gpd_sysfs_read(text, sizeof(text), "%s/type", pmu->dir);
	if (ret)
		return ret == -ENOENT || ret == -ENOTDIR ? -ENOENT : ret;
	pmu->type = (uint32_t)strtoul(text, NULL, 10);
	/* The first CPU of the mask: uncore-like PMUs count on one CPU. */
	pmu->cpu = 0;
	if (!gpd_sysfs_read(text, sizeof(text), "%s/cpumask", pmu->dir))
		pmu->cpu = atoi(text);
	char formats[600];
	snprintf(formats, sizeof(formats), "%s/format", pmu->dir);
	DIR *d = opendir(formats);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && pmu->n_formats < GPD_PERF_MAX_FORMATS;) {
		if (e->d_name[0] == '.')
			continue;
		if (!gpd_sysfs_read(text, sizeof(text), "%s/%s", formats,
				    e->d_name) &&
		    !gpd_perf_parse_format(e->d_name, text,
					   &pmu->formats[pmu->n_formats]))
			pmu->n_formats++;
	}
	closedir(d);
	return 0;
}

int gpd_perf_pmu_event(const struct gpd_perf_pmu *pmu, const char *name,
		       char *text, size_t text_size, char *unit,
		       size_t unit_size, double *scale)
{
	int ret = gpd_sysfs_read(text, text_size, "%s/events/%s", pmu->dir, name);
	if (ret)
		return ret;
	char extra[64];
	if (unit) {
		unit[0] = '\0';
		if (!gpd_sysfs_read(extra, sizeof(extra), "%s/events/%s.unit",
				    pmu->dir, name))
			snprintf(unit, unit_size, "%.*s",
				 (int)strcspn(extra, "\n"), extra);
	}
	if (scale) {
		*scale = 1;
		if (!gpd_sysfs_read(extra, sizeof(extra), "%s/events/%s.scale",
				    pmu->dir, name))
			*scale = strtod(extra, NULL);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Read formats                                                         */

int gpd_perf_parse_read(const void *buf, size_t len, uint64_t read_format,
			struct gpd_perf_values *out)
{
	const unsigned char *p = buf;
	size_t words = len / 8, w = 0;
	uint64_t word[1];
	memset(out, 0, sizeof(*out));
	if (len % 8)
		return -EPROTO;
#define NEXT() (w < words ? (memcpy(word, p + 8 * w++, 8), word[0]) : 0)
	bool group = read_format & PERF_FORMAT_GROUP;
	uint64_t nr = 1;
	if (group) {
		if (!words)
			return -EPROTO;
		nr = NEXT();
		if (nr > GPD_PERF_MAX_GROUP)
			return -E2BIG;
	}
	unsigned per = 1 + !!(read_format & PERF_FORMAT_ID) +
		       !!(read_format & PERF_FORMAT_LOST);
	size_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (words != group + times + nr * per)
		return -EPROTO;
	if (!group)
		out->value[0] = NEXT();
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out->time_enabled = NEXT();
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out->time_running = NEXT();
	for (unsigned i = 0; i < nr; i++) {
		if (group)
			out->value[i] = NEXT();
		if (read_format & PERF_FORMAT_ID)
			out->id[i] = NEXT();
		if (read_format & PERF_FORMAT_LOST)
			(void)NEXT();
	}
#undef NEXT
	out->n = (unsigned)nr;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Groups                                                               */

void gpd_perf_group_init(struct gpd_perf_group *g)
{
	memset(g, 0, sizeof(*g));
	g->leader = -1;
}

int gpd_perf_group_add(struct gpd_perf_group *g, const struct gpd_perf_pmu *pmu,
		       uint64_t config)
{
	if (g->n == GPD_PERF_MAX_GROUP)
		return -E2BIG;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = pmu->type;
	attr.size = sizeof(attr);
	attr.config = config;
	attr.read_format = GPD_PERF_READ_FORMAT;
	/* Counting, system-wide, on the PMU's CPU: what an uncore-like PMU
	 * takes (i915_pmu_event_init() and xe_pmu_event_init() refuse a
	 * sample period and cpu < 0). */
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, pmu->cpu,
			      g->leader, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint64_t id = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		id = 0;
	if (g->leader < 0)
		g->leader = fd;
	g->fds[g->n] = fd;
	g->ids[g->n] = id;
	return (int)g->n++;
}

int gpd_perf_group_read(struct gpd_perf_group *g, struct gpd_perf_values *out)
{
	uint64_t buf[3 + 2 * GPD_PERF_MAX_GROUP];
	if (g->leader < 0)
		return -EBADF;
	ssize_t n = read(g->leader, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	int ret = gpd_perf_parse_read(buf, (size_t)n, GPD_PERF_READ_FORMAT, out);
	if (ret)
		return ret;
	if (out->n != g->n)
		return -EPROTO;
	/* Members come in the order they joined; the ids say so. */
	for (unsigned i = 0; i < g->n; i++)
		if (g->ids[i] && out->id[i] != g->ids[i])
			return -EPROTO;
	return 0;
}

void gpd_perf_group_close(struct gpd_perf_group *g)
{
	for (unsigned i = 0; i < g->n; i++)
		close(g->fds[i]);
	gpd_perf_group_init(g);
}
