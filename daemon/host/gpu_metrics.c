/*
 * Decoding amdgpu's gpu_metrics tables (see gpu_metrics.h): one row of
 * offsets per version, each offset that of the field in struct
 * gpu_metrics_vF_C (kgd_pp_interface.h, torvalds/linux 00dedab07b52), a
 * plain struct with natural alignment as the kernel builds it.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "daemon/host/gpu_metrics.h"

/* A field of a table: its offset and width in bytes (0: the version has
 * no such field). */
struct field {
	uint16_t offset;
	uint8_t width;
};

struct layout {
	uint8_t format, content;
	uint16_t size;                  /* sizeof(struct gpu_metrics_vF_C) */
	struct field gfx_activity, memory_activity;
	struct field media_activity;    /* the first of n_media u16s */
	unsigned n_media;
	struct field gfx_clock, memory_clock, temperature, power, energy;
	/* Units, as the header's comments and the drivers' use give them:
	 * activity in % (v1.x, v3.0) or 1/100 % (v2.x: "unit: centi");
	 * temperatures in degrees C (v1.x) or 1/100 degree (v2.x, and v3.0,
	 * whose header is silent and whose drivers fill it as v2.x's);
	 * power in W (v1.x) or mW (v2.x, v3.0). */
	double activity_scale, temperature_scale, power_scale;
	double energy_unit_j;
};

#define F(offset, width) { offset, width }
#define NONE { 0, 0 }
/* v1.4 on: "Energy (15.259uJ (2^-16) units)". */
#define ENERGY_2_16 (1.0 / 65536.0)

static const struct layout layouts[] = {
	/* v1.0: system_clock_counter first; average clocks; edge temperature;
	 * its 32-bit energy_accumulator has no unit in the header. */
	{ 1, 0, 80, F(28, 2), F(30, 2), F(32, 2), 1, F(40, 2), F(44, 2),
	  F(16, 2), F(34, 2), NONE, 0.01, 1, 1, 0 },
	/* v1.1-v1.3: the same fields, the timestamp after the energy (whose
	 * unit the header does not give either); later revisions append. */
	{ 1, 1, 96, F(16, 2), F(18, 2), F(20, 2), 1, F(40, 2), F(44, 2),
	  F(4, 2), F(22, 2), NONE, 0.01, 1, 1, 0 },
	{ 1, 2, 104, F(16, 2), F(18, 2), F(20, 2), 1, F(40, 2), F(44, 2),
	  F(4, 2), F(22, 2), NONE, 0.01, 1, 1, 0 },
	{ 1, 3, 120, F(16, 2), F(18, 2), F(20, 2), 1, F(40, 2), F(44, 2),
	  F(4, 2), F(22, 2), NONE, 0.01, 1, 1, 0 },
	/* v1.4-v1.6 (MI300): rebuilt: hotspot temperature, current power,
	 * four VCN activities, the energy with its unit, current clocks
	 * per instance (the first gfxclk read). v1.5 inserts jpeg_activity,
	 * v1.6 throttler residencies. */
	{ 1, 4, 288, F(12, 2), F(14, 2), F(16, 2), 4, F(240, 2), F(280, 2),
	  F(4, 2), F(10, 2), F(24, 8), 0.01, 1, 1, ENERGY_2_16 },
	{ 1, 5, 360, F(12, 2), F(14, 2), F(16, 2), 4, F(312, 2), F(352, 2),
	  F(4, 2), F(10, 2), F(88, 8), 0.01, 1, 1, ENERGY_2_16 },
	{ 1, 6, 384, F(12, 2), F(14, 2), F(16, 2), 4, F(336, 2), F(376, 2),
	  F(4, 2), F(10, 2), F(88, 8), 0.01, 1, 1, ENERGY_2_16 },
	/* v2.0 (APUs): system_clock_counter first; no memory activity. */
	{ 2, 0, 120, F(40, 2), NONE, F(42, 2), 1, F(68, 2), F(72, 2),
	  F(16, 2), F(44, 2), NONE, 0.0001, 0.01, 0.001, 0 },
	/* v2.1-v2.4: the timestamp after the activities; later append. */
	{ 2, 1, 120, F(28, 2), NONE, F(30, 2), 1, F(64, 2), F(68, 2),
	  F(4, 2), F(40, 2), NONE, 0.0001, 0.01, 0.001, 0 },
	{ 2, 2, 128, F(28, 2), NONE, F(30, 2), 1, F(64, 2), F(68, 2),
	  F(4, 2), F(40, 2), NONE, 0.0001, 0.01, 0.001, 0 },
	{ 2, 3, 152, F(28, 2), NONE, F(30, 2), 1, F(64, 2), F(68, 2),
	  F(4, 2), F(40, 2), NONE, 0.0001, 0.01, 0.001, 0 },
	{ 2, 4, 168, F(28, 2), NONE, F(30, 2), 1, F(64, 2), F(68, 2),
	  F(4, 2), F(40, 2), NONE, 0.0001, 0.01, 0.001, 0 },
	/* v3.0 (APUs with SMU 14): activity "% [0-100]", a 32-bit socket
	 * power in mW. */
	{ 3, 0, 264, F(42, 2), NONE, F(44, 2), 1, F(174, 2), F(186, 2),
	  F(4, 2), F(112, 4), NONE, 0.01, 0.01, 0.001, 0 },
};

