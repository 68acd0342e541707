/*
 * The simulated GPU's workload: busy phases with smoothly moving
 * utilization, idle RC6 stretches, and contexts taking turns.
 */
#include <errno.h>
#include <math.h>

#include "daemon/sim/workload.h"

#define DEFAULT_CONTEXTS 3
#define DEFAULT_BUSY_MEAN_NS 20000000ull
#define DEFAULT_IDLE_MEAN_NS 4000000ull
#define DEFAULT_IDLE_PROBABILITY 0.3
#define DEFAULT_RAMP_NS 2000000ull
#define DEFAULT_MIN_LEVEL 0.15

/* The GT frequency granule of Gen9 and later: 50/3 MHz. */
#define FREQ_STEP_NUM 50000000ull
#define FREQ_STEP_DEN 3ull

/* The context IDs the model draws stay below Gen11/Gen12's limit of 2048
 * hardware IDs, so they are plausible on every platform. */
#define MAX_DRAWN_CONTEXT_ID 0x7ff

/* Tags of the workload's own random streams (gpd_prng_fork). */
#define PRNG_TAG_WORKLOAD 0x776f726b6c6f6164ull

static double ns_to_ticks(uint64_t ns, uint64_t timestamp_frequency)
{
	double ticks = (double)ns * (double)timestamp_frequency / 1e9;

	return ticks < 1 ? 1 : ticks;
}

/* A draw rounded to whole ticks, at least one so time always moves. */
static uint64_t draw_ticks(struct gpd_workload *wl, double mean)
{
	double t = gpd_prng_exponential(&wl->prng, mean);

	return t < 1 ? 1 : (uint64_t)t;
}

static void draw_context_ids(struct gpd_workload *wl,
			     const struct gpd_workload_config *cfg)
{
	/* Given IDs first, so drawn ones can avoid them all. */
	for (unsigned i = 0; i < wl->n_contexts; i++)
		wl->context_ids[i] = cfg->context_ids[i];
	for (unsigned i = 0; i < wl->n_contexts; i++) {
		while (wl->context_ids[i] == 0) {
			uint32_t id = 1 + (uint32_t)gpd_prng_below(&wl->prng,
								   MAX_DRAWN_CONTEXT_ID);
			bool taken = false;

			for (unsigned j = 0; j < wl->n_contexts; j++)
				taken |= wl->context_ids[j] == id;
			if (!taken)
				wl->context_ids[i] = id;
		}
	}
}

double gpd_workload_utilization(const struct gpd_workload *wl, double t)
{
	if (wl->idle)
		return 0;
	if (t >= (double)wl->ramp_end)
		return wl->to_level;
	if (t <= (double)wl->ramp_start)
		return wl->from_level;
	double f = (t - (double)wl->ramp_start) /
		   (double)(wl->ramp_end - wl->ramp_start);
	return wl->from_level + (wl->to_level - wl->from_level) * f;
}

uint64_t gpd_workload_frequency(const struct gpd_workload *wl, double utilization)
{
	double target = (double)wl->min_freq +
			(double)(wl->max_freq - wl->min_freq) * utilization;
	uint64_t steps = (uint64_t)(target * FREQ_STEP_DEN / FREQ_STEP_NUM);
	uint64_t freq = steps * FREQ_STEP_NUM / FREQ_STEP_DEN;

	/* A minimum that is no multiple of the granule still bounds the
	 * clock from below, and nothing may run above the maximum: the
	 * metric sets' AvgGpuCoreFrequency is bounded by it. */
	if (freq < wl->min_freq)
		freq = wl->min_freq;
	if (freq > wl->max_freq)
		freq = wl->max_freq;
	return freq;
}

static unsigned draw_context(struct gpd_workload *wl)
{
	return (unsigned)gpd_prng_below(&wl->prng, wl->n_contexts);
}

static void start_busy(struct gpd_workload *wl, double from_level)
{
	wl->idle = false;
	wl->from_level = from_level;
	wl->to_level = gpd_prng_range(&wl->prng, wl->min_level, 1.0);
	/* Now and then a phase runs flat out: the case every counter's
	 * maximum must hold for. */
	if (gpd_prng_unit(&wl->prng) < 0.25)
		wl->to_level = 1.0;
	wl->to_level *= wl->load;
	if (wl->to_level > 1.0)
		wl->to_level = 1.0;
	wl->ramp_start = wl->now;
	wl->ramp_end = wl->now + (uint64_t)(wl->ramp < 1 ? 1 : wl->ramp);
	wl->phase_end = wl->now + draw_ticks(wl, wl->busy_mean);
	wl->next_switch = wl->now + draw_ticks(wl, wl->timeslice_mean);
}

