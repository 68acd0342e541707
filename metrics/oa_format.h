/*
 * OA report formats: where every field of a raw report sits, as data.
 *
 * One table row per format. A row gives the report size, the header layout
 * and the counter groups; the decoder, the encoder and the delta code walk
 * the groups and never switch on the format, so a new format is a new row.
 * Counters land in the canonical accumulator layout (accumulator.h), the
 * slots the metric XML's `A n READ`, `PEC n READ`... equations read.
 */
#ifndef GPM_OA_FORMAT_H
#define GPM_OA_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

enum gpm_oa_format_id {
	GPM_OA_FORMAT_A45_B8_C8,                /* HSW */
	GPM_OA_FORMAT_A32u40_A4u32_B8_C8,       /* Gen8 .. Gen12.0 OAG */
	GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8,   /* DG2/MTL per-context OAR */
	GPM_OA_FORMAT_A24u40_A14u32_B8_C8,      /* DG2/MTL OAG */
	GPM_OA_FORMAT_MPEC8u64_B8_C8,           /* MTL media OAM */
	GPM_OA_FORMAT_MPEC8u32_B8_C8,           /* MTL and later media OAM */
	GPM_OA_FORMAT_PEC64u64,                 /* Xe2 and later OAG */
	GPM_OA_FORMAT_NVPM32u64,                /* NVIDIA PM sampling, built by its source */
	GPM_OA_FORMAT_COUNT,
};

/*
 * A run of counters of one width, next to each other in the report and in
 * consecutive accumulator slots. Counter i of the group sits at
 * offset + i * 4 (32 and 40 bits) or offset + i * 8 (64 bits); a 40-bit
 * counter keeps its bits 32..39 in the byte at high_offset + i.
 */
struct gpm_oa_counter_group {
	uint16_t slot;          /* accumulator slot of the group's first counter */
	uint16_t offset;        /* byte offset of the first counter (low 32 bits) */
	uint16_t high_offset;   /* 40-bit groups: byte offset of the first high byte */
	uint8_t count;
	uint8_t width;          /* 32, 40 or 64 */
};

/* The most groups a format has: DG2's interleaved 32/40-bit A counters. */
#define GPM_OA_MAX_GROUPS 10

/* The largest report of any format, bytes. */
#define GPM_OA_MAX_REPORT_SIZE 576

struct gpm_oa_format {
	enum gpm_oa_format_id id;
	const char *name;               /* the kernel's name, e.g. "A32u40_A4u32_B8_C8" */
	uint32_t i915_format;           /* enum drm_i915_oa_format; 0 where i915 has none */
	uint16_t size;                  /* report bytes */
	/* Header: 32-bit reports put id, timestamp, context and GPU ticks in
	 * dwords 0..3; 64-bit-header reports use qwords 0, 1, dword 4 and
	 * qword 3. GPU ticks are counter group GPM_ACC_GPU_CLOCK, absent on
	 * HSW. */
	uint8_t header_bits;            /* 32 or 64: width of report id and timestamp */
	/* Reports a source builds itself rather than reads from an OA unit:
	 * the header words hold exactly what was written, with no reason or
	 * context-valid bits and no timestamp quirks, on any device. */
	bool synthetic;
	uint8_t ts_offset;
	uint8_t ctx_offset;
	uint8_t n_groups;
	struct gpm_oa_counter_group group[GPM_OA_MAX_GROUPS];
};

/* The row of format id; -EINVAL for an id out of range. */
int gpm_oa_format_get(enum gpm_oa_format_id id, const struct gpm_oa_format **out);

/* The row for an i915 OA_FORMAT property value; -ENOENT if none. */
int gpm_oa_format_from_i915(uint32_t i915_format, const struct gpm_oa_format **out);

/*
 * The format a metric set of a device reads, from the set's `oa_format`
 * XML attribute (NULL when the set has none) and the device's graphics IP
 * version times 100 (as in struct gpm_device_info). -ENOENT for an unknown
 * attribute or a device without OA.
 */
int gpm_oa_format_for_set(unsigned graphics_version, const char *xml_oa_format,
			  const struct gpm_oa_format **out);

#endif
