/*
 * Which OA unit a metric set counts on; see oa_unit.h.
 */
#include <errno.h>

#include "metrics/oa_unit.h"

/* The OAM register blocks, on the media GT's 0x380000 offset. */
#define OAM_SAG_BASE 0x393000u
#define OAM_SCMI_0_BASE 0x394000u
#define OAM_SCMI_1_BASE 0x394800u
#define OAM_BLOCK_SIZE 0x800u

static bool in_block(uint32_t address, uint32_t base)
{
	return address >= base && address < base + OAM_BLOCK_SIZE;
}

/* The OAM unit whose block the set's registers program; the first unit
 * when they name none (a set that only selects signals). */
static enum gpm_oam_unit oam_of(const struct gpm_metric_set *set)
{
	for (size_t c = 0; c < set->n_register_configs; c++) {
		const struct gpm_register_config *rc = &set->register_configs[c];
		for (size_t r = 0; r < rc->n_registers; r++) {
			uint32_t a = rc->registers[r].address;
			if (in_block(a, OAM_SCMI_0_BASE))
				return GPM_OAM_SCMI_0;
			if (in_block(a, OAM_SCMI_1_BASE))
				return GPM_OAM_SCMI_1;
			if (in_block(a, OAM_SAG_BASE))
				return GPM_OAM_SAG;
		}
	}
	return GPM_OAM_SAG;
}

int gpm_oa_unit_for_set(const struct gpm_metric_set *set,
			unsigned graphics_version, struct gpm_oa_unit_need *out)
{
	int ret = gpm_oa_format_for_set(graphics_version, set->oa_format,
					&out->format);
	if (ret)
		return ret;
	bool mpec = out->format->id == GPM_OA_FORMAT_MPEC8u32_B8_C8 ||
		    out->format->id == GPM_OA_FORMAT_MPEC8u64_B8_C8;
	out->kind = mpec ? GPM_OA_UNIT_OAM : GPM_OA_UNIT_OAG;
	out->oam = mpec ? oam_of(set) : GPM_OAM_SAG;
	return 0;
}

const char *gpm_oa_unit_name(const struct gpm_oa_unit_need *need)
{
	if (need->kind == GPM_OA_UNIT_OAG)
		return "OAG";
	switch (need->oam) {
	case GPM_OAM_SCMI_0:
		return "OAM SCMI_0";
	case GPM_OAM_SCMI_1:
		return "OAM SCMI_1";
	default:
		return "OAM SAG";
	}
}
