/*
 * The daemon's one context: its loop, options, metric definitions and
 * devices. Nothing else in the daemon holds mutable global state.
 */
#ifndef GPD_DAEMON_H
#define GPD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/device.h"
#include "daemon/device_registry.h"
#include "daemon/device_spec.h"
#include "daemon/subscription.h"
#include "daemon/trigger_save.h"
#include "daemon/trigger_watch.h"

struct gpm_metrics_db;
struct gpd_config;
struct gpd_nv_libs;
struct gpd_keeper;
struct gpd_server;
struct gpd_trigger_set;

struct gpd_options {
	const char **device_specs;      /* --device, in order; none = auto */
	size_t n_device_specs;
	const char **metrics_dirs;      /* --metrics-dir; none = built-in sim */
	size_t n_metrics_dirs;
	uint64_t seed;                  /* sim workload */
	size_t sim_buffer_size;         /* sim OA buffer; 0: 16 MiB */
	bool sim_stepped;               /* sims run by gpd_sim_source_advance */
	uint64_t sim_timeslice_ns;      /* sim context switches; 0: 1 ms */
	uint64_t linger_ms;             /* stream stays open after the last
					 * subscriber leaves */
	/* The shortest sampling period anyone may ask for (--min-period);
	 * 0: GPD_DEFAULT_MIN_PERIOD_NS, 1: any the unit has. */
	uint64_t min_period_ns;
	/* --flight-recorder, --keep-streaming: in order (config_flight.h) */
	const char **flight_recorders;
	size_t n_flight_recorders;
	uint64_t flight_recorder_memory;        /* 0: the default */
	const char **keep_streaming;
	size_t n_keep_streaming;
	/* --trigger, in order, and where their snapshots go
	 * (config_trigger.h); 0: the defaults. */
	const char **triggers;
	size_t n_triggers;
	/* Where each was given: a line of trigger_file, 0 on the command
	 * line; errors found when they start say it. */
	const unsigned *trigger_lines;
	const char *trigger_file;
	const char *trigger_dir;
	uint64_t trigger_dir_max;
	uint64_t trigger_before_ns, trigger_after_ns;
	const char *dev_root;           /* device nodes; NULL = /dev */
	const char *sysfs_root;         /* sysfs; NULL = /sys */
	const char *proc_root;          /* procfs; NULL = /proc */
	/* The NVIDIA libraries; NULL loads libcuda, libcupti and NVML
	 * (tests pass fakes). */
	const struct gpd_nv_libs *nvidia_libs;
};

struct gpd_daemon {
	uv_loop_t *loop;
	struct gpd_options options;
	struct gpm_metrics_db *metrics;
	/* What the subscription layer, the recorder and the server are
	 * handed of the daemon. */
	struct gpd_device_registry registry;
	struct gpd_server *server;      /* NULL when not serving */
	/* Devices kept streaming (--keep-streaming). */
	struct gpd_keeper **keepers;
	size_t n_keepers;
	/* The triggers of the configuration (config_trigger.h), those a
	 * reload replaced while a firing of theirs was in flight, and the
	 * writer of their snapshots. */
	struct gpd_trigger_set *triggers;
	struct gpd_trigger_watch *retired_watches;
	struct gpd_trigger_saver trigger_saver;
	/* Definitions a reload replaced that a busy device still uses. */
	struct gpm_metrics_db **retired;
	size_t n_retired;
	/* The configuration it started with (NULL: none to re-read) and the
	 * one the last SIGHUP applied. */
	struct gpd_config *config;
	struct gpd_config *reloaded;
	uv_signal_t sigint, sigterm, sighup;
	bool signals_installed;
	bool stopping;
	int exit_status;
};

/* Loads the metric definitions and creates every device. 0, or a negative
 * code with err saying what to fix. */
int gpd_daemon_init(struct gpd_daemon *d, uv_loop_t *loop,
		    const struct gpd_options *options, struct gpd_error *err);

/* SIGINT and SIGTERM stop the daemon cleanly; SIGHUP reloads its
 * configuration (gpd_reload). */
int gpd_daemon_handle_signals(struct gpd_daemon *d);

/* Loads the definitions of dirs (then the built-in ones) and moves every
 * device whose platform they define onto them, each as soon as it is idle
 * (gpd_device_replace_metrics). 0, or a negative code with err saying
 * what to fix; the devices then keep what they had. dirs must outlive the
 * daemon or the next reload. */
int gpd_daemon_reload_metrics(struct gpd_daemon *d, const char *const *dirs,
			      size_t n_dirs, struct gpd_error *err);

/* Closes every device and handle; uv_run returns once they are closed. */
void gpd_daemon_stop(struct gpd_daemon *d);

/* Frees what init allocated, after the loop has run dry. */
void gpd_daemon_fini(struct gpd_daemon *d);

/* By name; NULL name gives the first device. */
struct gpd_device *gpd_daemon_find_device(struct gpd_daemon *d,
					  const char *name);

#endif
