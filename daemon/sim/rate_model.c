/*
 * Fitting raw counter rates to a metric set's bounds (see rate_model.h).
 *
 * The fit treats the set as a black box it can evaluate: it fills an
 * accumulator as a window of given length, load and frequency would, runs
 * every counter's equation and max equation through the equation API, and
 * learns which raw counters a counter reads, and in which direction, by
 * nudging them. Nothing here knows a metric by name, so the same code fits
 * the sim GPU's sets and any Intel platform's.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/prng.h"
#include "daemon/sim/rate_model.h"
#include "metrics/metric_binding.h"

/* Where the fit starts every raw counter: above any bound a metric file
 * puts on a counter per clock (DG2's 4096 hardware threads among them). */
#define START_RATE 65536.0
/* The rate of a raw counter no bound constrains: moderate and varied. */
#define FREE_RATE_MIN 0.02
#define FREE_RATE_MAX 1.0
/* At full load a raw counter runs this far below what its tightest bound
 * allows, drawn per context: some run close to the bound, some well
 * below, and rounding never reaches it. */
#define HEADROOM_MIN 0.02
#define HEADROOM_MAX 0.25
/* A context's share of the first context's rates; some raw counters
 * stand still in some contexts (a compute context draws no pixels). */
#define MIX_ZERO_PROBABILITY 0.1
#define MIX_MIN 0.3
#define FIT_ROUNDS 48
/* A value no window of the fit can reach but a wrapped subtraction does. */
#define ABSURD_VALUE 1e17

#define PRNG_TAG_RATES 0x7261746573ull

/* The operating points every counter must hold at: full load at the
 * fastest and slowest clock (bounds in time units bite at the fastest,
 * bounds in clocks at any), and a light load. */
static const struct {
	double utilization;
	double freq_position;           /* 0: minimum frequency, 1: maximum */
} operating_points[] = {
	{ 1.0, 1.0 },
	{ 1.0, 0.0 },
	{ 0.3, 0.3 },
};

#define N_OPERATING_POINTS (sizeof(operating_points) / sizeof(operating_points[0]))

struct fit {
	const struct gpm_metric_set *set;
	struct gpm_binding binding;
	uint64_t window_ticks;
	uint64_t clocks[N_OPERATING_POINTS];
	size_t n_slots;
	const uint16_t *slot;
	/* tied[child * n_slots + parent]: a bound relates the two. */
	unsigned char *tied;
	double *rate;                   /* the context being fitted */
	double headroom[GPM_ACC_SLOTS];
	bool *checked;                  /* per counter: available, reads raw counters */
	bool *gave_up;                  /* per counter: no scaling brings it within bounds */
	bool *has_max;                  /* per counter: a usable max equation */
	unsigned char *deps;            /* [counter * n_slots + slot index] */
	struct gpm_value *values;
	struct gpm_value *max;
	struct gpm_accumulator acc;
	uint64_t base[GPM_ACC_SLOTS];   /* the raw counters as loaded */
	struct gpd_prng prng;
};

static void load_point(struct fit *f, unsigned op)
{
	double util = operating_points[op].utilization;

	memset(&f->acc, 0, sizeof(f->acc));
	f->acc.slot[GPM_ACC_GPU_TIME] = f->window_ticks;
	f->acc.slot[GPM_ACC_GPU_CLOCK] = f->clocks[op];
	for (size_t i = 0; i < f->n_slots; i++) {
		f->base[i] = (uint64_t)(f->rate[i] * util * (double)f->clocks[op]);
		f->acc.slot[f->slot[i]] = f->base[i];
	}
}

/* Every available counter and its bound, from f->acc. */
static void eval_all(struct fit *f)
{
	gpm_binding_evaluate(&f->binding, &f->acc, f->values);
	gpm_binding_evaluate_max(&f->binding, &f->acc, f->values, f->max);
}

/* The counter's value as a double; wrapped unsigned results show up as
 * absurdly large ones. */
static double counter_value(const struct fit *f, unsigned c)
{
	return gpm_value_as_double(f->values[c]);
}

/* Whether counter c lies within [0, max] after eval_all(). */
static bool counter_valid(const struct fit *f, unsigned c)
{
	double v = counter_value(f, c);

	if (isnan(v) || v < 0 || v > ABSURD_VALUE)
		return false;
	return !f->has_max[c] || !(v > gpm_value_as_double(f->max[c]));
}

