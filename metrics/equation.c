/*
 * The RPN equations of Intel's metric XML, compiled into a small typed stack
 * program and interpreted per window.
 *
 * IGT and Mesa turn each equation into C, one temporary per operator, and a
 * temporary is a uint64_t or a double depending on the operator. Operand
 * types are therefore known before anything runs, and the compiler here
 * does the same bookkeeping: it tracks the static type of every stack value,
 * inserts the conversions C would apply, picks the u64 or double flavour of
 * each operator, and folds subexpressions of literals. The interpreter then
 * never looks at a type: it executes a straight list of instructions over a
 * stack of untagged 8-byte slots.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/equation.h"

/* The longest shipped equation has 71 tokens and needs a handful of stack
 * slots; these limits keep the evaluation stack a small local array. */
#define MAX_TOKENS 1024
#define MAX_DEPTH 32

union slot {
	uint64_t u;
	double d;
};

enum opcode {
	OP_END,
	OP_PUSH_IMM,            /* imm */
	OP_PUSH_ACC,            /* accumulator slot index */
	OP_PUSH_VAR,            /* device variable index */
	OP_PUSH_COUNTER,        /* counter index, its declared type's bits */
	OP_U2D,                 /* top: u64 -> double */
	OP_U2D_NEXT,            /* the value below the top */
	OP_D2U,
	OP_D2U_NEXT,
	/* Binary operators: pop a0, then a1, push a1 OP a0. */
	OP_ADD_U, OP_SUB_U, OP_MUL_U, OP_DIV_U, OP_MIN_U,
	OP_AND_U, OP_OR_U, OP_SHL_U, OP_SHR_U,
	OP_GT_U, OP_GTE_U, OP_LT_U, OP_LTE_U, OP_EQ_U, OP_LAND_U,
	OP_ADD_D, OP_SUB_D, OP_MUL_D, OP_DIV_D, OP_MAX_D, OP_MIN_D,
	OP_GT_D, OP_GTE_D, OP_LT_D, OP_LTE_D, OP_EQ_D, OP_LAND_D,
	OP_COUNT,
};

struct insn {
	uint32_t op;
	uint32_t index;
	union slot imm;
};

struct gpm_equation {
	enum gpm_value_type result_type;
	bool constant;
	uint32_t n_refs;
	const unsigned *refs;   /* after insns, in the same allocation */
	uint32_t n_insns;
	struct insn insns[];
};

/*
 * How an operator combines its operand types, mirroring the C the
 * generators emit for it.
 */
enum op_kind {
	/* `uint64_t t = a1 OP a0;`: computed in double when an operand is a
	 * double, then stored into a u64. */
	KIND_TO_U64,
	/* `double t = a1 OP a0;`: computed in u64 when both operands are
	 * u64 (so FSUB can wrap), then stored into a double. */
	KIND_TO_DOUBLE,
	/* `double x = a1; double y = a0;` first: FDIV, FMAX. */
	KIND_DOUBLE_OPERANDS,
	/* `uint64_t x = a1; uint64_t y = a0;` first: UDIV. Bitwise
	 * operators take this path too, as C has no double flavour of them. */
	KIND_U64_OPERANDS,
	/* Comparisons and logic: computed in the common type, 0 or 1. */
	KIND_PREDICATE,
};

struct operator {
	const char *name;
	enum op_kind kind;
	enum opcode op_u64;     /* computing in u64 */
	enum opcode op_double;  /* computing in double */
};

