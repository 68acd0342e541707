/*
 * --device SPEC: which source backs a device.
 *
 *   auto                      every Intel GPU found, else sim
 *   sim[:PLATFORM][,load=X]   the simulated OA unit (default: the virtual
 *                             GPU), its workload X times as heavy (1)
 *   replay:FILE[,loop][,speed=X|max]
 *   i915:/dev/dri/cardN, xe:/dev/dri/cardN
 *   nvidia:N                  CUDA device N, through CUPTI PM sampling
 *   amdgpu:cardN              an AMD GPU: its usage view only (no counter
 *                             stream: README, "AMD GPUs")
 */
#ifndef GPD_DEVICE_SPEC_H
#define GPD_DEVICE_SPEC_H

#include <stdbool.h>

enum gpd_source_kind {
	GPD_SOURCE_AUTO,
	GPD_SOURCE_SIM,
	GPD_SOURCE_REPLAY,
	GPD_SOURCE_I915,
	GPD_SOURCE_XE,
	GPD_SOURCE_NVIDIA,
	GPD_SOURCE_AMDGPU,
};

/* The heaviest sim,load=X (daemon/sim/workload.h's limit). */
#define GPD_MAX_SIM_LOAD 10.0

struct gpd_device_spec {
	enum gpd_source_kind kind;
	char *platform;         /* sim: platform name, NULL = the virtual GPU */
	char *path;             /* replay: file; i915/xe: device node;
				 * amdgpu: the card ("card1") */
	bool loop;              /* replay: start over at the end */
	double speed;           /* replay: pacing factor; 0 = as fast as possible */
	double load;            /* sim: the workload's load factor (1) */
	unsigned index;         /* nvidia: CUDA device index */
};

/* Parses text into spec. On -EINVAL, *why says what is wrong in words. */
int gpd_device_spec_parse(const char *text, struct gpd_device_spec *spec,
			  const char **why);

void gpd_device_spec_fini(struct gpd_device_spec *spec);

const char *gpd_source_kind_name(enum gpd_source_kind kind);

#endif
