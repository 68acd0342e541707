/*
 * An Intel GPU's usage source: its driver's PMU, hwmon or RAPL, and DRM
 * fdinfo (see drm_usage.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/clock.h"
#include "daemon/drm/drm_clients.h"
#include "daemon/drm/drm_usage.h"
#include "daemon/host/hwmon.h"
#include "daemon/host/sysfs_file.h"
#include "daemon/log.h"

/* Intel's engine classes, in the order every Intel layout has them. */
static const char *const intel_classes[] = {
	GPD_USAGE_CLASS_RENDER, GPD_USAGE_CLASS_COPY, GPD_USAGE_CLASS_VIDEO,
	GPD_USAGE_CLASS_VIDEO_ENHANCE, GPD_USAGE_CLASS_COMPUTE,
};

const char *gpd_drm_engine_class(const char *name)
{
	static const struct {
		const char *prefix;
		const char *class_name;
	} prefixes[] = {
		/* Longest first: "vecs" before "vcs" is not needed, but
		 * "ccs" and "bcs" share no prefix with the others. */
		{ "vecs", GPD_USAGE_CLASS_VIDEO_ENHANCE },
		{ "rcs", GPD_USAGE_CLASS_RENDER },
		{ "bcs", GPD_USAGE_CLASS_COPY },
		{ "vcs", GPD_USAGE_CLASS_VIDEO },
		{ "ccs", GPD_USAGE_CLASS_COMPUTE },
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i].prefix, strlen(prefixes[i].prefix)))
			return prefixes[i].class_name;
	return NULL;
}

int gpd_drm_plan_add(struct gpd_drm_plan *plan, const char *name,
		     uint64_t config, enum gpd_drm_event_role role,
		     enum gpd_drm_event_unit unit, unsigned engine)
{
	if (plan->n_events == GPD_PERF_MAX_GROUP)
		return -E2BIG;
	struct gpd_drm_event *e = &plan->events[plan->n_events++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->config = config;
	e->role = role;
	e->unit = unit;
	e->engine = engine;
	return 0;
}

struct event_state {
	uint64_t prev;
	bool have_prev;
	uint64_t sum;                   /* NS, TICKS: the count */
	double sum_mhz_s;               /* frequencies */
};

struct drm_usage {
	struct gpd_usage_source base;
	const struct gpd_drm_usage_driver *driver;
	char card_dir[PATH_MAX];
	char device_dir[PATH_MAX + 8];
	char pdev[32];
	char proc_root[PATH_MAX];
	char sysfs_root[PATH_MAX];
	struct gpd_drm_plan plan;
	bool planned;
	char pmu_note[GPD_USAGE_NOTE_MAX];

	/* Open from the first reading until closed. */
	bool open;
	uint64_t generation;
	struct gpd_perf_pmu pmu;
	struct gpd_perf_group group;
	int member[GPD_PERF_MAX_GROUP];         /* event -> group index, -1 */
	struct event_state state[GPD_PERF_MAX_GROUP];
	uint64_t enabled_prev, enabled_sum;     /* the group's time base */
	bool have_enabled;
	char hwmon[PATH_MAX + 64];
	bool have_hwmon;
	struct gpd_perf_pmu rapl;
	struct gpd_perf_group rapl_group;
	double rapl_scale;                      /* J per count */
	bool have_rapl;
	uint64_t energy_prev;
	bool energy_have_prev;
	double energy_j;
	char energy_note[GPD_USAGE_NOTE_MAX];

