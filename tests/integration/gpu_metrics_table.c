/*
 * gpu-metrics-table: writes an amdgpu gpu_metrics table, as the kernel
 * lays it out (tests/unit/gpu_metrics_tables.h), to standard output, for
 * the fake sysfs trees of the tests.
 *
 *   gpu-metrics-table VERSION [FIELD=VALUE]...
 *
 * VERSION: 1.0 .. 1.6, 2.0 .. 2.4, 3.0; or any F.C to write a bare header
 * of that version (and SIZE bytes with size=SIZE). FIELDs, in the table's
 * own units: gfx, memory, media (vcn0..vcn3 from 1.4), temperature,
 * power, energy, gfxclk, uclk. Fields not given stay unfilled (all ones),
 * as the firmware leaves them. cut=N writes only the first N bytes.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/gpu_metrics_tables.h"

struct values {
	long gfx, memory, media[4], temperature, power, gfxclk, uclk;
	unsigned long long energy;
	long size, cut;
};

#define SET(field, value) do { if ((value) >= 0) (field) = (value); } while (0)

#define FILL_V1(t, v) do { \
	SET((t).gfx_activity, (v)->gfx); \
	SET((t).umc_activity, (v)->memory); \
	SET((t).mm_activity, (v)->media[0]); \
	SET((t).temperature_edge, (v)->temperature); \
	SET((t).socket_power, (v)->power); \
	SET((t).average_gfxclk, (v)->gfxclk); \
	SET((t).average_uclk, (v)->uclk); \
} while (0)

#define FILL_V1_4(t, v) do { \
	SET((t).gfx_activity, (v)->gfx); \
	SET((t).umc_activity, (v)->memory); \
	for (int i = 0; i < 4; i++) \
		SET((t).vcn_activity[i], (v)->media[i]); \
	SET((t).temperature_hotspot, (v)->temperature); \
	SET((t).socket_power, (v)->power); \
	if ((v)->energy != ~0ull) \
		(t).energy_accumulator = (v)->energy; \
	SET((t).current_gfxclk[0], (v)->gfxclk); \
	SET((t).current_uclk, (v)->uclk); \
} while (0)

#define FILL_V2(t, v) do { \
	SET((t).gfx_activity, (v)->gfx); \
	SET((t).mm_activity, (v)->media[0]); \
	SET((t).temperature_gfx, (v)->temperature); \
	SET((t).socket_power, (v)->power); \
	SET((t).average_gfxclk, (v)->gfxclk); \
	SET((t).average_uclk, (v)->uclk); \
} while (0)

#define EMIT(type, format, content, fill) do { \
	struct type t; \
	gpu_metrics_table_init(&t, format, content); \
	fill(t, v); \
	emit(&t, sizeof(t), v); \
	return 0; \
} while (0)

static void emit(const void *table, size_t size, const struct values *v)
{
	if (v->cut >= 0 && (size_t)v->cut < size)
		size = (size_t)v->cut;
	fwrite(table, 1, size, stdout);
}

#define FILL_V3(t, v) do { \
	SET((t).gfx_activity, (v)->gfx); \
	SET((t).vcn_activity, (v)->media[0]); \
	SET((t).temperature_gfx, (v)->temperature); \
	SET((t).socket_power, (v)->power); \
	SET((t).average_gfxclk, (v)->gfxclk); \
	SET((t).average_uclk, (v)->uclk); \
} while (0)

static int write_table(unsigned format, unsigned content, const struct values *v)
{
	switch (format * 100 + content) {
	case 100: EMIT(gm_v1_0, 1, 0, FILL_V1);
	case 101: EMIT(gm_v1_1, 1, 1, FILL_V1);
	case 102: EMIT(gm_v1_2, 1, 2, FILL_V1);
	case 103: EMIT(gm_v1_3, 1, 3, FILL_V1);
	case 104: EMIT(gm_v1_4, 1, 4, FILL_V1_4);
	case 105: EMIT(gm_v1_5, 1, 5, FILL_V1_4);
	case 106: EMIT(gm_v1_6, 1, 6, FILL_V1_4);
	case 200: EMIT(gm_v2_0, 2, 0, FILL_V2);
	case 201: EMIT(gm_v2_1, 2, 1, FILL_V2);
	case 202: EMIT(gm_v2_2, 2, 2, FILL_V2);
	case 203: EMIT(gm_v2_3, 2, 3, FILL_V2);
	case 204: EMIT(gm_v2_4, 2, 4, FILL_V2);
	case 300: EMIT(gm_v3_0, 3, 0, FILL_V3);
	}
	/* A version of no known layout: its header, then zeros. */
	unsigned char bare[4096] = { 0 };
	size_t size = v->size > 4 && v->size <= 4096 ? (size_t)v->size : 512;
	bare[0] = size & 0xff;
	bare[1] = (unsigned char)(size >> 8);
	bare[2] = (unsigned char)format;
	bare[3] = (unsigned char)content;
	emit(bare, size, v);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned format, content;
	if (argc < 2 || sscanf(argv[1], "%u.%u", &format, &content) != 2) {
		fprintf(stderr, "usage: gpu-metrics-table F.C [FIELD=VALUE]...\n");
		return 2;
	}
	struct values v = { .gfx = -1, .memory = -1, .media = { -1, -1, -1, -1 },
			    .temperature = -1, .power = -1, .gfxclk = -1,
			    .uclk = -1, .energy = ~0ull, .size = -1, .cut = -1 };
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {
		{ "gfx", offsetof(struct values, gfx) },
		{ "memory", offsetof(struct values, memory) },
		{ "media", offsetof(struct values, media[0]) },
		{ "vcn0", offsetof(struct values, media[0]) },
		{ "vcn1", offsetof(struct values, media[1]) },
		{ "vcn2", offsetof(struct values, media[2]) },
		{ "vcn3", offsetof(struct values, media[3]) },
		{ "temperature", offsetof(struct values, temperature) },
		{ "power", offsetof(struct values, power) },
		{ "gfxclk", offsetof(struct values, gfxclk) },
		{ "uclk", offsetof(struct values, uclk) },
		{ "size", offsetof(struct values, size) },
		{ "cut", offsetof(struct values, cut) },
	};
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "gpu-metrics-table: %s is not FIELD=VALUE\n",
				argv[i]);
			return 2;
		}
		*eq = '\0';
		if (!strcmp(argv[i], "energy")) {
			v.energy = strtoull(eq + 1, NULL, 0);
			continue;
		}
		size_t f = 0;
		while (f < sizeof(fields) / sizeof(fields[0]) &&
		       strcmp(fields[f].name, argv[i]))
			f++;
		if (f == sizeof(fields) / sizeof(fields[0])) {
			fprintf(stderr, "gpu-metrics-table: no field %s\n", argv[i]);
			return 2;
		}
		*(long *)((char *)&v + fields[f].offset) = strtol(eq + 1, NULL, 0);
	}
	return write_table(format, content, &v);
}
