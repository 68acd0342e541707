/*
 * An AMD GPU's usage source: gpu_metrics, sysfs percentages, hwmon and
 * DRM fdinfo (see amdgpu_usage.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/amdgpu/amdgpu_usage.h"
#include "daemon/clock.h"
#include "daemon/drm/drm_clients.h"
#include "daemon/host/gpu_metrics.h"
#include "daemon/host/hwmon.h"
#include "daemon/host/sysfs_file.h"

/* The kernel hands out at most a page of gpu_metrics (amdgpu_get_gpu_metrics
 * cuts at PAGE_SIZE - 1); the largest known table is 384 bytes. */
#define GPU_METRICS_MAX 4096

/* What each engine's busy share is read from. */
enum engine_kind {
	ENGINE_GFX,             /* table's gfx activity, else gpu_busy_percent */
	ENGINE_MEMORY,          /* table's UMC activity, else mem_busy_percent */
	ENGINE_MEDIA,           /* table's media activity of instance n */
};

struct engine {
	enum engine_kind kind;
	unsigned instance;
};

struct amdgpu_usage {
	struct gpd_usage_source base;
	char card_dir[PATH_MAX];
	char device_dir[PATH_MAX + 8];
	char proc_root[PATH_MAX];
	char pdev[32];
	char hwmon[PATH_MAX + 64];
	bool have_hwmon;
	unsigned n_engines;
	struct engine engines[GPD_USAGE_MAX_ENGINES];

	/* Counters since the source opened. */
	bool open;
	uint64_t generation;
	uint64_t prev_ns;
	struct gpd_usage_engine_count counts[GPD_USAGE_MAX_ENGINES];
	double gfx_mhz_s;
	double energy_j;
	uint64_t energy_prev;
	bool have_energy_prev;
	struct gpd_drm_clients clients;
};

/* The fdinfo keys amdgpu prints (amdgpu_ip_name[] in amdgpu_fdinfo.c):
 * UVD's and VCN's decoders are "dec", VCE's and VCN's encoders "enc"
 * (and "enc_1" for UVD's second encoder ring). */