static const struct layout *find_layout(unsigned format, unsigned content)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].format == format && layouts[i].content == content)
			return &layouts[i];
	return NULL;
}

/* The field's little-endian value; false when the version lacks it or
 * the firmware left it unfilled (all ones). */
static bool field_value(const uint8_t *table, struct field f, uint64_t *out)
{
	if (!f.width)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < f.width; i++)
		v |= (uint64_t)table[f.offset + i] << (8 * i);
	uint64_t ones = f.width == 8 ? UINT64_MAX : (1ull << (8 * f.width)) - 1;
	*out = v;
	return v != ones;
}

static bool scaled(const uint8_t *table, struct field f, double scale,
		   double *out)
{
	uint64_t v;
	if (!field_value(table, f, &v))
		return false;
	*out = (double)v * scale;
	return true;
}

/* A share of time; a firmware's (or a file's) 300% is cut to all of it. */
static bool activity(const uint8_t *table, struct field f, double scale,
		     double *out)
{
	if (!scaled(table, f, scale, out))
		return false;
	if (*out > 1)
		*out = 1;
	return true;
}

int gpd_gpu_metrics_decode(const void *data, size_t len,
			   struct gpd_gpu_metrics *out, char *why, size_t size)
{
	const uint8_t *table = data;
	memset(out, 0, sizeof(*out));
	if (len < 4) {
		snprintf(why, size, "%zu bytes, too few for even its header", len);
		return -EBADMSG;
	}
	unsigned declared = (unsigned)table[0] | (unsigned)table[1] << 8;
	out->format_revision = table[2];
	out->content_revision = table[3];
	const struct layout *l = find_layout(table[2], table[3]);
	if (!l) {
		snprintf(why, size, "version %u.%u, which this gpuperfd does not "
			 "know (it reads 1.0-1.6, 2.0-2.4 and 3.0): its values "
			 "are not shown rather than guessed", table[2], table[3]);
		return -EPROTONOSUPPORT;
	}
	if (declared < l->size || len < l->size) {
		snprintf(why, size, "version %u.%u cut short: %zu bytes read, "
			 "the header says %u, the version has %u", table[2],
			 table[3], len, declared, l->size);
		return -EBADMSG;
	}
	if (activity(table, l->gfx_activity, l->activity_scale, &out->gfx_activity))
		out->have |= GPD_GPU_METRICS_GFX_ACTIVITY;
	if (activity(table, l->memory_activity, l->activity_scale,
		   &out->memory_activity))
		out->have |= GPD_GPU_METRICS_MEMORY_ACTIVITY;
	out->n_media = l->n_media;
	for (unsigned i = 0; i < l->n_media; i++) {
		struct field f = { (uint16_t)(l->media_activity.offset + 2 * i), 2 };
		if (!activity(table, f, l->activity_scale,
			      &out->media_activity[i]))
			out->media_activity[i] = NAN;
	}
	if (scaled(table, l->gfx_clock, 1, &out->gfx_clock_mhz))
		out->have |= GPD_GPU_METRICS_GFX_CLOCK;
	if (scaled(table, l->memory_clock, 1, &out->memory_clock_mhz))
		out->have |= GPD_GPU_METRICS_MEMORY_CLOCK;
	if (scaled(table, l->temperature, l->temperature_scale,
		   &out->temperature_c))
		out->have |= GPD_GPU_METRICS_TEMPERATURE;
	if (scaled(table, l->power, l->power_scale, &out->power_w))
		out->have |= GPD_GPU_METRICS_POWER;
	if (field_value(table, l->energy, &out->energy_count)) {
		out->energy_unit_j = l->energy_unit_j;
		out->have |= GPD_GPU_METRICS_ENERGY;
	}
	return 0;
}
