/*
 * Binding a compiled set to a device, and the per-window evaluation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_binding.h"

static bool constant_is_true(const struct gpm_equation *eq,
			     const struct gpm_device_vars *vars)
{
	const struct gpm_eval_inputs in = { .vars = vars };
	return gpm_value_as_u64(gpm_equation_eval(eq, &in)) != 0;
}

static bool reads_only(const struct gpm_equation *eq, const bool *available)
{
	const unsigned *refs;
	size_t n = gpm_equation_counter_refs(eq, &refs);
	for (size_t i = 0; i < n; i++)
		if (!available[refs[i]])
			return false;
	return true;
}

/* Walks the evaluation order so that a counter is decided after all the
 * counters it reads. */
static void pick_counters(struct gpm_binding *b)
{
	const struct gpm_metric_set *set = b->set;

	b->n_steps = 0;
	for (size_t k = 0; k < set->n_counters; k++) {
		unsigned i = set->eval_order[k];
		const struct gpm_counter *c = &set->counters[i];

		b->available[i] =
			(!c->availability_eq ||
			 constant_is_true(c->availability_eq, &b->vars)) &&
			reads_only(c->eq, b->available);
		if (b->available[i])
			b->steps[b->n_steps++] = (struct gpm_binding_step){
				.counter = i, .equation = c->eq,
			};
	}

	b->n_max = 0;
	for (size_t i = 0; i < set->n_counters; i++) {
		const struct gpm_counter *c = &set->counters[i];
		if (!b->available[i] || !c->max_eq ||
		    !reads_only(c->max_eq, b->available))
			continue;
		struct gpm_binding_max *m = &b->max[b->n_max++];
		m->counter = (unsigned)i;
		m->equation = NULL;
		if (gpm_equation_is_constant(c->max_eq)) {
			const struct gpm_eval_inputs in = { .vars = &b->vars };
			m->constant = gpm_equation_eval(c->max_eq, &in);
		} else {
			m->equation = c->max_eq;
		}
	}
}

static int pick_register_configs(struct gpm_binding *b)
{
	const struct gpm_metric_set *set = b->set;
	const struct gpm_register_config *last_true[GPM_REGISTER_KINDS] = { 0 };

	for (size_t i = 0; i < set->n_register_configs; i++) {
		const struct gpm_register_config *rc = &set->register_configs[i];
		if (rc->availability_eq &&
		    constant_is_true(rc->availability_eq, &b->vars))
			last_true[rc->kind] = rc;
	}

	b->n_configs = 0;
	for (size_t i = 0; i < set->n_register_configs; i++) {
		const struct gpm_register_config *rc = &set->register_configs[i];
		if (rc->availability_eq && last_true[rc->kind] != rc)
			continue;
		b->configs[b->n_configs++] = rc;
		b->n_registers[rc->kind] += rc->n_registers;
	}

	for (size_t k = 0; k < GPM_REGISTER_KINDS; k++) {
		/* One spare entry so an empty list is still an allocation. */
		b->registers[k] = malloc((b->n_registers[k] + 1) *
					 sizeof(struct gpm_register));
		if (!b->registers[k])
			return -ENOMEM;
		b->n_registers[k] = 0;
	}
	for (size_t i = 0; i < b->n_configs; i++) {
		const struct gpm_register_config *rc = b->configs[i];
		memcpy(b->registers[rc->kind] + b->n_registers[rc->kind],
		       rc->registers, rc->n_registers * sizeof(*rc->registers));
		b->n_registers[rc->kind] += rc->n_registers;
	}
	return 0;
}

int gpm_binding_init(struct gpm_binding *b, const struct gpm_metric_set *set,
		     const struct gpm_device_vars *vars)
{
	size_t n = set->n_counters ? set->n_counters : 1;
	size_t n_configs = set->n_register_configs ? set->n_register_configs : 1;

	memset(b, 0, sizeof(*b));
	b->set = set;
	b->vars = *vars;
	b->steps = malloc(n * sizeof(*b->steps));
	b->available = calloc(n, sizeof(*b->available));
	b->max = malloc(n * sizeof(*b->max));
	b->configs = malloc(n_configs * sizeof(*b->configs));
	if (!b->steps || !b->available || !b->max || !b->configs) {
		gpm_binding_fini(b);
		return -ENOMEM;
	}
	pick_counters(b);
	int ret = pick_register_configs(b);
	if (ret)
		gpm_binding_fini(b);
	return ret;
}

void gpm_binding_fini(struct gpm_binding *b)
{
	free(b->steps);
	free(b->available);
	free(b->max);
	free(b->configs);
	for (size_t k = 0; k < GPM_REGISTER_KINDS; k++)
		free(b->registers[k]);
	memset(b, 0, sizeof(*b));
}

void gpm_binding_evaluate(const struct gpm_binding *b,
			  const struct gpm_accumulator *acc,
			  struct gpm_value *values)
{
	const struct gpm_eval_inputs in = {
		.acc = acc->slot, .counters = values, .vars = &b->vars,
	};
	const struct gpm_binding_step *step = b->steps;
	const struct gpm_binding_step *end = step + b->n_steps;

	for (; step < end; step++)
		values[step->counter] = gpm_equation_eval(step->equation, &in);
}

void gpm_binding_evaluate_max(const struct gpm_binding *b,
			      const struct gpm_accumulator *acc,
			      const struct gpm_value *values,
			      struct gpm_value *max)
{
	const struct gpm_eval_inputs in = {
		.acc = acc->slot, .counters = values, .vars = &b->vars,
	};
	for (size_t i = 0; i < b->n_max; i++) {
		const struct gpm_binding_max *m = &b->max[i];
		max[m->counter] = m->equation ?
				  gpm_equation_eval(m->equation, &in) :
				  m->constant;
	}
}