static const struct operator operators[] = {
	{ "UADD", KIND_TO_U64, OP_ADD_U, OP_ADD_D },
	{ "USUB", KIND_TO_U64, OP_SUB_U, OP_SUB_D },
	{ "UMUL", KIND_TO_U64, OP_MUL_U, OP_MUL_D },
	{ "UMIN", KIND_TO_U64, OP_MIN_U, OP_MIN_D },
	{ "UDIV", KIND_U64_OPERANDS, OP_DIV_U, OP_DIV_U },
	{ "AND", KIND_U64_OPERANDS, OP_AND_U, OP_AND_U },
	/* Mesa, the one generator that knows OR, splices it as C's `|`. */
	{ "OR", KIND_U64_OPERANDS, OP_OR_U, OP_OR_U },
	{ "<<", KIND_U64_OPERANDS, OP_SHL_U, OP_SHL_U },
	{ ">>", KIND_U64_OPERANDS, OP_SHR_U, OP_SHR_U },
	{ "FADD", KIND_TO_DOUBLE, OP_ADD_U, OP_ADD_D },
	{ "FSUB", KIND_TO_DOUBLE, OP_SUB_U, OP_SUB_D },
	{ "FMUL", KIND_TO_DOUBLE, OP_MUL_U, OP_MUL_D },
	{ "FDIV", KIND_DOUBLE_OPERANDS, OP_DIV_D, OP_DIV_D },
	{ "FMAX", KIND_DOUBLE_OPERANDS, OP_MAX_D, OP_MAX_D },
	{ "UGT", KIND_PREDICATE, OP_GT_U, OP_GT_D },
	{ "UGTE", KIND_PREDICATE, OP_GTE_U, OP_GTE_D },
	{ "ULT", KIND_PREDICATE, OP_LT_U, OP_LT_D },
	{ "ULTE", KIND_PREDICATE, OP_LTE_U, OP_LTE_D },
	{ "==", KIND_PREDICATE, OP_EQ_U, OP_EQ_D },
	{ "&&", KIND_PREDICATE, OP_LAND_U, OP_LAND_D },
};

struct read_type {
	const char *name;
	unsigned base;
	unsigned count;
};

static const struct read_type read_types[] = {
	{ "GPU_TIME", GPM_ACC_GPU_TIME, 1 },
	{ "GPU_CLOCK", GPM_ACC_GPU_CLOCK, 1 },
	{ "A", GPM_ACC_A, GPM_ACC_A_COUNT },
	{ "B", GPM_ACC_B, GPM_ACC_B_COUNT },
	{ "C", GPM_ACC_C, GPM_ACC_C_COUNT },
	{ "PERFCNT", GPM_ACC_PERFCNT, GPM_ACC_PERFCNT_COUNT },
	{ "PEC", GPM_ACC_PEC, GPM_ACC_PEC_COUNT },
};

/*
 * C's double -> uint64_t conversion is undefined outside (-1, 2^64); the
 * generated code never guards it. Here values truncate toward zero as in
 * C, negatives and NaN give 0, and values from 2^64 up saturate.
 */
