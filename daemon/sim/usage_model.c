/*
 * The simulated GPU's engines, clocks, power and processes (see
 * usage_model.h), stepped a millisecond at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "daemon/sim/usage_model.h"

#define STEP_NS 1000000ull
#define NS_PER_S 1e9
/* Tags of the model's random streams (gpd_prng_fork). */
#define PRNG_TAG_USAGE 0x7573616765ull
#define PRNG_TAG_USAGE_WORKLOAD 0x75736167655f776cull
/* The GT frequency granule of Gen9 and later: 50/3 MHz. */
#define FREQ_STEP_MHZ (50.0 / 3.0)

static const char *const engine_names[GPD_SIM_ENGINES] = {
	"rcs0", "bcs0", "vcs0", "ccs0",
};
static const char *const class_names[GPD_SIM_ENGINES] = {
	GPD_USAGE_CLASS_RENDER, GPD_USAGE_CLASS_COPY, GPD_USAGE_CLASS_VIDEO,
	GPD_USAGE_CLASS_COMPUTE,
};
/* The same engines as amdgpu's fdinfo names their classes (drm-engine-gfx,
 * -dma, -dec, -compute), for sim:amd's GPU. */
static const char *const amd_names[GPD_SIM_ENGINES] = {
	"gfx", "dma", "dec", "compute",
};

/* The phases of the engines other than render: how busy, how long. */
static const struct {
	double idle_probability, lo, hi;
	double min_s, max_s;
} phases[GPD_SIM_ENGINES] = {
	[GPD_SIM_COPY] = { 0.3, 0.02, 0.35, 0.5, 3 },
	[GPD_SIM_VIDEO] = { 0.4, 0.1, 0.7, 2, 8 },
	[GPD_SIM_COMPUTE] = { 0.5, 0.2, 0.9, 1, 5 },
};

/* Who uses the GPU. The first is the compositor, there all along. */
static const struct {
	const char *command;
	double weight[GPD_SIM_ENGINES];
	unsigned clients;
	double memory_mib_lo, memory_mib_hi;
} roles[] = {
	{ "gnome-shell", { 1, 0.5, 0, 0 }, 1, 60, 120 },
	{ "glxgears", { 3, 0, 0, 0 }, 1, 20, 60 },
	{ "ffmpeg", { 0, 1, 4, 0 }, 1, 100, 300 },
	{ "blender", { 2, 0.5, 0, 3 }, 1, 400, 1500 },
	{ "firefox", { 1, 1, 1, 0 }, 2, 150, 600 },
	{ "python3", { 0, 0.5, 0, 4 }, 1, 500, 4000 },
	{ "vkcube", { 2, 0, 0, 0 }, 1, 30, 80 },
	{ "HandBrakeCLI", { 0, 1, 3, 0.5 }, 1, 200, 500 },
};

#define N_ROLES (sizeof(roles) / sizeof(roles[0]))
/* Transient processes alive at once, at most. */
#define MAX_TRANSIENT 4

void gpd_sim_usage_model_layout(struct gpd_usage_layout *layout, bool amd)
{
	memset(layout, 0, sizeof(*layout));
	/* i915 counts the render engine's wait and semaphore time; amdgpu
	 * counts neither. */
	for (unsigned e = 0; e < GPD_SIM_ENGINES; e++)
		gpd_usage_layout_add_engine(layout,
					    amd ? amd_names[e] : engine_names[e],
					    amd ? amd_names[e] : class_names[e],
					    !amd && e == GPD_SIM_RENDER,
					    !amd && e == GPD_SIM_RENDER);
	snprintf(layout->description, sizeof(layout->description),
		 "the simulated %sGPU's engines, clocks, power and processes",
		 amd ? "AMD " : "");
}

static void spawn(struct gpd_sim_usage_model *m, unsigned role)
{
	struct gpd_sim_process *p = &m->processes[m->n_processes++];
	memset(p, 0, sizeof(*p));
	p->pid = m->next_pid;
	m->next_pid += 1 + (int32_t)gpd_prng_below(&m->prng, 40);
	p->command = roles[role].command;
	p->n_clients = roles[role].clients;
	for (unsigned c = 0; c < p->n_clients; c++)
		p->client_ids[c] = m->next_client_id++;
	memcpy(p->weight, roles[role].weight, sizeof(p->weight));
	p->memory_bytes = (uint64_t)(gpd_prng_range(&m->prng,
						    roles[role].memory_mib_lo,
						    roles[role].memory_mib_hi) *
				     1048576.0) & ~4095ull;
	p->dies_ns = role == 0 ? 0 :
		     m->now_ns + (uint64_t)(gpd_prng_range(&m->prng, 5, 25) *
					    NS_PER_S);
}