static void start_idle(struct gpd_workload *wl)
{
	wl->idle = true;
	wl->from_level = wl->to_level = 0;
	wl->ramp_start = wl->ramp_end = wl->now;
	wl->phase_end = wl->now + draw_ticks(wl, wl->idle_mean);
}

int gpd_workload_init(struct gpd_workload *wl, const struct gpd_workload_config *cfg,
		      const struct gpd_workload_clocks *clocks, uint64_t seed)
{
	static const struct gpd_workload_config defaults;
	uint64_t f = clocks->timestamp_frequency;

	if (!cfg)
		cfg = &defaults;
	if (f == 0 || clocks->gpu_min_freq > clocks->gpu_max_freq ||
	    clocks->gpu_max_freq == 0 ||
	    cfg->n_contexts > GPD_WORKLOAD_MAX_CONTEXTS ||
	    cfg->idle_probability > 1 || !(cfg->min_level >= 0 && cfg->min_level <= 1) ||
	    !(cfg->load >= 0 && cfg->load <= GPD_WORKLOAD_MAX_LOAD) ||
	    !(cfg->report_loss_probability >= 0 && cfg->report_loss_probability <= 1))
		return -EINVAL;

	*wl = (struct gpd_workload){
		.timestamp_frequency = f,
		.min_freq = clocks->gpu_min_freq,
		.max_freq = clocks->gpu_max_freq,
		.n_contexts = cfg->n_contexts ? cfg->n_contexts : DEFAULT_CONTEXTS,
		.busy_mean = ns_to_ticks(cfg->busy_mean_ns ? cfg->busy_mean_ns
					 : DEFAULT_BUSY_MEAN_NS, f),
		.idle_mean = ns_to_ticks(cfg->idle_mean_ns ? cfg->idle_mean_ns
					 : DEFAULT_IDLE_MEAN_NS, f),
		.timeslice_mean = ns_to_ticks(cfg->timeslice_mean_ns ? cfg->timeslice_mean_ns
					      : GPD_WORKLOAD_DEFAULT_TIMESLICE_NS, f),
		.ramp = ns_to_ticks(cfg->ramp_ns ? cfg->ramp_ns : DEFAULT_RAMP_NS, f),
		.idle_probability = cfg->idle_probability < 0 ? 0
				    : cfg->idle_probability > 0 ? cfg->idle_probability
				    : DEFAULT_IDLE_PROBABILITY,
		.min_level = cfg->min_level > 0 ? cfg->min_level : DEFAULT_MIN_LEVEL,
		.load = cfg->load > 0 ? cfg->load : 1,
	};
	gpd_prng_fork(&wl->prng, seed, PRNG_TAG_WORKLOAD);
	draw_context_ids(wl, cfg);
	wl->context = draw_context(wl);
	start_busy(wl, 0);
	return 0;
}

uint64_t gpd_workload_next_change(const struct gpd_workload *wl)
{
	uint64_t next = wl->phase_end;

	if (!wl->idle) {
		if (wl->next_switch < next)
			next = wl->next_switch;
		/* The ramp's end is a change too: past it, utilization is flat. */
		if (wl->ramp_end > wl->now && wl->ramp_end < next)
			next = wl->ramp_end;
	}
	return next;
}

unsigned gpd_workload_advance(struct gpd_workload *wl, uint64_t t)
{
	unsigned events = GPD_WORKLOAD_NOTHING;

	wl->now = t;
	if (t == wl->phase_end) {
		if (wl->idle) {
			/* Waking up: a context is scheduled and the load ramps
			 * up from nothing. */
			wl->context = draw_context(wl);
			start_busy(wl, 0);
			return GPD_WORKLOAD_CONTEXT_SWITCH;
		}
		if (gpd_prng_unit(&wl->prng) < wl->idle_probability) {
			start_idle(wl);
			return GPD_WORKLOAD_IDLE;
		}
		start_busy(wl, gpd_workload_utilization(wl, (double)t));
	}
	if (!wl->idle && t >= wl->next_switch) {
		unsigned next = draw_context(wl);

		events |= next == wl->context ? GPD_WORKLOAD_CONTEXT_RESUBMIT
					      : GPD_WORKLOAD_CONTEXT_SWITCH;
		wl->context = next;
		wl->next_switch = t + draw_ticks(wl, wl->timeslice_mean);
	}
	return events;
}