static inline uint64_t double_to_u64(double d)
{
	if (!(d >= 0))
		return 0;
	if (d >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

double gpm_value_as_double(struct gpm_value v)
{
	return v.type == GPM_VALUE_DOUBLE ? v.d : (double)v.u;
}

uint64_t gpm_value_as_u64(struct gpm_value v)
{
	return v.type == GPM_VALUE_DOUBLE ? double_to_u64(v.d) : v.u;
}

/*
 * Runs instructions up to OP_END and returns the value on top. Dispatch is
 * threaded through a label table; the top of the stack lives in a local so
 * most instructions touch memory once. The compiler has checked the depth.
 */
static union slot run(const struct insn *ip, const struct gpm_eval_inputs *in)
{
	static const void *const dispatch[OP_COUNT] = {
		[OP_END] = &&op_end,
		[OP_PUSH_IMM] = &&op_push_imm,
		[OP_PUSH_ACC] = &&op_push_acc,
		[OP_PUSH_VAR] = &&op_push_var,
		[OP_PUSH_COUNTER] = &&op_push_counter,
		[OP_U2D] = &&op_u2d,
		[OP_U2D_NEXT] = &&op_u2d_next,
		[OP_D2U] = &&op_d2u,
		[OP_D2U_NEXT] = &&op_d2u_next,
		[OP_ADD_U] = &&op_add_u,
		[OP_SUB_U] = &&op_sub_u,
		[OP_MUL_U] = &&op_mul_u,
		[OP_DIV_U] = &&op_div_u,
		[OP_MIN_U] = &&op_min_u,
		[OP_AND_U] = &&op_and_u,
		[OP_OR_U] = &&op_or_u,
		[OP_SHL_U] = &&op_shl_u,
		[OP_SHR_U] = &&op_shr_u,
		[OP_GT_U] = &&op_gt_u,
		[OP_GTE_U] = &&op_gte_u,
		[OP_LT_U] = &&op_lt_u,
		[OP_LTE_U] = &&op_lte_u,
		[OP_EQ_U] = &&op_eq_u,
		[OP_LAND_U] = &&op_land_u,
		[OP_ADD_D] = &&op_add_d,
		[OP_SUB_D] = &&op_sub_d,
		[OP_MUL_D] = &&op_mul_d,
		[OP_DIV_D] = &&op_div_d,
		[OP_MAX_D] = &&op_max_d,
		[OP_MIN_D] = &&op_min_d,
		[OP_GT_D] = &&op_gt_d,
		[OP_GTE_D] = &&op_gte_d,
		[OP_LT_D] = &&op_lt_d,
		[OP_LTE_D] = &&op_lte_d,
		[OP_EQ_D] = &&op_eq_d,
		[OP_LAND_D] = &&op_land_d,
	};
	union slot stack[MAX_DEPTH];
	union slot *sp = stack;         /* next free slot below the top */
	union slot top = { .u = 0 };
	union slot a1;

#define NEXT() goto *dispatch[(++ip)->op]
#define PUSH(v) do { *sp++ = top; top = (v); } while (0)
#define POP_A1() (a1 = *--sp)

	goto *dispatch[ip->op];

op_push_imm:
	PUSH(ip->imm);
	NEXT();
op_push_acc:
	PUSH(((union slot){ .u = in->acc[ip->index] }));
	NEXT();
op_push_var:
	PUSH(((union slot){ .u = in->vars->value[ip->index] }));
	NEXT();
op_push_counter:
	/* The union's bits are copied whatever their type: the compiler
	 * typed the slot from the counter's declaration. */
	PUSH(((union slot){ .u = in->counters[ip->index].u }));
	NEXT();
op_u2d:
	top.d = (double)top.u;
	NEXT();
op_u2d_next:
	sp[-1].d = (double)sp[-1].u;
	NEXT();
op_d2u:
	top.u = double_to_u64(top.d);
	NEXT();
op_d2u_next:
	sp[-1].u = double_to_u64(sp[-1].d);
	NEXT();

op_add_u:
	POP_A1();
	top.u = a1.u + top.u;
	NEXT();
op_sub_u:
	POP_A1();
	top.u = a1.u - top.u;
	NEXT();
op_mul_u:
	POP_A1();
	top.u = a1.u * top.u;
	NEXT();
op_div_u:
	POP_A1();
	top.u = top.u ? a1.u / top.u : 0;
	NEXT();
op_min_u:
	POP_A1();
	top.u = a1.u < top.u ? a1.u : top.u;
	NEXT();
op_and_u:
	POP_A1();
	top.u = a1.u & top.u;
	NEXT();
op_or_u:
	POP_A1();
	top.u = a1.u | top.u;
	NEXT();
op_shl_u:
	/* C leaves shifts by 64 or more undefined; every bit is gone. */
	POP_A1();
	top.u = top.u < 64 ? a1.u << top.u : 0;
	NEXT();
op_shr_u:
	POP_A1();
	top.u = top.u < 64 ? a1.u >> top.u : 0;
	NEXT();
op_gt_u:
	POP_A1();
	top.u = a1.u > top.u;
	NEXT();
op_gte_u:
	POP_A1();
	top.u = a1.u >= top.u;
	NEXT();
op_lt_u:
	POP_A1();
	top.u = a1.u < top.u;
	NEXT();
op_lte_u:
	POP_A1();
	top.u = a1.u <= top.u;
	NEXT();
op_eq_u:
	POP_A1();
	top.u = a1.u == top.u;
	NEXT();
op_land_u:
	POP_A1();
	top.u = a1.u && top.u;
	NEXT();

op_add_d:
	POP_A1();
	top.d = a1.d + top.d;
	NEXT();
op_sub_d:
	POP_A1();
	top.d = a1.d - top.d;
	NEXT();
op_mul_d:
	POP_A1();
	top.d = a1.d * top.d;
	NEXT();
op_div_d:
	POP_A1();
	top.d = top.d != 0 ? a1.d / top.d : 0;
	NEXT();
op_max_d:
	POP_A1();
	top.d = a1.d > top.d ? a1.d : top.d;
	NEXT();
op_min_d:
	POP_A1();
	top.d = a1.d < top.d ? a1.d : top.d;
	NEXT();
op_gt_d:
	POP_A1();
	top.u = a1.d > top.d;
	NEXT();
op_gte_d:
	POP_A1();
	top.u = a1.d >= top.d;
	NEXT();
op_lt_d:
	POP_A1();
	top.u = a1.d < top.d;
	NEXT();
op_lte_d:
	POP_A1();
	top.u = a1.d <= top.d;
	NEXT();
op_eq_d:
	POP_A1();
	top.u = a1.d == top.d;
	NEXT();
op_land_d:
	POP_A1();
	top.u = a1.d != 0 && top.d != 0;
	NEXT();

op_end:
	return top;

#undef NEXT
#undef PUSH
#undef POP_A1
}

struct gpm_value gpm_equation_eval(const struct gpm_equation *eq,
				   const struct gpm_eval_inputs *in)
{
	union slot r = run(eq->insns, in);
	struct gpm_value v = { .type = eq->result_type };

	if (eq->result_type == GPM_VALUE_DOUBLE)
		v.d = r.d;
	else
		v.u = r.u;
	return v;
}

size_t gpm_equation_counter_refs(const struct gpm_equation *eq,
				 const unsigned **refs)
{
	*refs = eq->refs;
	return eq->n_refs;
}

int gpm_equation_is_constant(const struct gpm_equation *eq)
{
	return eq->constant;
}

void gpm_equation_free(struct gpm_equation *eq)
{
	free(eq);
}

/* ---- Compiler ---- */

struct token {
	const char *s;
	size_t len;
};

/* A value on the compile-time stack. */
struct value {
	enum gpm_value_type type;
	bool is_const;          /* a literal: one OP_PUSH_IMM at start */
	uint32_t start;         /* first instruction computing it */
};

struct compiler {
	const struct gpm_equation_resolver *resolver;
	struct gpm_equation_error *err;
	struct token *tokens;
	size_t n_tokens;
	struct insn *insns;
	uint32_t n_insns;
	unsigned *refs;
	uint32_t n_refs;
	struct value stack[MAX_DEPTH];
	unsigned depth;
	bool constant;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static bool token_is(const struct token *t, const char *word)
{
	return strlen(word) == t->len && !memcmp(t->s, word, t->len);
}

static int fail(struct compiler *c, enum gpm_equation_errc code, size_t index,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct compiler *c, enum gpm_equation_errc code, size_t index,
		const char *fmt, ...)
{
	struct gpm_equation_error *err = c->err;
	va_list ap;

	err->code = code;
	err->token_index = (unsigned)index;
	err->token[0] = '\0';
	if (c->tokens && index < c->n_tokens) {
		const struct token *t = &c->tokens[index];
		size_t n = t->len < sizeof(err->token) - 1 ?
			   t->len : sizeof(err->token) - 1;
		memcpy(err->token, t->s, n);
		err->token[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Quotes a token in messages, cut so the message keeps its tail. */
#define TOKEN_FMT "'%.*s'"
#define TOKEN_ARG(t) (int)((t)->len < 48 ? (t)->len : 48), (t)->s

/*
 * Integer literal: decimal or 0x hex, as C reads them. Returns 1 when the
 * token is one, 0 when it is not, -ERANGE when it does not fit in 64 bits.
 */
static int parse_integer(const struct token *t, uint64_t *out)
{
	const char *s = t->s, *end = t->s + t->len;
	uint64_t v = 0;

	if (t->len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; s < end; s++) {
			unsigned digit;
			if (*s >= '0' && *s <= '9')
				digit = (unsigned)(*s - '0');
			else if (*s >= 'a' && *s <= 'f')
				digit = (unsigned)(*s - 'a' + 10);
			else if (*s >= 'A' && *s <= 'F')
				digit = (unsigned)(*s - 'A' + 10);
			else
				return 0;
			if (v >> 60)
				return -ERANGE;
			v = v << 4 | digit;
		}
		*out = v;
		return 1;
	}
	if (t->len == 0)
		return 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		unsigned digit = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*out = v;
	return 1;
}

/* Decimal with a point ("0.5", "2.", ".25"): a C double literal. */
static bool parse_double(const struct token *t, double *out)
{
	char buf[64];
	size_t digits = 0, points = 0;

	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] == '.')
			points++;
		else if (t->s[i] >= '0' && t->s[i] <= '9')
			digits++;
		else
			return false;
	}
	if (points != 1 || digits == 0 || t->len >= sizeof(buf))
		return false;
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';

	char *end;
	*out = strtod(buf, &end);
	return *end == '\0';
}

static void emit(struct compiler *c, enum opcode op, uint32_t index,
		 union slot imm)
{
	c->insns[c->n_insns++] = (struct insn){ .op = op, .index = index,
						.imm = imm };
}

static int push(struct compiler *c, size_t token, enum gpm_value_type type,
		enum opcode op, uint32_t index, union slot imm)
{
	if (c->depth == MAX_DEPTH)
		return fail(c, GPM_EQ_TOO_LONG, token,
			    "more than %d values on the stack at token %zu",
			    MAX_DEPTH, token);
	c->stack[c->depth++] = (struct value){
		.type = type,
		.is_const = op == OP_PUSH_IMM,
		.start = c->n_insns,
	};
	emit(c, op, index, imm);
	return 0;
}

static int push_literal_u64(struct compiler *c, size_t token, uint64_t u)
{
	return push(c, token, GPM_VALUE_U64, OP_PUSH_IMM, 0,
		    (union slot){ .u = u });
}

/* Converts the value `from_top` places below the top (0 or 1) to type. */
static void convert(struct compiler *c, unsigned from_top,
		    enum gpm_value_type type)
{
	struct value *v = &c->stack[c->depth - 1 - from_top];

	if (v->type == type)
		return;
	if (v->is_const) {
		union slot *imm = &c->insns[v->start].imm;
		if (type == GPM_VALUE_DOUBLE)
			imm->d = (double)imm->u;
		else
			imm->u = double_to_u64(imm->d);
	} else if (type == GPM_VALUE_DOUBLE) {
		emit(c, from_top ? OP_U2D_NEXT : OP_U2D, 0, (union slot){ 0 });
	} else {
		emit(c, from_top ? OP_D2U_NEXT : OP_D2U, 0, (union slot){ 0 });
	}
	v->type = type;
}

/* Replaces a literal-only computation by its value. */
static void fold(struct compiler *c, struct value *v)
{
	emit(c, OP_END, 0, (union slot){ 0 });
	union slot r = run(&c->insns[v->start], NULL);
	c->n_insns = v->start;
	emit(c, OP_PUSH_IMM, 0, r);
	v->is_const = true;
}

static int compile_operator(struct compiler *c, size_t token,
			    const struct operator *op)
{
	const struct token *t = &c->tokens[token];

	if (c->depth < 2)
		return fail(c, GPM_EQ_STACK_UNDERFLOW, token,
			    "stack underflow at " TOKEN_FMT " (token %zu): "
			    "needs 2 operands, has %u",
			    TOKEN_ARG(t), token, c->depth);

	struct value *a1 = &c->stack[c->depth - 2];
	struct value *a0 = &c->stack[c->depth - 1];
	enum gpm_value_type common =
		a1->type == GPM_VALUE_DOUBLE || a0->type == GPM_VALUE_DOUBLE ?
		GPM_VALUE_DOUBLE : GPM_VALUE_U64;
	enum gpm_value_type result;

	switch (op->kind) {
	case KIND_DOUBLE_OPERANDS:
		common = GPM_VALUE_DOUBLE;
		result = GPM_VALUE_DOUBLE;
		break;
	case KIND_U64_OPERANDS:
		common = GPM_VALUE_U64;
		result = GPM_VALUE_U64;
		break;
	case KIND_TO_DOUBLE:
		result = GPM_VALUE_DOUBLE;
		break;
	case KIND_TO_U64:
	case KIND_PREDICATE:
	default:
		result = GPM_VALUE_U64;
		break;
	}

	convert(c, 1, common);
	convert(c, 0, common);
	emit(c, common == GPM_VALUE_DOUBLE ? op->op_double : op->op_u64, 0,
	     (union slot){ 0 });

	bool literals = a1->is_const && a0->is_const;
	c->depth--;
	a1->type = op->kind == KIND_PREDICATE ? GPM_VALUE_U64 : common;
	a1->is_const = false;
	convert(c, 0, result);
	if (literals)
		fold(c, a1);
	return 0;
}

/* `TYPE index READ`: one accumulator slot. */
static int compile_read(struct compiler *c, size_t token,
			const struct read_type *rt)
{
	const struct token *t = &c->tokens[token];
	uint64_t index;

	if (token + 2 >= c->n_tokens ||
	    !token_is(&c->tokens[token + 2], "READ") ||
	    parse_integer(&c->tokens[token + 1], &index) != 1)
		return fail(c, GPM_EQ_BAD_READ, token,
			    TOKEN_FMT " at token %zu must be followed by an "
			    "index and READ, e.g. '%s 0 READ'",
			    TOKEN_ARG(t), token, rt->name);
	if (index >= rt->count)
		return fail(c, GPM_EQ_BAD_READ, token + 1,
			    "READ index %" PRIu64 " out of range for '%s' "
			    "(0..%u) at token %zu",
			    index, rt->name, rt->count - 1, token + 1);
	c->constant = false;
	return push(c, token, GPM_VALUE_U64, OP_PUSH_ACC,
		    rt->base + (uint32_t)index, (union slot){ 0 });
}

static void add_ref(struct compiler *c, unsigned index)
{
	for (uint32_t i = 0; i < c->n_refs; i++) {
		if (c->refs[i] == index)
			return;
	}
	c->refs[c->n_refs++] = index;
}

static int compile_variable(struct compiler *c, size_t token)
{
	const struct token *t = &c->tokens[token];
	const struct gpm_equation_resolver *r = c->resolver;
	int var = gpm_var_lookup(t->s + 1, t->len - 1);
	enum gpm_value_type type = GPM_VALUE_U64;
	unsigned index;

	if (var >= 0)
		return push(c, token, GPM_VALUE_U64, OP_PUSH_VAR,
			    (uint32_t)var, (union slot){ 0 });
	if (!r || !r->counter || r->counter(r->ctx, t->s + 1, t->len - 1,
					    &index, &type) != 0)
		return fail(c, GPM_EQ_UNKNOWN_VARIABLE, token,
			    "unknown variable " TOKEN_FMT " at token %zu",
			    TOKEN_ARG(t), token);
	if (type != GPM_VALUE_DOUBLE)
		type = GPM_VALUE_U64;
	add_ref(c, index);
	c->constant = false;
	return push(c, token, type, OP_PUSH_COUNTER, index, (union slot){ 0 });
}

static int compile_operand(struct compiler *c, size_t token)
{
	const struct token *t = &c->tokens[token];
	uint64_t u;
	double d;

	if (t->s[0] == '$')
		return compile_variable(c, token);
	if (token_is(t, "true"))
		return push_literal_u64(c, token, 1);

	int rc = parse_integer(t, &u);
	if (rc == 1)
		return push_literal_u64(c, token, u);
	if (rc == -ERANGE)
		return fail(c, GPM_EQ_UNKNOWN_OPERATOR, token,
			    "literal " TOKEN_FMT " at token %zu does not fit "
			    "in 64 bits", TOKEN_ARG(t), token);
	if (parse_double(t, &d))
		return push(c, token, GPM_VALUE_DOUBLE, OP_PUSH_IMM, 0,
			    (union slot){ .d = d });
	return fail(c, GPM_EQ_UNKNOWN_OPERATOR, token,
		    "unknown operator " TOKEN_FMT " at token %zu",
		    TOKEN_ARG(t), token);
}

static int compile_tokens(struct compiler *c)
{
	for (size_t i = 0; i < c->n_tokens; i++) {
		const struct token *t = &c->tokens[i];
		int rc = 0;

		/* gputop's `NAME READ_REG` reads a register that no OA
		 * report holds; gputop itself emits 0. */
		if (i + 1 < c->n_tokens && token_is(&c->tokens[i + 1], "READ_REG")) {
			rc = push_literal_u64(c, i, 0);
			i++;
			if (rc)
				return rc;
			continue;
		}
		if (token_is(t, "READ_REG"))
			return fail(c, GPM_EQ_BAD_READ, i,
				    "READ_REG at token %zu needs a register "
				    "name before it", i);
		if (token_is(t, "READ"))
			return fail(c, GPM_EQ_BAD_READ, i,
				    "READ at token %zu needs a type and an index "
				    "before it, e.g. 'A 7 READ'", i);

		const struct operator *op = NULL;
		for (size_t k = 0; k < sizeof(operators) / sizeof(operators[0]); k++) {
			if (token_is(t, operators[k].name))
				op = &operators[k];
		}
		if (op) {
			rc = compile_operator(c, i, op);
			if (rc)
				return rc;
			continue;
		}

		const struct read_type *rt = NULL;
		for (size_t k = 0; k < sizeof(read_types) / sizeof(read_types[0]); k++) {
			if (token_is(t, read_types[k].name))
				rt = &read_types[k];
		}
		if (rt) {
			rc = compile_read(c, i, rt);
			i += 2;
		} else {
			rc = compile_operand(c, i);
		}
		if (rc)
			return rc;
	}

	if (c->depth != 1) {
		size_t last = c->n_tokens - 1;
		return fail(c, GPM_EQ_STACK_LEFTOVER, last,
			    "%u values left on the stack at the end: missing "
			    "operator", c->depth);
	}
	return 0;
}

static size_t tokenize(const char *rpn, struct token *tokens, size_t max)
{
	size_t n = 0;
	const char *p = rpn;

	for (;;) {
		while (*p && is_space(*p))
			p++;
		if (!*p)
			return n;
		const char *start = p;
		while (*p && !is_space(*p))
			p++;
		if (tokens && n < max)
			tokens[n] = (struct token){ start, (size_t)(p - start) };
		n++;
	}
}

static int out_of_memory(struct gpm_equation_error *err)
{
	memset(err, 0, sizeof(*err));
	snprintf(err->message, sizeof(err->message), "out of memory");
	return -ENOMEM;
}

int gpm_equation_compile(const char *rpn, enum gpm_value_type result_type,
			 const struct gpm_equation_resolver *resolver,
			 struct gpm_equation **out,
			 struct gpm_equation_error *err)
{
	struct gpm_equation_error local_err;
	struct compiler c = {
		.resolver = resolver,
		.err = err ? err : &local_err,
		.constant = true,
	};
	int rc;

	*out = NULL;
	memset(c.err, 0, sizeof(*c.err));
	if (result_type != GPM_VALUE_DOUBLE)
		result_type = GPM_VALUE_U64;

	c.n_tokens = rpn ? tokenize(rpn, NULL, 0) : 0;
	if (c.n_tokens == 0)
		return fail(&c, GPM_EQ_EMPTY, 0, "empty equation");
	if (c.n_tokens > MAX_TOKENS)
		return fail(&c, GPM_EQ_TOO_LONG, MAX_TOKENS,
			    "more than %d tokens", MAX_TOKENS);

	/* Each token emits at most four instructions (two operand
	 * conversions, the operator, a result conversion), plus the final
	 * conversion and OP_END. */
	size_t max_insns = 4 * c.n_tokens + 2;
	void *scratch = malloc(c.n_tokens * sizeof(*c.tokens) +
			       max_insns * sizeof(*c.insns) +
			       c.n_tokens * sizeof(*c.refs));
	if (!scratch)
		return out_of_memory(c.err);
	c.insns = scratch;
	c.tokens = (struct token *)(c.insns + max_insns);
	c.refs = (unsigned *)(c.tokens + c.n_tokens);
	tokenize(rpn, c.tokens, c.n_tokens);

	rc = compile_tokens(&c);
	if (rc) {
		free(scratch);
		return rc;
	}
	convert(&c, 0, result_type);
	emit(&c, OP_END, 0, (union slot){ 0 });

	struct gpm_equation *eq = malloc(sizeof(*eq) +
					 c.n_insns * sizeof(*c.insns) +
					 c.n_refs * sizeof(*c.refs));
	if (!eq) {
		free(scratch);
		return out_of_memory(c.err);
	}
	eq->result_type = result_type;
	eq->constant = c.constant;
	eq->n_insns = c.n_insns;
	memcpy(eq->insns, c.insns, c.n_insns * sizeof(*c.insns));
	eq->n_refs = c.n_refs;
	eq->refs = (const unsigned *)(eq->insns + c.n_insns);
	memcpy((unsigned *)(eq->insns + c.n_insns), c.refs,
	       c.n_refs * sizeof(*c.refs));
	free(scratch);
	*out = eq;
	return 0;
}
