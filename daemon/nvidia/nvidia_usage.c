/*
 * An NVIDIA GPU's usage source, from NVML (loaded at run time, libs.h).
 *
 * NVML gives percentages of its last sample period rather than counters:
 * GPU and memory-controller utilization (nvmlDeviceGetUtilizationRates),
 * the encoders' and decoders', and per process the SM, memory, encoder
 * and decoder shares of each sample period
 * (nvmlDeviceGetProcessUtilization). Like the telemetry set, the source
 * turns each into a counter by adding share x time elapsed at every
 * read, so readings difference like any other source's. Energy already
 * is a counter (nvmlDeviceGetTotalEnergyConsumption, mJ). Memory per
 * process is what the running-process lists say, as NVML reports it.
 *
 * Engines: sm (class compute: any kernel ran), mem (memory: the memory
 * controller was busy), nvenc (encoder), nvdec (decoder). NVIDIA has no
 * RC6 residency or requested clock: those stay unknown.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/host/cgroup_pod.h"
#include "daemon/host/proc_scan.h"
#include "daemon/nvidia/nvidia_usage.h"
#include "daemon/nvidia/telemetry.h"
#include "daemon/process_activity.h"

enum { SM, MEM, ENC, DEC, N_ENGINES };
enum { PCIE_TX, PCIE_RX };

/* A process's time on each engine so far, in ns. */
struct process_busy {
	int32_t pid;
	uint64_t busy[N_ENGINES];       /* from the driver's samples */
	/* The SM time reported: the driver's, or where the process measured
	 * its own kernels (process_activity.h), that instead. */
	uint64_t sm_reported;
	uint64_t sm_driver_before;      /* busy[SM] at the last reading */
	/* The process's own sums at the last reading, and its last share. */
	uint64_t measured_busy, measured_span;
	double measured_share;
	bool measured;
	uint64_t records_lost;          /* the process's own, at the last reading */
	double sm_ns;                   /* in the interval being read */
	bool seen;                      /* in the newest reading */
};

/* One process's shares of one of NVML's sample periods, whichever call
 * gave it. */
struct sample {
	unsigned pid;
	unsigned long long timestamp;           /* us, CLOCK_REALTIME */
	unsigned percent[N_ENGINES];
};

struct nv_usage {
	struct gpd_usage_source base;
	const struct gpd_nv_libs *libs;
	const struct gpd_process_activity *activity;    /* or NULL */
	char bus_id[32];
	struct gpd_pci_address address;
	bool have_address;
	char proc_root[PATH_MAX];
	bool open;
	uint64_t generation;
	gpd_nvml_device device;
	uint64_t last_ns;               /* monotonic, of the last read */
	uint64_t busy[N_ENGINES], total;
	double sm_share;                /* of the last read; NaN: unknown */
	double sm_mhz_s;
	double energy_j;
	unsigned long long last_energy_mj;
	bool have_energy;
	unsigned long long last_sample_us;      /* newest process sample seen */
	struct process_busy *procs;
	size_t n_procs, cap_procs;
	struct sample *samples;                 /* of the last call */
	unsigned cap_samples;
	struct gpd_nvml_process_utilization *old_samples;
	unsigned cap_old_samples;
	struct gpd_nvml_process_utilization_info *info_samples;
	unsigned cap_info_samples;
	bool newer_unsupported;         /* the newer call refused: the older */
	struct gpd_nvml_process_info *infos;
	unsigned cap_infos;
};

static int nvml_note(const struct nv_usage *u, struct gpd_usage_reading *r,
		     const char *call, gpd_nvml_return ret)
{
	gpd_usage_note(r->note, "%s: %s (NVML error %d)", call,
		       gpd_nv_nvml_error(u->libs, ret), ret);
	return -EIO;
}

static void close_nvml(struct nv_usage *u)
{
	if (!u->open)
		return;
	u->libs->nvml.shutdown();
	u->open = false;
}

static int open_nvml(struct nv_usage *u, struct gpd_usage_reading *r)
{
	gpd_nvml_return ret = u->libs->nvml.init();
	if (ret)
		return nvml_note(u, r, "nvmlInit", ret);
	ret = u->libs->nvml.device_get_handle_by_pci_bus_id(u->bus_id, &u->device);
	if (ret) {
		u->libs->nvml.shutdown();
		return nvml_note(u, r, "nvmlDeviceGetHandleByPciBusId", ret);
	}
	u->open = true;
	u->generation++;
	u->last_ns = 0;
	memset(u->busy, 0, sizeof(u->busy));
	u->total = 0;
	u->sm_mhz_s = 0;
	u->energy_j = 0;
	u->have_energy = false;
	u->last_sample_us = gpd_nv_realtime_ns() / 1000;
	u->n_procs = 0;
	return 0;
}

