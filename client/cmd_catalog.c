/*
 * gpuperf devices, sets and counters: what the daemon offers, from its
 * Hello, as aligned text tables.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/catalog_names.h"
#include "client/commands.h"
#include "client/human_text.h"

/* Rows of text cells printed with each column as wide as its widest. */
struct text_table {
	size_t n_columns;
	size_t n_cells, cap_cells;
	char **cells;
	int failed;
};

static void table_add(struct text_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void table_add(struct text_table *t, const char *fmt, ...)
{
	va_list ap;
	char *cell = NULL;

	if (t->failed)
		return;
	if (t->n_cells == t->cap_cells) {
		size_t cap = t->cap_cells ? t->cap_cells * 2 : 64;
		char **cells = realloc(t->cells, cap * sizeof(*cells));
		if (!cells) {
			t->failed = 1;
			return;
		}
		t->cells = cells;
		t->cap_cells = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&cell, fmt, ap) < 0)
		t->failed = 1;
	else
		t->cells[t->n_cells++] = cell;
	va_end(ap);
}

/* The last column is not padded: it is the long free text. */
static void table_print(const struct text_table *t)
{
	size_t n = t->n_columns;
	int width[16] = { 0 };

	for (size_t i = 0; i < t->n_cells; i++) {
		int len = gpuperf_text_width(t->cells[i]);
		if (len > width[i % n])
			width[i % n] = len;
	}
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t col = i % n;
		if (col + 1 < n)
			printf("%s%*s  ", t->cells[i],
			       width[col] - gpuperf_text_width(t->cells[i]), "");
		else
			printf("%s\n", t->cells[i]);
	}
}

static void table_fini(struct text_table *t)
{
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i]);
	free(t->cells);
}

static int finish_table(const char *cmd, struct text_table *t)
{
	int ret = GPUPERF_EXIT_OK;

	if (t->failed)
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	else
		table_print(t);
	table_fini(t);
	if (fflush(stdout) != 0)
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write the "
				   "output");
	return ret;
}

/* The options these three commands share. */
struct catalog_options {
	struct gpuperf_connection conn;
	const char *device;
	const char *set;                /* counters' SET */
	const char **names;             /* counters' COUNTERs */
	size_t n_names;
	bool long_form;                 /* counters -l */
	bool help;
};

static int parse(const char *cmd, const char *usage, bool takes_set,
		 int argc, char **argv, struct catalog_options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m = gpuperf_connection_option(cmd, usage, argc, argv, &i,
						  &o->conn);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m > 0)
			continue;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			o->help = true;
			return 0;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--device", "-d",
					   &value))) {
			if (m < 0)
				return gpuperf_usage_error(cmd, usage, "-d needs "
							   "a device name");
			o->device = value;
			continue;
		}
		if (takes_set && gpuperf_arg_flag(arg, "--long", "-l")) {
			o->long_form = true;
			continue;
		}
		if (arg[0] == '-')
			return gpuperf_usage_error(cmd, usage, "unknown option "
						   "'%s'", arg);
		if (!takes_set)
			return gpuperf_usage_error(cmd, usage, "unexpected "
						   "argument '%s'", arg);
		if (!o->set) {
			o->set = arg;
			continue;
		}
		if (!o->names && !(o->names = calloc((size_t)argc,
						     sizeof(*o->names))))
			return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of "
					    "memory");
		o->names[o->n_names++] = arg;
	}
	if (takes_set && !o->set)
		return gpuperf_usage_error(cmd, usage, "name the metric set "
					   "('gpuperf sets' lists them)");
	return 0;
}

/* ------------------------------------------------------------------ */

static const char devices_usage[] = "gpuperf devices [CONNECTION OPTIONS]";
static const char devices_help[] =
	"Lists the daemon's devices: name (what -d takes), driver, platform,\n"
	"PCI id, EUs, GPU frequency range, what it streams now, how one\n"
	"context can be measured there, and what it is.\n\n"
	"CONTEXTS: 'kernel' where an application may pass its DRM file and a\n"
	"context for the kernel to stream alone (--drm-fd, --own-contexts);\n"
	"'kernel, whole unit' where the kernel takes the context but hands\n"
	"over every context's reports (xe); 'software' where the reports\n"
	"carry context IDs, so --ctx can narrow a system-wide stream and\n"
	"--per-context split it (not on Haswell); '-' where neither.\n\n";

/* The CONTEXTS column: which context filters the device takes. */
static void context_filters(char *buf, size_t size, const struct gpc_device *d)
{
	const char *kernel = !d->kernel_context_filter ? "" :
			     d->kernel_filters_reports ? "kernel" :
			     "kernel, whole unit";
	snprintf(buf, size, "%s%s%s", kernel,
		 *kernel && d->software_context_filter ? ", " : "",
		 d->software_context_filter ? "software" : "");
	if (!*buf)
		snprintf(buf, size, "-");
}

static void frequency_range(char *buf, size_t size, const struct gpc_device *d)
{
	if (!d->max_frequency)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRIu64 "-%" PRIu64 " MHz",
			 d->min_frequency / 1000000, d->max_frequency / 1000000);
}

