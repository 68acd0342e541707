/*
 * What an xe card is, asked of the kernel: device id and revision (the
 * CONFIG query), the GT's reference clock, the OA units and their
 * timestamp frequency, the topology of the main GT (GT_TOPOLOGY: its DSS,
 * EUs and L3 banks), and the GPU frequency range from sysfs.
 */
#ifndef GPD_XE_DESCRIBE_H
#define GPD_XE_DESCRIBE_H

#include <stdint.h>

#include "daemon/error.h"
#include "metrics/device.h"
#include "metrics/platform.h"

#define GPD_XE_MAX_OA_UNITS 8

/* An OA unit as DRM_XE_DEVICE_QUERY_OA_UNITS lists it. */
struct gpd_xe_oa_unit {
	uint32_t id;
	uint32_t type;                  /* DRM_XE_OA_UNIT_TYPE_* */
	uint64_t timestamp_frequency;   /* Hz, xe_oa_timestamp_frequency() */
};

struct gpd_xe_description {
	struct gpm_device_info info;
	const struct gpm_platform *platform;
	uint32_t oa_unit_id;            /* the OAG unit: render and compute */
	/* Every unit, in the kernel's order: OAG first, then the media GT's
	 * (MTL's OAM; Xe2's OAM_SAG, SCMI_0 and on discrete parts SCMI_1). */
	unsigned n_oa_units;
	struct gpd_xe_oa_unit oa_units[GPD_XE_MAX_OA_UNITS];
};

/* card names the card in messages. 0, or a negative code with err filled. */
int gpd_xe_describe(int fd, const char *card, const char *card_dir,
		    struct gpd_xe_description *out, struct gpd_error *err);

#endif