	struct gpd_drm_clients clients;
};

/* ------------------------------------------------------------------ */
/* The PMU                                                              */

static void plan_pmu(struct drm_usage *u)
{
	char names[2][64];
	unsigned n = u->driver->pmu_names(u->pdev, names);
	int ret = -ENOENT;
	for (unsigned i = 0; i < n && ret == -ENOENT; i++)
		ret = gpd_perf_pmu_open(u->sysfs_root, names[i], &u->pmu);
	if (ret) {
		snprintf(u->pmu_note, sizeof(u->pmu_note), "no %s PMU "
			 "(%.80s/bus/event_source/devices/%s is not there): engine "
			 "busy, clocks and RC6 need %s or later, built with "
			 "CONFIG_PERF_EVENTS", u->driver->name, u->sysfs_root,
			 names[0], u->driver->pmu_since);
		return;
	}
	char why[GPD_USAGE_NOTE_MAX] = "";
	if (u->driver->plan(&u->pmu, &u->plan, why, sizeof(why)))
		snprintf(u->pmu_note, sizeof(u->pmu_note), "the %s PMU: %s",
			 u->pmu.name, why);
}

/* Opens every planned event in one group; those the kernel refuses are
 * left out with a note (the whole PMU when the first is refused). */
static void open_pmu(struct drm_usage *u)
{
	gpd_perf_group_init(&u->group);
	memset(u->state, 0, sizeof(u->state));
	u->have_enabled = false;
	u->enabled_sum = 0;
	int first_error = 0;
	unsigned refused = 0;
	for (unsigned i = 0; i < u->plan.n_events; i++) {
		int ret = gpd_perf_group_add(&u->group, &u->pmu,
					     u->plan.events[i].config);
		u->member[i] = ret;
		if (ret < 0) {
			refused++;
			if (!first_error)
				first_error = ret;
			gpd_debug("%s: %s: perf_event_open: %s", u->pmu.name,
				  u->plan.events[i].name, strerror(-ret));
		}
	}
	if (!refused)
		return;
	if (first_error == -EACCES || first_error == -EPERM)
		snprintf(u->pmu_note, sizeof(u->pmu_note), "the %s PMU refused "
			 "%u of %u events (%s): reading it needs CAP_PERFMON, or "
			 "kernel.perf_event_paranoid at 0 or below; engines, "
			 "clocks and RC6 are unknown", u->pmu.name, refused,
			 u->plan.n_events, strerror(-first_error));
	else
		snprintf(u->pmu_note, sizeof(u->pmu_note), "the %s PMU refused "
			 "%u of %u events (%s): their values are unknown",
			 u->pmu.name, refused, u->plan.n_events,
			 strerror(-first_error));
}

static void read_pmu(struct drm_usage *u, struct gpd_usage_reading *r)
{
	struct gpd_perf_values v;
	if (u->group.leader < 0)
		return;
	int ret = gpd_perf_group_read(&u->group, &v);
	if (ret) {
		gpd_usage_note(r->note, "reading the %s PMU failed (%s)",
			       u->pmu.name, strerror(-ret));
		return;
	}
	/* Frequencies sampled once a read are held over the time since the
	 * last read; the group's enabled time measures it. */
	uint64_t enabled_delta = u->have_enabled ? v.time_enabled - u->enabled_prev : 0;
	u->enabled_prev = v.time_enabled;
	u->have_enabled = true;
	u->enabled_sum += enabled_delta;
	r->counter_time_ns = u->enabled_sum;
	r->have |= GPD_USAGE_HAVE_COUNTER_TIME;
	double seconds = (double)enabled_delta / 1e9;
	bool any_engine = false;
	for (unsigned i = 0; i < u->plan.n_events; i++) {
		const struct gpd_drm_event *e = &u->plan.events[i];
		struct event_state *s = &u->state[i];
		if (u->member[i] < 0)
			continue;
		uint64_t raw = v.value[u->member[i]];
		/* u64 arithmetic: a wrapped counter still gives its delta. */
		uint64_t delta = s->have_prev ? raw - s->prev : 0;
		s->prev = raw;
		s->have_prev = true;
		switch (e->unit) {
		case GPD_DRM_UNIT_NS:
		case GPD_DRM_UNIT_TICKS:
			s->sum += delta;
			break;
		case GPD_DRM_UNIT_MS:
			s->sum += delta * 1000000;
			break;
		case GPD_DRM_UNIT_MHZ_S:
			s->sum_mhz_s += (double)delta;
			break;
		case GPD_DRM_UNIT_MHZ_PER_READ:
			s->sum_mhz_s += (double)delta * seconds;
			break;
		}
		struct gpd_usage_engine_count *c = &r->engines[e->engine];
		switch (e->role) {
		case GPD_DRM_EVENT_BUSY:
			c->busy = s->sum;
			any_engine = true;
			break;
		case GPD_DRM_EVENT_WAIT:
			c->wait = s->sum;
			break;
		case GPD_DRM_EVENT_SEMA:
			c->sema = s->sum;
			break;
		case GPD_DRM_EVENT_TOTAL:
			c->total = s->sum;
			break;
		case GPD_DRM_EVENT_ACTUAL_FREQ:
			r->actual_freq_mhz_s = s->sum_mhz_s;
			r->have |= GPD_USAGE_HAVE_ACTUAL_FREQ;
			break;
		case GPD_DRM_EVENT_REQUESTED_FREQ:
			r->requested_freq_mhz_s = s->sum_mhz_s;
			r->have |= GPD_USAGE_HAVE_REQUESTED_FREQ;
			break;
		case GPD_DRM_EVENT_RC6:
			r->rc6_ns = s->sum;
			r->have |= GPD_USAGE_HAVE_RC6;
			break;
		}
	}
	if (!any_engine)
		return;
	r->have |= GPD_USAGE_HAVE_ENGINES;
	/* Engines counted in ns are shares of the group's enabled time. */
	for (unsigned i = 0; i < u->plan.n_events; i++) {
		const struct gpd_drm_event *e = &u->plan.events[i];
		if (e->role == GPD_DRM_EVENT_BUSY && e->unit == GPD_DRM_UNIT_NS)
			r->engines[e->engine].total = u->enabled_sum;
	}
}

/* ------------------------------------------------------------------ */
/* Energy, temperature, clocks                                          */

static void open_energy(struct drm_usage *u)
{
	uint64_t uj;
	u->energy_have_prev = false;
	u->energy_note[0] = '\0';
	u->have_hwmon = !gpd_hwmon_find(u->device_dir, u->hwmon, sizeof(u->hwmon));
	if (u->have_hwmon && !gpd_hwmon_energy_uj(u->hwmon, &uj))
		return;
	/* An integrated GPU's energy is RAPL's PP1 domain, energy-gpu of
	 * the "power" PMU (arch/x86/events/rapl.c). */
	char text[128], unit[32];
	uint64_t config;
	gpd_perf_group_init(&u->rapl_group);
	u->have_rapl = false;
	if (!gpd_perf_pmu_open(u->sysfs_root, "power", &u->rapl) &&
	    !gpd_perf_pmu_event(&u->rapl, "energy-gpu", text, sizeof(text),
				unit, sizeof(unit), &u->rapl_scale) &&
	    !gpd_perf_event_config(&u->rapl, text, NULL, &config)) {
		int ret = gpd_perf_group_add(&u->rapl_group, &u->rapl, config);
		u->have_rapl = ret >= 0;
		if (ret < 0)
			snprintf(u->energy_note, sizeof(u->energy_note),
				 "RAPL's energy-gpu refused (%s): power needs "
				 "CAP_PERFMON", strerror(-ret));
		return;
	}
	snprintf(u->energy_note, sizeof(u->energy_note), "no energy counter: "
		 "the card has no hwmon energy1_input and RAPL no energy-gpu");
}

static void read_energy(struct drm_usage *u, struct gpd_usage_reading *r)
{
	uint64_t count;
	double scale;
	if (u->have_hwmon && !gpd_hwmon_energy_uj(u->hwmon, &count)) {
		scale = 1e-6;
	} else if (u->have_rapl) {
		struct gpd_perf_values v;
		if (gpd_perf_group_read(&u->rapl_group, &v))
			return;
		count = v.value[0];
		scale = u->rapl_scale;
	} else {
		if (*u->energy_note)
			gpd_usage_note(r->note, "%s", u->energy_note);
		return;
	}
	/* A 64-bit counter: u64 arithmetic holds across its wrap. */
	if (u->energy_have_prev)
		u->energy_j += (double)(count - u->energy_prev) * scale;
	u->energy_prev = count;
	u->energy_have_prev = true;
	r->energy_j = u->energy_j;
	r->have |= GPD_USAGE_HAVE_ENERGY;
}

static void read_device(struct drm_usage *u, struct gpd_usage_reading *r)
{
	double celsius;
	uint64_t min_mhz, max_mhz;
	if (u->have_hwmon && !gpd_hwmon_temperature(u->hwmon, &celsius)) {
		r->temperature_c = celsius;
		r->have |= GPD_USAGE_HAVE_TEMPERATURE;
	}
	if (!gpd_sysfs_read_u64(&min_mhz, "%s/%s", u->card_dir,
				u->driver->min_freq_file) &&
	    !gpd_sysfs_read_u64(&max_mhz, "%s/%s", u->card_dir,
				u->driver->max_freq_file)) {
		r->min_freq_hz = (double)min_mhz * 1e6;
		r->max_freq_hz = (double)max_mhz * 1e6;
		r->have |= GPD_USAGE_HAVE_FREQ_RANGE;
	}
}

/* ------------------------------------------------------------------ */
/* The source                                                           */

static int drm_read(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		    bool processes, struct gpd_error *err)
{
	struct drm_usage *u = (struct drm_usage *)src;
	if (!u->open) {
		if (u->planned)
			open_pmu(u);
		open_energy(u);
		u->open = true;
		u->generation++;
	}
	r->time_ns = gpd_monotonic_ns();
	r->generation = u->generation;
	read_pmu(u, r);
	if (*u->pmu_note)
		gpd_usage_note(r->note, "%s", u->pmu_note);
	read_energy(u, r);
	read_device(u, r);
	if (processes && gpd_drm_clients_read(&u->clients, u->proc_root,
						u->driver->name, u->pdev,
						&u->base.layout,
						u->driver->fdinfo_class, r))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

static void drm_close(struct gpd_usage_source *src)
{
	struct drm_usage *u = (struct drm_usage *)src;
	if (!u->open)
		return;
	gpd_perf_group_close(&u->group);
	if (u->have_rapl)
		gpd_perf_group_close(&u->rapl_group);
	u->have_rapl = false;
	u->open = false;
	/* A refusal may not hold when the PMU opens again. */
	if (u->planned)
		u->pmu_note[0] = '\0';
}

static void drm_destroy(struct gpd_usage_source *src)
{
	struct drm_usage *u = (struct drm_usage *)src;
	drm_close(src);
	gpd_drm_clients_fini(&u->clients);
	free(u);
}

static const struct gpd_usage_source_ops drm_usage_ops = {
	.read = drm_read,
	.close = drm_close,
	.destroy = drm_destroy,
};

int gpd_drm_usage_create(const struct gpd_drm_usage_driver *driver,
			 const char *node, const struct gpd_drm_roots *roots,
			 struct gpd_usage_source **out, struct gpd_error *err)
{
	char card_dir[PATH_MAX];
	int fd;
	int ret = gpd_drm_card_open(node, &fd);
	if (!ret) {
		ret = gpd_drm_card_sysfs_dir(fd, roots->sysfs, card_dir,
					     sizeof(card_dir));
		close(fd);
	}
	if (ret)
		return gpd_fail(err, ret, "%s: cannot find its sysfs directory "
				"(%s)", node, strerror(-ret));
	return gpd_drm_usage_create_at(driver, card_dir, roots, out, err);
}

int gpd_drm_usage_create_at(const struct gpd_drm_usage_driver *driver,
			    const char *card_dir, const struct gpd_drm_roots *roots,
			    struct gpd_usage_source **out, struct gpd_error *err)
{
	struct drm_usage *u = calloc(1, sizeof(*u));
	if (!u)
		return gpd_fail(err, -ENOMEM, "out of memory");
	u->base.ops = &drm_usage_ops;
	u->driver = driver;
	snprintf(u->card_dir, sizeof(u->card_dir), "%s", card_dir);
	snprintf(u->device_dir, sizeof(u->device_dir), "%s/device", u->card_dir);
	snprintf(u->sysfs_root, sizeof(u->sysfs_root), "%s", roots->sysfs);
	snprintf(u->proc_root, sizeof(u->proc_root), "%s",
		 roots->proc ? roots->proc : "/proc");
	gpd_drm_card_pdev(u->card_dir, u->pdev, sizeof(u->pdev));
	gpd_perf_group_init(&u->group);
	gpd_perf_group_init(&u->rapl_group);
	struct gpd_usage_layout *layout = &u->plan.layout;
	for (size_t i = 0; i < sizeof(intel_classes) / sizeof(intel_classes[0]); i++)
		gpd_usage_layout_class(layout, intel_classes[i]);
	plan_pmu(u);
	u->planned = !*u->pmu_note;
	u->base.layout = *layout;
	snprintf(u->base.layout.description, sizeof(u->base.layout.description),
		 "%s%s%.40s, hwmon or RAPL, DRM fdinfo in %.40s", driver->name,
		 u->planned ? " PMU " : " (no PMU)", u->planned ? u->pmu.name : "",
		 u->proc_root);
	*out = &u->base;
	return 0;
}
