/*
 * The OA report format table (see oa_format.h).
 *
 * Layouts follow the kernel's format list and the accumulation code of IGT
 * (lib/i915/perf.c) and Mesa (intel_perf.c); the counter indices are the
 * ones their generated metric code reads, so equations from the metric XML
 * find their counters in the slots given here.
 */
#include "metrics/oa_format.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "metrics/accumulator.h"

#define U32(slot_, off_, n_) \
	{ .slot = (slot_), .offset = (off_), .count = (n_), .width = 32 }
#define U40(slot_, off_, high_, n_) \
	{ .slot = (slot_), .offset = (off_), .high_offset = (high_), .count = (n_), .width = 40 }
#define U64(slot_, off_, n_) \
	{ .slot = (slot_), .offset = (off_), .count = (n_), .width = 64 }

#define A(i) (GPM_ACC_A + (i))
#define B(i) (GPM_ACC_B + (i))
#define C(i) (GPM_ACC_C + (i))

#define HEADER_32 .header_bits = 32, .ts_offset = 4, .ctx_offset = 8
#define HEADER_64 .header_bits = 64, .ts_offset = 8, .ctx_offset = 16

/* Gen8 .. Gen12.0: 32 counters of 40 bits whose high bytes fill dwords
 * 40..47, then four 32-bit ones. The OAR variant is the same report read
 * from the per-context counters. */
#define A32u40_A4u32_B8_C8_GROUPS                                       \
	.n_groups = 5,                                                  \
	.group = {                                                      \
		U32(GPM_ACC_GPU_CLOCK, 12, 1),                          \
		U40(A(0), 16, 160, 32),                                 \
		U32(A(32), 144, 4),                                     \
		U32(B(0), 192, 8),                                      \
		U32(C(0), 224, 8),                                      \
	}

static const struct gpm_oa_format formats[GPM_OA_FORMAT_COUNT] = {
	[GPM_OA_FORMAT_A45_B8_C8] = {
		.id = GPM_OA_FORMAT_A45_B8_C8,
		.name = "A45_B8_C8",
		.i915_format = 5,
		.size = 256,
		/* HSW writes no GPU tick count: dword3 is already A0. */
		HEADER_32,
		.n_groups = 3,
		.group = {
			U32(A(0), 12, 45),
			U32(B(0), 192, 8),
			U32(C(0), 224, 8),
		},
	},
	[GPM_OA_FORMAT_A32u40_A4u32_B8_C8] = {
		.id = GPM_OA_FORMAT_A32u40_A4u32_B8_C8,
		.name = "A32u40_A4u32_B8_C8",
		.i915_format = 10,
		.size = 256,
		HEADER_32,
		A32u40_A4u32_B8_C8_GROUPS,
	},
	[GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8] = {
		.id = GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8,
		.name = "OAR_A32u40_A4u32_B8_C8",
		.i915_format = 11,
		.size = 256,
		HEADER_32,
		A32u40_A4u32_B8_C8_GROUPS,
	},
	[GPM_OA_FORMAT_A24u40_A14u32_B8_C8] = {
		.id = GPM_OA_FORMAT_A24u40_A14u32_B8_C8,
		.name = "A24u40_A14u32_B8_C8",
		.i915_format = 12,
		.size = 256,
		HEADER_32,
		/* DG2 narrowed A0..A3 and A24..A27 to 32 bits and put the two
		 * extra counters A36 and A37 into the high-byte slots those
		 * freed (dwords 40 and 46). */
		.n_groups = 9,
		.group = {
			U32(GPM_ACC_GPU_CLOCK, 12, 1),
			U32(A(0), 16, 4),
			U40(A(4), 32, 164, 20),
			U32(A(24), 112, 4),
			U40(A(28), 128, 188, 4),
			U32(A(32), 144, 5),
			U32(A(37), 184, 1),
			U32(B(0), 192, 8),
			U32(C(0), 224, 8),
		},
	},
	[GPM_OA_FORMAT_MPEC8u64_B8_C8] = {
		.id = GPM_OA_FORMAT_MPEC8u64_B8_C8,
		.name = "MPEC8u64_B8_C8",
		.i915_format = 13,
		.size = 192,
		HEADER_64,
		/* The media sets (oa_format 128B_MPEC8_NOA16) read their eight
		 * MPEC counters as `A 0 READ` .. `A 7 READ`. */
		.n_groups = 4,
		.group = {
			U64(GPM_ACC_GPU_CLOCK, 24, 1),
			U64(A(0), 32, 8),
			U32(B(0), 96, 8),
			U32(C(0), 128, 8),
		},
	},
	[GPM_OA_FORMAT_MPEC8u32_B8_C8] = {
		.id = GPM_OA_FORMAT_MPEC8u32_B8_C8,
		.name = "MPEC8u32_B8_C8",
		.i915_format = 14,
		.size = 128,
		HEADER_64,
		.n_groups = 4,
		.group = {
			U64(GPM_ACC_GPU_CLOCK, 24, 1),
			U32(A(0), 32, 8),
			U32(B(0), 64, 8),
			U32(C(0), 96, 8),
		},
	},
	[GPM_OA_FORMAT_PEC64u64] = {
		.id = GPM_OA_FORMAT_PEC64u64,
		.name = "PEC64u64",
		.i915_format = 0,
		.size = 576,
		HEADER_64,
		/* Bytes 544..575 follow the last PEC and are read by nobody. */
		.n_groups = 2,
		.group = {
			U64(GPM_ACC_GPU_CLOCK, 24, 1),
			U64(GPM_ACC_PEC, 32, 64),
		},
	},
	[GPM_OA_FORMAT_NVPM32u64] = {
		.id = GPM_OA_FORMAT_NVPM32u64,
		.name = "NVPM32u64",
		.i915_format = 0,
		.size = 288,
		HEADER_64,
		.synthetic = true,
		/* The NVIDIA source's own report (daemon/nvidia): CUPTI PM
		 * samples summed into running 64-bit totals, so consecutive
		 * reports give a sample's counts as plain u64 deltas. The
		 * metric file names the raw counter behind each slot. */
		.n_groups = 2,
		.group = {
			U64(GPM_ACC_GPU_CLOCK, 24, 1),
			U64(GPM_ACC_PEC, 32, 32),
		},
	},
};