static const char *amdgpu_fdinfo_class(const char *key)
{
	static const char *const keys[] = {
		"gfx", "compute", "dma", "dec", "enc", "jpeg", "vpe",
	};
	if (!strcmp(key, "enc_1"))
		return "enc";
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return keys[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading the card's files                                             */

/* The card's gpu_metrics, decoded; -errno, with why for a table that is
 * there but cannot be read. */
static int read_table(const struct amdgpu_usage *u, struct gpd_gpu_metrics *m,
		      char *why, size_t size)
{
	uint8_t *bytes = malloc(GPU_METRICS_MAX);
	size_t len;
	why[0] = '\0';
	if (!bytes)
		return -ENOMEM;
	int ret = gpd_sysfs_read_binary(bytes, GPU_METRICS_MAX, &len,
					"%s/gpu_metrics", u->device_dir);
	if (!ret)
		ret = gpd_gpu_metrics_decode(bytes, len, m, why, size);
	else if (ret != -ENOENT)
		snprintf(why, size, "reading it failed (%s)", strerror(-ret));
	free(bytes);
	return ret;
}

/* A sysfs percentage as a share; -errno. */
static int read_percent(const struct amdgpu_usage *u, const char *file,
			double *share)
{
	uint64_t percent;
	int ret = gpd_sysfs_read_u64(&percent, "%s/%s", u->device_dir, file);
	if (ret)
		return ret;
	*share = percent > 100 ? 1 : (double)percent / 100;
	return 0;
}

/* pp_dpm_sclk's levels, "0: 500Mhz\n1: 2100Mhz *\n": the first and the
 * last (amdgpu_get_pp_dpm_clock(), levels in rising order). */
static int read_clock_range(const struct amdgpu_usage *u, double *min_mhz,
			    double *max_mhz)
{
	char text[1024];
	int ret = gpd_sysfs_read(text, sizeof(text), "%s/pp_dpm_sclk",
				 u->device_dir);
	if (ret)
		return ret;
	unsigned levels = 0;
	for (const char *line = text; *line;) {
		unsigned level, mhz;
		if (sscanf(line, "%u: %uMhz", &level, &mhz) == 2) {
			if (!levels++)
				*min_mhz = mhz;
			*max_mhz = mhz;
		}
		const char *next = strchr(line, '\n');
		if (!next)
			break;
		line = next + 1;
	}
	return levels ? 0 : -EBADMSG;
}

/* ------------------------------------------------------------------ */
/* The source                                                           */

static double engine_share(const struct amdgpu_usage *u, const struct engine *e,
			   const struct gpd_gpu_metrics *m, bool have_table)
{
	double share;
	switch (e->kind) {
	case ENGINE_GFX:
		if (have_table && (m->have & GPD_GPU_METRICS_GFX_ACTIVITY))
			return m->gfx_activity;
		return read_percent(u, "gpu_busy_percent", &share) ? NAN : share;
	case ENGINE_MEMORY:
		if (have_table && (m->have & GPD_GPU_METRICS_MEMORY_ACTIVITY))
			return m->memory_activity;
		return read_percent(u, "mem_busy_percent", &share) ? NAN : share;
	case ENGINE_MEDIA:
		return have_table && e->instance < m->n_media ?
		       m->media_activity[e->instance] : NAN;
	}
	return NAN;
}

/* Power now, in W: the table's socket power, else hwmon's average or
 * input power (uW); NaN when neither. */
static double power_now(const struct amdgpu_usage *u,
			const struct gpd_gpu_metrics *m, bool have_table)
{
	uint64_t uw;
	if (have_table && (m->have & GPD_GPU_METRICS_POWER))
		return m->power_w;
	if (u->have_hwmon &&
	    (!gpd_sysfs_read_u64(&uw, "%s/power1_average", u->hwmon) ||
	     !gpd_sysfs_read_u64(&uw, "%s/power1_input", u->hwmon)))
		return (double)uw / 1e6;
	return NAN;
}

static void read_energy(struct amdgpu_usage *u, const struct gpd_gpu_metrics *m,
			bool have_table, double seconds,
			struct gpd_usage_reading *r)
{
	if (have_table && (m->have & GPD_GPU_METRICS_ENERGY)) {
		/* A 64-bit counter: u64 arithmetic holds across its wrap. */
		if (u->have_energy_prev)
			u->energy_j += (double)(m->energy_count - u->energy_prev) *
				       m->energy_unit_j;
		u->energy_prev = m->energy_count;
		u->have_energy_prev = true;
	} else {
		double watts = power_now(u, m, have_table);
		if (isnan(watts)) {
			gpd_usage_note(r->note, "no power reading: the card's "
				       "gpu_metrics has no socket power and its "
				       "hwmon no power1_average or power1_input");
			return;
		}
		u->energy_j += watts * seconds;
	}
	r->energy_j = u->energy_j;
	r->have |= GPD_USAGE_HAVE_ENERGY;
}

static int amdgpu_read(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		       bool processes, struct gpd_error *err)
{
	struct amdgpu_usage *u = (struct amdgpu_usage *)src;
	uint64_t now = gpd_monotonic_ns();
	if (!u->open) {
		u->open = true;
		u->generation++;
		u->prev_ns = now;
		memset(u->counts, 0, sizeof(u->counts));
		u->gfx_mhz_s = 0;
		u->energy_j = 0;
		u->have_energy_prev = false;
	}
	/* Levels now are held over the time since the last read. */
	uint64_t elapsed = now - u->prev_ns;
	double seconds = (double)elapsed / 1e9;
	u->prev_ns = now;
	r->time_ns = now;
	r->generation = u->generation;

	struct gpd_gpu_metrics m;
	char why[GPD_USAGE_NOTE_MAX / 2];
	int ret = read_table(u, &m, why, sizeof(why));
	if (ret == -ENOMEM)
		return gpd_fail(err, -ENOMEM, "out of memory");
	bool have_table = !ret;
	if (why[0])
		gpd_usage_note(r->note, "%s/gpu_metrics: %s", u->device_dir, why);

	/* An engine whose share is unknown now counts no time at all, so
	 * its share of the interval is unknown rather than idle. */
	for (unsigned i = 0; i < u->n_engines; i++) {
		double share = engine_share(u, &u->engines[i], &m, have_table);
		struct gpd_usage_engine_count *c = &u->counts[i];
		if (!isnan(share)) {
			c->total += elapsed;
			c->busy += (uint64_t)llround(share * (double)elapsed);
		}
		r->engines[i] = *c;
	}
	if (u->n_engines)
		r->have |= GPD_USAGE_HAVE_ENGINES;
	if (have_table && (m.have & GPD_GPU_METRICS_GFX_CLOCK)) {
		u->gfx_mhz_s += m.gfx_clock_mhz * seconds;
		r->actual_freq_mhz_s = u->gfx_mhz_s;
		r->have |= GPD_USAGE_HAVE_ACTUAL_FREQ;
	}
	r->gauges[0] = have_table && (m.have & GPD_GPU_METRICS_MEMORY_CLOCK) ?
		       m.memory_clock_mhz * 1e6 : NAN;
	r->have |= GPD_USAGE_HAVE_GAUGES;
	double celsius;
	if (have_table && (m.have & GPD_GPU_METRICS_TEMPERATURE)) {
		r->temperature_c = m.temperature_c;
		r->have |= GPD_USAGE_HAVE_TEMPERATURE;
	} else if (u->have_hwmon && !gpd_hwmon_temperature(u->hwmon, &celsius)) {
		r->temperature_c = celsius;
		r->have |= GPD_USAGE_HAVE_TEMPERATURE;
	}
	double min_mhz = 0, max_mhz = 0;
	if (!read_clock_range(u, &min_mhz, &max_mhz)) {
		r->min_freq_hz = min_mhz * 1e6;
		r->max_freq_hz = max_mhz * 1e6;
		r->have |= GPD_USAGE_HAVE_FREQ_RANGE;
	}
	read_energy(u, &m, have_table, seconds, r);
	if (processes &&
	    gpd_drm_clients_read(&u->clients, u->proc_root, "amdgpu", u->pdev,
				 &u->base.layout, amdgpu_fdinfo_class, r))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

static void amdgpu_close(struct gpd_usage_source *src)
{
	struct amdgpu_usage *u = (struct amdgpu_usage *)src;
	u->open = false;
}

static void amdgpu_destroy(struct gpd_usage_source *src)
{
	struct amdgpu_usage *u = (struct amdgpu_usage *)src;
	gpd_drm_clients_fini(&u->clients);
	free(u);
}

static const struct gpd_usage_source_ops amdgpu_usage_ops = {
	.read = amdgpu_read,
	.close = amdgpu_close,
	.destroy = amdgpu_destroy,
};

static void add_engine(struct amdgpu_usage *u, const char *name,
		       const char *class_name, enum engine_kind kind,
		       unsigned instance)
{
	if (gpd_usage_layout_add_engine(&u->base.layout, name, class_name,
					false, false))
		return;
	u->engines[u->n_engines++] = (struct engine){ kind, instance };
}

/* The engines the card's files show now: gfx and memory where the table
 * or the percentage files have them, one media engine per instance of
 * the table. */
static void plan_engines(struct amdgpu_usage *u)
{
	struct gpd_usage_layout *l = &u->base.layout;
	static const char *const fdinfo_classes[] = {
		GPD_AMDGPU_CLASS_GFX, "compute", "dma", "dec", "enc", "jpeg", "vpe",
		GPD_AMDGPU_CLASS_MEDIA, GPD_AMDGPU_CLASS_MEMORY,
	};
	for (size_t i = 0; i < sizeof(fdinfo_classes) / sizeof(fdinfo_classes[0]); i++)
		gpd_usage_layout_class(l, fdinfo_classes[i]);
	struct gpd_gpu_metrics m;
	char why[GPD_USAGE_NOTE_MAX];
	bool have_table = !read_table(u, &m, why, sizeof(why));
	double share;
	if ((have_table && (m.have & GPD_GPU_METRICS_GFX_ACTIVITY)) ||
	    !read_percent(u, "gpu_busy_percent", &share))
		add_engine(u, "gfx", GPD_AMDGPU_CLASS_GFX, ENGINE_GFX, 0);
	if ((have_table && (m.have & GPD_GPU_METRICS_MEMORY_ACTIVITY)) ||
	    !read_percent(u, "mem_busy_percent", &share))
		add_engine(u, "memory", GPD_AMDGPU_CLASS_MEMORY, ENGINE_MEMORY, 0);
	for (unsigned i = 0; have_table && i < m.n_media; i++) {
		if (isnan(m.media_activity[i]))
			continue;
		char name[GPD_USAGE_NAME_MAX];
		if (m.n_media == 1)
			snprintf(name, sizeof(name), "media");
		else
			snprintf(name, sizeof(name), "vcn%u", i);
		add_engine(u, name, GPD_AMDGPU_CLASS_MEDIA, ENGINE_MEDIA, i);
	}
	snprintf(l->gauges[0].name, sizeof(l->gauges[0].name), "memory_clock");
	snprintf(l->gauges[0].unit, sizeof(l->gauges[0].unit), "hertz");
	l->n_gauges = 1;
	if (have_table)
		snprintf(l->description, sizeof(l->description), "amdgpu "
			 "gpu_metrics v%u.%u, hwmon, DRM fdinfo in %.40s",
			 m.format_revision, m.content_revision, u->proc_root);
	else
		snprintf(l->description, sizeof(l->description), "amdgpu sysfs "
			 "(no gpu_metrics), hwmon, DRM fdinfo in %.40s",
			 u->proc_root);
}

int gpd_amdgpu_usage_create(const char *card_dir,
			    const struct gpd_drm_roots *roots,
			    struct gpd_usage_source **out, struct gpd_error *err)
{
	struct amdgpu_usage *u = calloc(1, sizeof(*u));
	if (!u)
		return gpd_fail(err, -ENOMEM, "out of memory");
	u->base.ops = &amdgpu_usage_ops;
	snprintf(u->card_dir, sizeof(u->card_dir), "%s", card_dir);
	snprintf(u->device_dir, sizeof(u->device_dir), "%s/device", u->card_dir);
	snprintf(u->proc_root, sizeof(u->proc_root), "%s",
		 roots->proc ? roots->proc : "/proc");
	gpd_drm_card_pdev(u->card_dir, u->pdev, sizeof(u->pdev));
	u->have_hwmon = !gpd_hwmon_find(u->device_dir, u->hwmon,
					sizeof(u->hwmon));
	plan_engines(u);
	*out = &u->base;
	return 0;
}
