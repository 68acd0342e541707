/*
 * What the simulated GPU is busy with: a deterministic workload.
 *
 * The workload alternates busy phases and idle (RC6) stretches. In a busy
 * phase the utilization moves smoothly (a linear ramp) from where it was to
 * the phase's level, the core clock follows it between the GPU's minimum
 * and maximum frequency in the hardware's 50/3 MHz steps, and a few
 * hardware contexts take turns on the engine. While idle the core clock is
 * stopped; the timestamp keeps running.
 *
 * Time is the OA timestamp, in ticks since the workload started; the
 * workload has no clock of its own. Its owner asks when the next discrete
 * change happens, advances to it, and in between reads a constant context,
 * power state and frequency and a linearly moving utilization. Everything
 * follows from the seed.
 */
#ifndef GPD_SIM_WORKLOAD_H
#define GPD_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sim/prng.h"

#define GPD_WORKLOAD_MAX_CONTEXTS 8
/* The heaviest load factor: past it every phase runs flat out anyway. */
#define GPD_WORKLOAD_MAX_LOAD 10.0
/* The mean time between context switches while the GPU is busy, unless
 * the configuration gives one; each switch writes an OA report. */
#define GPD_WORKLOAD_DEFAULT_TIMESLICE_NS 1000000ull

/* Zero fields take the defaults given in brackets. */
struct gpd_workload_config {
	unsigned n_contexts;            /* [3], at most GPD_WORKLOAD_MAX_CONTEXTS */
	/* Hardware context IDs, as the OA unit writes them; 0 entries are
	 * drawn from the seed (distinct, 1..0x7ff). */
	uint32_t context_ids[GPD_WORKLOAD_MAX_CONTEXTS];
	uint64_t busy_mean_ns;          /* [20 ms] mean busy phase */
	uint64_t idle_mean_ns;          /* [4 ms] mean RC6 stretch */
	/* Probability that a busy phase is followed by an idle stretch rather
	 * than another busy phase; [0.3]; a negative value means never. */
	double idle_probability;
	uint64_t timeslice_mean_ns;     /* [1 ms] mean time between context switches */
	uint64_t ramp_ns;               /* [2 ms] utilization ramp between levels */
	double min_level;               /* [0.15] lowest busy-phase utilization */
	/* [1] scales each busy phase's utilization, capped at 1: the same
	 * pattern of work, heavier or lighter (sim,load=X). */
	double load;
	/* Probability that the OA unit drops a report (it sets REPORT_LOST
	 * instead of writing it); [0]. */
	double report_loss_probability;
};

/* The clocks the workload runs between. */
struct gpd_workload_clocks {
	uint64_t timestamp_frequency;   /* Hz */
	uint64_t gpu_min_freq;          /* Hz */
	uint64_t gpu_max_freq;          /* Hz */
};

/* What changed at a discrete step (gpd_workload_step()). */
enum gpd_workload_event {
	GPD_WORKLOAD_NOTHING = 0,
	/* Another context (or, after idle, a context) got the engine. */
	GPD_WORKLOAD_CONTEXT_SWITCH = 1 << 0,
	/* The timeslice ended and the scheduler resubmitted the running
	 * context: the OA unit writes a context-switch report whose ctx-valid
	 * bit is clear (§2.5: Mesa tolerates one such report). */
	GPD_WORKLOAD_CONTEXT_RESUBMIT = 1 << 1,
	/* The GPU went idle and enters RC6 (GO 1->0). */
	GPD_WORKLOAD_IDLE = 1 << 2,
};

struct gpd_workload {
	struct gpd_prng prng;
	uint64_t timestamp_frequency;
	uint64_t min_freq, max_freq;
	unsigned n_contexts;
	uint32_t context_ids[GPD_WORKLOAD_MAX_CONTEXTS];
	double busy_mean, idle_mean, timeslice_mean, ramp;     /* ticks */
	double idle_probability, min_level, load;

	uint64_t now;                   /* ticks */
	bool idle;
	unsigned context;               /* index into context_ids; valid while busy */
	uint64_t phase_end;             /* ticks */
	uint64_t next_switch;           /* ticks; busy only */
	/* Utilization: from_level at ramp_start, to_level from ramp_end on. */
	double from_level, to_level;
	uint64_t ramp_start, ramp_end;
};

/*
 * Starts a workload at tick 0 in its first busy phase. -EINVAL for a
 * config out of range (too many contexts, a zero timestamp frequency, a
 * minimum frequency above the maximum, probabilities above 1).
 */
int gpd_workload_init(struct gpd_workload *wl, const struct gpd_workload_config *cfg,
		      const struct gpd_workload_clocks *clocks, uint64_t seed);

/* The tick of the next discrete change, always after gpd_workload_now(). */
uint64_t gpd_workload_next_change(const struct gpd_workload *wl);

/*
 * Moves the workload to tick t, which must not pass
 * gpd_workload_next_change(); returns the gpd_workload_event bits of the
 * change at t, if t is one.
 */
unsigned gpd_workload_advance(struct gpd_workload *wl, uint64_t t);

static inline uint64_t gpd_workload_now(const struct gpd_workload *wl)
{
	return wl->now;
}

static inline bool gpd_workload_idle(const struct gpd_workload *wl)
{
	return wl->idle;
}

/* Index of the running context (0..n_contexts-1); meaningless while idle. */
static inline unsigned gpd_workload_context(const struct gpd_workload *wl)
{
	return wl->context;
}

static inline uint32_t gpd_workload_context_id(const struct gpd_workload *wl,
					       unsigned index)
{
	return wl->context_ids[index];
}

static inline unsigned gpd_workload_n_contexts(const struct gpd_workload *wl)
{
	return wl->n_contexts;
}

/* Utilization in [0, 1] at tick t, which must lie between now and the next
 * change; 0 while idle. Linear in t over that span, so its mean over a
 * stretch is its value at the stretch's middle. */
double gpd_workload_utilization(const struct gpd_workload *wl, double t);

/* The core clock frequency in Hz for a utilization: a 50/3 MHz step
 * between the minimum and maximum frequency, never above the maximum. */
uint64_t gpd_workload_frequency(const struct gpd_workload *wl, double utilization);

#endif
