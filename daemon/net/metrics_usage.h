/*
 * /metrics' usage series: each device's usage stream as Prometheus
 * counters and gauges, in base units.
 *
 *   gpuperf_engine_busy_seconds_total{device,engine,class}     counter
 *   gpuperf_engine_wait_seconds_total{device,engine,class}     counter
 *   gpuperf_engine_sema_seconds_total{device,engine,class}     counter
 *   gpuperf_frequency_hertz{device,kind="actual|requested"}    gauge
 *   gpuperf_frequency_min_hertz, gpuperf_frequency_max_hertz   gauges
 *   gpuperf_rc6_seconds_total{device}                          counter
 *   gpuperf_energy_joules_total{device}                        counter
 *   gpuperf_power_watts{device}                                gauge
 *   gpuperf_temperature_celsius{device}                        gauge
 *   gpuperf_<gauge>_<unit>{device}, e.g. gpuperf_pcie_tx_bytes_per_second
 * and with --metrics-processes (unless --process-details none):
 *   gpuperf_process_gpu_seconds_total{device,pid,command,class} counter
 *   gpuperf_process_memory_bytes{device,pid,command}           gauge
 *
 * Counters are the usage monitor's totals: every interval the daemon read,
 * for whichever client, summed once. Gauges are the last interval's.
 */
#ifndef GPD_NET_METRICS_USAGE_H
#define GPD_NET_METRICS_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/net/metrics_text.h"
#include "daemon/usage.h"

struct gpd_device;
struct gpd_usage_subscription;

struct gpd_metrics_usage_process {
	int32_t pid;
	char command[GPD_USAGE_COMMAND_MAX];
	uint64_t memory_bytes;
};

/* One device's usage as the exporter keeps it. */
struct gpd_metrics_usage {
	struct gpd_device *dev;
	struct gpd_usage_subscription *sub;
	bool processes;                 /* per-process series */
	bool have_frame;
	/* The last interval's gauges. */
	double actual_hz, requested_hz, min_hz, max_hz, power_w, temperature_c;
	double gauges[GPD_USAGE_MAX_GAUGES];
	struct gpd_metrics_usage_process *rows;
	size_t n_rows, cap_rows;
	/* A frame arrived: the exporter may answer its scrapes. */
	void (*ready)(void *user);
	void *user;
};

/* Subscribes to dev's usage stream (when it has one) every interval_ns.
 * false when the device has none or the subscription failed. */
bool gpd_metrics_usage_start(struct gpd_metrics_usage *mu,
			     struct gpd_device *dev, uint64_t interval_ns);

void gpd_metrics_usage_stop(struct gpd_metrics_usage *mu);

void gpd_metrics_usage_fini(struct gpd_metrics_usage *mu);

/* The series of every one of the n devices' usage. */
void gpd_metrics_usage_render(struct gpd_metrics_text *t,
			      const struct gpd_metrics_usage *mus, size_t n);

#endif
