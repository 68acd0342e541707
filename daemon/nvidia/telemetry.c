/*
 * NVML telemetry as counters (see telemetry.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/nvidia/telemetry.h"

enum source {
	ENERGY,                 /* mJ, a counter already */
	CLOCK,                  /* MHz */
	TEMPERATURE,            /* degrees C */
	MEMORY_USED,            /* MiB */
	GPM,                    /* a GPM metric: percent or MiB/s */
};

static const struct {
	const char *name;
	enum source source;
	int arg;                /* NVML clock type or GPM metric id */
} gauges[] = {
	{ "nvml:energy", ENERGY, 0 },
	{ "nvml:sm_clock", CLOCK, GPD_NVML_CLOCK_SM },
	{ "nvml:memory_clock", CLOCK, GPD_NVML_CLOCK_MEM },
	{ "nvml:temperature", TEMPERATURE, 0 },
	{ "nvml:memory_used", MEMORY_USED, 0 },
	{ "nvml:gpm_sm_util", GPM, 2 },
	{ "nvml:gpm_sm_occupancy", GPM, 3 },
	{ "nvml:gpm_any_tensor_util", GPM, 5 },
	{ "nvml:gpm_dram_bw_util", GPM, 10 },
	{ "nvml:gpm_fp32_util", GPM, 12 },
	{ "nvml:gpm_pcie_tx", GPM, 20 },
	{ "nvml:gpm_pcie_rx", GPM, 21 },
};

#define N_GAUGES (sizeof(gauges) / sizeof(gauges[0]))

/* DRAM bandwidth utilization, NaN in a pair that did not straddle a GPM
 * refresh: always asked for, to tell such pairs. */
#define GPM_PROBE_ID 10

uint64_t gpd_nv_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gpd_nv_telemetry_find(const char *name)
{
	for (size_t i = 0; i < N_GAUGES; i++)
		if (!strcmp(gauges[i].name, name))
			return (int)i;
	return -ENOENT;
}

static int nvml_fail(const struct gpd_nv_telemetry *t, char *why, size_t size,
		     const char *call, gpd_nvml_return r)
{
	snprintf(why, size, "%s: %s (NVML error %d)", call,
		 gpd_nv_nvml_error(t->libs, r), r);
	return -EIO;
}

static int gpm_sample(struct gpd_nv_telemetry *t, unsigned i, char *why,
		      size_t size)
{
	gpd_nvml_return r = t->libs->nvml.gpm_sample_get(t->device,
							  t->samples[i]);
	return r ? nvml_fail(t, why, size, "nvmlGpmSampleGet", r) : 0;
}

static int open_gpm(struct gpd_nv_telemetry *t, char *why, size_t size)
{
	const struct gpd_nvml_api *api = &t->libs->nvml;
	struct gpd_nvml_gpm_support support = {
		.version = GPD_NVML_GPM_SUPPORT_VERSION,
	};
	gpd_nvml_return r = api->gpm_query_device_support(t->device, &support);
	if (r)
		return nvml_fail(t, why, size, "nvmlGpmQueryDeviceSupport", r);
	if (!support.supported) {
		snprintf(why, size, "this GPU has no GPM metrics (they need "
			 "Hopper or later)");
		return -EOPNOTSUPP;
	}
	for (unsigned i = 0; i < 2; i++) {
		r = api->gpm_sample_alloc(&t->samples[i]);
		if (r)
			return nvml_fail(t, why, size, "nvmlGpmSampleAlloc", r);
	}
	t->older = 0;
	t->older_ns = gpd_nv_realtime_ns();
	return gpm_sample(t, t->older, why, size);
}

int gpd_nv_telemetry_open(struct gpd_nv_telemetry *t,
			  const struct gpd_nv_libs *libs, const char *pci_bus_id,
			  const char *const *names, unsigned n,
			  char *why, size_t why_size)
{
	memset(t, 0, sizeof(*t));
	t->libs = libs;
	if (!libs->have_nvml) {
		snprintf(why, why_size, "%s", libs->why_no_nvml);
		return -ENOENT;
	}
	if (n > GPD_NV_MAX_COUNTERS)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		t->gauge[i] = gpd_nv_telemetry_find(names[i]);
		if (t->gauge[i] < 0) {
			snprintf(why, why_size, "NVML has no gauge %s", names[i]);
			return -EINVAL;
		}
		t->gpm |= gauges[t->gauge[i]].source == GPM;
	}
	t->n = n;

	gpd_nvml_return r = libs->nvml.init();
	if (r)
		return nvml_fail(t, why, why_size, "nvmlInit", r);
	t->nvml = true;
	r = libs->nvml.device_get_handle_by_pci_bus_id(pci_bus_id, &t->device);
	if (r) {
		nvml_fail(t, why, why_size, "nvmlDeviceGetHandleByPciBusId", r);
		gpd_nv_telemetry_close(t);
		return -ENODEV;
	}
	int ret = 0;
	r = libs->nvml.device_get_total_energy_consumption(t->device,
							   &t->last_energy_mj);
	if (r)
		ret = nvml_fail(t, why, why_size,
				"nvmlDeviceGetTotalEnergyConsumption", r);
	if (!ret && t->gpm)
		ret = open_gpm(t, why, why_size);
	if (ret) {
		gpd_nv_telemetry_close(t);
		return ret;
	}
	t->last_ns = gpd_nv_realtime_ns();
	return 0;
}

