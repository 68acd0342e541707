/*
 * The sim source: the simulated OA unit (oa_model.c) paced by the daemon's
 * monotonic clock.
 *
 * Like i915's poll timer, a 5 ms timer advances the model by the time that
 * really passed and reads what it wrote. A daemon that falls behind (a
 * blocked loop, or periods so short that reading takes longer than the
 * unit takes to write) lets the modeled buffer overflow as a slow reader
 * of a real stream would, and gets the same BUFFER_LOST: what was due
 * before the newest half buffer is skipped as lost, and the newest half
 * buffer is read, so windows keep coming with their loss counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/sim/oa_model.h"
#include "daemon/sim/sim_source.h"
#include "daemon/sim/spm_source.h"
#include "daemon/sim/workload.h"
#include "metrics/sim_device.h"

#define SIM_POLL_MS 5
/* After a suspend or a debugger stop, do not replay minutes of GPU time. */
#define SIM_MAX_CATCH_UP_NS 1000000000ull
#define SIM_READ_SIZE (1u << 20)

struct sim_fit {
	const struct gpm_metric_set *set;
	struct gpd_rate_model rates;
};

struct sim_source {
	struct gpd_source base;
	const struct gpm_metrics_db *db;
	uint64_t seed;
	double load;
	size_t buffer_size;
	struct gpd_oa_model *model;
	unsigned exponent;
	uv_timer_t timer;
	bool timer_running;
	uint64_t last_ns;               /* monotonic time the model is at */
	uint64_t ns_remainder;          /* ns not yet worth a whole tick */
	unsigned char *read_buf;
	/* The OA ring's memory, kept from one stream to the next (zero
	 * between them): opening streams is what tests and fuzzing do most,
	 * and a fresh ring is a fresh mapping of up to 16 MiB. */
	unsigned char *ring;
	bool stepped;                   /* no timer: see gpd_sim_source_advance */
	uint64_t timeslice_ns;          /* 0: the workload's default */
	/* The rates fitted to each set opened so far, lent to its models:
	 * fitting is most of the time a stream takes to open. */
	struct sim_fit **fits;
	size_t n_fits;
};

static void deliver(struct sim_source *sim)
{
	for (;;) {
		ssize_t n = gpd_oa_model_read(sim->model, sim->read_buf,
					      SIM_READ_SIZE);
		if (n <= 0)
			break;
		sim->base.listener.records(sim->base.listener.user,
					   sim->read_buf, (size_t)n);
		/* The listener may have closed the stream. */
		if (!sim->model)
			break;
	}
}

/* Runs the model elapsed ns on and reads what it wrote. now_ns: the
 * CLOCK_MONOTONIC time it runs to, 0 when stepped (no clock to tell). */
static void advance(struct sim_source *sim, uint64_t elapsed, uint64_t now_ns)
{
	elapsed += sim->ns_remainder;
	if (elapsed > SIM_MAX_CATCH_UP_NS)
		elapsed = SIM_MAX_CATCH_UP_NS;
	uint64_t freq = sim->base.info.timestamp_frequency;
	uint64_t ticks = (uint64_t)((unsigned __int128)elapsed * freq / 1000000000ull);
	sim->ns_remainder = elapsed -
		(uint64_t)((unsigned __int128)ticks * 1000000000ull / freq);
	uint64_t readable = gpd_oa_model_buffer_ticks(sim->model) / 2;
	if (ticks > readable) {
		gpd_oa_model_overrun(sim->model, ticks - readable);
		deliver(sim);
		if (!sim->model)
			return;
		ticks = readable;
	}
	gpd_oa_model_advance(sim->model, ticks);
	/* The model's clock reached its time when CLOCK_MONOTONIC reached
	 * now_ns, less what was not yet worth a tick. */
	if (now_ns && sim->base.listener.clock)
		sim->base.listener.clock(sim->base.listener.user,
					 gpd_oa_model_time(sim->model),
					 now_ns - sim->ns_remainder);
	deliver(sim);
}

static void on_poll(uv_timer_t *timer)
{
	struct sim_source *sim = timer->data;
	uint64_t now = gpd_monotonic_ns();
	uint64_t elapsed = now - sim->last_ns;
	sim->last_ns = now;
	advance(sim, elapsed, now);
}

