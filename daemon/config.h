/*
 * gpuperfd's configuration: the command line and the configuration file
 * (--config PATH, /etc/gpuperfd.conf for the service) read into the same
 * options by the same parser.
 *
 * The file's lines become `--name=value` arguments ahead of the command
 * line's, and one getopt_long table reads them all. An option given on
 * the command line replaces every line of the file that sets it, so the
 * command line wins for repeatable options (--device, --metrics-dir,
 * --listen) as it does for the others.
 */
#ifndef GPD_CONFIG_H
#define GPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "daemon/config_file.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"

/* One option in effect: what getopt_long returned for it. */
struct gpd_config_value {
	const char *name;               /* the long name, without dashes */
	const char *value;              /* NULL for an option without one */
};

struct gpd_config {
	struct gpd_options daemon;
	struct gpd_server_options server;
	enum gpd_log_level log_level;
	const char *path;               /* --config; NULL: none */
	const char *user;               /* --user; NULL: keep the user */
	bool allow_root;                /* --allow-root: may serve as root */
	bool help, version;

	/* Every option in effect, the file's first, in order. The strings
	 * above point into these, or into the argv given to load. */
	struct gpd_config_value *values;
	size_t n_values;

	int argc;                       /* the command line, kept for reload */
	char *const *argv;
	struct gpd_config_file file;
	char **args;                    /* the merged arguments */
	size_t n_args;
	const char **lists;             /* --device, --metrics-dir, --listen,
					 * --server-name, --allow-origin,
					 * --flight-recorder, --keep-streaming,
					 * --trigger */
	unsigned *trigger_lines;        /* of the file, for each --trigger */
};

/* Reads the command line (argv must outlive cfg) and the file its
 * --config names. 0; -EINVAL with err saying what is wrong and where
 * (`FILE:LINE: ...` for the file); the -errno of reading the file;
 * -ENOMEM. With --help or --version the file is not read. */
int gpd_config_load(struct gpd_config *cfg, int argc, char *const *argv,
		    struct gpd_error *err);

void gpd_config_fini(struct gpd_config *cfg);

/* Names, as "--a, --b", the options that differ between a and b, leaving
 * out those named in skip (NULL-terminated); returns how many differ. */
size_t gpd_config_changes(const struct gpd_config *a, const struct gpd_config *b,
			  const char *const *skip, char *buf, size_t size);

/* The --help text. */
void gpd_config_usage(FILE *out);

#endif
