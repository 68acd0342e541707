/*
 * The sim:amd source: the simulated SPM unit (spm_unit.h) of a simulated
 * AMD GPU, read by the daemon as a reader of a real SPM ring would.
 *
 * A stream of a metric set plans the set's raw counters onto the unit
 * (their names, BLOCK[INSTANCE].EVENT, are the unit's), runs it with a
 * sample interval of the stream's period in shader clocks, and every
 * 5 ms advances it by the time that passed and reads the samples written
 * since the last read with the SPM decoder (gpm_spm_read_new). Each
 * sample's counts are added to 64-bit running totals and written as an
 * NVPM32u64 report stamped with the sample's timestamp, framed as an i915
 * SAMPLE record, so that everything above the source treats them as it
 * treats OA reports. The first report after a start or a loss gets a
 * report one interval before it, with the totals unchanged, so its own
 * counts count.
 *
 * Loss is OA loss: when the unit went round the ring past the reader, or
 * a sample is missing between two read (their timestamps are more than
 * an interval apart), a BUFFER_LOST record comes first.
 */
#ifndef GPD_SIM_SPM_SOURCE_H
#define GPD_SIM_SPM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/source.h"
#include "metrics/metrics_db.h"

#define GPD_SIM_AMD_PLATFORM "simamd"

struct gpd_spm_source_options {
	uint64_t seed;
	unsigned index;                 /* names it sim<index> */
	double load;                    /* the workload's load factor; 0: 1 */
};

/* Adds the simulated AMD GPU's built-in definitions to db unless a file
 * of its platform is there. */
int gpd_spm_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			  const struct gpd_spm_source_options *opts,
			  struct gpd_source **out, struct gpd_error *err);

#endif
