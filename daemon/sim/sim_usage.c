/*
 * The sim usage source: the model starts with the first reading and runs
 * on the monotonic clock; closed, it starts over at the next.
 */
#include <errno.h>
#include <stdlib.h>

#include "daemon/clock.h"
#include "daemon/sim/sim_usage.h"
#include "daemon/sim/usage_model.h"

/* After a suspend or a debugger stop, do not simulate minutes. */
#define MAX_CATCH_UP_NS 10000000000ull

struct sim_usage {
	struct gpd_usage_source base;
	struct gpm_device_info info;
	uint64_t seed;
	struct gpd_sim_usage_model model;
	bool open;
	uint64_t generation;
	uint64_t started_ns;            /* monotonic time of model time 0 */
	bool amd;                       /* named as amdgpu names engines */
};

static int sim_read(struct gpd_usage_source *src, struct gpd_usage_reading *r,
		    bool processes, struct gpd_error *err)
{
	struct sim_usage *sim = (struct sim_usage *)src;
	uint64_t now = gpd_monotonic_ns();
	if (!sim->open) {
		int ret = gpd_sim_usage_model_init(&sim->model, &sim->info,
						   sim->seed);
		if (ret)
			return gpd_fail(err, ret, "the simulated GPU's clocks "
					"are out of range");
		sim->open = true;
		sim->generation++;
		sim->started_ns = now;
	}
	uint64_t behind = now - sim->started_ns - sim->model.now_ns;
	if (behind > MAX_CATCH_UP_NS) {
		sim->started_ns += behind - MAX_CATCH_UP_NS;
		behind = MAX_CATCH_UP_NS;
	}
	gpd_sim_usage_model_advance(&sim->model, behind);
	if (gpd_sim_usage_model_read(&sim->model, r, processes))
		return gpd_fail(err, -ENOMEM, "out of memory");
	r->time_ns = sim->started_ns + sim->model.now_ns;
	/* amdgpu has no RC6 residency to read. */
	if (sim->amd)
		r->have &= ~(unsigned)GPD_USAGE_HAVE_RC6;
	r->generation = sim->generation;
	return 0;
}

static void sim_close(struct gpd_usage_source *src)
{
	((struct sim_usage *)src)->open = false;
}

static void sim_destroy(struct gpd_usage_source *src)
{
	free(src);
}

static const struct gpd_usage_source_ops sim_usage_ops = {
	.read = sim_read,
	.close = sim_close,
	.destroy = sim_destroy,
};

int gpd_sim_usage_create(const struct gpm_device_info *info, uint64_t seed,
			 bool amd, struct gpd_usage_source **out)
{
	struct sim_usage *sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	/* Clocks the model cannot run with are refused now, not at the
	 * first reading. */
	int ret = gpd_sim_usage_model_init(&sim->model, info, seed);
	if (ret) {
		free(sim);
		return ret;
	}
	sim->base.ops = &sim_usage_ops;
	gpd_sim_usage_model_layout(&sim->base.layout, amd);
	sim->amd = amd;
	sim->info = *info;
	sim->seed = seed;
	*out = &sim->base;
	return 0;
}