int gpm_oa_format_get(enum gpm_oa_format_id id, const struct gpm_oa_format **out)
{
	if ((unsigned)id >= GPM_OA_FORMAT_COUNT)
		return -EINVAL;
	*out = &formats[id];
	return 0;
}

int gpm_oa_format_from_i915(uint32_t i915_format, const struct gpm_oa_format **out)
{
	for (size_t i = 0; i < GPM_OA_FORMAT_COUNT; i++) {
		if (formats[i].i915_format && formats[i].i915_format == i915_format) {
			*out = &formats[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* The general-purpose (OAG) format of each generation: what metric sets
 * without an `oa_format` attribute, or with the 256-byte one, read. */
static const struct {
	unsigned min_version, max_version;
	enum gpm_oa_format_id oag;
	bool has_256b;                  /* the OAG report is the 256-byte one */
} generations[] = {
	{ 700, 799, GPM_OA_FORMAT_A45_B8_C8, true },
	{ 800, 1254, GPM_OA_FORMAT_A32u40_A4u32_B8_C8, true },
	{ 1255, 1999, GPM_OA_FORMAT_A24u40_A14u32_B8_C8, true },
	{ 2000, 0xffff, GPM_OA_FORMAT_PEC64u64, false },
};

enum { SET_FORMAT_GENERIC_256B = -1 };

static const struct {
	const char *xml_name;
	int format;                     /* gpm_oa_format_id or SET_FORMAT_GENERIC_256B */
} set_formats[] = {
	{ "256B_GENERIC_NOA16", SET_FORMAT_GENERIC_256B },
	{ "128B_MPEC8_NOA16", GPM_OA_FORMAT_MPEC8u32_B8_C8 },
	{ "576B_PEC64LL", GPM_OA_FORMAT_PEC64u64 },
};

int gpm_oa_format_for_set(unsigned graphics_version, const char *xml_oa_format,
			  const struct gpm_oa_format **out)
{
	size_t g;

	for (g = 0; g < sizeof(generations) / sizeof(generations[0]); g++) {
		if (graphics_version >= generations[g].min_version &&
		    graphics_version <= generations[g].max_version)
			break;
	}
	if (g == sizeof(generations) / sizeof(generations[0]))
		return -ENOENT;

	if (!xml_oa_format)
		return gpm_oa_format_get(generations[g].oag, out);

	for (size_t i = 0; i < sizeof(set_formats) / sizeof(set_formats[0]); i++) {
		if (strcmp(set_formats[i].xml_name, xml_oa_format))
			continue;
		if (set_formats[i].format != SET_FORMAT_GENERIC_256B)
			return gpm_oa_format_get((enum gpm_oa_format_id)set_formats[i].format, out);
		if (!generations[g].has_256b)
			return -ENOENT;
		return gpm_oa_format_get(generations[g].oag, out);
	}
	return -ENOENT;
}
