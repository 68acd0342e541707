/*
 * The simulated SPM unit of `sim:amd`: an AMD GPU's streaming performance
 * monitor writing samples into a ring in memory exactly by the rules PAL
 * documents (struct SpmTraceLayout, palPerfExperiment.h), which
 * metrics/spm_ring.h decodes:
 *
 *   - the trace data holds the write pointer, a DWORD at wr_ptr_offset,
 *     and from sample_offset a ring of max_samples samples;
 *   - a sample is made of segments, the global one first, then one per
 *     shader engine, each of whole 32-byte lines of sixteen 16-bit slots;
 *     the global segment starts with the sample's 64-bit timestamp;
 *   - every counter is 32 bits, written as two 16-bit halves in
 *     consecutive slots of its instance's segment (offsetLo, offsetHi);
 *   - after each sample the write pointer says, in units of
 *     wr_ptr_granularity bytes from sample_offset, where the next one
 *     goes; the ring wraps and overwrites the oldest sample;
 *   - the ring's memory is not cleared, but the last slot's timestamp is
 *     zeroed before the trace starts, so that a reader can tell a ring
 *     that wrapped (non-zero there) from one that did not.
 *
 * A sample is taken every sample_interval shader clocks (at least 32, as
 * PAL requires) and holds each counter's count over that interval. The
 * shader clock is held at one frequency; the GPU timestamp runs at
 * another. What the counters count follows a workload of busy phases and
 * idle stretches (daemon/sim/workload.h) whose contexts differ in their
 * mix of ALU, texture and cache work, so values move.
 *
 * The counters are named as metrics/sim/oa-simamd.xml names them:
 * BLOCK[INSTANCE].EVENT with the block as PAL's GpuBlock enum names it.
 */
#ifndef GPD_SIM_SPM_UNIT_H
#define GPD_SIM_SPM_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/sim/workload.h"
#include "metrics/spm_ring.h"

#define GPD_SPM_SHADER_ENGINES 4
/* PAL: "SPM interval in clock cycles, must be at least 32". */
#define GPD_SPM_MIN_INTERVAL 32
/* A 32-bit counter counting at most 2 a clock cannot wrap in a sample. */
#define GPD_SPM_MAX_INTERVAL 0x7fffffffu
#define GPD_SPM_MAX_COUNTERS 64

enum gpd_spm_event {
	GPD_SPM_GRBM_COUNT,
	GPD_SPM_GRBM_GUI_ACTIVE,
	GPD_SPM_SQ_WAVES,
	GPD_SPM_SQ_INSTS_VALU,
	GPD_SPM_TA_BUSY,
	GPD_SPM_TCP_REQ,
	GPD_SPM_TCP_REQ_MISS,
	GPD_SPM_GL2C_HIT,
	GPD_SPM_GL2C_MISS,
};

struct gpd_spm_counter_id {
	enum gpd_spm_event event;
	unsigned instance;
};

/* "SQ[2].WAVES" as a counter of the unit; -ENOENT for a name it lacks
 * (why, of size bytes, says which it has). */
int gpd_spm_counter_parse(const char *name, struct gpd_spm_counter_id *out,
			  char *why, size_t size);

struct gpd_spm_unit_config {
	const struct gpd_spm_counter_id *counters;
	size_t n_counters;
	uint32_t sample_interval;       /* shader clocks */
	uint32_t max_samples;           /* slots in the ring */
	uint32_t wr_ptr_granularity;    /* bytes; a divisor of 32 */
	uint64_t shader_frequency;      /* Hz */
	uint64_t timestamp_frequency;   /* Hz, of the sample timestamps */
	uint64_t start_timestamp;       /* at clock 0; not 0 */
	uint64_t seed;
	double load;                    /* the workload's; 0: 1 */
};

struct gpd_spm_unit;

/* -EINVAL for an interval under 32 or over GPD_SPM_MAX_INTERVAL clocks,
 * no or too many counters, a granularity that does not divide a line, a
 * zero timestamp or frequency; -ENOMEM. */
int gpd_spm_unit_create(const struct gpd_spm_unit_config *cfg,
			struct gpd_spm_unit **out);

void gpd_spm_unit_destroy(struct gpd_spm_unit *unit);

/* Runs the unit clocks shader clocks further, writing the samples that
 * fall due. Samples that the ring would overwrite before this returns
 * are not computed, only counted: the ring ends as if they had been. */
void gpd_spm_unit_advance(struct gpd_spm_unit *unit, uint64_t clocks);

/* How to read the trace data: counter i of the config is counter i. */
const struct gpm_spm_layout *gpd_spm_unit_layout(const struct gpd_spm_unit *unit);

const uint8_t *gpd_spm_unit_data(const struct gpd_spm_unit *unit, size_t *len);

/* Samples taken since the start, written or overwritten. */
uint64_t gpd_spm_unit_samples(const struct gpd_spm_unit *unit);

/* The timestamp ticks one sample interval spans. */
uint64_t gpd_spm_unit_interval_ticks(const struct gpd_spm_unit *unit);

#endif
