/*
 * The syntax of gpuperfd's configuration file (/etc/gpuperfd.conf): one
 * command-line option a line, without its dashes.
 *
 *   # a comment
 *   device = sim
 *   metrics-dir = /usr/share/igt-gpu-tools/perf-configs
 *   metrics-dir = /opt/mesa/src/intel/perf
 *   foreground
 *
 * `name = value` for an option that takes a value, `name` alone for one
 * that takes none; an option that may repeat on the command line repeats
 * here. Blank lines and lines whose first non-blank character is `#` are
 * ignored; blanks around the name and the value are too.
 *
 * This file only reads lines against a getopt_long table; what the values
 * mean is the command line's business (daemon/config.c), so the file and
 * the command line cannot drift apart.
 */
#ifndef GPD_CONFIG_FILE_H
#define GPD_CONFIG_FILE_H

#include <getopt.h>
#include <stddef.h>

#include "daemon/error.h"

struct gpd_config_line {
	const struct option *option;    /* the table entry it sets */
	char *value;                    /* NULL for an option without one */
	unsigned line;                  /* 1-based, for messages */
};

struct gpd_config_file {
	char *path;
	struct gpd_config_line *lines;
	size_t n_lines;
};

/* Reads path, checking each name against table (terminated by a NULL
 * name). 0; -EINVAL with err naming the file and line of the first line
 * that is not an option of the table or lacks (or has a stray) value; the
 * -errno of opening or reading path; -ENOMEM. */
int gpd_config_file_read(struct gpd_config_file *file, const char *path,
			 const struct option *table, struct gpd_error *err);

void gpd_config_file_fini(struct gpd_config_file *file);

#endif
