/*
 * gpuperf metrics: offline checks of metric definitions.
 *
 *   check  load and compile every set, print each problem and a summary
 *   list   the sets, with platform, symbol, name and GUID
 *   show   one set's counters with units, types, bounds and equations
 *
 * All three read the oa-*.xml files of the --metrics-dir directories, or
 * the built-in definitions of the sim GPU when none is given.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/commands.h"
#include "metrics/equation.h"
#include "metrics/metric_set.h"
#include "metrics/metrics_db.h"
#include "metrics/platform.h"

enum option_set {
	OPT_DIRS = 1 << 0,
	OPT_PLATFORM = 1 << 1,
	OPT_SET = 1 << 2,
};

struct subcommand {
	const char *name;
	unsigned options;
	const char *usage;
	const char *help;
	int (*run)(const struct subcommand *cmd, struct gpm_metrics_db *db,
		   const char *platform, const char *set);
};

struct options {
	const char **dirs;
	size_t n_dirs;
	const char *platform;
	const char *set;
	bool help;
};

static const char dirs_help[] =
	"  --metrics-dir DIR  read the oa-*.xml files in DIR (IGT's\n"
	"                     lib/i915/perf-configs or lib/xe/oa-configs,\n"
	"                     Mesa's src/intel/perf); repeatable, earlier\n"
	"                     directories win; without it, the built-in\n"
	"                     definitions of the sim GPU\n";

static void print_diagnostics(FILE *out, const struct gpm_diagnostics *diag)
{
	for (size_t i = 0; i < diag->count; i++) {
		const struct gpm_diagnostic *d = &diag->items[i];
		if (d->line)
			fprintf(out, "%s:%u: %s\n", d->file, d->line,
				d->message);
		else
			fprintf(out, "%s: %s\n", d->file, d->message);
	}
}

/* list and show work with whatever loaded, but say that some did not. */
static void warn_diagnostics(const struct gpm_metrics_db *db)
{
	size_t n = db->diagnostics.count;
	if (n)
		fprintf(stderr, "gpuperf metrics: %zu problem%s in the metric "
			"files; 'gpuperf metrics check' lists them\n", n,
			n == 1 ? "" : "s");
}

static int run_check(const struct subcommand *cmd, struct gpm_metrics_db *db,
		     const char *platform, const char *set)
{
	size_t errors = db->diagnostics.count;

	print_diagnostics(stdout, &db->diagnostics);
	printf("%zu files, %zu sets, %zu counters, %zu errors\n", db->n_files,
	       gpm_metrics_db_count_sets(db), gpm_metrics_db_count_counters(db),
	       errors);
	return errors ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_OK;
}

/* Names the loaded platforms, for messages about a missing one. */
static void print_platforms(FILE *out, const struct gpm_metrics_db *db)
{
	fprintf(out, "platforms loaded:");
	for (size_t i = 0; i < db->n_files; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(db->files[j]->platform,
				       db->files[i]->platform);
		if (!seen)
			fprintf(out, " %s", db->files[i]->platform);
	}
	fprintf(out, "\n");
}

static int no_such_platform(const struct gpm_metrics_db *db,
			    const char *cmd, const char *platform)
{
	fprintf(stderr, "gpuperf metrics %s: no metric file for platform "
		"'%s'; ", cmd, platform);
	print_platforms(stderr, db);
	return GPUPERF_EXIT_USAGE;
}

static int width(const char *s, int w)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

