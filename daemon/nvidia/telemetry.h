/*
 * NVML telemetry: clocks, energy, temperature, memory use and GPM
 * utilization of one GPU, read at 100 ms or slower. It needs no profiling
 * rights over the GPU, so it works while another tool owns PM sampling.
 *
 * Gauges become counters the way the OA unit turns a clock into ticks:
 * each read adds value x elapsed milliseconds to a running total, so a
 * window's delta divided by its length is the time-weighted mean. Energy
 * already is a counter (mJ). GPM utilizations come from pairs of GPM
 * samples; NVML refreshes them about every 100 ms, and a pair that did not
 * straddle a refresh reads as 0 with a NaN bandwidth, so such a pair is not
 * used: its older sample stays, and the next valid pair covers the whole
 * span.
 */
#ifndef GPD_NVIDIA_TELEMETRY_H
#define GPD_NVIDIA_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/report_builder.h"

/* NVML's GPM data refreshes about every 100 ms: reading faster gives
 * nothing new. */
#define GPD_NV_TELEMETRY_MIN_PERIOD_NS 100000000ull

/* The index of gauge name ("nvml:energy"), or -ENOENT. */
int gpd_nv_telemetry_find(const char *name);

struct gpd_nv_telemetry {
	const struct gpd_nv_libs *libs;
	bool nvml;                      /* nvmlInit done */
	gpd_nvml_device device;
	unsigned n;
	int gauge[GPD_NV_MAX_COUNTERS];         /* gpd_nv_telemetry_find */
	bool gpm;                               /* some gauge is a GPM one */
	gpd_nvml_gpm_sample samples[2];
	unsigned older;                         /* index into samples */
	uint64_t older_ns;                      /* CLOCK_REALTIME of it */
	unsigned long long last_energy_mj;
	uint64_t last_ns;
	double values[GPD_NV_MAX_COUNTERS];
	struct gpd_nvml_gpm_metrics_get get;    /* scratch, large */
};

/*
 * Opens NVML on the GPU at pci_bus_id and takes the first readings.
 * -ENOENT without NVML, -EOPNOTSUPP for GPM gauges on a GPU without GPM,
 * -ENODEV, -EIO; why says what in words.
 */
int gpd_nv_telemetry_open(struct gpd_nv_telemetry *t,
			  const struct gpd_nv_libs *libs, const char *pci_bus_id,
			  const char *const *gauges, unsigned n,
			  char *why, size_t why_size);

/*
 * Reads every gauge: *s covers the time since the previous read, with one
 * value per gauge (valid until the next call). -EIO with why on an NVML
 * failure.
 */
int gpd_nv_telemetry_read(struct gpd_nv_telemetry *t, struct gpd_nv_sample *s,
			  char *why, size_t why_size);

void gpd_nv_telemetry_close(struct gpd_nv_telemetry *t);

/* CLOCK_REALTIME now, in ns: the clock CUPTI and these samples use. */
uint64_t gpd_nv_realtime_ns(void);

#endif