void gpd_sim_source_advance(struct gpd_source *src, uint64_t ns)
{
	struct sim_source *sim = (struct sim_source *)src;
	if (sim->model)
		advance(sim, ns, 0);
}

static const struct gpd_rate_model *fitted(const struct sim_source *sim,
					   const struct gpm_metric_set *set)
{
	for (size_t i = 0; i < sim->n_fits; i++)
		if (sim->fits[i]->set == set)
			return &sim->fits[i]->rates;
	return NULL;
}

/* Keeps the model's rates for the next stream of set; without memory for
 * them the next one fits again. */
static void keep_fit(struct sim_source *sim, const struct gpm_metric_set *set)
{
	if (fitted(sim, set))
		return;
	struct sim_fit **fits = realloc(sim->fits, (sim->n_fits + 1) * sizeof(*fits));
	if (!fits)
		return;
	sim->fits = fits;
	struct sim_fit *fit = malloc(sizeof(*fit));
	if (!fit)
		return;
	fit->set = set;
	fit->rates = *gpd_oa_model_rates(sim->model);
	fits[sim->n_fits++] = fit;
}

static void forget_fits(struct sim_source *sim)
{
	for (size_t i = 0; i < sim->n_fits; i++)
		free(sim->fits[i]);
	free(sim->fits);
	sim->fits = NULL;
	sim->n_fits = 0;
}

static int make_model(struct sim_source *sim, const struct gpd_stream_config *cfg,
		      struct gpd_error *err)
{
	size_t ring_size = sim->buffer_size ? sim->buffer_size :
			   GPD_OA_MODEL_DEFAULT_BUFFER_SIZE;
	if (!sim->ring)
		sim->ring = calloc(1, ring_size);
	if (!sim->ring) {
		err->code = -ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
		return err->code;
	}
	struct gpd_oa_model_config mc = {
		.dev = &sim->base.info,
		.oa_format = sim->base.platform->i915_oa_format,
		.exponent = (int)cfg->exponent,
		.seed = sim->seed,
		.buffer_size = ring_size,
		.buffer_mem = sim->ring,
		.set = cfg->set,
		.rates = fitted(sim, cfg->set),
		.start_timestamp = GPD_SIM_FIRST_TIMESTAMP,
	};
	/* The workload's defaults, at the load and timeslice asked. */
	mc.workload.load = sim->load;
	mc.workload.timeslice_mean_ns = sim->timeslice_ns;
	int ret = gpd_oa_model_create(&mc, &sim->model);
	if (ret) {
		err->code = ret;
		snprintf(err->message, sizeof(err->message),
			 "the simulated OA unit refused %s at exponent %u: %s",
			 cfg->set->symbol_name, cfg->exponent, strerror(-ret));
		return ret;
	}
	keep_fit(sim, cfg->set);
	return 0;
}

static int sim_open(struct gpd_source *src, const struct gpd_stream_config *cfg,
		    struct gpd_error *err)
{
	struct sim_source *sim = (struct sim_source *)src;
	if (sim->model) {
		gpd_oa_model_destroy(sim->model);
		sim->model = NULL;
	}
	int ret = make_model(sim, cfg, err);
	if (ret)
		return ret;
	sim->exponent = cfg->exponent;
	gpd_oa_model_enable(sim->model);
	sim->last_ns = gpd_monotonic_ns();
	sim->ns_remainder = 0;
	if (!sim->stepped) {
		uv_timer_start(&sim->timer, on_poll, SIM_POLL_MS, SIM_POLL_MS);
		sim->timer_running = true;
	}
	return 0;
}

static int sim_reconfigure(struct gpd_source *src,
			   const struct gpd_stream_config *cfg,
			   struct gpd_error *err)
{
	struct sim_source *sim = (struct sim_source *)src;
	/* The hardware switches sets without closing (I915_PERF_IOCTL_CONFIG)
	 * but a new period needs a new stream. */
	if (!sim->model || cfg->exponent != sim->exponent)
		return -EOPNOTSUPP;
	int ret = gpd_oa_model_set_metric_set(sim->model, cfg->set,
					      fitted(sim, cfg->set));
	if (ret) {
		err->code = ret;
		snprintf(err->message, sizeof(err->message),
			 "the simulated OA unit could not switch to %s: %s",
			 cfg->set->symbol_name, strerror(-ret));
		return ret;
	}
	keep_fit(sim, cfg->set);
	return 0;
}

