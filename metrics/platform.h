/*
 * The GPU platforms the metric files are written for: one entry per
 * oa-<name>.xml chipset, with what the OA unit needs to know about it, and
 * the PCI device ids that select it.
 *
 * Which file serves which PCI id follows IGT and Mesa: Coffee Lake, Whiskey
 * Lake, Comet Lake and Amber Lake use the cfl/kbl files, Jasper Lake the
 * ehl file, Raptor Lake the adl file, DG2-G10/G11/G12 acmgt3/acmgt1/acmgt2,
 * and Meteor Lake and Arrow Lake mtlgt2 up to 64 EUs, mtlgt3 above. GT1
 * parts of Skylake to Comet Lake have no metric file and no entry.
 */
#ifndef GPM_PLATFORM_H
#define GPM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"

struct gpm_platform {
	const char *name;               /* "tglgt2": its file is oa-tglgt2.xml */
	const char *chipset;            /* "TGLGT2", the XML's chipset */
	const char *description;        /* "Tiger Lake GT2" */
	uint16_t graphics_version;      /* IP version x 100: 1200, 1255 */
	uint8_t eu_threads_count;       /* hardware threads per EU */
	/* The report format the OA unit writes for periodic sampling. */
	const char *oa_format;          /* "A32u40_A4u32_B8_C8" */
	uint16_t oa_report_size;        /* bytes */
	uint8_t i915_oa_format;         /* enum drm_i915_oa_format; 0: none */
	uint32_t xe_oa_format;          /* xe OA_FORMAT property; 0: none */
	/* A typical part, for evaluating definitions offline (see
	 * gpm_platform_default_device); a real device replaces all of it. */
	uint32_t default_pci_id;
	uint8_t slices;
	uint8_t subslices_per_slice;    /* subslices, dual-subslices, Xe cores */
	uint8_t eus_per_subslice;
	uint32_t timestamp_frequency;   /* Hz of the OA unit's timestamp */
	/* Hz of the command streamer's: lower where the OA unit ignores
	 * CTC_SHIFT (DG2, MTL, PVC), here with the usual CTC_SHIFT of 2. */
	uint32_t cs_timestamp_frequency;
	uint16_t min_freq_mhz;
	uint16_t max_freq_mhz;
	uint16_t l3_bank_count;         /* 0 where unknown */
};

size_t gpm_platform_count(void);

/* The i-th platform, in table order (oldest first); NULL past the end. */
const struct gpm_platform *gpm_platform_get(size_t i);

/* By name ("tglgt2") or chipset ("TGLGT2"); NULL if none. */
const struct gpm_platform *gpm_platform_by_name(const char *name);

/*
 * The platform of a PCI device id. eu_count is the device's EU count, which
 * only Meteor Lake and Arrow Lake ids need (pass 0 when unknown). Returns 0
 * with *out set; -ENOENT for ids without a metric file; -ENODATA for an id
 * that needs eu_count when it is 0.
 */
int gpm_platform_by_pci_id(uint32_t pci_id, unsigned eu_count,
			   const struct gpm_platform **out);

/*
 * Describes the platform's typical part: all slices, subslices and EUs of
 * the table's configuration present, revision 0, the table's clocks. Good
 * for showing what an equation gives; never a substitute for querying the
 * device.
 */
void gpm_platform_default_device(const struct gpm_platform *platform,
				 struct gpm_device_info *dev);

#endif
