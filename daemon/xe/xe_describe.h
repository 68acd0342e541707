/*
 * What an xe card is, asked of the kernel: device id and revision (the
 * CONFIG query), the GT's reference clock, the OA units and their
 * timestamp frequency, the topology of the main GT (GT_TOPOLOGY), and the
 * GPU frequency range from sysfs.
 */
#ifndef GPD_XE_DESCRIBE_H
#define GPD_XE_DESCRIBE_H

#include <stdint.h>

#include "daemon/error.h"
#include "metrics/device.h"
#include "metrics/platform.h"

struct gpd_xe_description {
	struct gpm_device_info info;
	const struct gpm_platform *platform;
	uint32_t oa_unit_id;            /* the OAG unit: render and compute */
	unsigned n_oa_units;
};

/* card names the card in messages. 0, or a negative code with err filled. */
int gpd_xe_describe(int fd, const char *card, const char *card_dir,
		    struct gpd_xe_description *out, struct gpd_error *err);

#endif