static void sim_close(struct gpd_source *src)
{
	struct sim_source *sim = (struct sim_source *)src;
	if (sim->timer_running) {
		uv_timer_stop(&sim->timer);
		sim->timer_running = false;
	}
	if (sim->model) {
		gpd_oa_model_destroy(sim->model);
		sim->model = NULL;
	}
}

/* Only once the stream is closed: its model may use one of the fits. */
static void sim_forget_sets(struct gpd_source *src)
{
	forget_fits((struct sim_source *)src);
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct sim_source *sim = handle->data;
	forget_fits(sim);
	free(sim->read_buf);
	free(sim->ring);
	free(sim);
}

static void sim_destroy(struct gpd_source *src)
{
	struct sim_source *sim = (struct sim_source *)src;
	sim_close(src);
	uv_close((uv_handle_t *)&sim->timer, on_timer_closed);
}

static const struct gpd_source_ops sim_ops = {
	.open = sim_open,
	.reconfigure = sim_reconfigure,
	.close = sim_close,
	.destroy = sim_destroy,
	.forget_sets = sim_forget_sets,
};

int gpd_sim_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			  const struct gpd_sim_source_options *opts,
			  struct gpd_source **out, struct gpd_error *err)
{
	const char *name = opts->platform ? opts->platform : "simgen12";
	if (!strcmp(name, "amd") || !strcmp(name, GPD_SIM_AMD_PLATFORM)) {
		struct gpd_spm_source_options so = {
			.seed = opts->seed,
			.index = opts->index,
			.load = opts->load,
		};
		return gpd_spm_source_create(loop, db, &so, out, err);
	}
	const struct gpm_platform *platform = gpm_platform_by_name(name);
	if (!platform) {
		err->code = -ENOENT;
		snprintf(err->message, sizeof(err->message),
			 "sim:%s: unknown platform; use a name from "
			 "'gpuperf metrics list', e.g. sim:tglgt2", name);
		return err->code;
	}
	if (!gpm_metrics_db_find_platform(db, platform->name)) {
		err->code = -ENOENT;
		snprintf(err->message, sizeof(err->message),
			 "sim:%s: no metric definitions for %s are loaded; add "
			 "--metrics-dir DIR where DIR holds oa-%s.xml",
			 name, platform->name, platform->name);
		return err->code;
	}
	const struct gpm_oa_format *format;
	if (!platform->i915_oa_format ||
	    gpm_oa_format_from_i915(platform->i915_oa_format, &format)) {
		err->code = -EOPNOTSUPP;
		snprintf(err->message, sizeof(err->message),
			 "sim:%s: the simulated OA unit models i915 platforms "
			 "only; pick one up to Meteor Lake", name);
		return err->code;
	}
	struct sim_source *sim = calloc(1, sizeof(*sim));
	unsigned char *buf = malloc(SIM_READ_SIZE);
	if (!sim || !buf) {
		free(sim);
		free(buf);
		err->code = -ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
		return err->code;
	}
	sim->base.ops = &sim_ops;
	sim->base.kind = GPD_SOURCE_SIM;
	snprintf(sim->base.name, sizeof(sim->base.name), "sim%u", opts->index);
	/* The seed makes the workload: another seed, another GPU. */
	snprintf(sim->base.device_id, sizeof(sim->base.device_id), "sim%u-seed%llu",
		 opts->index, (unsigned long long)opts->seed);
	if (opts->platform)
		gpm_platform_default_device(platform, &sim->base.info);
	else
		gpm_sim_device_info(&sim->base.info);
	sim->base.platform = platform;
	sim->base.format = format;
	sim->base.loop = loop;
	sim->db = db;
	sim->seed = opts->seed;
	sim->load = opts->load;
	sim->buffer_size = opts->buffer_size;
	sim->read_buf = buf;
	sim->stepped = opts->stepped;
	sim->timeslice_ns = opts->timeslice_ns;
	sim->base.context_switch_interval_ns = opts->timeslice_ns ?
		opts->timeslice_ns : GPD_WORKLOAD_DEFAULT_TIMESLICE_NS;
	uv_timer_init(loop, &sim->timer);
	sim->timer.data = sim;
	*out = &sim->base;
	return 0;
}
