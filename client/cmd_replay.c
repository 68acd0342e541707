/*
 * gpuperf replay: an IGT i915-perf recording, offline, through the same
 * decoder, windows and equations as the daemon.
 *
 * The recording names its device (PCI id, topology, clocks) and metric set
 * (symbol and GUID); the platform table turns the PCI id into the metric
 * file to use, found in the --metrics-dir directories. Windows are every
 * report pair (--per-report, the pairs `i915-perf-reader -r` prints), fixed
 * intervals, or runs of one context (the default, like IGT's timelines).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli_args.h"
#include "client/commands.h"
#include "client/output.h"
#include "client/recording_readahead.h"
#include "client/replay_rgp.h"
#include "metrics/metric_binding.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_trace.h"
#include "metrics/oa_window.h"
#include "metrics/platform.h"
#include "metrics/recording.h"
#include "metrics/timestamp_correlation.h"

static const char usage_line[] =
	"gpuperf replay FILE [--metrics-dir DIR...] [-c C1,C2|all]\n"
	"       [--per-report | --interval DURATION | --per-context]\n"
	"       [--format table|csv|ndjson|perfetto] [--raw] [-o OUT]";

static const char help_text[] =
	"Computes the counters of an i915-perf recording (IGT's\n"
	"i915-perf-recorder format) offline. Given an RGP capture (.rgp,\n"
	"as radv writes them), prints the counters of its SPM chunks, one\n"
	"row per sample (chunk, gpu_timestamp in ticks, gpu_time_ns from\n"
	"its ASIC info, then each counter), or a Perfetto trace of them.\n"
	"\n"
	"  --metrics-dir DIR  read the oa-*.xml files in DIR (IGT's\n"
	"                     lib/i915/perf-configs, Mesa's src/intel/perf);\n"
	"                     repeatable, earlier directories win; without it,\n"
	"                     the built-in definitions of the sim GPU\n"
	"  -c, --counters C1,C2\n"
	"                     the counters to print, by symbol name; 'all'\n"
	"                     (the default) prints every counter the recorded\n"
	"                     device has\n"
	"  --per-report       one row per consecutive pair of reports\n"
	"  --interval DURATION\n"
	"                     one row per DURATION of GPU time (e.g. 100ms,\n"
	"                     1s, 500us, 20000ns)\n"
	"  --per-context      one row per run of reports of one context\n"
	"                     (the default; Haswell's reports carry no\n"
	"                     context ID: there --per-report is)\n"
	"  --format FORMAT    table (aligned, human units; the default), csv\n"
	"                     or ndjson (plain numbers), or perfetto: a\n"
	"                     Perfetto trace (.perfetto-trace) with the\n"
	"                     counters per --interval window (10ms unless\n"
	"                     given), a slice per span of each context, the\n"
	"                     losses and clock snapshots; open it in\n"
	"                     ui.perfetto.dev or trace_processor\n"
	"  --raw              add the raw counter deltas (raw_gpu_time,\n"
	"                     raw_a0, ...)\n"
	"  -o, --output OUT   write to OUT instead of standard output\n"
	"\n"
	"Columns: timestamp_ns (CPU time of the window's first report, from\n"
	"the recording's correlation points; empty without them),\n"
	"gpu_timestamp (its GPU timestamp in ticks, extended past 32-bit\n"
	"wraps), duration_ns, context_id (empty where none, and always on\n"
	"Haswell), reports (report pairs summed), lost (OA_REPORT_LOST),\n"
	"buffers_lost (OA_BUFFER_LOST), then one column per counter, named by\n"
	"its symbol. The pair across an OA_BUFFER_LOST has no valid deltas\n"
	"and gives no row.\n";

/* Bytes of rows written at a time. */
#define REPLAY_OUTPUT_BATCH (256u << 10)

/* The counters' window in a trace without --interval. */
#define TRACE_DEFAULT_INTERVAL_NS 10000000ull

enum metadata_column {
	COL_PLATFORM,
	COL_METRIC_SET,
	COL_TIMESTAMP,
	COL_GPU_TIMESTAMP,
	COL_DURATION,
	COL_CONTEXT,
	COL_REPORTS,
	COL_LOST,
	COL_BUFFERS_LOST,
	N_METADATA,
};

