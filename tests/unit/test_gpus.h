/*
 * The GPUs the metric suites describe: topologies built from their masks,
 * and the deltas of oa-reference.md §4.4's worked example (Tiger Lake GT2
 * RenderBasic), which the equation engine and the set bindings both
 * compute.
 */
#ifndef GPM_TEST_GPUS_H
#define GPM_TEST_GPUS_H

#include <stdint.h>
#include <string.h>

#include "metrics/accumulator.h"
#include "metrics/device.h"

/* max_slices x max_subslices x max_eus of which the slices of slice_mask
 * are present, each with the subslices of subslice_mask, each with the
 * EUs of eu_mask. */
static inline void make_topology(struct gpm_topology *t, unsigned max_slices,
				 unsigned max_subslices, unsigned max_eus,
				 uint8_t slice_mask, uint64_t subslice_mask,
				 uint16_t eu_mask)
{
	memset(t, 0, sizeof(*t));
	t->max_slices = (uint16_t)max_slices;
	t->max_subslices = (uint16_t)max_subslices;
	t->max_eus_per_subslice = (uint16_t)max_eus;
	t->slice_mask = slice_mask;
	for (unsigned s = 0; s < max_slices; s++) {
		if (!(slice_mask >> s & 1))
			continue;
		t->subslice_mask[s] = subslice_mask;
		for (unsigned ss = 0; ss < max_subslices; ss++)
			if (subslice_mask >> ss & 1)
				t->eu_mask[s][ss] = eu_mask;
	}
}

/* Every one of slices x subslices x eus present. */
static inline void make_full_topology(struct gpm_topology *t, unsigned slices,
				      unsigned subslices, unsigned eus)
{
	make_topology(t, slices, subslices, eus, (uint8_t)((1u << slices) - 1),
		      subslices >= 64 ? ~0ull : (1ull << subslices) - 1,
		      (uint16_t)((1u << eus) - 1));
}

/* Tiger Lake GT2: 1 slice, 6 dual subslices of 16 EUs, 96 in all. */
static inline void make_tgl_gt2_topology(struct gpm_topology *t)
{
	make_full_topology(t, 1, 6, 16);
}

/* §4.4's window on Tiger Lake GT2 (19.2 MHz timestamps): 1 ms of 1.3 M
 * GPU clocks, busy and EUs active for half of them, 256000 bytes read
 * through the GTI. */
static inline void fill_worked_example_deltas(struct gpm_accumulator *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->slot[GPM_ACC_GPU_TIME] = 19200;
	acc->slot[GPM_ACC_GPU_CLOCK] = 1300000;
	acc->slot[GPM_ACC_A + 0] = 650000;
	for (unsigned i = 7; i <= 10; i++)
		acc->slot[GPM_ACC_A + i] = 15600000;
	for (unsigned i = 2; i <= 5; i++)
		acc->slot[GPM_ACC_C + i] = 1000;
}

#endif
