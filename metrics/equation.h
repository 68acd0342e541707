/*
 * Metric equations: the RPN language of Intel's metric XML, compiled once
 * into a compact typed program and evaluated per window.
 *
 * Semantics follow the generated C code of IGT and Mesa exactly: every value
 * is either a u64 or a double, fixed at compile time, and each operator
 * behaves as the C expression it stands for (UDIV converts its operands to
 * u64 and truncates; U-ops on a double operand compute in double and store
 * into a u64; division by zero gives 0).
 */
#ifndef GPM_EQUATION_H
#define GPM_EQUATION_H

#include <stddef.h>
#include <stdint.h>

#include "accumulator.h"
#include "device.h"

enum gpm_value_type {
	GPM_VALUE_U64,
	GPM_VALUE_DOUBLE,
};

struct gpm_value {
	enum gpm_value_type type;
	union {
		uint64_t u;
		double d;
	};
};

enum gpm_equation_errc {
	GPM_EQ_OK = 0,
	GPM_EQ_EMPTY,                   /* no tokens */
	GPM_EQ_UNKNOWN_OPERATOR,        /* token is no operator, literal or READ type */
	GPM_EQ_STACK_UNDERFLOW,         /* operator with too few operands */
	GPM_EQ_STACK_LEFTOVER,          /* more than one value left at the end */
	GPM_EQ_UNKNOWN_VARIABLE,        /* $Name is no device variable nor counter */
	GPM_EQ_UNKNOWN_COUNTER,         /* reserved for resolvers that know only counters */
	GPM_EQ_BAD_READ,                /* READ without type and index, or index out of range */
	GPM_EQ_CYCLE,                   /* counters referencing each other (set level) */
	GPM_EQ_TOO_LONG,                /* beyond the program size limit */
};

/* What went wrong, where: filled by compile on failure. */
struct gpm_equation_error {
	enum gpm_equation_errc code;
	unsigned token_index;           /* 0-based position among the tokens */
	char token[64];                 /* the offending token, truncated */
	char message[192];              /* words, e.g. "unknown operator 'FOO'" */
};

/*
 * How a `$Name` that is not a device variable is resolved: a counter of the
 * same metric set. name is the symbol without the leading '$' (len bytes,
 * not NUL-terminated). Returns 0 and fills index (the counter's position in
 * its set) and type (its declared data type), or -ENOENT.
 */
struct gpm_equation_resolver {
	int (*counter)(void *ctx, const char *name, size_t len,
		       unsigned *index, enum gpm_value_type *type);
	void *ctx;
};

struct gpm_equation;

/*
 * Compiles rpn. The result is converted to result_type at the end, the way
 * a generated read function returning that type would. Availability
 * expressions (with `&&`, `==`, `OR`, `true`) compile with the same call;
 * `OR` is bitwise, as Mesa, its only generator, splices it.
 * resolver may be NULL (then every non-variable `$Name` is an error).
 * Returns 0, or -EINVAL / -ENOMEM with *err filled (on -ENOMEM its code is
 * GPM_EQ_OK); err may be NULL.
 */
int gpm_equation_compile(const char *rpn, enum gpm_value_type result_type,
			 const struct gpm_equation_resolver *resolver,
			 struct gpm_equation **out,
			 struct gpm_equation_error *err);

void gpm_equation_free(struct gpm_equation *eq);

/* Counters the equation reads through `$Name`, for dependency ordering. */
size_t gpm_equation_counter_refs(const struct gpm_equation *eq,
				 const unsigned **refs);

/* True when the equation reads neither the accumulator nor counters, so its
 * value depends on the device alone (availability, most max equations). */
int gpm_equation_is_constant(const struct gpm_equation *eq);

/* Everything an evaluation may read. counters holds the values of the
 * set's counters computed so far (indexed as the resolver numbered them);
 * acc and counters may be NULL for constant equations. */
struct gpm_eval_inputs {
	const uint64_t *acc;                    /* GPM_ACC_SLOTS entries */
	const struct gpm_value *counters;
	const struct gpm_device_vars *vars;
};

struct gpm_value gpm_equation_eval(const struct gpm_equation *eq,
				   const struct gpm_eval_inputs *in);

/* Helpers for callers. A double becomes a u64 as C truncates it, except
 * that negatives and NaN give 0 and values from 2^64 up give UINT64_MAX
 * (C leaves those undefined); equations convert the same way. */
double gpm_value_as_double(struct gpm_value v);
uint64_t gpm_value_as_u64(struct gpm_value v);

#endif
