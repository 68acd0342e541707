/*
 * A metric set bound to one device: which of its counters the device has,
 * which register programming it needs, and the evaluation of every counter
 * over a window's accumulator.
 *
 * Binding evaluates the availability expressions once: a counter whose
 * availability is 0 is dropped, and so is every counter that reads a
 * dropped one. Evaluation then runs the remaining programs in dependency
 * order with no allocation and no branching on the set's shape, which is
 * what the daemon does for every window.
 *
 * Register configs: every config without availability is used; of the
 * conditional configs of one kind (NOA, OA, FLEX) whose availability holds,
 * only the last in the file is. That is what Mesa's and IGT's generated
 * code does: it assigns the kind's register list once per true config, in
 * file order, so the last assignment wins. (Shipped sets never mix
 * conditional and unconditional configs of one kind.)
 */
#ifndef GPM_METRIC_BINDING_H
#define GPM_METRIC_BINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "accumulator.h"
#include "device.h"
#include "equation.h"
#include "metric_set.h"

struct gpm_binding_step {
	unsigned counter;               /* index into set->counters */
	const struct gpm_equation *equation;
};

struct gpm_binding_max {
	unsigned counter;
	const struct gpm_equation *equation;    /* NULL: constant */
	struct gpm_value constant;
};

/* Read-only after gpm_binding_init. */
struct gpm_binding {
	const struct gpm_metric_set *set;
	struct gpm_device_vars vars;
	/* The available counters, in evaluation order. */
	size_t n_steps;
	struct gpm_binding_step *steps;
	/* Per counter of the set: true when the device has it. */
	bool *available;
	/* The available counters whose max_equation is usable here. */
	size_t n_max;
	struct gpm_binding_max *max;
	/* The register configs picked for the device, in file order, and
	 * their registers concatenated per kind: what ADD_CONFIG takes. */
	size_t n_configs;
	const struct gpm_register_config **configs;
	size_t n_registers[GPM_REGISTER_KINDS];
	struct gpm_register *registers[GPM_REGISTER_KINDS];
};

/* Binds set to the device that vars describe. The set must outlive the
 * binding. 0 or -ENOMEM. */
int gpm_binding_init(struct gpm_binding *binding,
		     const struct gpm_metric_set *set,
		     const struct gpm_device_vars *vars);

void gpm_binding_fini(struct gpm_binding *binding);

/*
 * Computes every available counter from acc. values has one entry per
 * counter of the set (set->n_counters), indexed like set->counters; the
 * entries of unavailable counters are left alone.
 */
void gpm_binding_evaluate(const struct gpm_binding *binding,
			  const struct gpm_accumulator *acc,
			  struct gpm_value *values);

/*
 * Computes the bounds of the counters listed in binding->max into max
 * (indexed like values), after gpm_binding_evaluate filled values from the
 * same acc: bounds such as `$GpuCoreClocks 64 UMUL` read counters.
 */
void gpm_binding_evaluate_max(const struct gpm_binding *binding,
			      const struct gpm_accumulator *acc,
			      const struct gpm_value *values,
			      struct gpm_value *max);

#endif