static const struct gpuperf_column metadata[N_METADATA] = {
	[COL_PLATFORM] = { "platform", GPUPERF_COLUMN_TEXT,
			   .machine_only = true },
	[COL_METRIC_SET] = { "metric_set", GPUPERF_COLUMN_TEXT,
			     .machine_only = true },
	[COL_TIMESTAMP] = { "timestamp_ns", GPUPERF_COLUMN_TIME, "time_s" },
	[COL_GPU_TIMESTAMP] = { "gpu_timestamp", GPUPERF_COLUMN_NUMBER },
	[COL_DURATION] = { "duration_ns", GPUPERF_COLUMN_DURATION, "duration" },
	[COL_CONTEXT] = { "context_id", GPUPERF_COLUMN_CONTEXT, "context" },
	[COL_REPORTS] = { "reports", GPUPERF_COLUMN_NUMBER },
	[COL_LOST] = { "lost", GPUPERF_COLUMN_NUMBER },
	[COL_BUFFERS_LOST] = { "buffers_lost", GPUPERF_COLUMN_NUMBER },
};

struct options {
	const char *file;
	const char **dirs;
	size_t n_dirs;
	const char *counters;           /* NULL: all */
	enum gpm_oa_window_mode mode;
	bool per_context;               /* --per-context given */
	uint64_t interval_ns;
	enum gpuperf_format format;
	bool raw;
	const char *output;
	bool help;
};

/* An accumulator slot printed with --raw. */
struct raw_column {
	unsigned slot;
	char key[24];
};

struct replay {
	struct options opt;
	const char *file;
	struct gpm_recording_reader *reader;
	int fd;                         /* the recording, -1 until open */
	struct gpuperf_readahead *readahead;    /* NULL: the reader reads */
	struct gpm_metrics_db db;
	const struct gpm_platform *platform;
	const struct gpm_metric_set *set;
	struct gpm_device_info device;
	struct gpm_device_vars *vars;
	struct gpm_binding binding;
	bool bound;
	struct gpm_oa_decoder decoder;
	struct gpm_oa_windower *windower;
	struct gpm_ts_correlation correlation;

	size_t n_selected;
	unsigned *selected;             /* counter indices */
	size_t n_raw;
	struct raw_column *raw;
	struct gpm_value *values;       /* one per counter of the set */
	struct gpuperf_column *columns;
	struct gpuperf_cell *cells;
	struct gpuperf_output output;
	bool output_ready;
	FILE *out;
	int write_error;
};

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n(see 'gpuperf replay --help')\n",
		usage_line);
	return GPUPERF_EXIT_USAGE;
}


/* Matches "--name VALUE", "--name=VALUE" and, given short, "-c VALUE";
 * advances *i past the value. 1 matched, 0 not, -1 value missing. */