/* Engines and clocks: shares of the time since the last read. */
static void read_device(struct nv_usage *u, struct gpd_usage_reading *r,
			uint64_t elapsed)
{
	const struct gpd_nvml_usage_api *api = &u->libs->nvml_usage;
	struct gpd_nvml_utilization util;
	unsigned percent[N_ENGINES] = { 0 }, period, mhz;
	bool engines = !api->device_get_utilization_rates(u->device, &util);
	if (engines) {
		percent[SM] = util.gpu;
		percent[MEM] = util.memory;
	} else {
		gpd_usage_note(r->note, "NVML gives no utilization for this GPU");
	}
	if (api->device_get_encoder_utilization(u->device, &percent[ENC], &period))
		percent[ENC] = 0;
	if (api->device_get_decoder_utilization(u->device, &percent[DEC], &period))
		percent[DEC] = 0;
	u->sm_share = engines ? percent[SM] / 100.0 : NAN;
	for (unsigned e = 0; e < N_ENGINES; e++) {
		u->busy[e] += (uint64_t)((double)elapsed * percent[e] / 100);
		r->engines[e].busy = u->busy[e];
	}
	u->total += elapsed;
	for (unsigned e = 0; e < N_ENGINES; e++)
		r->engines[e].total = u->total;
	if (engines)
		r->have |= GPD_USAGE_HAVE_ENGINES;
	if (!u->libs->nvml.device_get_clock_info(u->device, GPD_NVML_CLOCK_SM, &mhz)) {
		u->sm_mhz_s += mhz * ((double)elapsed / 1e9);
		r->actual_freq_mhz_s = u->sm_mhz_s;
		r->have |= GPD_USAGE_HAVE_ACTUAL_FREQ;
	}
	if (!api->device_get_max_clock_info(u->device, GPD_NVML_CLOCK_SM, &mhz)) {
		r->min_freq_hz = NAN;
		r->max_freq_hz = mhz * 1e6;
		r->have |= GPD_USAGE_HAVE_FREQ_RANGE;
	}
	unsigned long long mj;
	if (!u->libs->nvml.device_get_total_energy_consumption(u->device, &mj)) {
		if (u->have_energy)
			u->energy_j += (double)(mj - u->last_energy_mj) / 1e3;
		u->last_energy_mj = mj;
		u->have_energy = true;
		r->energy_j = u->energy_j;
		r->have |= GPD_USAGE_HAVE_ENERGY;
	}
	unsigned celsius;
	if (!u->libs->nvml.device_get_temperature(u->device,
						  GPD_NVML_TEMPERATURE_GPU,
						  &celsius)) {
		r->temperature_c = celsius;
		r->have |= GPD_USAGE_HAVE_TEMPERATURE;
	}
	unsigned kbps;
	r->gauges[PCIE_TX] = r->gauges[PCIE_RX] = NAN;
	if (!api->device_get_pcie_throughput(u->device,
					     GPD_NVML_PCIE_UTIL_TX_BYTES, &kbps))
		r->gauges[PCIE_TX] = kbps * 1024.0;
	if (!api->device_get_pcie_throughput(u->device,
					     GPD_NVML_PCIE_UTIL_RX_BYTES, &kbps))
		r->gauges[PCIE_RX] = kbps * 1024.0;
	r->have |= GPD_USAGE_HAVE_GAUGES;
}