static int run_list(const struct subcommand *cmd, struct gpm_metrics_db *db,
		    const char *platform, const char *set)
{
	int w_platform = width("PLATFORM", 0), w_symbol = width("SYMBOL", 0);
	int w_name = width("NAME", 0);
	bool any = false;

	if (platform && !gpm_metrics_db_find_platform(db, platform))
		return no_such_platform(db, cmd->name, platform);

	for (size_t f = 0; f < db->n_files; f++) {
		const struct gpm_metrics_file *file = db->files[f];
		if (platform && strcmp(file->platform, platform))
			continue;
		for (size_t s = 0; s < file->n_sets; s++) {
			w_platform = width(file->platform, w_platform);
			w_symbol = width(file->sets[s].symbol_name, w_symbol);
			w_name = width(file->sets[s].name, w_name);
			any = true;
		}
	}
	if (any)
		printf("%-*s  %-*s  %-*s  %s\n", w_platform, "PLATFORM",
		       w_symbol, "SYMBOL", w_name, "NAME", "GUID");
	for (size_t f = 0; f < db->n_files; f++) {
		const struct gpm_metrics_file *file = db->files[f];
		if (platform && strcmp(file->platform, platform))
			continue;
		for (size_t s = 0; s < file->n_sets; s++) {
			const struct gpm_metric_set *ms = &file->sets[s];
			printf("%-*s  %-*s  %-*s  %s\n", w_platform,
			       file->platform, w_symbol, ms->symbol_name,
			       w_name, ms->name, ms->hw_config_guid);
		}
	}
	warn_diagnostics(db);
	return GPUPERF_EXIT_OK;
}

/* "100", or "$GpuMaxFrequency = 1350000000" when the bound depends on
 * the device and is constant for it; "-" without a bound. */
static char *format_max(const struct gpm_counter *c,
			const struct gpm_device_vars *vars)
{
	char *s = NULL, value[64];

	if (!c->max_equation)
		return strdup("-");
	if (!vars || !gpm_equation_is_constant(c->max_eq))
		return strdup(c->max_equation);

	const struct gpm_eval_inputs in = { .vars = vars };
	struct gpm_value v = gpm_equation_eval(c->max_eq, &in);
	if (v.type == GPM_VALUE_DOUBLE)
		snprintf(value, sizeof(value), "%g", v.d);
	else
		snprintf(value, sizeof(value), "%" PRIu64, v.u);
	if (!strcmp(value, c->max_equation))
		return strdup(value);
	if (asprintf(&s, "%s = %s", c->max_equation, value) < 0)
		return NULL;
	return s;
}

static void describe_device(const struct gpm_platform *p)
{
	unsigned eus = (unsigned)p->slices * p->subslices_per_slice *
		       p->eus_per_subslice;
	printf("bounds evaluated for a typical %s: %u slice%s x %u "
	       "subslices x %u EUs (%u EUs), %u threads/EU, timestamp "
	       "%g MHz, %u-%u MHz\n", p->description, p->slices,
	       p->slices == 1 ? "" : "s", p->subslices_per_slice,
	       p->eus_per_subslice, eus, p->eu_threads_count,
	       p->timestamp_frequency / 1e6, p->min_freq_mhz, p->max_freq_mhz);
}