static int option_value(int argc, char **argv, int *i, const char *name,
			const char *short_name, const char **value)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);

	if (!strncmp(arg, name, len) && arg[len] == '=') {
		*value = arg + len + 1;
		return 1;
	}
	if (strcmp(arg, name) && (!short_name || strcmp(arg, short_name)))
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	bool options_done = false, mode_set = false;

	opt->mode = GPM_OA_WINDOW_CONTEXT;
	opt->format = GPUPERF_FORMAT_TABLE;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		int m;

		if (options_done || arg[0] != '-' || !arg[1]) {
			if (opt->file)
				return usage_error("one FILE at a time; '%s' "
						   "is one too many", arg);
			opt->file = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			opt->help = true;
			return 0;
		}
		if (!strcmp(arg, "--raw")) {
			opt->raw = true;
			continue;
		}
		if (!strcmp(arg, "--per-report") ||
		    !strcmp(arg, "--per-context")) {
			if (mode_set)
				return usage_error("choose one of --per-report, "
						   "--interval and --per-context");
			mode_set = true;
			opt->per_context = !strcmp(arg, "--per-context");
			opt->mode = opt->per_context ? GPM_OA_WINDOW_CONTEXT :
				    GPM_OA_WINDOW_PAIR;
			continue;
		}
		if ((m = option_value(argc, argv, &i, "--interval", NULL,
				      &value))) {
			if (m < 0)
				return usage_error("--interval needs a duration, "
						   "e.g. 100ms");
			if (mode_set)
				return usage_error("choose one of --per-report, "
						   "--interval and --per-context");
			mode_set = true;
			opt->mode = GPM_OA_WINDOW_INTERVAL;
			if (gpuperf_parse_duration(value, &opt->interval_ns) < 0)
				return usage_error("--interval takes a duration "
						   "such as 10ms, not '%s'", value);
			continue;
		}
		if ((m = option_value(argc, argv, &i, "--metrics-dir", NULL,
				      &value))) {
			if (m < 0)
				return usage_error("--metrics-dir needs a "
						   "directory");
			opt->dirs[opt->n_dirs++] = value;
			continue;
		}
		if ((m = option_value(argc, argv, &i, "--counters", "-c",
				      &value))) {
			if (m < 0 || !*value)
				return usage_error("-c needs counter names, "
						   "e.g. -c GpuTime,GpuBusy, "
						   "or 'all'");
			opt->counters = strcmp(value, "all") ? value : NULL;
			continue;
		}
		if ((m = option_value(argc, argv, &i, "--format", NULL,
				      &value))) {
			if (m < 0 || gpuperf_format_parse(value, &opt->format))
				return usage_error("--format takes table, csv, "
						   "ndjson or perfetto");
			continue;
		}
		if ((m = option_value(argc, argv, &i, "--output", "-o",
				      &value))) {
			if (m < 0)
				return usage_error("-o needs a file name");
			opt->output = value;
			continue;
		}
		return usage_error("unknown option '%s'", arg);
	}
	if (!opt->file)
		return usage_error("name the recording to replay");
	if (opt->format == GPUPERF_FORMAT_PERFETTO) {
		if (opt->raw)
			return usage_error("--raw goes with table, csv and "
					   "ndjson; a trace has no raw deltas");
		if (opt->mode == GPM_OA_WINDOW_PAIR)
			return usage_error("a trace's counters come per "
					   "--interval; --per-report goes with "
					   "table, csv and ndjson");
		if (opt->mode != GPM_OA_WINDOW_INTERVAL)
			opt->interval_ns = TRACE_DEFAULT_INTERVAL_NS;
		if (!opt->output && isatty(STDOUT_FILENO))
			return usage_error("a Perfetto trace is binary; name "
					   "the file to write with -o");
	}
	return 0;
}