/* Loads operating point op with the raw counters in set_mask scaled by x,
 * and says whether counter c then holds. */
static bool valid_scaled(struct fit *f, unsigned c, const bool *set_mask, double x)
{
	for (size_t i = 0; i < f->n_slots; i++)
		f->acc.slot[f->slot[i]] = set_mask[i] ? (uint64_t)((double)f->base[i] * x)
						      : f->base[i];
	eval_all(f);
	return counter_valid(f, c);
}

/*
 * The largest scale in (0, 1) of the raw counters in set_mask for which
 * counter c holds at the loaded point; 0 if none. Tries the linear guess
 * first (most equations are linear in a group of raw counters), then
 * halves down to a valid scale and bisects back up.
 */
static double search_scale(struct fit *f, unsigned c, const bool *set_mask, double v1)
{
	const double tiny = 0x1.0p-40;
	double target = 0;

	if (f->has_max[c] && v1 > 0 && !(v1 > ABSURD_VALUE)) {
		valid_scaled(f, c, set_mask, 1);
		target = gpm_value_as_double(f->max[c]);
	}
	if (!isnan(v1) && !(fabs(v1) > ABSURD_VALUE)) {
		valid_scaled(f, c, set_mask, tiny);
		double v0 = counter_value(f, c);
		double guess = v1 != v0 ? (target - v0) / (v1 - v0) * 0.999 : 0;

		if (guess > tiny && guess < 1 && valid_scaled(f, c, set_mask, guess))
			return guess;
	}

	double lo = 0.5;

	while (lo >= tiny && !valid_scaled(f, c, set_mask, lo))
		lo /= 2;
	if (lo < tiny)
		return 0;
	double hi = 2 * lo;
	for (int i = 0; i < 12; i++) {
		double mid = (lo + hi) / 2;

		if (valid_scaled(f, c, set_mask, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Which raw counters push counter c up (up[i]) and which pull it down
 * (down[i]) at the loaded point; returns the counter's value there. */
static double sensitivity(struct fit *f, unsigned c, bool *up, bool *down)
{
	eval_all(f);
	double v = counter_value(f, c);

	for (size_t i = 0; i < f->n_slots; i++) {
		up[i] = down[i] = false;
		if (!f->deps[c * f->n_slots + i])
			continue;
		uint64_t *raw = &f->acc.slot[f->slot[i]];
		uint64_t saved = *raw;

		*raw = saved + saved / 4 + 16;
		eval_all(f);
		double nudged = counter_value(f, c);
		*raw = saved;
		if (nudged > v)
			up[i] = true;
		else if (nudged < v)
			down[i] = true;
	}
	eval_all(f);
	return v;
}

static bool any(const struct fit *f, const bool *mask)
{
	for (size_t i = 0; i < f->n_slots; i++) {
		if (mask[i])
			return true;
	}
	return false;
}

/*
 * Brings counter c, out of bounds at operating point op, back within
 * them by scaling down the raw counters that push it up, those that pull
 * it down, or all it reads, whichever needs the least scaling.
 */
static bool fix_counter(struct fit *f, unsigned c, unsigned op)
{
	bool up[GPM_ACC_SLOTS], down[GPM_ACC_SLOTS], all[GPM_ACC_SLOTS];

	load_point(f, op);
	double v = sensitivity(f, c, up, down);
	for (size_t i = 0; i < f->n_slots; i++)
		all[i] = up[i] || down[i];

	const bool *choice[3] = { up, down, all };
	double best = 0;
	int best_choice = -1;
	for (int k = 0; k < 3; k++) {
		if (!any(f, choice[k]))
			continue;
		double x = search_scale(f, c, choice[k], v);
		if (x > best) {
			best = x;
			best_choice = k;
		}
	}
	if (best_choice < 0)
		return false;
	for (size_t i = 0; i < f->n_slots; i++) {
		if (choice[best_choice][i])
			f->rate[i] *= best * (1 - f->headroom[i]);
	}
	return true;
}

/* Whether a path of ties leads from slot `from` to slot `to`. */
static bool reaches(const struct fit *f, size_t from, size_t to, unsigned char *seen)
{
	if (from == to)
		return true;
	if (seen[from])
		return false;
	seen[from] = 1;
	for (size_t p = 0; p < f->n_slots; p++) {
		if (f->tied[from * f->n_slots + p] && reaches(f, p, to, seen))
			return true;
	}
	return false;
}

/* Ties every raw counter in children to every one in parents, but for
 * ties that would close a loop. */
static void tie(struct fit *f, const bool *children, const bool *parents)
{
	unsigned char seen[GPM_ACC_SLOTS];

	for (size_t ch = 0; ch < f->n_slots; ch++) {
		for (size_t p = 0; children[ch] && p < f->n_slots; p++) {
			if (!parents[p] || p == ch || f->tied[ch * f->n_slots + p])
				continue;
			memset(seen, 0, sizeof(seen));
			if (!reaches(f, p, ch, seen))
				f->tied[ch * f->n_slots + p] = 1;
		}
	}
}

/*
 * Finds the relations between raw counters that the set's bounds make:
 * a counter with a max that some raw counters push up and others pull
 * down (a ratio, a difference) relates the former to the latter; a
 * counter that goes negative or wraps when the raw counters pulling it
 * down grow (a difference) relates those to the ones pushing it up.
 */
static void find_ties(struct fit *f)
{
	const struct gpm_metric_set *set = f->set;
	bool up[GPM_ACC_SLOTS], down[GPM_ACC_SLOTS];

	for (size_t c = 0; c < set->n_counters; c++) {
		if (!f->checked[c])
			continue;
		load_point(f, 0);
		sensitivity(f, (unsigned)c, up, down);
		if (!any(f, up) || !any(f, down))
			continue;
		if (f->has_max[c])
			tie(f, up, down);
		for (size_t i = 0; i < f->n_slots; i++) {
			if (down[i])
				f->acc.slot[f->slot[i]] = f->acc.slot[f->slot[i]] * 16 + 16;
		}
		eval_all(f);
		double v = counter_value(f, (unsigned)c);
		if (isnan(v) || v < 0 || v > ABSURD_VALUE)
			tie(f, down, up);
	}
}

/* One pass over every operating point and counter; the number of counters
 * that were out of bounds, fixed or not. */
static unsigned fit_round(struct fit *f)
{
	bool *gave_up = f->gave_up;
	const struct gpm_metric_set *set = f->set;
	unsigned broken = 0;

	for (unsigned op = 0; op < N_OPERATING_POINTS; op++) {
		load_point(f, op);
		eval_all(f);
		for (size_t k = 0; k < set->n_counters; k++) {
			unsigned c = set->eval_order[k];

			if (!f->checked[c] || gave_up[c] || counter_valid(f, c))
				continue;
			broken++;
			if (!fix_counter(f, c, op))
				gave_up[c] = true;
			load_point(f, op);
			eval_all(f);
		}
	}
	return broken;
}

/* Fits f->rate until every counter holds. A counter that cannot be made
 * to hold (its bound depends on no raw counter, or on nothing the fit can
 * reach) has the raw counters it reads stopped, which is still a truthful
 * reading of a GPU that does nothing in that unit. */
static void fit_rates(struct fit *f)
{
	const struct gpm_metric_set *set = f->set;

	memset(f->gave_up, 0, set->n_counters * sizeof(*f->gave_up));
	for (int round = 0; round < FIT_ROUNDS; round++) {
		if (fit_round(f) == 0)
			break;
	}
	for (unsigned op = 0; op < N_OPERATING_POINTS; op++) {
		for (size_t c = 0; c < set->n_counters; c++) {
			load_point(f, op);
			eval_all(f);
			if (!f->checked[c] || counter_valid(f, (unsigned)c))
				continue;
			for (size_t i = 0; i < f->n_slots; i++) {
				if (f->deps[c * f->n_slots + i])
					f->rate[i] = 0;
			}
		}
	}
}

/* Whether every checked counter holds at every operating point. */
static bool all_hold(struct fit *f)
{
	for (unsigned op = 0; op < N_OPERATING_POINTS; op++) {
		load_point(f, op);
		eval_all(f);
		for (size_t c = 0; c < f->set->n_counters; c++) {
			if (f->checked[c] && !f->gave_up[c] &&
			    !counter_valid(f, (unsigned)c))
				return false;
		}
	}
	return true;
}

/*
 * A counter can come out 0 at full load although every raw counter it
 * reads runs: a difference of two raw counters the fit scaled apart (EU
 * stall as busy less active, busy drawn below active) is clamped at 0 for
 * good. Raising one of them, the least that brings the counter to life
 * while every counter still holds, gives it a reading. One whose raw
 * counters stand still stays 0: that is what an idle unit reads.
 */
static void revive_counters(struct fit *f)
{
	static const double factors[] = { 1.25, 1.5, 2, 3, 4, 6, 8 };
	const struct gpm_metric_set *set = f->set;

	for (size_t c = 0; c < set->n_counters; c++) {
		bool running = f->checked[c] && !f->gave_up[c];

		for (size_t i = 0; running && i < f->n_slots; i++)
			running = !f->deps[c * f->n_slots + i] || f->rate[i] > 0;
		if (!running)
			continue;
		load_point(f, 0);
		eval_all(f);
		if (counter_value(f, (unsigned)c) != 0)
			continue;
		bool alive = false;
		for (size_t i = 0; !alive && i < f->n_slots; i++) {
			if (!f->deps[c * f->n_slots + i])
				continue;
			double saved = f->rate[i];
			for (size_t k = 0; !alive && k < sizeof(factors) / sizeof(factors[0]); k++) {
				f->rate[i] = saved * factors[k];
				load_point(f, 0);
				eval_all(f);
				alive = counter_value(f, (unsigned)c) > 0 && all_hold(f);
			}
			if (!alive)
				f->rate[i] = saved;
		}
	}
}

/* Which raw counters each counter reads, directly or through other
 * counters: those whose change, up or down, changes its value. */
static void find_deps(struct fit *f)
{
	const struct gpm_metric_set *set = f->set;
	double *before = malloc(set->n_counters * sizeof(*before));

	load_point(f, 0);
	eval_all(f);
	for (size_t c = 0; c < set->n_counters; c++)
		before[c] = counter_value(f, (unsigned)c);
	for (size_t i = 0; i < f->n_slots; i++) {
		uint64_t *raw = &f->acc.slot[f->slot[i]];
		uint64_t saved = *raw;
		const uint64_t nudges[2] = { saved * 2 + 1000, saved / 4 };

		for (int n = 0; n < 2; n++) {
			*raw = nudges[n];
			eval_all(f);
			for (size_t c = 0; c < set->n_counters; c++) {
				double v = counter_value(f, (unsigned)c);

				if (v != before[c] && !(isnan(v) && isnan(before[c])))
					f->deps[c * f->n_slots + i] = 1;
			}
		}
		*raw = saved;
	}
	for (size_t c = 0; c < set->n_counters; c++) {
		for (size_t i = 0; i < f->n_slots; i++)
			f->checked[c] |= f->binding.available[c] &&
					 f->deps[c * f->n_slots + i];
	}
	free(before);
}

static void draw_headroom(struct fit *f)
{
	for (size_t i = 0; i < f->n_slots; i++)
		f->headroom[i] = gpd_prng_range(&f->prng, HEADROOM_MIN, HEADROOM_MAX);
}

static double free_rate(struct fit *f)
{
	return gpd_prng_range(&f->prng, FREE_RATE_MIN, FREE_RATE_MAX);
}

/* The format's raw counters, GPU_CLOCK excepted. */
static void collect_slots(struct gpd_rate_model *rm, const struct gpm_oa_format *fmt)
{
	rm->n_slots = 0;
	for (unsigned g = 0; g < fmt->n_groups; g++) {
		const struct gpm_oa_counter_group *grp = &fmt->group[g];

		if (grp->slot == GPM_ACC_GPU_CLOCK)
			continue;
		for (unsigned i = 0; i < grp->count; i++)
			rm->slot[rm->n_slots++] = (uint16_t)(grp->slot + i);
	}
}

/*
 * Puts the slots in an order where every one comes after its parents
 * (tied, as from find_ties, over the collected order; NULL for none), and
 * lays out their ties. Ties beyond the table's room are left out, which
 * only loosens rounding in short report pairs.
 */
static void order_slots(struct gpd_rate_model *rm, const unsigned char *tied)
{
	size_t n_slots = rm->n_slots;
	uint16_t slot[GPM_ACC_SLOTS];
	size_t order[GPM_ACC_SLOTS], position[GPM_ACC_SLOTS];
	double rate[GPD_WORKLOAD_MAX_CONTEXTS][GPM_ACC_SLOTS];
	bool placed[GPM_ACC_SLOTS] = { false };
	size_t n = 0;

	/* Ties form no loop (tie() refuses them), so every pass places
	 * at least one slot. */
	while (n < n_slots) {
		for (size_t i = 0; i < n_slots; i++) {
			bool ready = !placed[i];

			for (size_t p = 0; ready && tied && p < n_slots; p++)
				ready = !tied[i * n_slots + p] || placed[p];
			if (!ready)
				continue;
			placed[i] = true;
			position[i] = n;
			order[n++] = i;
		}
	}

	memcpy(slot, rm->slot, sizeof(slot));
	memcpy(rate, rm->rate, sizeof(rate));
	rm->n_tie_entries = 0;
	rm->n_tied = 0;
	for (size_t k = 0; k < n_slots; k++) {
		size_t i = order[k];

		rm->slot[k] = slot[i];
		for (unsigned ctx = 0; ctx < rm->n_contexts; ctx++)
			rm->rate[ctx][k] = rate[ctx][i];
		rm->tie_start[k] = (uint16_t)rm->n_tie_entries;
		rm->n_ties[k] = 0;
		for (size_t p = 0; tied && p < n_slots; p++) {
			if (!tied[i * n_slots + p] ||
			    rm->n_tie_entries == GPD_RATE_MODEL_MAX_TIES)
				continue;
			rm->tie_parent[rm->n_tie_entries++] = (uint16_t)position[p];
			rm->n_ties[k]++;
		}
		if (rm->n_ties[k])
			rm->tied[rm->n_tied++] = (uint16_t)k;
	}
}

static void compute_tie_ratios(struct gpd_rate_model *rm)
{
	for (unsigned ctx = 0; ctx < rm->n_contexts; ctx++) {
		const double *rate = rm->rate[ctx];

		for (size_t k = 0; k < rm->n_slots; k++) {
			for (unsigned t = 0; t < rm->n_ties[k]; t++) {
				size_t e = rm->tie_start[k] + t;
				double parent_rate = rate[rm->tie_parent[e]];

				rm->tie_ratio[ctx][e] = parent_rate > 0 ? rate[k] / parent_rate : 0;
			}
		}
	}
}

/* The first context from the top: find what binds, then give the raw
 * counters nothing binds a moderate rate and fit again, since a ratio may
 * have been fitted against one of them. The others: a mix of the first
 * one's rates, fitted again. */
static void fit_contexts(struct fit *f, struct gpd_rate_model *rm)
{
	double start[GPM_ACC_SLOTS];

	f->rate = rm->rate[0];
	for (size_t i = 0; i < rm->n_slots; i++)
		start[i] = f->rate[i] = START_RATE * gpd_prng_range(&f->prng, 0.5, 1.0);
	find_deps(f);
	draw_headroom(f);
	fit_rates(f);
	for (size_t i = 0; i < rm->n_slots; i++) {
		if (f->rate[i] == start[i])
			f->rate[i] = free_rate(f);
	}
	fit_rates(f);
	revive_counters(f);
	find_ties(f);

	for (unsigned ctx = 1; ctx < rm->n_contexts; ctx++) {
		f->rate = rm->rate[ctx];
		for (size_t i = 0; i < rm->n_slots; i++) {
			double mix = gpd_prng_unit(&f->prng) < MIX_ZERO_PROBABILITY
				     ? 0 : gpd_prng_range(&f->prng, MIX_MIN, 1.0);
			f->rate[i] = rm->rate[0][i] * mix;
		}
		draw_headroom(f);
		fit_rates(f);
		revive_counters(f);
	}
}

static int fit_set(struct gpd_rate_model *rm, const struct gpd_rate_model_params *p)
{
	const struct gpm_metric_set *set = p->set;
	const struct gpm_device_info *dev = p->dev;
	size_t n = set->n_counters;
	struct fit f = {
		.set = set,
		.n_slots = rm->n_slots,
		.slot = rm->slot,
		.window_ticks = dev->timestamp_frequency / 1000 > 1000
				? dev->timestamp_frequency / 1000 : 1000,
	};
	struct gpm_device_vars *vars = malloc(sizeof(*vars));
	int ret = -ENOMEM;

	if (!vars)
		return -ENOMEM;
	gpm_device_vars_init(vars, dev);
	ret = gpm_binding_init(&f.binding, set, vars);
	free(vars);
	if (ret)
		return ret;

	for (unsigned op = 0; op < N_OPERATING_POINTS; op++) {
		double freq = (double)dev->gpu_min_freq +
			      (double)(dev->gpu_max_freq - dev->gpu_min_freq) *
			      operating_points[op].freq_position;
		f.clocks[op] = (uint64_t)(freq * (double)f.window_ticks /
					  (double)dev->timestamp_frequency);
	}
	gpd_prng_fork(&f.prng, p->seed, PRNG_TAG_RATES);
	/* One more entry than counters, so a set without any still gets
	 * valid pointers. */
	f.checked = calloc(n + 1, sizeof(*f.checked));
	f.gave_up = calloc(n + 1, sizeof(*f.gave_up));
	f.has_max = calloc(n + 1, sizeof(*f.has_max));
	f.deps = calloc(n * rm->n_slots + 1, 1);
	f.tied = calloc(rm->n_slots * rm->n_slots + 1, 1);
	f.values = calloc(n + 1, sizeof(*f.values));
	f.max = calloc(n + 1, sizeof(*f.max));
	ret = -ENOMEM;
	if (f.checked && f.gave_up && f.has_max && f.deps && f.tied && f.values &&
	    f.max) {
		for (size_t i = 0; i < f.binding.n_max; i++)
			f.has_max[f.binding.max[i].counter] = true;
		fit_contexts(&f, rm);
		order_slots(rm, f.tied);
		ret = 0;
	}
	free(f.checked);
	free(f.gave_up);
	free(f.has_max);
	free(f.deps);
	free(f.tied);
	free(f.values);
	free(f.max);
	gpm_binding_fini(&f.binding);
	return ret;
}

int gpd_rate_model_fit(struct gpd_rate_model *rm,
		       const struct gpd_rate_model_params *p)
{
	const struct gpm_device_info *dev = p->dev;
	int ret;

	if (!dev || !p->format || p->n_contexts == 0 ||
	    p->n_contexts > GPD_WORKLOAD_MAX_CONTEXTS ||
	    dev->timestamp_frequency == 0 || dev->gpu_max_freq == 0 ||
	    dev->gpu_min_freq > dev->gpu_max_freq)
		return -EINVAL;
	memset(rm, 0, sizeof(*rm));
	rm->n_contexts = p->n_contexts;
	collect_slots(rm, p->format);

	if (p->set) {
		ret = fit_set(rm, p);
		if (ret)
			return ret;
	} else {
		struct gpd_prng prng;

		gpd_prng_fork(&prng, p->seed, PRNG_TAG_RATES);
		for (unsigned ctx = 0; ctx < rm->n_contexts; ctx++) {
			for (size_t i = 0; i < rm->n_slots; i++)
				rm->rate[ctx][i] = gpd_prng_range(&prng, FREE_RATE_MIN,
								  FREE_RATE_MAX);
		}
		order_slots(rm, NULL);
	}
	compute_tie_ratios(rm);
	return 0;
}

void gpd_rate_model_increments(const struct gpd_rate_model *rm, unsigned ctx,
			       double utilization, uint64_t clocks, uint64_t *inc)
{
	const double *rate = rm->rate[ctx];
	const double *ratio = rm->tie_ratio[ctx];
	size_t n_slots = rm->n_slots, n_tied = rm->n_tied;
	double busy = utilization * (double)clocks;

	/* Every slot at its rate, then the tied ones capped by their
	 * parents in computation order: a parent is final before its
	 * children read it, as when each slot was done whole in turn, and
	 * the first loop has no branch. */
	for (size_t k = 0; k < n_slots; k++)
		inc[k] = (uint64_t)(rate[k] * busy);
	for (size_t j = 0; j < n_tied; j++) {
		size_t k = rm->tied[j];
		uint64_t x = inc[k];
		size_t e = rm->tie_start[k], end = e + rm->n_ties[k];

		for (; e < end; e++) {
			uint64_t capped = (uint64_t)(ratio[e] * (double)inc[rm->tie_parent[e]]);

			if (capped < x)
				x = capped;
		}
		inc[k] = x;
	}
}