static int run_show(const struct subcommand *cmd, struct gpm_metrics_db *db,
		    const char *platform_name, const char *set_name)
{
	const struct gpm_metric_set *set;
	const struct gpm_platform *platform;
	struct gpm_device_vars *vars = NULL;
	char **max;
	int w_symbol = width("SYMBOL", 0), w_units = width("UNITS", 0);
	int w_type = width("TYPE", 0), w_data = width("DATA", 0);
	int w_max = width("MAX", 0);

	if (!gpm_metrics_db_find_platform(db, platform_name))
		return no_such_platform(db, cmd->name, platform_name);
	set = gpm_metrics_db_find_set(db, platform_name, set_name);
	if (!set) {
		fprintf(stderr, "gpuperf metrics show: platform %s has no set "
			"'%s'; 'gpuperf metrics list --platform %s' lists "
			"them\n", platform_name, set_name, platform_name);
		return GPUPERF_EXIT_USAGE;
	}

	printf("%s: %s\n", set->symbol_name, set->name);
	printf("platform %s (%s), guid %s, %s:%u\n", set->file->platform,
	       set->chipset, set->hw_config_guid, set->file->path, set->line);
	platform = gpm_platform_by_name(platform_name);
	if (platform) {
		struct gpm_device_info dev;
		vars = malloc(sizeof(*vars));
		if (!vars) {
			fprintf(stderr, "gpuperf metrics show: out of memory\n");
			return GPUPERF_EXIT_FAILURE;
		}
		gpm_platform_default_device(platform, &dev);
		gpm_device_vars_init(vars, &dev);
		describe_device(platform);
	} else {
		printf("no device description for platform %s: bounds are not "
		       "evaluated\n", platform_name);
	}
	printf("\n");

	max = calloc(set->n_counters + 1, sizeof(*max));
	for (size_t i = 0; max && i < set->n_counters; i++) {
		const struct gpm_counter *c = &set->counters[i];
		max[i] = format_max(c, vars);
		if (!max[i]) {
			for (size_t j = 0; j < i; j++)
				free(max[j]);
			free(max);
			max = NULL;
		}
	}
	if (!max) {
		free(vars);
		fprintf(stderr, "gpuperf metrics show: out of memory\n");
		return GPUPERF_EXIT_FAILURE;
	}

	for (size_t i = 0; i < set->n_counters; i++) {
		const struct gpm_counter *c = &set->counters[i];
		w_symbol = width(c->symbol_name, w_symbol);
		w_units = width(c->units, w_units);
		w_type = width(gpm_counter_type_name(c->type), w_type);
		w_data = width(gpm_counter_data_type_name(c->data_type), w_data);
		w_max = width(max[i], w_max);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w_symbol, "SYMBOL",
	       w_units, "UNITS", w_type, "TYPE", w_data, "DATA", w_max, "MAX",
	       "EQUATION");
	for (size_t i = 0; i < set->n_counters; i++) {
		const struct gpm_counter *c = &set->counters[i];
		printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w_symbol,
		       c->symbol_name, w_units, c->units, w_type,
		       gpm_counter_type_name(c->type), w_data,
		       gpm_counter_data_type_name(c->data_type), w_max, max[i],
		       c->equation);
		free(max[i]);
	}
	free(max);
	free(vars);
	warn_diagnostics(db);
	return GPUPERF_EXIT_OK;
}

static const struct subcommand subcommands[] = {
	{ "check", OPT_DIRS,
	  "gpuperf metrics check [--metrics-dir DIR]...",
	  "Loads and compiles every metric set and counter, prints each\n"
	  "problem as FILE:LINE: MESSAGE, then 'N files, M sets, K counters,\n"
	  "E errors'. Exits 1 when there are errors.\n",
	  run_check },
	{ "list", OPT_DIRS | OPT_PLATFORM,
	  "gpuperf metrics list [--metrics-dir DIR]... [--platform NAME]",
	  "Lists the metric sets: platform, symbol, name and GUID.\n"
	  "  --platform NAME    only the sets of NAME (e.g. tglgt2)\n",
	  run_list },
	{ "show", OPT_DIRS | OPT_PLATFORM | OPT_SET,
	  "gpuperf metrics show [--metrics-dir DIR]... --platform NAME SET",
	  "Shows the counters of SET (symbol, e.g. RenderBasic, or GUID):\n"
	  "symbol, units, counter type, data type, bound (MAX) and equation.\n"
	  "Bounds that depend only on the device are evaluated for a typical\n"
	  "part of the platform.\n"
	  "  --platform NAME    the platform whose file holds SET\n",
	  run_show },
};

#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage:\n");
	for (size_t i = 0; i < N_SUBCOMMANDS; i++)
		fprintf(out, "  %s\n", subcommands[i].usage);
	fprintf(out, "\n'gpuperf metrics COMMAND --help' describes each.\n");
}

static void subcommand_help(const struct subcommand *cmd)
{
	printf("usage: %s\n\n%s", cmd->usage, cmd->help);
	printf("%s", dirs_help);
}

static int bad_usage(const struct subcommand *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad_usage(const struct subcommand *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf metrics %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n(see 'gpuperf metrics %s --help')\n",
		cmd->usage, cmd->name);
	return GPUPERF_EXIT_USAGE;
}