static void births_and_deaths(struct gpd_sim_usage_model *m)
{
	for (unsigned i = 0; i < m->n_processes;) {
		struct gpd_sim_process *p = &m->processes[i];
		if (p->dies_ns && p->dies_ns <= m->now_ns) {
			m->processes[i] = m->processes[--m->n_processes];
			continue;
		}
		i++;
	}
	if (m->now_ns < m->next_birth_ns || m->n_processes > MAX_TRANSIENT)
		return;
	spawn(m, 1 + (unsigned)gpd_prng_below(&m->prng, N_ROLES - 1));
	m->next_birth_ns = m->now_ns +
			   (uint64_t)(gpd_prng_range(&m->prng, 0.5, 6) * NS_PER_S);
}

int gpd_sim_usage_model_init(struct gpd_sim_usage_model *m,
			     const struct gpm_device_info *info, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	/* Phases of seconds, not of milliseconds as for the OA model: a
	 * view refreshed every second would see only their mean. */
	struct gpd_workload_config cfg = {
		.busy_mean_ns = 3000000000ull,
		.idle_mean_ns = 1500000000ull,
		.idle_probability = 0.25,
		.timeslice_mean_ns = 10000000ull,
		.ramp_ns = 400000000ull,
		.min_level = 0.2,
	};
	struct gpd_workload_clocks clocks = {
		.timestamp_frequency = info->timestamp_frequency,
		.gpu_min_freq = info->gpu_min_freq,
		.gpu_max_freq = info->gpu_max_freq,
	};
	int ret = gpd_workload_init(&m->workload, &cfg, &clocks,
				    seed ^ PRNG_TAG_USAGE_WORKLOAD);
	if (ret)
		return ret;
	gpd_prng_fork(&m->prng, seed, PRNG_TAG_USAGE);
	m->timestamp_frequency = info->timestamp_frequency;
	m->min_mhz = (double)info->gpu_min_freq / 1e6;
	m->max_mhz = (double)info->gpu_max_freq / 1e6;
	m->temperature_c = 38;
	m->next_pid = GPD_SIM_FIRST_PID;
	m->next_client_id = 1;
	spawn(m, 0);
	for (unsigned i = 0; i < 3; i++)
		spawn(m, 1 + (unsigned)gpd_prng_below(&m->prng, N_ROLES - 1));
	m->next_birth_ns = (uint64_t)(gpd_prng_range(&m->prng, 1, 6) * NS_PER_S);
	return 0;
}

/* Moves the workload to end_tick: the integral of its utilization and
 * the ticks it idled, over the way. */
static void run_workload(struct gpd_workload *wl, uint64_t end_tick,
			 double *util_ticks, double *idle_ticks)
{
	while (gpd_workload_now(wl) < end_tick) {
		uint64_t now = gpd_workload_now(wl);
		uint64_t next = gpd_workload_next_change(wl);
		uint64_t to = next < end_tick ? next : end_tick;
		double span = (double)(to - now);
		if (gpd_workload_idle(wl))
			*idle_ticks += span;
		else
			*util_ticks += span * gpd_workload_utilization(wl,
					(double)now + span / 2);
		gpd_workload_advance(wl, to);
	}
}

static bool class_used(const struct gpd_sim_usage_model *m, unsigned e)
{
	for (unsigned i = 0; i < m->n_processes; i++)
		if (m->processes[i].weight[e] > 0)
			return true;
	return false;
}

static void next_phase(struct gpd_sim_usage_model *m, unsigned e)
{
	struct gpd_sim_engine_phase *ph = &m->phase[e];
	ph->level = gpd_prng_unit(&m->prng) < phases[e].idle_probability ? 0 :
		    gpd_prng_range(&m->prng, phases[e].lo, phases[e].hi);
	ph->until_ns = m->now_ns +
		       (uint64_t)(gpd_prng_range(&m->prng, phases[e].min_s,
						 phases[e].max_s) * NS_PER_S);
}

static void share_among_processes(struct gpd_sim_usage_model *m, unsigned e,
				  double busy_ns)
{
	double weights = 0;
	for (unsigned i = 0; i < m->n_processes; i++)
		weights += m->processes[i].weight[e];
	if (weights <= 0)
		return;
	for (unsigned i = 0; i < m->n_processes; i++) {
		struct gpd_sim_process *p = &m->processes[i];
		double part = busy_ns * p->weight[e] / weights / p->n_clients;
		for (unsigned c = 0; c < p->n_clients; c++)
			p->busy_ns[c][e] += part;
	}
}

