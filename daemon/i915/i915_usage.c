/*
 * What i915 gives the usage source: its PMU's events (i915_pmu.c,
 * create_event_attributes(), Linux 6.8) and its fdinfo's engine keys
 * (i915_drm_client.c: "render", "copy", "video", "video-enhance",
 * "compute").
 *
 * The PMU is "i915" on an integrated GPU and "i915_" + the PCI slot (':'
 * made '_') on a discrete one. Its events directory holds, per engine,
 * ENGINE-busy, -wait and -sema (ns), and actual-frequency and
 * requested-frequency (MHz x s), rc6-residency (ns), each as
 * "config=0x..."; on a GPU with several GTs the last three are per GT,
 * named -gt0, -gt1: gt0's are read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/drm/drm_usage.h"

static unsigned i915_pmu_names(const char *pdev, char names[][64])
{
	unsigned n = 0;
	if (*pdev) {
		snprintf(names[n], 64, "i915_%s", pdev);
		for (char *c = names[n]; *c; c++)
			if (*c == ':')
				*c = '_';
		n++;
	}
	snprintf(names[n++], 64, "i915");
	return n;
}

static const struct {
	const char *name, *gt0_name;
	enum gpd_drm_event_role role;
	enum gpd_drm_event_unit unit;
} gt_events[] = {
	{ "actual-frequency", "actual-frequency-gt0", GPD_DRM_EVENT_ACTUAL_FREQ,
	  GPD_DRM_UNIT_MHZ_S },
	{ "requested-frequency", "requested-frequency-gt0",
	  GPD_DRM_EVENT_REQUESTED_FREQ, GPD_DRM_UNIT_MHZ_S },
	{ "rc6-residency", "rc6-residency-gt0", GPD_DRM_EVENT_RC6,
	  GPD_DRM_UNIT_NS },
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add_event(const struct gpd_perf_pmu *pmu, struct gpd_drm_plan *plan,
		     const char *name, enum gpd_drm_event_role role,
		     enum gpd_drm_event_unit unit, unsigned engine)
{
	char text[128];
	uint64_t config;
	if (gpd_perf_pmu_event(pmu, name, text, sizeof(text), NULL, 0, NULL) ||
	    gpd_perf_event_config(pmu, text, NULL, &config))
		return -ENOENT;
	return gpd_drm_plan_add(plan, name, config, role, unit, engine);
}

/* The engines named by ENGINE-busy files, sorted. */
static size_t engine_names(const struct gpd_perf_pmu *pmu, char names[][24],
			   size_t max)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/events", pmu->dir);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || len - 5 >= 24 || strcmp(e->d_name + len - 5, "-busy"))
			continue;
		snprintf(names[n], 24, "%.*s", (int)(len - 5), e->d_name);
		if (gpd_drm_engine_class(names[n]))
			n++;
	}
	closedir(d);
	const char *order[GPD_USAGE_MAX_ENGINES];
	for (size_t i = 0; i < n; i++)
		order[i] = names[i];
	qsort(order, n, sizeof(order[0]), compare_names);
	char sorted[GPD_USAGE_MAX_ENGINES][24];
	for (size_t i = 0; i < n; i++)
		snprintf(sorted[i], 24, "%s", order[i]);
	memcpy(names, sorted, n * sizeof(sorted[0]));
	return n;
}

static int i915_plan(const struct gpd_perf_pmu *pmu, struct gpd_drm_plan *plan,
		     char *why, size_t size)
{
	char names[GPD_USAGE_MAX_ENGINES][24];
	size_t n = engine_names(pmu, names, GPD_USAGE_MAX_ENGINES);
	for (size_t i = 0; i < n; i++) {
		unsigned engine = plan->layout.n_engines;
		char event[48];
		snprintf(event, sizeof(event), "%.23s-wait", names[i]);
		bool wait = !add_event(pmu, plan, event, GPD_DRM_EVENT_WAIT,
				       GPD_DRM_UNIT_NS, engine);
		snprintf(event, sizeof(event), "%.23s-sema", names[i]);
		bool sema = !add_event(pmu, plan, event, GPD_DRM_EVENT_SEMA,
				       GPD_DRM_UNIT_NS, engine);
		snprintf(event, sizeof(event), "%.23s-busy", names[i]);
		if (add_event(pmu, plan, event, GPD_DRM_EVENT_BUSY,
			      GPD_DRM_UNIT_NS, engine))
			continue;
		gpd_usage_layout_add_engine(&plan->layout, names[i],
					    gpd_drm_engine_class(names[i]),
					    wait, sema);
	}
	for (size_t i = 0; i < sizeof(gt_events) / sizeof(gt_events[0]); i++)
		if (add_event(pmu, plan, gt_events[i].name, gt_events[i].role,
			      gt_events[i].unit, 0))
			add_event(pmu, plan, gt_events[i].gt0_name,
				  gt_events[i].role, gt_events[i].unit, 0);
	if (!plan->layout.n_engines) {
		snprintf(why, size, "its events list no engine (no "
			 "ENGINE-busy file in %s/events)", pmu->dir);
		return -ENOENT;
	}
	return 0;
}

static const char *i915_fdinfo_class(const char *key)
{
	static const char *const classes[] = {
		GPD_USAGE_CLASS_RENDER, GPD_USAGE_CLASS_COPY,
		GPD_USAGE_CLASS_VIDEO, GPD_USAGE_CLASS_VIDEO_ENHANCE,
		GPD_USAGE_CLASS_COMPUTE,
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(key, classes[i]))
			return classes[i];
	return NULL;
}

const struct gpd_drm_usage_driver gpd_i915_usage_driver = {
	.name = "i915",
	.pmu_since = "Linux 4.16",
	.pmu_names = i915_pmu_names,
	.plan = i915_plan,
	.fdinfo_class = i915_fdinfo_class,
	.min_freq_file = "gt_min_freq_mhz",
	.max_freq_file = "gt_max_freq_mhz",
};
