/*
 * What xe gives the usage source: its PMU's events (xe_pmu.c, Linux
 * 6.15) and its fdinfo's engine keys (xe_drm_client.c, show_run_ticks():
 * drm-cycles-CLASS and drm-total-cycles-CLASS, with CLASS rcs, bcs, vcs,
 * vecs or ccs).
 *
 * The PMU is "xe_" + the PCI slot (':' made '_'). Its events take fields
 * by its format files: event (config:0-11), gt (60-63), engine_class
 * (20-27), engine_instance (12-19). engine-active-ticks and
 * engine-total-ticks are per engine, and exist only for engines the
 * device has (event_param_valid() answers ENOENT otherwise), so the
 * engines are found by asking for them. gt-c6-residency counts ms, and
 * gt-actual-frequency and gt-requested-frequency add the frequency in
 * MHz at each read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/drm/drm_usage.h"

/* DRM_XE_ENGINE_CLASS_* (include/uapi/drm/xe_drm.h), named as xe names
 * its engines. */
static const char *const class_prefixes[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };
#define N_CLASSES (sizeof(class_prefixes) / sizeof(class_prefixes[0]))
/* Instances looked for per class. */
#define MAX_INSTANCES 8

static unsigned xe_pmu_names(const char *pdev, char names[][64])
{
	snprintf(names[0], 64, "xe_%s", pdev);
	for (char *c = names[0]; *c; c++)
		if (*c == ':')
			*c = '_';
	return 1;
}

static int event_config(const struct gpd_perf_pmu *pmu, const char *name,
			const char *extra, uint64_t *config)
{
	char text[128];
	if (gpd_perf_pmu_event(pmu, name, text, sizeof(text), NULL, 0, NULL))
		return -ENOENT;
	return gpd_perf_event_config(pmu, text, extra, config);
}

/* Whether the kernel takes an event of config: ENOENT says the engine is
 * not there; any other answer (EACCES included) is returned. */
static int probe(const struct gpd_perf_pmu *pmu, uint64_t config)
{
	struct gpd_perf_group g;
	gpd_perf_group_init(&g);
	int ret = gpd_perf_group_add(&g, pmu, config);
	gpd_perf_group_close(&g);
	return ret < 0 ? ret : 0;
}

static int add_engines(const struct gpd_perf_pmu *pmu, struct gpd_drm_plan *plan,
		       char *why, size_t size)
{
	for (unsigned c = 0; c < N_CLASSES; c++) {
		for (unsigned i = 0; i < MAX_INSTANCES; i++) {
			char fields[64], name[24];
			uint64_t active, total;
			snprintf(fields, sizeof(fields),
				 "gt=0,engine_class=%u,engine_instance=%u", c, i);
			if (event_config(pmu, "engine-active-ticks", fields, &active) ||
			    event_config(pmu, "engine-total-ticks", fields, &total)) {
				snprintf(why, size, "no engine-active-ticks and "
					 "engine-total-ticks events (they need "
					 "Linux 6.15 and GuC engine activity)");
				return -ENOENT;
			}
			int ret = probe(pmu, active);
			if (ret == -ENOENT)
				break;
			if (ret) {
				snprintf(why, size, "asking it for %s%u refused (%s): "
					 "reading it needs CAP_PERFMON, or "
					 "kernel.perf_event_paranoid at 0 or below",
					 class_prefixes[c], i, strerror(-ret));
				return ret;
			}
			snprintf(name, sizeof(name), "%s%u", class_prefixes[c], i);
			unsigned engine = plan->layout.n_engines;
			if (gpd_usage_layout_add_engine(&plan->layout, name,
							gpd_drm_engine_class(name),
							false, false))
				return 0;
			char event[48];
			snprintf(event, sizeof(event), "%s-active-ticks", name);
			gpd_drm_plan_add(plan, event, active, GPD_DRM_EVENT_BUSY,
				  GPD_DRM_UNIT_TICKS, engine);
			snprintf(event, sizeof(event), "%s-total-ticks", name);
			gpd_drm_plan_add(plan, event, total, GPD_DRM_EVENT_TOTAL,
				  GPD_DRM_UNIT_TICKS, engine);
		}
	}
	return 0;
}

static int xe_plan(const struct gpd_perf_pmu *pmu, struct gpd_drm_plan *plan,
		   char *why, size_t size)
{
	static const struct {
		const char *name;
		enum gpd_drm_event_role role;
		enum gpd_drm_event_unit unit;
	} gt_events[] = {
		{ "gt-actual-frequency", GPD_DRM_EVENT_ACTUAL_FREQ,
		  GPD_DRM_UNIT_MHZ_PER_READ },
		{ "gt-requested-frequency", GPD_DRM_EVENT_REQUESTED_FREQ,
		  GPD_DRM_UNIT_MHZ_PER_READ },
		{ "gt-c6-residency", GPD_DRM_EVENT_RC6, GPD_DRM_UNIT_MS },
	};
	int ret = add_engines(pmu, plan, why, size);
	if (ret && ret != -ENOENT)
		return ret;
	for (size_t i = 0; i < sizeof(gt_events) / sizeof(gt_events[0]); i++) {
		uint64_t config;
		if (!event_config(pmu, gt_events[i].name, "gt=0", &config))
			gpd_drm_plan_add(plan, gt_events[i].name, config,
				  gt_events[i].role, gt_events[i].unit, 0);
	}
	if (!plan->n_events && !*why)
		snprintf(why, size, "it lists none of the events read");
	return plan->n_events ? 0 : -ENOENT;
}

static const char *xe_fdinfo_class(const char *key)
{
	for (size_t i = 0; i < N_CLASSES; i++)
		if (!strcmp(key, class_prefixes[i]))
			return gpd_drm_engine_class(key);
	return NULL;
}

const struct gpd_drm_usage_driver gpd_xe_usage_driver = {
	.name = "xe",
	.pmu_since = "Linux 6.15",
	.pmu_names = xe_pmu_names,
	.plan = xe_plan,
	.fdinfo_class = xe_fdinfo_class,
	.min_freq_file = "device/tile0/gt0/freq0/min_freq",
	.max_freq_file = "device/tile0/gt0/freq0/max_freq",
};