static void step(struct gpd_sim_usage_model *m, uint64_t dt_ns)
{
	double dt = (double)dt_ns;
	double seconds = dt / NS_PER_S;
	uint64_t end_ns = m->now_ns + dt_ns;
	uint64_t end_tick = (uint64_t)((unsigned __int128)end_ns *
				       m->timestamp_frequency / 1000000000ull);
	double start_tick = (double)gpd_workload_now(&m->workload);
	double util_ticks = 0, idle_ticks = 0;
	run_workload(&m->workload, end_tick, &util_ticks, &idle_ticks);
	double ticks = (double)end_tick - start_tick;

	double level[GPD_SIM_ENGINES];
	level[GPD_SIM_RENDER] = ticks > 0 ? util_ticks / ticks : 0;
	double render_idle = ticks > 0 ? idle_ticks / ticks : 0;
	double asleep = render_idle, activity = 0;
	for (unsigned e = 0; e < GPD_SIM_ENGINES; e++) {
		if (e != GPD_SIM_RENDER) {
			if (m->now_ns >= m->phase[e].until_ns)
				next_phase(m, e);
			level[e] = m->phase[e].level;
			asleep *= 1 - level[e];
		}
		if (!class_used(m, e))
			level[e] = 0;
		if (level[e] > activity)
			activity = level[e];
		m->busy_ns[e] += level[e] * dt;
		share_among_processes(m, e, level[e] * dt);
	}
	m->wait_ns += 0.04 * level[GPD_SIM_RENDER] * dt;
	m->sema_ns += 0.015 * level[GPD_SIM_RENDER] * dt;

	double awake = 1 - asleep;
	double mhz = m->min_mhz + (m->max_mhz - m->min_mhz) * pow(activity, 0.7);
	mhz = floor(mhz / FREQ_STEP_MHZ) * FREQ_STEP_MHZ;
	if (mhz < m->min_mhz)
		mhz = m->min_mhz;
	m->requested_mhz_s += mhz * seconds;
	/* In RC6 the clock is stopped: i915 counts 0 MHz then. */
	m->actual_mhz_s += mhz * awake * seconds;
	m->rc6_ns += asleep * dt;
	double ratio = m->max_mhz > 0 ? mhz / m->max_mhz : 0;
	double watts = 1.2 + awake * (2 + 16 * activity * ratio * ratio);
	m->energy_j += watts * seconds;
	double lag = seconds / 6 < 1 ? seconds / 6 : 1;
	m->temperature_c += (35 + 2.4 * watts - m->temperature_c) * lag;
	m->now_ns = end_ns;
	births_and_deaths(m);
}

void gpd_sim_usage_model_advance(struct gpd_sim_usage_model *m, uint64_t ns)
{
	while (ns) {
		uint64_t dt = ns < STEP_NS ? ns : STEP_NS;
		step(m, dt);
		ns -= dt;
	}
}

int gpd_sim_usage_model_read(const struct gpd_sim_usage_model *m,
			     struct gpd_usage_reading *r, bool processes)
{
	r->time_ns = m->now_ns;
	r->have = GPD_USAGE_HAVE_ENGINES | GPD_USAGE_HAVE_ACTUAL_FREQ |
		  GPD_USAGE_HAVE_REQUESTED_FREQ | GPD_USAGE_HAVE_RC6 |
		  GPD_USAGE_HAVE_ENERGY | GPD_USAGE_HAVE_TEMPERATURE |
		  GPD_USAGE_HAVE_FREQ_RANGE;
	for (unsigned e = 0; e < GPD_SIM_ENGINES; e++) {
		r->engines[e].busy = (uint64_t)m->busy_ns[e];
		r->engines[e].total = m->now_ns;
	}
	r->engines[GPD_SIM_RENDER].wait = (uint64_t)m->wait_ns;
	r->engines[GPD_SIM_RENDER].sema = (uint64_t)m->sema_ns;
	r->actual_freq_mhz_s = m->actual_mhz_s;
	r->requested_freq_mhz_s = m->requested_mhz_s;
	r->rc6_ns = (uint64_t)m->rc6_ns;
	r->energy_j = m->energy_j;
	r->temperature_c = m->temperature_c;
	r->min_freq_hz = m->min_mhz * 1e6;
	r->max_freq_hz = m->max_mhz * 1e6;
	if (!processes)
		return 0;
	r->processes_read = true;
	for (unsigned i = 0; i < m->n_processes; i++) {
		const struct gpd_sim_process *p = &m->processes[i];
		struct gpd_usage_process *row = gpd_usage_reading_add_process(r);
		if (!row)
			return -ENOMEM;
		row->pid = p->pid;
		row->ppid = 1;
		row->share_source = GPD_USAGE_SHARE_SIMULATED;
		snprintf(row->command, sizeof(row->command), "%s", p->command);
		for (unsigned c = 0; c < p->n_clients; c++) {
			struct gpd_usage_client *client =
				gpd_usage_reading_add_client(r);
			if (!client)
				return -ENOMEM;
			client->id = p->client_ids[c];
			client->pid = p->pid;
			for (unsigned e = 0; e < GPD_SIM_ENGINES; e++) {
				client->busy[e] = (uint64_t)p->busy_ns[c][e];
				client->capacity[e] = 1;
			}
			/* The first client holds the process's memory. */
			if (c == 0) {
				client->memory_bytes = p->memory_bytes;
				client->resident_bytes = p->memory_bytes / 5 * 4;
			}
		}
	}
	return 0;
}