static struct process_busy *process_of(struct nv_usage *u, int32_t pid)
{
	for (size_t i = 0; i < u->n_procs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	if (u->n_procs == u->cap_procs) {
		size_t cap = u->cap_procs ? 2 * u->cap_procs : 16;
		struct process_busy *p = realloc(u->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		u->procs = p;
		u->cap_procs = cap;
	}
	struct process_busy *p = &u->procs[u->n_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static struct sample *reserve_samples(struct nv_usage *u, unsigned count)
{
	if (count <= u->cap_samples)
		return u->samples;
	struct sample *s = realloc(u->samples, (count + 16) * sizeof(*s));
	if (!s)
		return NULL;
	u->samples = s;
	u->cap_samples = count + 16;
	return s;
}

/* nvmlDeviceGetProcessesUtilizationInfo, the newer call: its samples in
 * u->samples, their number in *count. */
static gpd_nvml_return newer_samples(struct nv_usage *u, unsigned *count)
{
	const struct gpd_nvml_usage_api *api = &u->libs->nvml_usage;
	struct gpd_nvml_processes_utilization info = {
		.version = GPD_NVML_PROCESSES_UTILIZATION_VERSION,
		.count = u->cap_info_samples,
		.last_seen_us = u->last_sample_us,
		.samples = u->info_samples,
	};
	gpd_nvml_return ret = api->device_get_processes_utilization_info(u->device,
									 &info);
	if (ret == GPD_NVML_ERROR_INSUFFICIENT_SIZE) {
		struct gpd_nvml_process_utilization_info *s =
			realloc(u->info_samples, (info.count + 16) * sizeof(*s));
		if (!s)
			return GPD_NVML_ERROR_MEMORY;
		u->info_samples = s;
		u->cap_info_samples = info.count + 16;
		info.samples = s;
		info.count = u->cap_info_samples;
		info.last_seen_us = u->last_sample_us;
		ret = api->device_get_processes_utilization_info(u->device, &info);
	}
	if (ret)
		return ret;
	if (!reserve_samples(u, info.count))
		return GPD_NVML_ERROR_MEMORY;
	for (unsigned i = 0; i < info.count; i++) {
		const struct gpd_nvml_process_utilization_info *s = &u->info_samples[i];
		u->samples[i] = (struct sample){
			.pid = s->pid, .timestamp = s->timestamp,
			.percent = { s->sm_util, s->mem_util, s->enc_util, s->dec_util },
		};
	}
	*count = info.count;
	return 0;
}

/* nvmlDeviceGetProcessUtilization, the older call, likewise. */
static gpd_nvml_return older_samples(struct nv_usage *u, unsigned *count)
{
	const struct gpd_nvml_usage_api *api = &u->libs->nvml_usage;
	unsigned n = u->cap_old_samples;
	gpd_nvml_return ret = api->device_get_process_utilization(
		u->device, u->old_samples, &n, u->last_sample_us);
	if (ret == GPD_NVML_ERROR_INSUFFICIENT_SIZE) {
		struct gpd_nvml_process_utilization *s =
			realloc(u->old_samples, (n + 16) * sizeof(*s));
		if (!s)
			return GPD_NVML_ERROR_MEMORY;
		u->old_samples = s;
		u->cap_old_samples = n + 16;
		n = u->cap_old_samples;
		ret = api->device_get_process_utilization(u->device, u->old_samples,
							  &n, u->last_sample_us);
	}
	if (ret)
		return ret;
	if (!reserve_samples(u, n))
		return GPD_NVML_ERROR_MEMORY;
	for (unsigned i = 0; i < n; i++) {
		const struct gpd_nvml_process_utilization *s = &u->old_samples[i];
		u->samples[i] = (struct sample){
			.pid = s->pid, .timestamp = s->timestamp,
			.percent = { s->sm_util, s->mem_util, s->enc_util, s->dec_util },
		};
	}
	*count = n;
	return 0;
}

/* The process utilization samples since the last read, each process's
 * mean share of them added over the time elapsed. The newer call where
 * the driver has it (the older one answers NOT_SUPPORTED on some GPUs),
 * else the older (also where the newer refuses the call or its struct's
 * version); both give the same samples where both work. */
static int read_process_shares(struct nv_usage *u, struct gpd_usage_reading *r,
			       uint64_t elapsed)
{
	unsigned count = 0;
	bool newer = u->libs->nvml_usage.device_get_processes_utilization_info &&
		     !u->newer_unsupported;
	gpd_nvml_return ret = newer ? newer_samples(u, &count) :
			      older_samples(u, &count);
	if (newer && (ret == GPD_NVML_ERROR_NOT_SUPPORTED ||
		      ret == GPD_NVML_ERROR_FUNCTION_NOT_FOUND ||
		      ret == GPD_NVML_ERROR_ARGUMENT_VERSION_MISMATCH)) {
		u->newer_unsupported = true;
		newer = false;
		ret = older_samples(u, &count);
	}
	if (ret == GPD_NVML_ERROR_MEMORY)
		return -ENOMEM;
	if (ret == GPD_NVML_ERROR_NOT_FOUND)
		return 0;               /* no sample since the last read */
	if (ret) {
		nvml_note(u, r, newer ? "nvmlDeviceGetProcessesUtilizationInfo" :
			  "nvmlDeviceGetProcessUtilization", ret);
		return 0;
	}
	/* Each process's mean over its new samples. */
	unsigned long long newest = u->last_sample_us;
	for (unsigned i = 0; i < count; i++)
		if (u->samples[i].timestamp > newest)
			newest = u->samples[i].timestamp;
	for (unsigned i = 0; i < count; i++) {
		const struct sample *s = &u->samples[i];
		if (s->timestamp <= u->last_sample_us)
			continue;
		bool counted = false;
		for (unsigned j = 0; j < i && !counted; j++)
			counted = u->samples[j].pid == s->pid &&
				  u->samples[j].timestamp > u->last_sample_us;
		if (counted)
			continue;
		unsigned n = 0;
		double sum[N_ENGINES] = { 0 };
		for (unsigned j = i; j < count; j++) {
			const struct sample *t = &u->samples[j];
			if (t->pid != s->pid || t->timestamp <= u->last_sample_us)
				continue;
			for (unsigned e = 0; e < N_ENGINES; e++)
				sum[e] += t->percent[e];
			n++;
		}
		struct process_busy *p = process_of(u, (int32_t)s->pid);
		if (!p)
			return -ENOMEM;
		for (unsigned e = 0; e < N_ENGINES; e++) {
			double share = sum[e] / n / 100;
			p->busy[e] += (uint64_t)((double)elapsed *
						 (share > 1 ? 1 : share));
		}
	}
	u->last_sample_us = newest;
	return 0;
}

/* The processes holding memory or running work on the GPU. */
static int read_running(struct nv_usage *u, struct gpd_usage_reading *r,
			bool graphics)
{
	const struct gpd_nvml_usage_api *api = &u->libs->nvml_usage;
	for (int attempt = 0; attempt < 2; attempt++) {
		unsigned count = u->cap_infos;
		gpd_nvml_return ret = graphics ?
			api->device_get_graphics_running_processes(u->device, &count,
								   u->infos) :
			api->device_get_compute_running_processes(u->device, &count,
								  u->infos);
		if (ret == GPD_NVML_ERROR_INSUFFICIENT_SIZE) {
			struct gpd_nvml_process_info *i =
				realloc(u->infos, (count + 16) * sizeof(*i));
			if (!i)
				return -ENOMEM;
			u->infos = i;
			u->cap_infos = count + 16;
			continue;
		}
		if (ret == GPD_NVML_ERROR_NOT_SUPPORTED)
			return 0;
		if (ret) {
			nvml_note(u, r, graphics ? "nvmlDeviceGetGraphicsRunning"
				  "Processes" : "nvmlDeviceGetComputeRunningProcesses",
				  ret);
			return 0;
		}
		for (unsigned i = 0; i < count; i++) {
			struct process_busy *p = process_of(u, (int32_t)u->infos[i].pid);
			if (!p)
				return -ENOMEM;
			p->seen = true;
			struct gpd_usage_client *c = NULL;
			for (size_t k = 0; k < r->n_clients && !c; k++)
				if (r->clients[k].pid == p->pid)
					c = &r->clients[k];
			if (!c && !(c = gpd_usage_reading_add_client(r)))
				return -ENOMEM;
			c->id = (uint64_t)p->pid;
			c->pid = p->pid;
			/* A process in both lists holds one allocation. */
			if (u->infos[i].used_gpu_memory != ~0ull &&
			    u->infos[i].used_gpu_memory > c->memory_bytes) {
				c->memory_bytes = u->infos[i].used_gpu_memory;
				c->resident_bytes = u->infos[i].used_gpu_memory;
			}
		}
		return 0;
	}
	return 0;
}

/* The SM time of the interval, in p->sm_ns: the process's own measure
 * where it reports one for this GPU (its busy share of the spans
 * reported since the last reading, or its last share when no report
 * came between two readings), else the driver's samples. */
static void take_sm_time(struct nv_usage *u, struct process_busy *p,
			 uint64_t elapsed)
{
	uint64_t driver = p->busy[SM] - p->sm_driver_before;
	p->sm_driver_before = p->busy[SM];
	uint64_t busy, span;
	if (!u->have_address ||
	    !gpd_process_activity_get(u->activity, p->pid, &u->address, &busy,
				      &span)) {
		p->measured = false;
		p->sm_ns = (double)driver;
		return;
	}
	/* Sums that went back belong to a new connection of the process:
	 * they count from zero. */
	if (!p->measured || busy < p->measured_busy || span < p->measured_span)
		p->measured_busy = p->measured_span = 0;
	uint64_t d_busy = busy - p->measured_busy;
	uint64_t d_span = span - p->measured_span;
	p->measured_busy = busy;
	p->measured_span = span;
	if (d_span)
		p->measured_share = (double)d_busy / (double)d_span;
	else if (!p->measured)
		p->measured_share = 0;
	p->measured = true;
	p->sm_ns = (double)elapsed * p->measured_share;
}

/* Contexts of several processes time-sliced on one GPU run one at a
 * time, but a kernel's time from its start to its end includes the
 * slices other contexts ran in while it waited (measured on an H200:
 * 92% + 31% for loads that had 76% + 20%). Where the processes'
 * measured times add up to more than the GPU was busy (NVML's
 * utilization), they are scaled to sum to that: true where the
 * overlap falls on each in proportion, and never more than the GPU
 * did. Returns whether they were. */
static bool fit_measured_to_busy(struct nv_usage *u,
				 struct gpd_usage_reading *r, uint64_t elapsed)
{
	double measured = 0;
	for (size_t i = 0; i < r->n_clients; i++) {
		const struct process_busy *p = process_of(u, r->clients[i].pid);
		if (p && p->measured)
			measured += p->sm_ns;
	}
	double busy = u->sm_share * (double)elapsed;
	if (!(busy > 0) || measured <= busy)
		return false;
	for (size_t i = 0; i < r->n_clients; i++) {
		struct process_busy *p = process_of(u, r->clients[i].pid);
		if (p && p->measured)
			p->sm_ns *= busy / measured;
	}
	return true;
}

static int read_processes(struct nv_usage *u, struct gpd_usage_reading *r,
			  uint64_t elapsed)
{
	r->processes_read = true;
	for (size_t i = 0; i < u->n_procs; i++)
		u->procs[i].seen = false;
	int ret = read_process_shares(u, r, elapsed);
	if (!ret)
		ret = read_running(u, r, false);
	if (!ret)
		ret = read_running(u, r, true);
	if (ret)
		return ret;
	/* Processes with samples but no longer listed have exited: their
	 * last shares are in the totals already. */
	size_t kept = 0;
	for (size_t i = 0; i < u->n_procs; i++)
		if (u->procs[i].seen)
			u->procs[kept++] = u->procs[i];
	u->n_procs = kept;
	for (size_t i = 0; i < r->n_clients; i++) {
		struct process_busy *p = process_of(u, r->clients[i].pid);
		if (!p)
			return -ENOMEM;
		take_sm_time(u, p, elapsed);
	}
	bool fitted = fit_measured_to_busy(u, r, elapsed);
	size_t sampled = 0, losing = 0;
	for (size_t i = 0; i < r->n_clients; i++) {
		struct gpd_usage_client *c = &r->clients[i];
		struct process_busy *p = process_of(u, c->pid);
		p->sm_reported += (uint64_t)p->sm_ns;
		for (unsigned e = 0; e < N_ENGINES; e++) {
			c->busy[e] = e == SM ? p->sm_reported : p->busy[e];
			c->capacity[e] = 1;
		}
		struct gpd_usage_process *row = gpd_usage_reading_add_process(r);
		if (!row)
			return -ENOMEM;
		row->pid = c->pid;
		row->share_source = p->measured ? GPD_USAGE_SHARE_MEASURED_IN_PROCESS :
				    GPD_USAGE_SHARE_DRIVER_SAMPLED;
		sampled += !p->measured;
		if (p->measured) {
			uint64_t lost = gpd_process_activity_records_lost(
				u->activity, c->pid);
			row->records_lost = lost;
			losing += lost > p->records_lost;
			p->records_lost = lost;
		}
		/* NVML's pids are the host's: this machine's /proc names them. */
		if (gpd_proc_read_stat(u->proc_root, c->pid, row->command,
				       sizeof(row->command), &row->ppid))
			row->ppid = 0;
		gpd_cgroup_pod_read(u->proc_root, c->pid, &row->pod);
	}
	/* First: what a measure lost is the note a cut must keep. */
	if (losing)
		gpd_usage_note(r->processes_note, "%zu process%s own measure "
			       "lost kernel records (CUPTI's buffers were full): "
			       "%s their time (records_lost)",
			       losing, losing == 1 ? "'s" : "es'",
			       losing == 1 ? "its share misses" :
			       "their shares miss");
	/* What the driver's samples can say of processes sharing the GPU
	 * (measured on an H200, README "NVIDIA per-process shares"). */
	if (r->n_clients > 1 && sampled)
		gpd_usage_note(r->processes_note, "NVML's per-process shares are "
			       "the driver's sampled attribution: processes that "
			       "share the GPU by time-slicing can be given each "
			       "other's time; run them with 'gpuperf run "
			       "--cuda-activity' to measure their kernels in the "
			       "process (README, NVIDIA per-process shares)");
	else if (fitted)
		gpd_usage_note(r->processes_note, "the processes' own kernel "
			       "times overlapped beyond the GPU's busy time "
			       "(contexts time-sliced on the GPU: a kernel's time "
			       "includes other contexts' slices); their shares are "
			       "scaled to sum to it (README, Measured in the "
			       "process)");
	return 0;
}

static int nv_read(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		   bool processes, struct gpd_error *err)
{
	struct nv_usage *u = (struct nv_usage *)src;
	uint64_t now = gpd_monotonic_ns();
	r->time_ns = now;
	if (!u->libs->have_nvml || !u->libs->have_nvml_usage) {
		gpd_usage_note(r->note, "%s", !u->libs->have_nvml ?
			       u->libs->why_no_nvml : u->libs->why_no_nvml_usage);
		return 0;
	}
	if (!u->open && open_nvml(u, r))
		return 0;
	r->generation = u->generation;
	uint64_t elapsed = u->last_ns ? now - u->last_ns : 0;
	u->last_ns = now;
	read_device(u, r, elapsed);
	if (processes && read_processes(u, r, elapsed))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

static void nv_close(struct gpd_usage_source *src)
{
	close_nvml((struct nv_usage *)src);
}

static void nv_destroy(struct gpd_usage_source *src)
{
	struct nv_usage *u = (struct nv_usage *)src;
	close_nvml(u);
	free(u->procs);
	free(u->samples);
	free(u->old_samples);
	free(u->info_samples);
	free(u->infos);
	free(u);
}

static const struct gpd_usage_source_ops nv_usage_ops = {
	.read = nv_read,
	.close = nv_close,
	.destroy = nv_destroy,
};

int gpd_nvidia_usage_create(const struct gpd_nv_libs *libs,
			    const char *pci_bus_id, const char *proc_root,
			    const struct gpd_process_activity *activity,
			    struct gpd_usage_source **out)
{
	struct nv_usage *u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->base.ops = &nv_usage_ops;
	u->libs = libs;
	u->activity = activity;
	u->have_address = !gpd_pci_address_parse(pci_bus_id, &u->address);
	snprintf(u->bus_id, sizeof(u->bus_id), "%s", pci_bus_id);
	snprintf(u->proc_root, sizeof(u->proc_root), "%s",
		 proc_root ? proc_root : "/proc");
	struct gpd_usage_layout *l = &u->base.layout;
	static const char *const names[N_ENGINES] = { "sm", "mem", "nvenc", "nvdec" };
	static const char *const classes[N_ENGINES] = {
		"compute", "memory", "encoder", "decoder",
	};
	for (unsigned e = 0; e < N_ENGINES; e++)
		gpd_usage_layout_add_engine(l, names[e], classes[e], false, false);
	snprintf(l->gauges[PCIE_TX].name, sizeof(l->gauges[0].name), "pcie_tx");
	snprintf(l->gauges[PCIE_RX].name, sizeof(l->gauges[0].name), "pcie_rx");
	snprintf(l->gauges[PCIE_TX].unit, sizeof(l->gauges[0].unit),
		 "bytes_per_second");
	snprintf(l->gauges[PCIE_RX].unit, sizeof(l->gauges[0].unit),
		 "bytes_per_second");
	l->n_gauges = 2;
	snprintf(l->description, sizeof(l->description),
		 "NVML: utilization, clocks, energy, running processes");
	*out = &u->base;
	return 0;
}
