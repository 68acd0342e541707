/*
 * The metric model: what one Intel metric XML file (oa-<platform>.xml)
 * defines, after loading and compiling.
 *
 * A file holds metric sets. A set is one hardware configuration (its
 * register programming, named by hw_config_guid) and the counters computed
 * from the reports it produces. Every counter equation, max equation and
 * availability expression is compiled once at load; a set's counters carry
 * an evaluation order in which each counter comes after the counters its
 * equation reads.
 *
 * Everything here is read-only once loaded, and lives until the file is
 * freed. Only good definitions make it into the model: a counter whose
 * equation does not compile, that reads an unknown counter, sits in a
 * reference cycle or depends on such a counter is left out (and reported).
 */
#ifndef GPM_METRIC_SET_H
#define GPM_METRIC_SET_H

#include <stddef.h>
#include <stdint.h>

#include "diagnostics.h"
#include "equation.h"

/* Mesa's and IGT's counter types; XML semantic types map onto four of them
 * (event -> EVENT, duration -> RAW, ratio -> EVENT, throughput ->
 * THROUGHPUT), the others exist for API parity. */
enum gpm_counter_type {
	GPM_COUNTER_EVENT,
	GPM_COUNTER_DURATION_NORM,
	GPM_COUNTER_DURATION_RAW,
	GPM_COUNTER_THROUGHPUT,
	GPM_COUNTER_RAW,
	GPM_COUNTER_TIMESTAMP,
};

/* Declared result types; the XML uses uint64 and float only. */
enum gpm_counter_data_type {
	GPM_DATA_BOOL32,
	GPM_DATA_UINT32,
	GPM_DATA_UINT64,
	GPM_DATA_FLOAT,
	GPM_DATA_DOUBLE,
};

/* The three register lists of DRM_IOCTL_I915_PERF_ADD_CONFIG: XML type NOA
 * programs the mux, OA the boolean counters, FLEX the EU flex counters. */
enum gpm_register_kind {
	GPM_REGISTERS_MUX,
	GPM_REGISTERS_BOOLEAN,
	GPM_REGISTERS_FLEX,
	GPM_REGISTER_KINDS,
};

struct gpm_register {
	uint32_t address;
	uint32_t value;
};

struct gpm_register_config {
	enum gpm_register_kind kind;
	const char *availability;       /* RPN; NULL when unconditional */
	struct gpm_equation *availability_eq;
	int priority;                   /* -1 when the XML gives none */
	unsigned line;
	size_t n_registers;
	const struct gpm_register *registers;
};

struct gpm_counter {
	const char *symbol_name;        /* "EuActive": `$EuActive` in equations */
	const char *name;               /* "EU Active" */
	const char *underscore_name;    /* "eu_active"; "" when absent */
	const char *description;        /* "" when absent */
	const char *units;              /* "percent", "ns", ... as in the XML */
	const char *semantic_type;      /* "event", "duration", ... */
	const char *mdapi_group;        /* "EU Array/Vertex Shader"; "" */
	const char *equation;
	const char *max_equation;       /* NULL when absent or unusable */
	const char *availability;       /* NULL when always available */
	enum gpm_counter_type type;
	enum gpm_counter_data_type data_type;
	unsigned line;                  /* of the <counter> tag */
	struct gpm_equation *eq;
	struct gpm_equation *max_eq;    /* NULL iff max_equation is */
	struct gpm_equation *availability_eq;   /* NULL iff availability is */
};

/*
 * A raw counter that a source reads itself, for devices without an OA unit
 * (the schema's one extension, metrics/nvidia/README.md):
 * <raw_counter slot="PEC 3" name="dram__bytes_read.sum"/> says that the
 * running total of the device's counter `name` fills accumulator slot
 * PEC 3, where equations READ it like any OA counter.
 */
struct gpm_raw_counter {
	const char *name;
	unsigned slot;                  /* enum gpm_acc_slot */
	unsigned line;
};

struct gpm_metrics_file;

struct gpm_metric_set {
	const struct gpm_metrics_file *file;
	const char *name;               /* "Render Metrics Basic set" */
	const char *symbol_name;        /* "RenderBasic" */
	const char *underscore_name;    /* "" when absent */
	const char *chipset;            /* "TGLGT2" */
	const char *hw_config_guid;     /* a UUID, the kernel's config name */
	const char *oa_format;          /* "256B_GENERIC_NOA16"; NULL if absent */
	const char *mdapi_supported_apis;       /* "VK OGL OCL IO"; "" */
	unsigned line;
	/* In document order. Equations refer to counters by this index. */
	size_t n_counters;
	struct gpm_counter *counters;
	/* A permutation of 0..n_counters-1, dependencies first. */
	const unsigned *eval_order;
	size_t n_register_configs;
	struct gpm_register_config *register_configs;
	/* In document order, each slot at most once; none for OA sets. */
	size_t n_raw_counters;
	const struct gpm_raw_counter *raw_counters;
};

struct gpm__arena;

struct gpm_metrics_file {
	const char *path;
	/* The chipset of its sets ("TGLGT2"), "" when it has none; platform is
	 * the lower-case name ("tglgt2"), which names the file oa-tglgt2.xml. */
	const char *chipset;
	const char *platform;
	size_t n_sets;
	struct gpm_metric_set *sets;
	struct gpm__arena *arena;       /* owns the strings and arrays */
};

void gpm_metrics_file_free(struct gpm_metrics_file *file);

/* By symbol_name, or by hw_config_guid; NULL if none. */
const struct gpm_metric_set *
gpm_metrics_file_find_set(const struct gpm_metrics_file *file,
			  const char *name);

/* By symbol_name; -ENOENT if the set has no such counter. */
int gpm_metric_set_find_counter(const struct gpm_metric_set *set,
				const char *symbol_name);

/* As a person names them: exactly, else ignoring case. (Equations and
 * recordings name them exactly, as IGT does: the functions above.) */
const struct gpm_metric_set *
gpm_metrics_file_lookup_set(const struct gpm_metrics_file *file,
			    const char *name);
int gpm_metric_set_lookup_counter(const struct gpm_metric_set *set,
				  const char *name);

/* The set or counter name closest to a mistyped one; NULL if none is
 * close enough to be what was meant. */
const char *gpm_metrics_file_closest_set(const struct gpm_metrics_file *file,
					 const char *name);
const char *gpm_metric_set_closest_counter(const struct gpm_metric_set *set,
					   const char *name);

/* How a counter's declared data type evaluates. */
enum gpm_value_type gpm_counter_value_type(enum gpm_counter_data_type type);

const char *gpm_counter_type_name(enum gpm_counter_type type);
const char *gpm_counter_data_type_name(enum gpm_counter_data_type type);
const char *gpm_register_kind_name(enum gpm_register_kind kind);

#endif
