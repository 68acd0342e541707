/*
 * The options that keep a device's recent past: --flight-recorder,
 * --flight-recorder-memory and --keep-streaming. Their words are checked
 * when the configuration is read; what they name (devices, metric sets,
 * periods) once the devices exist, all of it before any is applied.
 *
 *   --flight-recorder [DEVICE=]SIZE|DURATION
 *       a ring of SIZE bytes ("64Mi"), or of what DURATION ("30s") takes
 *       at the device's --keep-streaming period (else its default one);
 *       without DEVICE=, for every device that can keep one.
 *   --flight-recorder-memory SIZE
 *       the most all rings take together (default 256 MiB); snapshots in
 *       transfer may take as much again.
 *   --keep-streaming [DEVICE=]SET[@PERIOD]
 *       the device streams SET even with nobody subscribed, and goes back
 *       to it when the last client that changed it leaves.
 */
#ifndef GPD_CONFIG_FLIGHT_H
#define GPD_CONFIG_FLIGHT_H

#include <stdint.h>

#include "daemon/error.h"

struct gpd_daemon;

#define GPD_DEFAULT_FLIGHT_RECORDER_MEMORY (256ull << 20)

struct gpd_flight_recorder_spec {
	char device[64];                /* "" for every device */
	uint64_t bytes;                 /* 0 when given as a duration */
	uint64_t duration_ns;
};

struct gpd_keep_streaming_spec {
	char device[64];                /* "" for every device */
	char metric_set[128];
	uint64_t period_ns;             /* 0: the device's default */
};

/* The value of one option; -EINVAL with err saying what it takes. */
int gpd_flight_recorder_spec_parse(const char *text,
				   struct gpd_flight_recorder_spec *out,
				   struct gpd_error *err);
int gpd_keep_streaming_spec_parse(const char *text,
				  struct gpd_keep_streaming_spec *out,
				  struct gpd_error *err);

/* Checks the daemon's options against its devices, then keeps their
 * flight recorders and starts keeping them streaming. 0, or a negative
 * code with err saying what to fix; nothing is applied then. */
int gpd_daemon_start_flight_recorders(struct gpd_daemon *d,
				      struct gpd_error *err);

#endif
