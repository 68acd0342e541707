/*
 * Every metric file the daemon or the CLI knows: the oa-*.xml files of any
 * number of directories (an IGT or Mesa checkout, ../shared/intel-metrics),
 * or the built-in definitions of the sim GPU, with the problems found while
 * loading them.
 *
 * Lookups go through the files in the order they were added, so a platform
 * found in the first directory given wins over the same platform in a later
 * one.
 */
#ifndef GPM_METRICS_DB_H
#define GPM_METRICS_DB_H

#include <stddef.h>

#include "diagnostics.h"
#include "metric_set.h"

struct gpm_metrics_db {
	size_t n_files;
	struct gpm_metrics_file **files;
	struct gpm_diagnostics diagnostics;
};

void gpm_metrics_db_init(struct gpm_metrics_db *db);
void gpm_metrics_db_fini(struct gpm_metrics_db *db);

/*
 * Loads every oa-*.xml in dir, in name order. A file that cannot be read is
 * a diagnostic, like a file with errors. Returns the number of files loaded
 * (0 is possible), or -ENOMEM, or the -errno of opening dir.
 */
int gpm_metrics_db_add_dir(struct gpm_metrics_db *db, const char *dir);

/*
 * Loads only dir/oa-<platform>.xml: what a tool that knows its device needs,
 * without compiling every other platform's definitions. Returns 1 when the
 * file was there and loaded, 0 when dir has no such file, or the -errno of
 * reading dir (-ENOMEM likewise).
 */
int gpm_metrics_db_add_platform_file(struct gpm_metrics_db *db, const char *dir,
				     const char *platform);
/* The same, keeping only the set named set or configured with uuid (see
 * gpm_metrics_file_load_set()): what replaying one recording needs. */
int gpm_metrics_db_add_platform_set(struct gpm_metrics_db *db, const char *dir,
				    const char *platform, const char *set,
				    const char *uuid);
/* Parses one file from memory; name stands for it in diagnostics. 0 or
 * -ENOMEM. */
int gpm_metrics_db_add_buffer(struct gpm_metrics_db *db, const char *name,
			      const void *data, size_t size);

/* The sim GPU's definitions, embedded in the binary. 0 or -ENOMEM. */
int gpm_metrics_db_add_builtin(struct gpm_metrics_db *db);

/* The first file for the platform ("tglgt2"); NULL if none. */
const struct gpm_metrics_file *
gpm_metrics_db_find_platform(const struct gpm_metrics_db *db,
			     const char *platform);

/* The set (by symbol_name or hw_config_guid) of the first file of the
 * platform that has it; NULL if none. */
const struct gpm_metric_set *
gpm_metrics_db_find_set(const struct gpm_metrics_db *db, const char *platform,
			const char *set);

/* Totals over all files. */
size_t gpm_metrics_db_count_sets(const struct gpm_metrics_db *db);
size_t gpm_metrics_db_count_counters(const struct gpm_metrics_db *db);

#endif
