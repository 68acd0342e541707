/*
 * /metrics' usage series: each device's usage stream as Prometheus
 * counters and gauges, in base units. DEVICE stands for the device's
 * labels (metrics_exporter.h).
 *
 *   gpuperf_engine_busy_seconds_total{DEVICE,engine,class}     counter
 *   gpuperf_engine_wait_seconds_total{DEVICE,engine,class}     counter
 *   gpuperf_engine_sema_seconds_total{DEVICE,engine,class}     counter
 *   gpuperf_frequency_hertz{DEVICE,kind="actual|requested"}    gauge
 *   gpuperf_frequency_min_hertz, gpuperf_frequency_max_hertz   gauges
 *   gpuperf_rc6_seconds_total{DEVICE}                          counter
 *   gpuperf_energy_joules_total{DEVICE}                        counter
 *   gpuperf_power_watts{DEVICE}                                gauge
 *   gpuperf_temperature_celsius{DEVICE}                        gauge
 *   gpuperf_<gauge>_<unit>{DEVICE}, e.g. gpuperf_pcie_tx_bytes_per_second
 * and with --metrics-processes (unless --process-details none), for the
 * --metrics-max-processes processes of most GPU time:
 *   gpuperf_process_gpu_seconds_total{DEVICE,PROCESS,class}    counter
 *   gpuperf_process_memory_bytes{DEVICE,PROCESS}               gauge
 *   gpuperf_process_share_source{DEVICE,PROCESS,source}        gauge, 1
 *     (where its last interval's share came from: kernel_counters,
 *     driver_sampled, measured_in_process, simulated)
 *   gpuperf_process_records_lost_total{DEVICE,PROCESS}         counter
 *     (measured_in_process only: kernel records its measure lost)
 *   gpuperf_processes_omitted{DEVICE}                          gauge
 * where PROCESS is pid, command, and where the process runs in a
 * Kubernetes pod, pod_uid and container_id (daemon/host/cgroup_pod.h;
 * pod_uid joins kube-state-metrics' kube_pod_info{uid}).
 *
 * Counters are the usage monitor's totals: every interval the daemon read,
 * for whichever client, summed once. Gauges are the last interval's.
 *
 * The live state (struct gpd_metrics_usage) belongs to the loop; a scrape
 * copies it into a view, which renders anywhere.
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
	struct gpd_pod pod;
	uint64_t memory_bytes;
	enum gpd_usage_share_source share_source;
	uint64_t records_lost;
};

/* The last interval's gauges. */
struct gpd_metrics_usage_gauges {
	double actual_hz, requested_hz, min_hz, max_hz, power_w, temperature_c;
	double gauges[GPD_USAGE_MAX_GAUGES];
};

/* One device's usage as the exporter keeps it, on the loop. */
struct gpd_metrics_usage {
	struct gpd_device *dev;
	struct gpd_usage_subscription *sub;
	bool processes;                 /* per-process series */
	size_t max_processes;           /* of them, at most */
	bool have_frame;
	struct gpd_metrics_usage_gauges last;
	struct gpd_metrics_usage_process *rows;
	size_t n_rows, cap_rows;
	/* A frame arrived: the exporter may answer its scrapes. */
	void (*ready)(void *user);
	void *user;
};

/* One device's usage as a scrape renders it: copies only. */
struct gpd_metrics_usage_view {
	const char *labels;             /* the device's, escaped */
	bool have_frame, processes;
	size_t max_processes;
	struct gpd_metrics_usage_gauges last;
	struct gpd_usage_layout layout;
	unsigned have;                  /* GPD_USAGE_HAVE_* */
	double engine_busy_s[GPD_USAGE_MAX_ENGINES];
	double engine_wait_s[GPD_USAGE_MAX_ENGINES];
	double engine_sema_s[GPD_USAGE_MAX_ENGINES];
	double rc6_s, energy_j;
	struct gpd_usage_process_total *totals;
	size_t n_totals;
	struct gpd_metrics_usage_process *rows;
	size_t n_rows;
};

/* Subscribes to dev's usage stream (when it has one) every interval_ns.
 * false when the device has none or the subscription failed. */
bool gpd_metrics_usage_start(struct gpd_metrics_usage *mu,
			     struct gpd_device *dev, uint64_t interval_ns);

void gpd_metrics_usage_stop(struct gpd_metrics_usage *mu);

void gpd_metrics_usage_fini(struct gpd_metrics_usage *mu);

/* Copies mu into view, labelled labels (which must outlive the view).
 * -ENOMEM leaves an empty view. */
int gpd_metrics_usage_view(const struct gpd_metrics_usage *mu,
			   const char *labels,
			   struct gpd_metrics_usage_view *view);

void gpd_metrics_usage_view_fini(struct gpd_metrics_usage_view *view);

/* The series of every one of the n devices' usage; sorts each view's
 * processes by GPU time. Without process_details, no series names a
 * process: they are all counted as left out. */
void gpd_metrics_usage_render(struct gpd_metrics_text *t,
			      struct gpd_metrics_usage_view *views, size_t n,
			      bool process_details);

#endif
