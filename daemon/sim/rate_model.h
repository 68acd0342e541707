/*
 * How fast each raw counter of the simulated OA unit counts, derived from
 * the metric set's equations rather than tuned by hand.
 *
 * A raw counter (an accumulator slot: A n, B n, C n) counts at a rate per
 * GPU core clock, scaled by the utilization. The rates are fitted once per
 * configuration so that every counter of the set stays within [0, max] at
 * any load: starting high, each counter that breaks its bound at one of a
 * few operating points (full load at the maximum and the minimum
 * frequency, light load) has the raw counters it reads scaled down, those
 * that push it up when it exceeds its max (a ratio's numerator, not its
 * denominator), those that pull it down when it goes negative or wraps (a
 * difference's subtrahend). Raw counters no bound constrains get a moderate
 * rate. Each context has its own rates: a mix drawn from the seed, fitted
 * again.
 *
 * A constraint between two raw counters (A/B <= k, A - B >= 0) must hold
 * in every report pair, however few clocks it spans, not just on average.
 * So increments are rounded down, never carried (a carry can tip a small
 * pair over), and a raw counter that a bound relates to others (its
 * parents) is also capped by each parent's rounded increment times the
 * ratio of their rates: if A <= 2 B holds for the rates,
 * min(floor(r_A x), floor(r_A / r_B * inc_B)) <= 2 inc_B holds in every
 * pair. A parent at rate 0 stops its children, which keeps a bound that
 * divides by the parent from being broken when contexts mix in a window.
 */
#ifndef GPD_SIM_RATE_MODEL_H
#define GPD_SIM_RATE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/sim/workload.h"
#include "metrics/accumulator.h"
#include "metrics/device.h"
#include "metrics/metric_set.h"
#include "metrics/oa_format.h"

/* Room for the parent relations of one set: on Intel's files a raw
 * counter has a handful at most. */
#define GPD_RATE_MODEL_MAX_TIES (4 * GPM_ACC_SLOTS)

struct gpd_rate_model {
	/* The raw counters the format carries, GPU_CLOCK excepted (the
	 * model derives it from the frequency), in computation order:
	 * every counter after its parents. */
	size_t n_slots;
	uint16_t slot[GPM_ACC_SLOTS];           /* accumulator slot */
	/* Slot i's parents are tie_parent[tie_start[i] .. + n_ties[i]),
	 * indices into slot[]. */
	uint16_t tie_start[GPM_ACC_SLOTS];
	uint16_t n_ties[GPM_ACC_SLOTS];
	size_t n_tie_entries;
	uint16_t tie_parent[GPD_RATE_MODEL_MAX_TIES];
	/* The slots with parents, in computation order. */
	size_t n_tied;
	uint16_t tied[GPM_ACC_SLOTS];
	unsigned n_contexts;
	/* Per context: counts per GPU clock at utilization 1 per slot, and
	 * per tie the ratio of the child's rate to the parent's (0 when the
	 * parent's is 0). */
	double rate[GPD_WORKLOAD_MAX_CONTEXTS][GPM_ACC_SLOTS];
	double tie_ratio[GPD_WORKLOAD_MAX_CONTEXTS][GPD_RATE_MODEL_MAX_TIES];
};

struct gpd_rate_model_params {
	const struct gpm_device_info *dev;
	const struct gpm_oa_format *format;
	/* The configured set; NULL fits nothing and gives every raw counter
	 * a moderate rate. */
	const struct gpm_metric_set *set;
	unsigned n_contexts;                    /* 1..GPD_WORKLOAD_MAX_CONTEXTS */
	uint64_t seed;
};

/* Fits rm. -EINVAL for bad parameters, -ENOMEM. */
int gpd_rate_model_fit(struct gpd_rate_model *rm,
		       const struct gpd_rate_model_params *params);

/*
 * The increments of every raw counter over a stretch of `clocks` GPU
 * clocks at the given utilization, run by context ctx: inc[i] for
 * rm->slot[i]. Never above rate x utilization x clocks.
 */
void gpd_rate_model_increments(const struct gpd_rate_model *rm, unsigned ctx,
			       double utilization, uint64_t clocks, uint64_t *inc);

#endif
