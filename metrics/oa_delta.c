/*
 * Report-pair deltas into an accumulator (see oa_delta.h).
 */
#include "metrics/oa_delta.h"

void gpm_oa_delta_add(const struct gpm_oa_decoder *dec,
		      const struct gpm_oa_report *start,
		      const struct gpm_oa_report *end,
		      struct gpm_accumulator *acc)
{
	const struct gpm_oa_format *fmt = dec->format;
	uint64_t ts0 = start->value[GPM_ACC_GPU_TIME];
	uint64_t ts1 = end->value[GPM_ACC_GPU_TIME];
	uint64_t ts = fmt->header_bits == 32 ? gpm_oa_delta_u32(ts0, ts1)
					     : gpm_oa_delta_u64(ts0, ts1);

	acc->slot[GPM_ACC_GPU_TIME] += ts >> dec->ts_shift;

	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];
		const uint64_t *v0 = start->value + grp->slot;
		const uint64_t *v1 = end->value + grp->slot;
		uint64_t *sum = acc->slot + grp->slot;

		switch (grp->width) {
		case 32:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u32(v0[i], v1[i]);
			break;
		case 40:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u40(v0[i], v1[i]);
			break;
		default:
			for (unsigned i = 0; i < grp->count; i++)
				sum[i] += gpm_oa_delta_u64(v0[i], v1[i]);
			break;
		}
	}
}
