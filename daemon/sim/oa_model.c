/*
 * The simulated OA unit: GPU time, counters and the reports written into
 * the OA buffer (see oa_model.h). read() lives in oa_read.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_model_internal.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"

#define PRNG_TAG_REPORT_LOSS 0x6c6f7373ull

/* Haswell sets this dword0 bit in timer reports (found empirically by
 * IGT), and the kernel drops Haswell reports whose dword0 is 0. */
#define HSW_REPORT_ID_TIMER (1u << 10)

/* Clock ratios ride along in dword0 on Gen9 and later (i915 sets
 * OA_DEBUG INCLUDE_CLK_RATIO), in units of 50/3 MHz. */
#define CLOCK_RATIO_MIN_VERSION 900
#define CLOCK_RATIO_UNIT_NUM 50000000ull
#define CLOCK_RATIO_UNIT_DEN 3ull
#define CLOCK_RATIO_MAX 0x1ff

/* From Xe_HP on the ctx-valid bit is set only in the report of a context
 * switching in; before it, in every report of a running context. */
#define VALID_ONLY_ON_SWITCH_VERSION 1250
/* i915 squashes the ctx field of reports without a valid context before
 * graphics IP 12.55 (docs/oa-reference.md §2.4). */
#define SQUASH_MAX_VERSION 1255

#define DEFAULT_SWITCH_REPORT_DELAY_NS 200

/* The media OAM unit came with MTL (graphics IP 12.70). */
#define OAM_MIN_VERSION 1270

static bool format_allowed(const struct gpm_oa_format *fmt, unsigned graphics_version)
{
	const struct gpm_oa_format *oag;

	/* The generation's general-purpose unit's reports; from 12.50 on
	 * also the OAR layout, from 12.70 on the media unit's. */
	if (fmt->synthetic || gpm_oa_format_for_set(graphics_version, NULL, &oag))
		return false;
	switch (fmt->id) {
	case GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8:
		return graphics_version >= VALID_ONLY_ON_SWITCH_VERSION;
	case GPM_OA_FORMAT_MPEC8u64_B8_C8:
	case GPM_OA_FORMAT_MPEC8u32_B8_C8:
		return graphics_version >= OAM_MIN_VERSION;
	default:
		return fmt == oag;
	}
}

static int pick_format(const struct gpd_oa_model_config *cfg,
		       const struct gpm_oa_format **out)
{
	unsigned version = cfg->dev->graphics_version;
	int ret = 0;

	if (cfg->format)
		*out = cfg->format;
	else if (cfg->oa_format)
		ret = gpm_oa_format_from_i915(cfg->oa_format, out);
	else
		ret = gpm_oa_format_for_set(version, cfg->set ? cfg->set->oa_format : NULL,
					    out);
	if (ret)
		return -EINVAL;
	return format_allowed(*out, version) ? 0 : -EINVAL;
}

static int fit_rates(struct gpd_oa_model *m, const struct gpm_metric_set *set,
		     struct gpd_rate_model *out)
{
	struct gpd_rate_model_params params = {
		.dev = &m->dev,
		.format = m->decoder.format,
		.set = set,
		.n_contexts = gpd_workload_n_contexts(&m->workload),
		.seed = m->seed,
	};

	return gpd_rate_model_fit(out, &params);
}

int gpd_oa_model_create(const struct gpd_oa_model_config *cfg,
			struct gpd_oa_model **out)
{
	const struct gpm_oa_format *fmt;
	struct gpd_oa_model *m;
	size_t buffer_size = cfg->buffer_size ? cfg->buffer_size
			     : GPD_OA_MODEL_DEFAULT_BUFFER_SIZE;
	int ret;