/* Fills gpm[] (by gauge index) from the pair (older, newer) when it is a
 * valid one, and moves on to the newer sample; leaves gpm[] at 0 and keeps
 * the older sample otherwise. */
static int read_gpm(struct gpd_nv_telemetry *t, uint64_t now, double *gpm,
		    char *why, size_t size)
{
	unsigned newer = t->older ^ 1;
	int ret = gpm_sample(t, newer, why, size);
	if (ret)
		return ret;

	struct gpd_nvml_gpm_metrics_get *get = &t->get;
	memset(get, 0, sizeof(*get));
	get->version = GPD_NVML_GPM_METRICS_GET_VERSION;
	get->older = t->samples[t->older];
	get->newer = t->samples[newer];
	get->metrics[get->n_metrics++].id = GPM_PROBE_ID;
	for (unsigned i = 0; i < t->n; i++)
		if (gauges[t->gauge[i]].source == GPM)
			get->metrics[get->n_metrics++].id =
				(unsigned)gauges[t->gauge[i]].arg;
	gpd_nvml_return r = t->libs->nvml.gpm_metrics_get(get);
	if (r)
		return nvml_fail(t, why, size, "nvmlGpmMetricsGet", r);
	for (unsigned m = 0; m < get->n_metrics; m++)
		if (get->metrics[m].result || isnan(get->metrics[m].value))
			return 0;

	double span_ms = (double)(now - t->older_ns) / 1e6;
	for (unsigned m = 1, i = 0; i < t->n; i++) {
		if (gauges[t->gauge[i]].source != GPM)
			continue;
		double v = get->metrics[m++].value;
		gpm[i] = v > 0 ? v * span_ms : 0;
	}
	t->older = newer;
	t->older_ns = now;
	return 0;
}

int gpd_nv_telemetry_read(struct gpd_nv_telemetry *t, struct gpd_nv_sample *s,
			  char *why, size_t why_size)
{
	const struct gpd_nvml_api *api = &t->libs->nvml;
	uint64_t now = gpd_nv_realtime_ns();
	double ms = (double)(now - t->last_ns) / 1e6;
	double gpm[GPD_NV_MAX_COUNTERS] = { 0 };
	gpd_nvml_return r = 0;
	int ret;

	if (t->gpm && (ret = read_gpm(t, now, gpm, why, why_size)))
		return ret;
	for (unsigned i = 0; i < t->n && !r; i++) {
		unsigned mhz = 0, celsius = 0;
		unsigned long long mj = 0;
		struct gpd_nvml_memory mem = { 0 };
		switch (gauges[t->gauge[i]].source) {
		case ENERGY:
			r = api->device_get_total_energy_consumption(t->device, &mj);
			t->values[i] = mj >= t->last_energy_mj ?
				       (double)(mj - t->last_energy_mj) : 0;
			t->last_energy_mj = mj;
			break;
		case CLOCK:
			r = api->device_get_clock_info(t->device,
						       gauges[t->gauge[i]].arg,
						       &mhz);
			t->values[i] = mhz * ms;
			break;
		case TEMPERATURE:
			r = api->device_get_temperature(t->device,
							GPD_NVML_TEMPERATURE_GPU,
							&celsius);
			t->values[i] = celsius * ms;
			break;
		case MEMORY_USED:
			r = api->device_get_memory_info(t->device, &mem);
			t->values[i] = (double)(mem.used >> 20) * ms;
			break;
		case GPM:
			t->values[i] = gpm[i];
			break;
		}
	}
	if (r)
		return nvml_fail(t, why, why_size, "reading an NVML gauge", r);
	s->start_ns = t->last_ns;
	s->end_ns = now;
	s->values = t->values;
	t->last_ns = now;
	return 0;
}

void gpd_nv_telemetry_close(struct gpd_nv_telemetry *t)
{
	const struct gpd_nvml_api *api = t->libs ? &t->libs->nvml : NULL;
	for (unsigned i = 0; api && i < 2; i++)
		if (t->samples[i])
			api->gpm_sample_free(t->samples[i]);
	if (api && t->nvml)
		api->shutdown();
	memset(t, 0, sizeof(*t));
}
