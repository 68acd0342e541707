/*
 * The simulated GPU's everyday life: engines, clocks, power and the
 * processes that use it, for the sim device's usage stream.
 *
 * Four engines (render rcs0, copy bcs0, video vcs0, compute ccs0). The
 * render engine follows the sim workload (workload.h), slowed to phases
 * of seconds so that a 1 s view moves: its busy share, and small wait and
 * semaphore shares while busy. The other engines go through phases of
 * their own. The GT clock follows the busiest engine between the GPU's
 * minimum and maximum frequency and stops in RC6 when every engine idles;
 * power follows activity and frequency, temperature follows power with a
 * lag of seconds.
 *
 * A compositor uses the GPU all along; a handful of other processes come
 * and go, each with its DRM client(s), the engine classes it uses and its
 * memory. Each class's busy time is shared among the processes using it.
 *
 * Everything follows from the seed and the time advanced: the same
 * advances give the same counters on every host.
 */
#ifndef GPD_SIM_USAGE_MODEL_H
#define GPD_SIM_USAGE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/sim/prng.h"
#include "daemon/sim/workload.h"
#include "daemon/usage.h"
#include "metrics/device.h"

enum gpd_sim_engine {
	GPD_SIM_RENDER,
	GPD_SIM_COPY,
	GPD_SIM_VIDEO,
	GPD_SIM_COMPUTE,
	GPD_SIM_ENGINES,
};

/* At most this many processes live at once, the compositor included. */
#define GPD_SIM_MAX_PROCESSES 7
#define GPD_SIM_FIRST_PID 4100

struct gpd_sim_process {
	int32_t pid;
	const char *command;
	uint64_t client_ids[2];
	unsigned n_clients;
	double weight[GPD_SIM_ENGINES];         /* its part of each class */
	uint64_t dies_ns;                       /* model time; 0: never */
	double busy_ns[2][GPD_SIM_ENGINES];     /* per client */
	uint64_t memory_bytes;
};

struct gpd_sim_engine_phase {
	double level;                           /* busy share in the phase */
	uint64_t until_ns;
};

struct gpd_sim_usage_model {
	struct gpd_workload workload;
	struct gpd_prng prng;
	uint64_t timestamp_frequency;
	double min_mhz, max_mhz;
	uint64_t now_ns;                        /* model time */
	struct gpd_sim_engine_phase phase[GPD_SIM_ENGINES];     /* not render */
	/* Cumulative counters. */
	double busy_ns[GPD_SIM_ENGINES], wait_ns, sema_ns;
	double actual_mhz_s, requested_mhz_s, rc6_ns, energy_j;
	double temperature_c;
	struct gpd_sim_process processes[GPD_SIM_MAX_PROCESSES];
	unsigned n_processes;
	uint64_t next_birth_ns;
	int32_t next_pid;
	uint64_t next_client_id;
};

/* Starts the model of a GPU with info's clocks; -EINVAL for bad clocks. */
int gpd_sim_usage_model_init(struct gpd_sim_usage_model *m,
			     const struct gpm_device_info *info, uint64_t seed);

/* The layout of the model's engines. */
void gpd_sim_usage_model_layout(struct gpd_usage_layout *layout, bool amd);

/* Moves the model on by ns. */
void gpd_sim_usage_model_advance(struct gpd_sim_usage_model *m, uint64_t ns);

/* Writes the model's counters (and processes) into r; time_ns is the
 * model time. -ENOMEM. */
int gpd_sim_usage_model_read(const struct gpd_sim_usage_model *m,
			     struct gpd_usage_reading *r, bool processes);

#endif