	if (!cfg->dev || cfg->dev->timestamp_frequency == 0 ||
	    cfg->exponent < GPD_OA_MODEL_NOT_PERIODIC ||
	    cfg->exponent > GPD_OA_MODEL_MAX_EXPONENT)
		return -EINVAL;
	ret = pick_format(cfg, &fmt);
	if (ret)
		return ret;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->dev = *cfg->dev;
	m->seed = cfg->seed;
	ret = gpm_oa_decoder_init(&m->decoder, fmt, m->dev.graphics_version);
	if (ret)
		goto fail;
	if (cfg->exponent != GPD_OA_MODEL_NOT_PERIODIC) {
		m->period = (uint64_t)2 << cfg->exponent;
		/* Haswell's periodic reports land half a period off the
		 * multiples, which is how IGT tells them from others. */
		if (m->decoder.reason_width == 0)
			m->period_phase = m->period / 2;
	}
	m->now = m->origin = m->accounted = cfg->start_timestamp & m->decoder.ts_mask;
	m->squash_invalid_context = m->decoder.ctx_valid_mask &&
				    m->dev.graphics_version < SQUASH_MAX_VERSION;
	m->filter_context = cfg->filter_context;
	m->filter_context_id = cfg->filter_context_id;
	m->last_context_id = GPM_OA_CTX_NONE;
	m->report_loss_probability = cfg->workload.report_loss_probability;
	if (cfg->ctx_switch_report_delay_ns >= 0) {
		uint64_t ns = cfg->ctx_switch_report_delay_ns
			      ? (uint64_t)cfg->ctx_switch_report_delay_ns
			      : DEFAULT_SWITCH_REPORT_DELAY_NS;

		m->switch_delay = (uint64_t)((unsigned __int128)ns *
					     m->dev.timestamp_frequency / 1000000000u);
	}
	gpd_prng_fork(&m->loss_prng, cfg->seed, PRNG_TAG_REPORT_LOSS);

	struct gpd_workload_clocks clocks = {
		.timestamp_frequency = m->dev.timestamp_frequency,
		.gpu_min_freq = m->dev.gpu_min_freq,
		.gpu_max_freq = m->dev.gpu_max_freq,
	};
	ret = gpd_workload_init(&m->workload, &cfg->workload, &clocks, cfg->seed);
	if (ret)
		goto fail;
	m->freq = m->dev.gpu_min_freq;
	if (cfg->rates) {
		m->rates = cfg->rates;
	} else {
		m->own_rates = malloc(sizeof(*m->own_rates));
		ret = m->own_rates ? fit_rates(m, cfg->set, m->own_rates) : -ENOMEM;
		if (ret)
			goto fail;
		m->rates = m->own_rates;
	}
	ret = cfg->buffer_mem ?
	      gpd_oa_buffer_init_lent(&m->buffer, cfg->buffer_mem, buffer_size,
				      fmt->size) :
	      gpd_oa_buffer_init(&m->buffer, buffer_size, fmt->size);
	if (ret)
		goto fail;
	if (cfg->initial_counters) {
		memcpy(m->counter, cfg->initial_counters, sizeof(m->counter));
		m->counter[GPM_ACC_GPU_TIME] = 0;
	}
	*out = m;
	return 0;

fail:
	free(m->own_rates);
	free(m);
	return ret;
}

void gpd_oa_model_destroy(struct gpd_oa_model *model)
{
	if (!model)
		return;
	gpd_oa_buffer_free(&model->buffer);
	free(model->own_rates);
	free(model);
}

void gpd_oa_model_enable(struct gpd_oa_model *m)
{
	gpd_oa_buffer_reset(&m->buffer);
	m->report_lost = false;
	m->unit_reset = false;
	m->last_context_id = GPM_OA_CTX_NONE;
	m->enabled = true;
}

void gpd_oa_model_reset_unit(struct gpd_oa_model *m)
{
	m->unit_reset = true;
}

void gpd_oa_model_disable(struct gpd_oa_model *m)
{
	m->enabled = false;
}

bool gpd_oa_model_enabled(const struct gpd_oa_model *m)
{
	return m->enabled;
}

int gpd_oa_model_set_metric_set(struct gpd_oa_model *m, const struct gpm_metric_set *set,
				const struct gpd_rate_model *fitted)
{
	struct gpd_rate_model *rates = NULL;

	if (!fitted) {
		int ret;

		rates = malloc(sizeof(*rates));
		if (!rates)
			return -ENOMEM;
		ret = fit_rates(m, set, rates);
		if (ret) {
			free(rates);
			return ret;
		}
	}
	free(m->own_rates);
	m->own_rates = rates;
	m->rates = fitted ? fitted : rates;
	return 0;
}

const struct gpd_rate_model *gpd_oa_model_rates(const struct gpd_oa_model *m)
{
	return m->rates;
}

/* a * b / c exactly; in 64 bits where the product fits, as it does for
 * the short stretches between a fast period's reports (a 128-bit
 * division is a library call). */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t product;

	if (!__builtin_mul_overflow(a, b, &product))
		return product / c;
	return (uint64_t)((unsigned __int128)a * b / c);
}

/* Brings the counters up to tick t, over which the workload's state is
 * constant but for the utilization's ramp. */