static int input_error(const struct replay *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int input_error(const struct replay *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf replay: %s: ", r->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return GPUPERF_EXIT_FILE;
}

static int failure(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int failure(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return GPUPERF_EXIT_FAILURE;
}

static int file_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* A file or directory that cannot be read or written. */
static int file_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return GPUPERF_EXIT_FILE;
}

static int load_metrics(struct replay *r)
{
	const struct options *opt = &r->opt;
	int ret = 0;

	if (!opt->n_dirs)
		ret = gpm_metrics_db_add_builtin(&r->db);
	for (size_t i = 0; i < opt->n_dirs && ret >= 0; i++) {
		ret = gpm_metrics_db_add_platform_set(
			&r->db, opt->dirs[i], r->platform->name,
			r->reader->info.metric_set, r->reader->info.uuid);
		if (ret < 0 && ret != -ENOMEM)
			return file_error("cannot read metrics directory %s: %s",
				       opt->dirs[i], strerror(-ret));
	}
	if (ret < 0)
		return failure("out of memory loading the metric files");
	/* A counter left out for an error would otherwise just be missing. */
	size_t problems = r->db.diagnostics.count;
	if (problems)
		fprintf(stderr, "gpuperf replay: %zu problem%s in the metric "
			"files; 'gpuperf metrics check' lists them\n", problems,
			problems == 1 ? "" : "s");
	return 0;
}

/* The device, platform and metric set the recording was made with. */
static int find_metric_set(struct replay *r)
{
	const struct gpm_recording_info *info = &r->reader->info;
	unsigned eus = gpm_topology_eu_count(&info->device.topology);
	int ret = gpm_platform_by_pci_id(info->device.pci_id, eus, &r->platform);

	if (ret < 0)
		return input_error(r, "recorded on PCI device 0x%04" PRIx32
				   ", a GPU no metric file describes",
				   info->device.pci_id);
	r->device = info->device;
	r->device.graphics_version = r->platform->graphics_version;
	r->device.eu_threads_count = r->platform->eu_threads_count;
	r->device.l3_bank_count = r->platform->l3_bank_count;

	ret = load_metrics(r);
	if (ret)
		return ret;
	r->set = gpm_metrics_db_find_set(&r->db, r->platform->name,
					 info->metric_set);
	if (!r->set && info->uuid[0])
		r->set = gpm_metrics_db_find_set(&r->db, r->platform->name,
						 info->uuid);
	if (!r->set && !gpm_metrics_db_find_platform(&r->db, r->platform->name))
		return failure("%s was recorded on %s (PCI id 0x%04" PRIx32
			       "), but no oa-%s.xml is in %s; point "
			       "--metrics-dir at IGT's lib/i915/perf-configs "
			       "or Mesa's src/intel/perf",
			       r->file, r->platform->description,
			       info->device.pci_id, r->platform->name,
			       r->opt.n_dirs ? "the metrics directories" :
			       "the built-in definitions");
	if (!r->set)
		return failure("%s uses metric set '%s' (%s), which "
			       "oa-%s.xml lacks", r->file, info->metric_set,
			       info->uuid, r->platform->name);
	if (strcmp(r->set->hw_config_guid, info->uuid))
		fprintf(stderr, "gpuperf replay: warning: %s was recorded with "
			"configuration %s of %s; the metric file has %s\n",
			r->file, info->uuid, r->set->symbol_name,
			r->set->hw_config_guid);
	return 0;
}

static int setup_decoder(struct replay *r)
{
	const struct gpm_recording_info *info = &r->reader->info;
	const struct gpm_oa_format *format;

	/* Like IGT's reader, the layout comes from the metric set and the
	 * platform, not from the oa_format field. */
	if (gpm_oa_format_for_set(r->platform->graphics_version,
				  r->set->oa_format, &format) < 0 ||
	    gpm_oa_decoder_init(&r->decoder, format,
				r->platform->graphics_version) < 0)
		return failure("no OA report format for %s on %s",
			       r->set->symbol_name, r->platform->description);
	if (info->report_size && info->report_size != format->size)
		return input_error(r, "its reports are %" PRIu32 " bytes, but "
				   "%s reports of %s are %u", info->report_size,
				   format->name, r->platform->name,
				   format->size);
	return 0;
}

/* Runs of one context need reports that name it, which Haswell's do not:
 * there, --per-context is refused and the default is --per-report. */
static int choose_windows(struct replay *r)
{
	if (r->decoder.has_context)
		return 0;
	if (r->opt.per_context)
		return input_error(r, "it was recorded on %s, whose OA reports "
				   "carry no context ID, so it has no "
				   "per-context rows: replay it --per-report "
				   "or --interval DURATION",
				   r->platform->description);
	if (r->opt.format != GPUPERF_FORMAT_PERFETTO &&
	    r->opt.mode == GPM_OA_WINDOW_CONTEXT)
		r->opt.mode = GPM_OA_WINDOW_PAIR;
	return 0;
}

static int select_counters(struct replay *r)
{
	const struct gpm_metric_set *set = r->set;

	r->vars = malloc(sizeof(*r->vars));
	r->values = calloc(set->n_counters ? set->n_counters : 1,
			   sizeof(*r->values));
	r->selected = calloc(set->n_counters ? set->n_counters : 1,
			     sizeof(*r->selected));
	if (!r->vars || !r->values || !r->selected)
		return failure("out of memory");
	gpm_device_vars_init(r->vars, &r->device);
	if (gpm_binding_init(&r->binding, set, r->vars) < 0)
		return failure("out of memory");
	r->bound = true;

	if (!r->opt.counters) {
		for (size_t i = 0; i < set->n_counters; i++)
			if (r->binding.available[i])
				r->selected[r->n_selected++] = (unsigned)i;
		return 0;
	}
	const char *p = r->opt.counters;
	while (*p) {
		size_t len = strcspn(p, ",");
		char name[128];
		if (len == 0 || len >= sizeof(name))
			return usage_error("bad counter list '%s'",
					   r->opt.counters);
		memcpy(name, p, len);
		name[len] = '\0';
		int index = gpm_metric_set_find_counter(set, name);
		if (index < 0)
			return usage_error("%s has no counter '%s' ('gpuperf "
					   "metrics show --platform %s %s' "
					   "lists them)", set->symbol_name,
					   name, r->platform->name,
					   set->symbol_name);
		if (!r->binding.available[index])
			return failure("counter %s of %s is not available on "
				       "the recorded device", name,
				       set->symbol_name);
		if (r->n_selected == set->n_counters)
			return usage_error("counter '%s' named twice", name);
		r->selected[r->n_selected++] = (unsigned)index;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void raw_key(struct raw_column *c)
{
	static const struct {
		unsigned first, count;
		const char *name;
	} ranges[] = {
		{ GPM_ACC_A, GPM_ACC_A_COUNT, "raw_a" },
		{ GPM_ACC_B, GPM_ACC_B_COUNT, "raw_b" },
		{ GPM_ACC_C, GPM_ACC_C_COUNT, "raw_c" },
		{ GPM_ACC_PERFCNT, GPM_ACC_PERFCNT_COUNT, "raw_perfcnt" },
		{ GPM_ACC_PEC, GPM_ACC_PEC_COUNT, "raw_pec" },
	};

	if (c->slot == GPM_ACC_GPU_TIME) {
		snprintf(c->key, sizeof(c->key), "raw_gpu_time");
		return;
	}
	if (c->slot == GPM_ACC_GPU_CLOCK) {
		snprintf(c->key, sizeof(c->key), "raw_gpu_clock");
		return;
	}
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (c->slot >= ranges[i].first &&
		    c->slot < ranges[i].first + ranges[i].count)
			snprintf(c->key, sizeof(c->key), "%s%u",
				 ranges[i].name, c->slot - ranges[i].first);
}

/* The accumulator slots of the report format, GPU time first. */
static int select_raw(struct replay *r)
{
	const struct gpm_oa_format *format = r->decoder.format;
	size_t n = 1;

	for (unsigned g = 0; g < format->n_groups; g++)
		n += format->group[g].count;
	r->raw = calloc(n, sizeof(*r->raw));
	if (!r->raw)
		return failure("out of memory");
	r->raw[r->n_raw++].slot = GPM_ACC_GPU_TIME;
	for (unsigned g = 0; g < format->n_groups; g++)
		for (unsigned i = 0; i < format->group[g].count; i++)
			r->raw[r->n_raw++].slot = format->group[g].slot + i;
	for (size_t i = 0; i < r->n_raw; i++)
		raw_key(&r->raw[i]);
	return 0;
}

static int setup_output(struct replay *r)
{
	size_t n = N_METADATA + r->n_selected + (r->opt.raw ? r->n_raw : 0);

	r->columns = calloc(n, sizeof(*r->columns));
	r->cells = calloc(n, sizeof(*r->cells));
	if (!r->columns || !r->cells)
		return failure("out of memory");
	memcpy(r->columns, metadata, sizeof(metadata));
	size_t c = N_METADATA;
	for (size_t i = 0; i < r->n_selected; i++, c++) {
		const struct gpm_counter *counter =
			&r->set->counters[r->selected[i]];
		r->columns[c].key = counter->symbol_name;
		r->columns[c].kind = GPUPERF_COLUMN_COUNTER;
		r->columns[c].units = counter->units;
		/* The two enums list the metric file's types alike. */
		gpuperf_display_for(&r->columns[c].display, counter->units,
				    (enum gpc_counter_type)counter->type,
				    counter->semantic_type);
	}
	for (size_t i = 0; r->opt.raw && i < r->n_raw; i++, c++)
		r->columns[c].key = r->raw[i].key;

	r->out = stdout;
	if (r->opt.output) {
		r->out = fopen(r->opt.output, "w");
		if (!r->out)
			return file_error("cannot write %s: %s", r->opt.output,
				       strerror(errno));
	}
	if (gpuperf_output_init(&r->output, r->out, r->opt.format, r->columns,
				n) < 0)
		return failure("out of memory");
	/* Nobody waits for each row here: writes of many rows cost a
	 * fraction of a write() per row. */
	gpuperf_output_set_batch(&r->output, REPLAY_OUTPUT_BATCH);
	r->output_ready = true;
	return 0;
}

_Static_assert((int)GPM_COUNTER_TIMESTAMP == (int)GPC_COUNTER_TIMESTAMP &&
	       (int)GPM_COUNTER_THROUGHPUT == (int)GPC_COUNTER_THROUGHPUT,
	       "the metric file's counter types in libgpuperf's order");

static struct gpuperf_cell u64_cell(uint64_t v)
{
	return (struct gpuperf_cell){ .type = GPUPERF_CELL_U64, .u = v };
}

static struct gpuperf_cell value_cell(struct gpm_value v)
{
	if (v.type == GPM_VALUE_DOUBLE)
		return (struct gpuperf_cell){ .type = GPUPERF_CELL_DOUBLE,
					      .d = v.d };
	return u64_cell(v.u);
}

static uint64_t ticks_to_ns(const struct replay *r, uint64_t ticks)
{
	uint64_t freq = r->device.timestamp_frequency;
	return freq ? (uint64_t)((unsigned __int128)ticks * 1000000000u / freq) : 0;
}

static void on_window(void *data, const struct gpm_oa_window *w)
{
	struct replay *r = data;
	struct gpuperf_cell *cells = r->cells;
	uint64_t cpu_ns;

	if (r->write_error)
		return;
	gpm_binding_evaluate(&r->binding, &w->acc, r->values);

	cells[COL_TIMESTAMP].type = GPUPERF_CELL_NONE;
	if (gpm_ts_correlation_cpu_ns(&r->correlation, w->start_ts, &cpu_ns) == 0)
		cells[COL_TIMESTAMP] = u64_cell(cpu_ns);
	cells[COL_GPU_TIMESTAMP] = u64_cell(w->start_ts);
	cells[COL_DURATION] = u64_cell(ticks_to_ns(r, w->end_ts - w->start_ts));
	cells[COL_PLATFORM] = (struct gpuperf_cell){ .type = GPUPERF_CELL_TEXT,
						     .text = r->platform->name };
	cells[COL_METRIC_SET] = (struct gpuperf_cell){
		.type = GPUPERF_CELL_TEXT, .text = r->set->symbol_name };
	cells[COL_CONTEXT] = u64_cell(w->ctx_id);
	/* Pairs and runs without a context are the GPU's idle share;
	 * interval windows have no context. */
	if (!r->decoder.has_context ||
	    (w->ctx_id == GPM_OA_CTX_NONE && r->opt.mode == GPM_OA_WINDOW_INTERVAL))
		cells[COL_CONTEXT].type = GPUPERF_CELL_NONE;
	else if (w->ctx_id == GPM_OA_CTX_NONE)
		cells[COL_CONTEXT] = (struct gpuperf_cell){
			.type = GPUPERF_CELL_TEXT, .text = GPUPERF_IDLE_CONTEXT };
	cells[COL_REPORTS] = u64_cell(w->n_reports);
	cells[COL_LOST] = u64_cell(w->reports_lost);
	cells[COL_BUFFERS_LOST] = u64_cell(w->buffers_lost);
	size_t c = N_METADATA;
	for (size_t i = 0; i < r->n_selected; i++)
		cells[c++] = value_cell(r->values[r->selected[i]]);
	for (size_t i = 0; r->opt.raw && i < r->n_raw; i++)
		cells[c++] = u64_cell(w->acc.slot[r->raw[i].slot]);

	r->write_error = gpuperf_output_row(&r->output, cells);
}

/* Tells the correlation where the report fed last lies. */
static void correlate_last_report(struct replay *r)
{
	gpm_ts_correlation_report(&r->correlation, r->windower->ts.last,
				  r->windower->ts.extended);
}

/*
 * Feeds a run of samples to the windows. The first goes alone: a
 * correlation point that came before any report is tied to the first
 * report after it, and the windows the rest close need that for their CPU
 * time. The rest go in one call, which sums their deltas a run at a time.
 */
static void feed_samples(struct replay *r, const struct gpm_recording_record *rec)
{
	if (gpm_oa_windower_feed(r->windower, rec->data, rec->size) == 0)
		correlate_last_report(r);
	if (rec->count > 1 &&
	    gpm_oa_windower_feed_run(r->windower, rec->data + rec->stride, rec->stride,
				     rec->count - 1, rec->size) == 0)
		correlate_last_report(r);
}

/* Streams every record of the recording through the windows. */
static int replay_records(struct replay *r)
{
	struct gpm_recording_record rec;
	struct gpm_recording_error err;
	uint64_t interval = 0;

	if (r->opt.mode == GPM_OA_WINDOW_INTERVAL) {
		unsigned __int128 ticks = (unsigned __int128)r->opt.interval_ns *
					  r->device.timestamp_frequency /
					  1000000000u;
		interval = ticks ? (ticks > UINT64_MAX ? UINT64_MAX :
				    (uint64_t)ticks) : 1;
	}
	r->windower = malloc(sizeof(*r->windower));
	if (!r->windower)
		return failure("out of memory");
	if (gpm_oa_windower_init(r->windower, &r->decoder, r->opt.mode,
				 interval, on_window, r) < 0)
		return failure("cannot set up windows");
	gpm_ts_correlation_init(&r->correlation,
				r->device.timestamp_frequency,
				r->decoder.ts_mask);

	for (;;) {
		int ret = gpm_recording_reader_next_samples(r->reader, &rec, SIZE_MAX,
							    &err);
		if (ret < 0) {
			gpm_oa_windower_flush(r->windower);
			if (!r->write_error)
				r->write_error = gpuperf_output_flush(&r->output);
			return input_error(r, "%s%s", err.message,
					   r->output.rows ?
					   " (the rows before it were written)" :
					   "");
		}
		if (rec.kind == GPM_RECORDING_END)
			break;
		switch (rec.kind) {
		case GPM_RECORDING_SAMPLE:
			feed_samples(r, &rec);
			break;
		case GPM_RECORDING_REPORT_LOST:
			gpm_oa_windower_loss(r->windower, GPM_OA_LOSS_REPORT);
			break;
		case GPM_RECORDING_BUFFER_LOST:
			gpm_oa_windower_loss(r->windower, GPM_OA_LOSS_BUFFER);
			break;
		case GPM_RECORDING_CORRELATION:
			gpm_ts_correlation_point(&r->correlation,
						 &rec.correlation);
			break;
		case GPM_RECORDING_CLOCKS:
		case GPM_RECORDING_END:
			break;
		}
		if (r->write_error)
			break;
	}
	gpm_oa_windower_flush(r->windower);
	if (!r->write_error)
		r->write_error = gpuperf_output_flush(&r->output);
	if (r->write_error)
		return file_error("cannot write %s: %s",
			       r->opt.output ? r->opt.output : "the output",
			       strerror(-r->write_error));
	return GPUPERF_EXIT_OK;
}

static int write_trace_bytes(void *ctx, const void *data, size_t len)
{
	struct replay *r = ctx;
	if (fwrite(data, 1, len, r->out) != len)
		return -(errno ? errno : EIO);
	return 0;
}

/* The recording as a Perfetto trace: every record, in file order, through
 * the converter the daemon uses for its live traces. */
static int replay_trace(struct replay *r)
{
	struct gpm_recording_record rec;
	struct gpm_recording_error err;
	struct gpm_oa_trace *trace;
	char label[160];

	r->out = stdout;
	if (r->opt.output && !(r->out = fopen(r->opt.output, "w")))
		return failure("cannot write %s: %s", r->opt.output,
			       strerror(errno));
	gpm_oa_trace_label(label, sizeof(label), r->platform->description,
			   r->device.pci_id);
	struct gpm_oa_trace_options o = {
		.device_label = label,
		.pci_id = r->device.pci_id,
		.timestamp_frequency = r->device.timestamp_frequency,
		.decoder = &r->decoder,
		.binding = &r->binding,
		.counters = r->selected,
		.n_counters = r->n_selected,
		.interval_ns = r->opt.interval_ns,
		.write = write_trace_bytes,
		.ctx = r,
	};
	if (!r->device.timestamp_frequency)
		return input_error(r, "its device has no timestamp frequency");
	if (gpm_oa_trace_create(&o, &trace) < 0)
		return failure("out of memory");
	int ret = 0;
	for (;;) {
		ret = gpm_recording_reader_next(r->reader, &rec, &err);
		if (ret < 0) {
			gpm_oa_trace_finish(trace);
			gpm_oa_trace_destroy(trace);
			return input_error(r, "%s (the trace holds what came "
					   "before)", err.message);
		}
		if (rec.kind == GPM_RECORDING_END)
			break;
		switch (rec.kind) {
		case GPM_RECORDING_SAMPLE:
			ret = gpm_oa_trace_sample(trace, rec.data, rec.size);
			break;
		case GPM_RECORDING_REPORT_LOST:
			ret = gpm_oa_trace_loss(trace, GPM_OA_LOSS_REPORT);
			break;
		case GPM_RECORDING_BUFFER_LOST:
			ret = gpm_oa_trace_loss(trace, GPM_OA_LOSS_BUFFER);
			break;
		case GPM_RECORDING_CORRELATION:
			ret = gpm_oa_trace_correlation(trace, &rec.correlation);
			break;
		case GPM_RECORDING_CLOCKS:
			ret = gpm_oa_trace_clocks(trace, &rec.clocks);
			break;
		case GPM_RECORDING_END:
			break;
		}
		if (ret)
			break;
	}
	if (!ret)
		ret = gpm_oa_trace_finish(trace);
	bool guessed = gpm_oa_trace_clock_guessed(trace);
	gpm_oa_trace_destroy(trace);
	if (!ret && fflush(r->out))
		ret = -errno;
	if (ret)
		return failure("cannot write %s: %s",
			       r->opt.output ? r->opt.output : "the trace",
			       strerror(-ret));
	if (guessed)
		fprintf(stderr, "gpuperf replay: warning: %s has no correlation "
			"point before its first report; the trace takes GPU "
			"time for CLOCK_MONOTONIC\n", r->file);
	return GPUPERF_EXIT_OK;
}

static void replay_fini(struct replay *r)
{
	if (r->output_ready)
		gpuperf_output_fini(&r->output);
	if (r->out && r->out != stdout)
		fclose(r->out);
	if (r->bound)
		gpm_binding_fini(&r->binding);
	gpm_metrics_db_fini(&r->db);
	if (r->reader)
		gpm_recording_reader_close(r->reader);
	free(r->reader);
	if (r->readahead)
		gpuperf_readahead_stop(r->readahead);
	free(r->readahead);
	if (r->fd >= 0)
		close(r->fd);
	free(r->windower);
	free(r->columns);
	free(r->cells);
	free(r->raw);
	free(r->selected);
	free(r->values);
	free(r->vars);
	free(r->opt.dirs);
}

/*
 * Whether the read-ahead helper would find a CPU to itself: the process
 * may run on more than one, and the last minute's load average leaves
 * one idle beside the reader. The helper only runs on an idle CPU; on a
 * busy machine the reader waits for it in vain now and then and reads
 * the stretch itself after all (measured on the bench recording at load
 * 8 on two cores: a fifth more CPU time with the helper, no wall time
 * saved).
 */
static bool idle_cpu_likely(void)
{
	cpu_set_t cpus;
	double load;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
	    CPU_COUNT(&cpus) < 2)
		return false;
	return getloadavg(&load, 1) != 1 || online < 0 ||
	       load < (double)online - 1;
}

/*
 * Reads a regular file on a helper thread ahead of the reader, so that
 * copying it out of the page cache and decoding it take a core each.
 * Anything else, no idle CPU, or any failure to start the helper is left
 * to the reader's own reads, which also word the errors. The file is opened
 * once only: a FIFO's bytes go to one opening.
 */
static int open_recording(struct replay *r, struct gpm_recording_error *err)
{
	r->fd = open(r->file, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return gpm_recording_reader_open(r->reader, r->file, err);
	r->readahead = idle_cpu_likely() ? malloc(sizeof(*r->readahead)) : NULL;
	if (r->readahead && gpuperf_readahead_start(r->readahead, r->fd) == 0)
		return gpm_recording_reader_open_source(
			r->reader, &r->readahead->source, err);
	free(r->readahead);
	r->readahead = NULL;
	return gpm_recording_reader_open_fd(r->reader, r->fd, err);
}

static int replay_run(struct replay *r)
{
	struct gpm_recording_error err;
	int ret;

	if (gpuperf_is_rgp(r->file)) {
		if (r->opt.raw || r->opt.counters || r->opt.n_dirs ||
		    r->opt.mode != GPM_OA_WINDOW_CONTEXT)
			return usage_error("%s is an RGP capture: its SPM "
					   "counters replay one row per sample, "
					   "without --raw, -c, --metrics-dir or "
					   "windows", r->file);
		return gpuperf_replay_rgp(r->file, r->opt.format, r->opt.output);
	}

	r->reader = malloc(sizeof(*r->reader));
	if (!r->reader)
		return failure("out of memory");
	if (open_recording(r, &err) < 0) {
		free(r->reader);
		r->reader = NULL;
		return input_error(r, "%s", err.message);
	}
	if ((ret = find_metric_set(r)) || (ret = setup_decoder(r)) ||
	    (ret = choose_windows(r)) || (ret = select_counters(r)))
		return ret;
	if (r->opt.format == GPUPERF_FORMAT_PERFETTO)
		return replay_trace(r);
	if ((ret = select_raw(r)) || (ret = setup_output(r)))
		return ret;
	return replay_records(r);
}

int gpuperf_cmd_replay(int argc, char **argv)
{
	struct replay r;

	memset(&r, 0, sizeof(r));
	r.fd = -1;
	gpm_metrics_db_init(&r.db);
	r.opt.dirs = calloc((size_t)argc, sizeof(*r.opt.dirs));
	if (!r.opt.dirs)
		return failure("out of memory");

	int ret = parse_options(argc, argv, &r.opt);
	if (ret == 0 && r.opt.help) {
		printf("usage: %s\n\n%s", usage_line, help_text);
	} else if (ret == 0) {
		r.file = r.opt.file;
		ret = replay_run(&r);
	}
	replay_fini(&r);
	return ret;
}
