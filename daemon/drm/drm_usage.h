/*
 * The usage source of an Intel GPU, i915's or xe's: engines, clocks and
 * RC6 from the driver's perf PMU, energy and temperature from the card's
 * hwmon (else RAPL's energy-gpu counter), the processes from DRM fdinfo.
 * What differs between the drivers is a table each gives (i915_usage.c,
 * xe_usage.c): the PMU's name, which of its events to read and in what
 * units, and the engine keys of its fdinfo.
 *
 * Every counter is read as a difference from its previous value, as the
 * kernel's u64 arithmetic gives it, and summed by the source: a counter
 * that wraps (the PMU's, hwmon's energy) loses nothing.
 */
#ifndef GPD_DRM_DRM_USAGE_H
#define GPD_DRM_DRM_USAGE_H

#include <stdint.h>

#include "daemon/drm/card.h"
#include "daemon/error.h"
#include "daemon/host/perf_pmu.h"
#include "daemon/usage_source.h"

/* What a PMU event measures. */
enum gpd_drm_event_role {
	GPD_DRM_EVENT_BUSY,             /* of an engine */
	GPD_DRM_EVENT_WAIT,
	GPD_DRM_EVENT_SEMA,
	GPD_DRM_EVENT_TOTAL,            /* an engine's time base */
	GPD_DRM_EVENT_ACTUAL_FREQ,
	GPD_DRM_EVENT_REQUESTED_FREQ,
	GPD_DRM_EVENT_RC6,
};

/* How its count moves. */
enum gpd_drm_event_unit {
	GPD_DRM_UNIT_NS,                /* nanoseconds */
	GPD_DRM_UNIT_MS,                /* milliseconds (xe's gt-c6-residency) */
	GPD_DRM_UNIT_TICKS,             /* GT clock ticks (xe's engine ticks) */
	/* MHz x s: i915's frequency events sum MHz x us of each sample and
	 * read it divided by 10^6 (i915_pmu.c: frequency_sample(),
	 * __i915_pmu_event_read()). */
	GPD_DRM_UNIT_MHZ_S,
	/* Each read adds the frequency at that moment, in MHz (xe_pmu.c:
	 * xe_pmu_event_update() "GT frequency is not a monotonically
	 * increasing counter"). */
	GPD_DRM_UNIT_MHZ_PER_READ,
};

struct gpd_drm_event {
	char name[48];                  /* for messages: "rcs0-busy" */
	uint64_t config;
	enum gpd_drm_event_role role;
	enum gpd_drm_event_unit unit;
	unsigned engine;                /* layout index, for engine roles */
};

/* The events to read, and the engines they make. */
struct gpd_drm_plan {
	struct gpd_usage_layout layout;
	unsigned n_events;
	struct gpd_drm_event events[GPD_PERF_MAX_GROUP];
};

struct gpd_drm_usage_driver {
	const char *name;               /* "i915": fdinfo's drm-driver */
	const char *pmu_since;          /* "Linux 4.16": the first with the PMU */
	/* The PMU's name for the device at pdev ("0000:00:02.0"), the
	 * likelier first: i915 calls an integrated GPU's "i915". */
	unsigned (*pmu_names)(const char *pdev, char names[][64]);
	/* Adds the PMU's events to plan (whose layout has the Intel
	 * classes). 0, or -errno with why filled. */
	int (*plan)(const struct gpd_perf_pmu *pmu, struct gpd_drm_plan *plan,
		    char *why, size_t size);
	/* The class of an fdinfo engine key ("render", "rcs"); NULL: none. */
	const char *(*fdinfo_class)(const char *key);
	/* The frequency range files, under the card's sysfs directory. */
	const char *min_freq_file, *max_freq_file;
};

/* Adds an event to plan; -E2BIG when it is full. */
int gpd_drm_plan_add(struct gpd_drm_plan *plan, const char *name,
		     uint64_t config, enum gpd_drm_event_role role,
		     enum gpd_drm_event_unit unit, unsigned engine);

extern const struct gpd_drm_usage_driver gpd_i915_usage_driver;
extern const struct gpd_drm_usage_driver gpd_xe_usage_driver;

/* The Intel engine class of an engine name's prefix ("vcs1": video);
 * NULL for none. */
const char *gpd_drm_engine_class(const char *name);

/*
 * The usage source of the card at node, driven by driver. Nothing is
 * opened before the first reading; a PMU, hwmon or /proc the machine
 * lacks leaves its part out of the readings, with a note. -ENOENT, -EIO
 * with err when the node cannot be opened.
 */
int gpd_drm_usage_create(const struct gpd_drm_usage_driver *driver,
			 const char *node, const struct gpd_drm_roots *roots,
			 struct gpd_usage_source **out, struct gpd_error *err);

/* The same, for the card whose sysfs directory is card_dir. */
int gpd_drm_usage_create_at(const struct gpd_drm_usage_driver *driver,
			    const char *card_dir, const struct gpd_drm_roots *roots,
			    struct gpd_usage_source **out, struct gpd_error *err);

#endif