static void account(struct gpd_oa_model *m, uint64_t t)
{
	const struct gpd_workload *wl = &m->workload;

	if (t <= m->accounted)
		return;
	uint64_t dt = t - m->accounted;
	/* Haswell's unit in per-context mode counts while that context runs
	 * only (GEN7_OACONTROL_PER_CTX_ENABLE, gen7_oa_enable(), Linux 6.12). */
	bool counting = !m->filter_context || m->decoder.has_context ||
			(!gpd_workload_idle(wl) &&
			 gpd_workload_context_id(wl, gpd_workload_context(wl)) ==
			 m->filter_context_id);
	if (!gpd_workload_idle(wl) && counting) {
		double middle = (double)(m->accounted - m->origin) + (double)dt / 2;
		double util = gpd_workload_utilization(wl, middle);
		uint64_t freq = gpd_workload_frequency(wl, util);
		/* Rounding the stretch down to whole nanoseconds, then to whole
		 * clocks, keeps the clock count of any window at or below what
		 * the maximum frequency allows over its GpuTime, which the
		 * equations compute as whole nanoseconds. */
		uint64_t ns = mul_div(dt, 1000000000u, m->dev.timestamp_frequency);
		uint64_t clocks = mul_div(freq, ns, 1000000000u);
		uint64_t inc[GPM_ACC_SLOTS];
		const struct gpd_rate_model *rm = m->rates;
		size_t n_slots = rm->n_slots;

		gpd_rate_model_increments(rm, gpd_workload_context(wl), util,
					  clocks, inc);
		m->counter[GPM_ACC_GPU_CLOCK] += clocks;
		for (size_t i = 0; i < n_slots; i++)
			m->counter[rm->slot[i]] += inc[i];
		m->freq = freq;
	}
	m->accounted = t;
}

static uint32_t clock_ratio_bits(const struct gpd_oa_model *m)
{
	const struct gpm_oa_decoder *dec = &m->decoder;

	if (m->dev.graphics_version < CLOCK_RATIO_MIN_VERSION)
		return 0;
	uint64_t ratio = (m->freq * CLOCK_RATIO_UNIT_DEN + CLOCK_RATIO_UNIT_NUM / 2) /
			 CLOCK_RATIO_UNIT_NUM;
	if (ratio > CLOCK_RATIO_MAX)
		ratio = CLOCK_RATIO_MAX;
	/* Unslice ratio in [8:0]; slice ratio split over [31:25] and [10:9].
	 * Gen12's seventh reason bit is bit 25, the slice ratio's lowest:
	 * it stays clear so that no report claims an MMIO trigger. */
	uint32_t bits = (uint32_t)ratio | (uint32_t)(ratio >> 7 & 3) << 9 |
			(uint32_t)(ratio & 0x7f) << 25;
	uint32_t reasons = (uint32_t)(((1ull << dec->reason_width) - 1) << GPM_OA_REASON_SHIFT);
	return bits & ~(reasons | dec->ctx_valid_mask);
}

/* Writes a report of the state at m->now into the OA buffer. */
static void write_report(struct gpd_oa_model *m, uint32_t reason, uint32_t ctx_id,
			 bool ctx_valid)
{
	const struct gpm_oa_decoder *dec = &m->decoder;
	unsigned char bytes[GPM_OA_MAX_REPORT_SIZE];

	account(m, m->now);
	if (!m->enabled || m->unit_reset)
		return;
	if (m->report_loss_probability > 0 &&
	    gpd_prng_unit(&m->loss_prng) < m->report_loss_probability) {
		m->report_lost = true;
		return;
	}

	uint32_t report_reason = dec->reason_width ? reason : 0;
	uint64_t report_id = dec->reason_width ? clock_ratio_bits(m) : HSW_REPORT_ID_TIMER;
	/* Haswell's reports have no context ID: its ID and timestamp, then
	 * the A counters (docs/oa-reference.md); the kernel reads none
	 * (gen7_append_oa_reports(), Linux 6.12). */
	if (!dec->has_context)
		ctx_id = 0;
	/* Counters are cut to their fields' widths as they are written, so
	 * nothing is out of range. Written where it lands when it lands
	 * whole: the reports of a fast period are most of the model's
	 * memory traffic. */
	unsigned char *slot = gpd_oa_buffer_tail_slot(&m->buffer);
	gpm_oa_report_write(dec, report_id, report_reason, ctx_id, ctx_valid,
			    m->now & dec->ts_mask, m->counter, slot ? slot : bytes);
	if (slot) {
		gpd_oa_buffer_commit(&m->buffer);
		return;
	}
	gpd_oa_buffer_push(&m->buffer, bytes);
}

/* The ctx field and valid bit of a report of the running state. */
static void running_context(const struct gpd_oa_model *m, uint32_t *ctx_id, bool *valid)
{
	const struct gpd_workload *wl = &m->workload;

	if (gpd_workload_idle(wl)) {
		*ctx_id = GPM_OA_CTX_NONE;
		*valid = false;
		return;
	}
	*ctx_id = gpd_workload_context_id(wl, gpd_workload_context(wl));
	*valid = m->dev.graphics_version < VALID_ONLY_ON_SWITCH_VERSION;
}

