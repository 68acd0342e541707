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
#include "client/commands.h"

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
		int len = (int)strlen(t->cells[i]);
		if (len > width[i % n])
			width[i % n] = len;
	}
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t col = i % n;
		if (col + 1 < n)
			printf("%-*s  ", width[col], t->cells[i]);
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
		if (arg[0] == '-')
			return gpuperf_usage_error(cmd, usage, "unknown option "
						   "'%s'", arg);
		if (!takes_set || o->set)
			return gpuperf_usage_error(cmd, usage, "unexpected "
						   "argument '%s'", arg);
		o->set = arg;
	}
	if (takes_set && !o->set)
		return gpuperf_usage_error(cmd, usage, "name the metric set "
					   "('gpuperf sets' lists them)");
	return 0;
}

static const struct gpc_device *find_device(const char *cmd,
					    struct gpc_client *c,
					    const char *name, int *ret)
{
	const struct gpc_device *d = gpc_find_device(c, name);

	if (!d && name)
		*ret = gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "the daemon has no "
				    "device '%s'; 'gpuperf devices' lists them",
				    name);
	else if (!d)
		*ret = gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "the daemon serves "
				    "no device");
	return d;
}

/* ------------------------------------------------------------------ */

static const char devices_usage[] = "gpuperf devices [CONNECTION OPTIONS]";
static const char devices_help[] =
	"Lists the daemon's devices: name (what -d takes), driver, platform,\n"
	"PCI id, EUs, GPU frequency range, what it streams now, and what it\n"
	"is.\n\n";

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
	struct text_table t = { .n_columns = 8 };
	char freq[64];

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
		if (cfg->streaming)
			table_add(&t, "%s every %.3g ms", cfg->metric_set,
				  (double)cfg->sampling_period_ns / 1e6);
		else
			table_add(&t, "-");
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
	if (o.device && !find_device(cmd, c, o.device, &ret)) {
		gpc_close_sync(c);
		return ret;
	}
	table_add(&t, "DEVICE");
	table_add(&t, "SYMBOL");
	table_add(&t, "COUNTERS");
	table_add(&t, "GUID");
	table_add(&t, "NAME");
	for (size_t i = 0; i < n; i++) {
		if (o.device && strcmp(o.device, d[i].name))
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
	"gpuperf counters SET [-d DEVICE] [CONNECTION OPTIONS]";
static const char counters_help[] =
	"Lists the counters of a metric set (by symbol or GUID) that the\n"
	"device has: symbol (what -c takes), units, type, data type, upper\n"
	"bound, and name.\n\n"
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

int gpuperf_cmd_counters(int argc, char **argv)
{
	const char *cmd = "counters";
	struct catalog_options o = { 0 };
	struct gpc_client *c;
	struct text_table t = { .n_columns = 6 };

	int ret = parse(cmd, counters_usage, true, argc, argv, &o);
	if (ret || o.help) {
		if (o.help)
			printf("usage: %s\n\n%s%s", counters_usage,
			       counters_help, gpuperf_connection_help);
		return ret;
	}
	if ((ret = gpuperf_connect(cmd, &o.conn, NULL, &c)))
		return ret;
	const struct gpc_device *d = find_device(cmd, c, o.device, &ret);
	const struct gpc_metric_set *set = d ? gpc_find_metric_set(d, o.set) : NULL;
	if (d && !set)
		ret = gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s has no "
				   "metric set '%s'; 'gpuperf sets -d %s' lists "
				   "them", d->name, o.set, d->name);
	if (!set) {
		gpc_close_sync(c);
		return ret;
	}
	table_add(&t, "SYMBOL");
	table_add(&t, "UNITS");
	table_add(&t, "TYPE");
	table_add(&t, "DATA");
	table_add(&t, "MAX");
	table_add(&t, "NAME");
	for (size_t i = 0; i < set->n_counters; i++) {
		const struct gpc_counter *k = &set->counters[i];
		table_add(&t, "%s", k->symbol);
		table_add(&t, "%s", k->units[0] ? k->units : "-");
		table_add(&t, "%s", type_names[k->type]);
		table_add(&t, "%s", data_type_names[k->data_type]);
		if (k->has_max_value)
			table_add(&t, "%.6g", k->max_value);
		else
			table_add(&t, "%s", k->max_equation ? k->max_equation : "-");
		table_add(&t, "%s", k->name);
	}
	gpc_close_sync(c);
	return finish_table(cmd, &t);
}
