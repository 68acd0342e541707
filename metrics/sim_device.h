/*
 * SIMGEN12, the virtual GPU of the `sim` source: its identity, clocks and
 * topology. metrics/sim/README.md describes the device and its raw
 * counters; metrics/sim/oa-simgen12.xml its metric sets.
 */
#ifndef GPM_SIM_DEVICE_H
#define GPM_SIM_DEVICE_H

#include "device.h"

/* The virtual GPU's own PCI device id, not a real Intel id: no entry of
 * the kernel's Intel PCI id list (include/drm/intel/pciids.h) uses it, so
 * the virtual GPU cannot be mistaken for real hardware. */
#define GPM_SIM_PCI_ID 0x5f00

/* Fills out with the virtual GPU's description. */
void gpm_sim_device_info(struct gpm_device_info *out);

#endif
