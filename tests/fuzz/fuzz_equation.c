/*
 * Fuzzes the equation compiler and interpreter: arbitrary bytes compiled
 * as an equation (with a resolver that knows two counters) and, when they
 * compile, evaluated over arbitrary inputs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/equation.h"
#include "tests/fuzz/fuzz_target.h"

static int resolve(void *ctx, const char *name, size_t len, unsigned *index,
		   enum gpm_value_type *type)
{
	if (len == 3 && !memcmp(name, "U64", 3)) {
		*index = 0;
		*type = GPM_VALUE_U64;
		return 0;
	}
	if (len == 6 && !memcmp(name, "Double", 6)) {
		*index = 1;
		*type = GPM_VALUE_DOUBLE;
		return 0;
	}
	return -ENOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct gpm_equation_resolver resolver = { resolve, NULL };
	static struct gpm_accumulator acc;
	static struct gpm_device_vars vars;
	const struct gpm_value counters[2] = {
		{ .type = GPM_VALUE_U64, .u = 12345 },
		{ .type = GPM_VALUE_DOUBLE, .d = -2.5 },
	};
	const struct gpm_eval_inputs in = {
		.acc = acc.slot, .counters = counters, .vars = &vars,
	};
	struct gpm_equation *eq;
	struct gpm_equation_error err;
	char *rpn = malloc(size + 1);

	if (!rpn)
		return 0;
	memcpy(rpn, data, size);
	rpn[size] = '\0';

	/* Distinct, extreme slot values so arithmetic hits wraps, zero
	 * divisors and huge shifts. */
	for (unsigned i = 0; i < GPM_ACC_SLOTS; i++)
		acc.slot[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? UINT64_MAX - i : i;
	for (unsigned i = 0; i < GPM_VAR_COUNT; i++)
		vars.value[i] = i;

	enum gpm_value_type type = size && data[0] & 1 ? GPM_VALUE_DOUBLE :
							 GPM_VALUE_U64;
	if (gpm_equation_compile(rpn, type, &resolver, &eq, &err) == 0) {
		const unsigned *refs;
		size_t n = gpm_equation_counter_refs(eq, &refs);

		for (size_t i = 0; i < n; i++) {
			if (refs[i] > 1)
				abort();
		}
		struct gpm_value v = gpm_equation_eval(eq, &in);
		if (v.type != type)
			abort();
		gpm_equation_free(eq);
	} else if (err.code == GPM_EQ_OK || !memchr(err.message, '\0',
						     sizeof(err.message))) {
		abort();
	}
	free(rpn);
	return 0;
}