/* Matches "--name VALUE" and "--name=VALUE"; advances *i past the value. */
static int option_value(int argc, char **argv, int *i, const char *name,
			const char **value)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);

	if (strncmp(arg, name, len))
		return 0;
	if (arg[len] == '=') {
		*value = arg + len + 1;
		return 1;
	}
	if (arg[len] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

static int parse_options(const struct subcommand *cmd, int argc, char **argv,
			 struct options *opt)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		int m;

		if (!options_done && (!strcmp(arg, "--help") ||
				      !strcmp(arg, "-h"))) {
			opt->help = true;
			return 0;
		}
		if (!options_done && !strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		if (!options_done && arg[0] == '-' && arg[1]) {
			if ((m = option_value(argc, argv, &i, "--metrics-dir",
					      &value))) {
				if (m < 0)
					return bad_usage(cmd, "%s needs a "
							 "directory", arg);
				opt->dirs[opt->n_dirs++] = value;
				continue;
			}
			if ((cmd->options & OPT_PLATFORM) &&
			    (m = option_value(argc, argv, &i, "--platform",
					      &value))) {
				if (m < 0)
					return bad_usage(cmd, "%s needs a "
							 "platform name, e.g. "
							 "tglgt2", arg);
				opt->platform = value;
				continue;
			}
			return bad_usage(cmd, "unknown option '%s'", arg);
		}
		if (!(cmd->options & OPT_SET))
			return bad_usage(cmd, "unexpected argument '%s'", arg);
		if (opt->set)
			return bad_usage(cmd, "one SET at a time; '%s' is one "
					 "too many", arg);
		opt->set = arg;
	}
	if (cmd->options & OPT_SET) {
		if (!opt->platform)
			return bad_usage(cmd, "%s", "--platform NAME is "
					 "required ('gpuperf metrics list' "
					 "shows the platforms)");
		if (!opt->set)
			return bad_usage(cmd, "%s", "name the SET to show "
					 "('gpuperf metrics list' shows the "
					 "sets)");
	}
	return 0;
}

/* Loads the directories, or the built-in definitions without any. */
static int load(struct gpm_metrics_db *db, const struct options *opt,
		const struct subcommand *cmd)
{
	int ret = 0;

	if (!opt->n_dirs)
		ret = gpm_metrics_db_add_builtin(db);
	for (size_t i = 0; !ret && i < opt->n_dirs; i++) {
		ret = gpm_metrics_db_add_dir(db, opt->dirs[i]);
		if (ret == 0) {
			fprintf(stderr, "gpuperf metrics %s: no metric files "
				"(oa-*.xml) in '%s'\n", cmd->name,
				opt->dirs[i]);
			return GPUPERF_EXIT_FILE;
		}
		if (ret > 0)
			ret = 0;
		else if (ret != -ENOMEM) {
			fprintf(stderr, "gpuperf metrics %s: cannot read "
				"metrics directory '%s': %s\n", cmd->name,
				opt->dirs[i], strerror(-ret));
			return GPUPERF_EXIT_FILE;
		}
	}
	if (ret) {
		fprintf(stderr, "gpuperf metrics %s: out of memory\n",
			cmd->name);
		return GPUPERF_EXIT_FAILURE;
	}
	return GPUPERF_EXIT_OK;
}

int gpuperf_cmd_metrics(int argc, char **argv)
{
	const struct subcommand *cmd = NULL;
	struct options opt = { 0 };
	struct gpm_metrics_db db;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return GPUPERF_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return GPUPERF_EXIT_OK;
	}
	for (size_t i = 0; i < N_SUBCOMMANDS; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			cmd = &subcommands[i];
	if (!cmd) {
		fprintf(stderr, "gpuperf metrics: unknown command '%s'\n",
			argv[1]);
		usage(stderr);
		return GPUPERF_EXIT_USAGE;
	}

	opt.dirs = calloc((size_t)argc, sizeof(*opt.dirs));
	if (!opt.dirs) {
		fprintf(stderr, "gpuperf metrics: out of memory\n");
		return GPUPERF_EXIT_FAILURE;
	}
	ret = parse_options(cmd, argc - 1, argv + 1, &opt);
	if (!ret && opt.help) {
		subcommand_help(cmd);
	} else if (!ret) {
		gpm_metrics_db_init(&db);
		ret = load(&db, &opt, cmd);
		if (!ret)
			ret = cmd->run(cmd, &db, opt.platform, opt.set);
		gpm_metrics_db_fini(&db);
	}
	free(opt.dirs);
	return ret;
}