int gpuperf_cmd_devices(int argc, char **argv)
{
	const char *cmd = "devices";
	struct catalog_options o = { 0 };
	struct gpc_client *c;
	struct text_table t = { .n_columns = 9 };
	char freq[64], contexts[64], period[GPUPERF_HUMAN_TEXT_MAX];

	int ret = parse(cmd, devices_usage, false, argc, argv, &o);
	if (ret || o.help) {
		if (o.help)
			printf("usage: %s\n\n%s%s", devices_usage, devices_help,
			       gpuperf_connection_help);
		return ret;
	}
	if ((ret = gpuperf_connect(cmd, &o.conn, NULL, &c)))
		return ret;
	const struct gpc_device *d;
	size_t n = gpc_devices(c, &d);
	table_add(&t, "NAME");
	table_add(&t, "DRIVER");
	table_add(&t, "PLATFORM");
	table_add(&t, "PCI ID");
	table_add(&t, "EUS");
	table_add(&t, "FREQUENCY");
	table_add(&t, "STREAMING");
	table_add(&t, "CONTEXTS");
	table_add(&t, "DESCRIPTION");
	for (size_t i = 0; i < n; i++) {
		const struct gpc_configuration *cfg = &d[i].configuration;
		frequency_range(freq, sizeof(freq), &d[i]);
		table_add(&t, "%s", d[i].name);
		table_add(&t, "%s", d[i].driver);
		table_add(&t, "%s", d[i].platform);
		table_add(&t, "0x%04" PRIx32, d[i].pci_id);
		table_add(&t, "%" PRIu32, d[i].topology.eu_count);
		table_add(&t, "%s", freq);
		if (cfg->streaming) {
			gpuperf_duration_text(period, sizeof(period),
					      (double)cfg->sampling_period_ns);
			table_add(&t, "%s every %s", cfg->metric_set, period);
		} else
			table_add(&t, "-");
		context_filters(contexts, sizeof(contexts), &d[i]);
		table_add(&t, "%s", contexts);
		table_add(&t, "%s", d[i].description);
	}
	gpc_close_sync(c);
	return finish_table(cmd, &t);
}

/* ------------------------------------------------------------------ */

static const char sets_usage[] =
	"gpuperf sets [-d DEVICE] [CONNECTION OPTIONS]";
static const char sets_help[] =
	"Lists the metric sets of every device, or of one.\n\n"
	"  -d, --device DEVICE  only this device's ('gpuperf devices')\n\n";

int gpuperf_cmd_sets(int argc, char **argv)
{
	const char *cmd = "sets";
	struct catalog_options o = { 0 };
	struct gpc_client *c;
	struct text_table t = { .n_columns = 5 };

	int ret = parse(cmd, sets_usage, false, argc, argv, &o);
	if (ret || o.help) {
		if (o.help)
			printf("usage: %s\n\n%s%s", sets_usage, sets_help,
			       gpuperf_connection_help);
		return ret;
	}
	if ((ret = gpuperf_connect(cmd, &o.conn, NULL, &c)))
		return ret;
	const struct gpc_device *d;
	size_t n = gpc_devices(c, &d);
	const struct gpc_device *only = o.device ?
		gpuperf_need_device(cmd, c, o.device) : NULL;
	if (o.device && !only) {
		gpc_close_sync(c);
		return GPUPERF_EXIT_REFUSED;
	}
	table_add(&t, "DEVICE");
	table_add(&t, "SYMBOL");
	table_add(&t, "COUNTERS");
	table_add(&t, "GUID");
	table_add(&t, "NAME");
	for (size_t i = 0; i < n; i++) {
		if (only && only != &d[i])
			continue;
		for (size_t s = 0; s < d[i].n_metric_sets; s++) {
			const struct gpc_metric_set *set = &d[i].metric_sets[s];
			table_add(&t, "%s", d[i].name);
			table_add(&t, "%s", set->symbol);
			table_add(&t, "%zu", set->n_counters);
			table_add(&t, "%s", set->guid);
			table_add(&t, "%s", set->name);
		}
	}
	gpc_close_sync(c);
	return finish_table(cmd, &t);
}

/* ------------------------------------------------------------------ */

static const char counters_usage[] =
	"gpuperf counters SET [COUNTER...] [-l] [-d DEVICE] [CONNECTION OPTIONS]";
static const char counters_help[] =
	"Lists the counters of a metric set (by symbol or GUID; any case)\n"
	"that the device has: symbol (what -c takes), the unit they are shown\n"
	"in, their upper bound on this device, and what they measure. Named\n"
	"COUNTERs, or -l, give each in full: name, description, the metric\n"
	"file's units and type, and how the bound is reached.\n\n"
	"Counters of events and bytes are shown per second of GPU time (as\n"
	"every human view shows them), and so are their bounds: at the\n"
	"device's highest frequency.\n\n"
	"  -l, --long           every counter in full\n"
	"  -d, --device DEVICE  the device (default: the first)\n\n";

