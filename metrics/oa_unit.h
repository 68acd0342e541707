/*
 * Which OA unit a metric set counts on.
 *
 * A set of the OAG format counts on the OA unit of the render and compute
 * engines (OAG). A set in an MPEC format ("128B_MPEC8_NOA16") counts media
 * events through the MPES registers of one OAM unit of the media GT, and
 * its register configuration names which: the unit whose register block
 * it programs. The blocks sit at the media GT's 0x380000 offset:
 *
 *   0x393000  MTL's one OAM unit (i915 PERF_GROUP_OAM_SAMEDIA_0,
 *             mtl_oa_base[] in Linux 6.12 i915_perf.c; xe's OAM unit of
 *             the media GT), Xe2's SAG unit (xe DRM_XE_OA_UNIT_TYPE_OAM_SAG)
 *   0x394000  Xe2's SCMI_0 unit
 *   0x394800  Xe2's SCMI_1 unit (discrete parts)
 *
 * (Linux 7.0 xe_oa.c __xe_oa_init_oa_units() with XE_OAM_SAG_BASE,
 * XE_OAM_SCMI_0_BASE and XE_OAM_SCMI_1_BASE of regs/xe_oa_regs.h.) The
 * kernels take MPES registers on an OAG stream too, so a set opened on the
 * wrong unit gives garbage and no error: the unit has to be chosen here.
 */
#ifndef GPM_OA_UNIT_H
#define GPM_OA_UNIT_H

#include "metrics/metric_set.h"
#include "metrics/oa_format.h"

enum gpm_oa_unit_kind {
	GPM_OA_UNIT_OAG,
	GPM_OA_UNIT_OAM,
};

/* The OAM units of a media GT, in the order xe numbers them. */
enum gpm_oam_unit {
	GPM_OAM_SAG = 0,                /* MTL's SAMEDIA_0, Xe2's SAG */
	GPM_OAM_SCMI_0 = 1,
	GPM_OAM_SCMI_1 = 2,
};

struct gpm_oa_unit_need {
	enum gpm_oa_unit_kind kind;
	enum gpm_oam_unit oam;          /* for GPM_OA_UNIT_OAM */
	const struct gpm_oa_format *format;     /* the reports' layout */
};

/* The unit set counts on, on a GPU of graphics_version, and the format of
 * its reports. -ENOENT when gpuperfd knows no format for the set there. */
int gpm_oa_unit_for_set(const struct gpm_metric_set *set,
			unsigned graphics_version, struct gpm_oa_unit_need *out);

/* "OAG", "OAM SAG", "OAM SCMI_0", "OAM SCMI_1": for messages. */
const char *gpm_oa_unit_name(const struct gpm_oa_unit_need *need);

#endif
