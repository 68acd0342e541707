/*
 * The description of SIMGEN12, the virtual GPU of the `sim` source: a
 * Gen12-class part shaped like a full Tiger Lake GT2 (1 slice, 6
 * dual-subslices of 16 EUs) so that the equations see a familiar device.
 */
#include <string.h>

#include "metrics/sim_device.h"

void gpm_sim_device_info(struct gpm_device_info *out)
{
	struct gpm_topology *t = &out->topology;

	memset(out, 0, sizeof(*out));
	out->pci_id = GPM_SIM_PCI_ID;
	out->revision = 0;
	out->graphics_version = 1200;
	out->eu_threads_count = 7;
	out->timestamp_frequency = 19200000;
	out->cs_timestamp_frequency = 19200000;
	out->gpu_min_freq = 300000000;
	out->gpu_max_freq = 1300000000;

	t->max_slices = 1;
	t->max_subslices = 6;
	t->max_eus_per_subslice = 16;
	t->slice_mask = 0x1;
	t->subslice_mask[0] = 0x3f;
	for (unsigned ss = 0; ss < 6; ss++)
		t->eu_mask[0][ss] = 0xffff;

	/* The raw L3 counters are bounded per bank (metrics/sim/README.md).
	 * The render engine also runs compute, so there is no compute
	 * engine to count, and the other xe-era units stay unknown. */
	out->l3_bank_count = 8;
}