static const char *const type_names[] = {
	[GPC_COUNTER_EVENT] = "event",
	[GPC_COUNTER_DURATION_NORM] = "duration_norm",
	[GPC_COUNTER_DURATION_RAW] = "duration_raw",
	[GPC_COUNTER_THROUGHPUT] = "throughput",
	[GPC_COUNTER_RAW] = "raw",
	[GPC_COUNTER_TIMESTAMP] = "timestamp",
};

static const char *const data_type_names[] = {
	[GPC_DATA_BOOL32] = "bool32",
	[GPC_DATA_UINT32] = "uint32",
	[GPC_DATA_UINT64] = "uint64",
	[GPC_DATA_FLOAT] = "float",
	[GPC_DATA_DOUBLE] = "double",
};

/* The counter's bound on the device, as it is shown. */
static void bound_text(char *buf, size_t size, const struct gpc_counter *k)
{
	struct gpuperf_display display;

	if (!k->has_max_value && !k->max_equation) {
		snprintf(buf, size, "-");
		return;
	}
	gpuperf_display_of(&display, k);
	/* device_max is over one second: a rate per second as it is. */
	gpuperf_human_value(buf, size, k->device_max * display.scale,
			    display.unit);
}

/* The first sentence of a description, for the table. */
static int first_sentence(const char *text)
{
	const char *end = strstr(text, ". ");
	return end ? (int)(end - text + 1) : (int)strlen(text);
}

static void print_long(const struct gpc_device *d, const struct gpc_counter *k)
{
	struct gpuperf_display display;
	char bound[GPUPERF_HUMAN_TEXT_MAX], freq[GPUPERF_HUMAN_TEXT_MAX];

	gpuperf_display_of(&display, k);
	bound_text(bound, sizeof(bound), k);
	printf("%s: %s\n", k->symbol, k->name);
	if (k->description[0])
		printf("  %s\n", k->description);
	printf("  unit: %s (the metric file's: %s%s)\n",
	       display.unit[0] ? display.unit : "none",
	       k->units[0] ? k->units : "none",
	       display.per_second ? ", summed over each window, shown per "
				    "second of GPU time" : "");
	if (k->max_equation) {
		gpuperf_human_value(freq, sizeof(freq),
				    (double)d->max_frequency, "Hz");
		printf("  max: %s on %s at its highest frequency, %s (%s)\n",
		       bound, d->name, freq, k->max_equation);
	} else if (k->has_max_value) {
		printf("  max: %s\n", bound);
	} else {
		printf("  max: none\n");
	}
	printf("  type: %s, %s%s%s%s%s\n", type_names[k->type],
	       data_type_names[k->data_type],
	       k->semantic_type[0] ? ", " : "", k->semantic_type,
	       k->group[0] ? "; group: " : "", k->group);
}

int gpuperf_cmd_counters(int argc, char **argv)
{
	const char *cmd = "counters";
	struct catalog_options o = { 0 };
	struct gpc_client *c;
	struct text_table t = { .n_columns = 4 };
	char bound[GPUPERF_HUMAN_TEXT_MAX];

	int ret = parse(cmd, counters_usage, true, argc, argv, &o);
	if (ret || o.help) {
		if (o.help)
			printf("usage: %s\n\n%s%s", counters_usage,
			       counters_help, gpuperf_connection_help);
		free(o.names);
		return ret;
	}
	if ((ret = gpuperf_connect(cmd, &o.conn, NULL, &c))) {
		free(o.names);
		return ret;
	}
	const struct gpc_device *d = gpuperf_need_device(cmd, c, o.device);
	const struct gpc_metric_set *set = d ?
		gpuperf_need_metric_set(cmd, d, o.set) : NULL;
	/* Every named counter is checked before anything is printed. */
	for (size_t i = 0; set && i < o.n_names; i++)
		if (!gpuperf_need_counter(cmd, d, set, o.names[i]))
			set = NULL;
	if (!set) {
		gpc_close_sync(c);
		free(o.names);
		return GPUPERF_EXIT_REFUSED;
	}
	if (o.n_names || o.long_form) {
		size_t n = o.n_names ? o.n_names : set->n_counters;
		for (size_t i = 0; i < n; i++) {
			const struct gpc_counter *k = o.n_names ?
				gpc_find_counter(set, o.names[i]) :
				&set->counters[i];
			if (i)
				printf("\n");
			print_long(d, k);
		}
		gpc_close_sync(c);
		free(o.names);
		if (fflush(stdout) != 0)
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "cannot write "
					    "the output");
		return GPUPERF_EXIT_OK;
	}
	table_add(&t, "SYMBOL");
	table_add(&t, "UNIT");
	table_add(&t, "MAX");
	table_add(&t, "DESCRIPTION");
	for (size_t i = 0; i < set->n_counters; i++) {
		const struct gpc_counter *k = &set->counters[i];
		struct gpuperf_display display;
		gpuperf_display_of(&display, k);
		bound_text(bound, sizeof(bound), k);
		table_add(&t, "%s", k->symbol);
		table_add(&t, "%s", display.unit[0] ? display.unit : "-");
		table_add(&t, "%s", bound);
		table_add(&t, "%.*s", first_sentence(k->description),
			  k->description);
	}
	gpc_close_sync(c);
	free(o.names);
	return finish_table(cmd, &t);
}