/* Writes the context-switch report on its way, if any, now. */
static void flush_switch_report(struct gpd_oa_model *m)
{
	if (!m->switch_pending)
		return;
	m->switch_pending = false;
	write_report(m, GPM_OA_REASON_CTX_SWITCH, m->switch_ctx_id, m->switch_ctx_valid);
}

static void workload_change(struct gpd_oa_model *m, uint64_t t)
{
	struct gpd_workload *wl = &m->workload;
	unsigned events;

	account(m, t);
	events = gpd_workload_advance(wl, t - m->origin);
	/* Haswell's report has no reason field to tell these from periodic
	 * reports; the model writes only those there. */
	if (!m->decoder.reason_width || events == GPD_WORKLOAD_NOTHING)
		return;
	/* A report still on its way lands before the next one is due. */
	flush_switch_report(m);
	if (events & GPD_WORKLOAD_IDLE) {
		write_report(m, GPM_OA_REASON_GO_TRANSITION, GPM_OA_CTX_NONE, false);
		return;
	}
	m->switch_ctx_id = gpd_workload_context_id(wl, gpd_workload_context(wl));
	m->switch_ctx_valid = (events & GPD_WORKLOAD_CONTEXT_SWITCH) != 0;
	m->switch_pending = true;
	m->switch_report_at = t + m->switch_delay;
	if (m->switch_delay == 0)
		flush_switch_report(m);
}

/* The first timer report after tick t. */
static uint64_t next_timer(const struct gpd_oa_model *m, uint64_t t)
{
	uint64_t p = m->period;
	uint64_t d = (m->period_phase % p + p - t % p) % p;

	return t + (d ? d : p);
}

void gpd_oa_model_advance(struct gpd_oa_model *m, uint64_t ticks)
{
	uint64_t target = m->now + ticks;

	for (;;) {
		uint64_t change = m->origin + gpd_workload_next_change(&m->workload);
		/* Timer reports that cannot land (disabled, reset, or no room
		 * in the buffer) are not even cut out of time; the first one
		 * that found no room flagged the overflow. */
		bool sampling = m->period && m->enabled && !m->unit_reset &&
				!m->overrun &&
				!(m->buffer.dropping && gpd_oa_buffer_full(&m->buffer));
		uint64_t timer = sampling ? next_timer(m, m->now) : UINT64_MAX;
		uint64_t pending = m->switch_pending ? m->switch_report_at : UINT64_MAX;
		uint64_t t = change < timer ? change : timer;

		if (pending < t)
			t = pending;
		if (t > target)
			break;
		m->now = t;
		if (t == timer) {
			uint32_t ctx_id;
			bool valid;

			running_context(m, &ctx_id, &valid);
			write_report(m, GPM_OA_REASON_TIMER, ctx_id, valid);
		}
		if (t == pending)
			flush_switch_report(m);
		if (t == change)
			workload_change(m, t);
	}
	m->now = target;
}

void gpd_oa_model_overrun(struct gpd_oa_model *m, uint64_t ticks)
{
	if (m->enabled && m->period) {
		m->buffer.overflow = true;
		m->overrun = true;
	}
	gpd_oa_model_advance(m, ticks);
}

uint64_t gpd_oa_model_buffer_ticks(const struct gpd_oa_model *m)
{
	if (!m->period)
		return UINT64_MAX;
	return (uint64_t)(m->buffer.size / m->buffer.report_size) * m->period;
}

bool gpd_oa_model_idle(const struct gpd_oa_model *m)
{
	return gpd_workload_idle(&m->workload);
}

uint64_t gpd_oa_model_time(const struct gpd_oa_model *m)
{
	return m->now;
}

uint64_t gpd_oa_model_period(const struct gpd_oa_model *m)
{
	return m->period;
}

const struct gpm_oa_decoder *gpd_oa_model_decoder(const struct gpd_oa_model *m)
{
	return &m->decoder;
}

size_t gpd_oa_model_record_size(const struct gpd_oa_model *m)
{
	return GPM_OA_RECORD_HEADER_SIZE + m->decoder.format->size;
}

unsigned gpd_oa_model_n_contexts(const struct gpd_oa_model *m)
{
	return gpd_workload_n_contexts(&m->workload);
}

uint32_t gpd_oa_model_context_id(const struct gpd_oa_model *m, unsigned index)
{
	return gpd_workload_context_id(&m->workload, index);
}
