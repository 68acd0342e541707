/*
 * The simulated SPM unit (see spm_unit.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/prng.h"
#include "daemon/sim/spm_unit.h"

#define SLOTS_PER_LINE (GPM_SPM_LINE_BYTES / 2)
/* The global segment's first slots hold the 64-bit timestamp. */
#define TIMESTAMP_SLOTS 4
/* Where the ring starts in the trace data: after the write pointer, on a
 * line, as radv aligns the ring's base (AC_SPM_RING_BASE_ALIGN). */
#define SAMPLE_OFFSET 32
#define PRNG_TAG_WORKLOAD 0x73706d776c64ull     /* "spmwld" */
#define PRNG_TAG_GARBAGE 0x73706d6a756e6bull    /* "spmjunk" */

/* Which segment a block's instances sit in. */
enum placement { GLOBAL, ONE_PER_SE, TWO_PER_SE };

static const struct event_info {
	const char *block, *event;
	enum placement placement;
	unsigned instances;
} events[] = {
	[GPD_SPM_GRBM_COUNT] = { "GRBM", "COUNT", GLOBAL, 1 },
	[GPD_SPM_GRBM_GUI_ACTIVE] = { "GRBM", "GUI_ACTIVE", GLOBAL, 1 },
	[GPD_SPM_SQ_WAVES] = { "SQ", "WAVES", ONE_PER_SE, 4 },
	[GPD_SPM_SQ_INSTS_VALU] = { "SQ", "INSTS_VALU", ONE_PER_SE, 4 },
	[GPD_SPM_TA_BUSY] = { "TA", "BUSY", TWO_PER_SE, 8 },
	[GPD_SPM_TCP_REQ] = { "TCP", "REQ", TWO_PER_SE, 8 },
	[GPD_SPM_TCP_REQ_MISS] = { "TCP", "REQ_MISS", TWO_PER_SE, 8 },
	[GPD_SPM_GL2C_HIT] = { "GL2C", "HIT", GLOBAL, 4 },
	[GPD_SPM_GL2C_MISS] = { "GL2C", "MISS", GLOBAL, 4 },
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

/* What each of the workload's contexts does per busy clock: the share of
 * peak VALU issue and of texture work, and the hit rates of the vector
 * L0 and the L2. A context beyond the table takes its entry modulo. */
static const struct context_mix {
	double valu, texture, tcp_hit, l2_hit;
} mixes[] = {
	{ 0.90, 0.30, 0.85, 0.90 },     /* ALU-heavy compute */
	{ 0.40, 0.80, 0.55, 0.60 },     /* texture-heavy draws */
	{ 0.70, 0.50, 0.70, 0.75 },     /* between */
};
#define N_MIXES (sizeof(mixes) / sizeof(mixes[0]))

struct spm_counter_state {
	struct gpd_spm_counter_id id;
	double share;                   /* this instance's part of the load */
	double count;                   /* over the current sample, carried */
};

struct gpd_spm_unit {
	struct gpm_spm_layout layout;
	struct gpm_spm_counter counters[GPD_SPM_MAX_COUNTERS];
	struct spm_counter_state state[GPD_SPM_MAX_COUNTERS];
	uint8_t *data;
	size_t len;
	struct gpd_workload workload;
	uint32_t interval;
	uint64_t shader_frequency, timestamp_frequency, start_timestamp;
	uint64_t clock;                 /* shader clocks since the start */
	uint64_t samples;               /* taken */
};

int gpd_spm_counter_parse(const char *name, struct gpd_spm_counter_id *out,
			  char *why, size_t size)
{
	for (unsigned e = 0; e < N_EVENTS; e++) {
		const struct event_info *ev = &events[e];
		size_t n = strlen(ev->block);
		if (strncmp(name, ev->block, n) || name[n] != '[')
			continue;
		char *end;
		unsigned long instance = strtoul(name + n + 1, &end, 10);
		if (end == name + n + 1 || end[0] != ']' || end[1] != '.' ||
		    strcmp(end + 2, ev->event))
			continue;
		if (instance >= ev->instances) {
			snprintf(why, size, "%s: the simulated GPU has %u %s "
				 "instances, 0 to %u", name, ev->instances,
				 ev->block, ev->instances - 1);
			return -ENOENT;
		}
		out->event = (enum gpd_spm_event)e;
		out->instance = (unsigned)instance;
		return 0;
	}
	snprintf(why, size, "%s: the simulated GPU has no such counter; it "
		 "has GRBM[0].COUNT, GRBM[0].GUI_ACTIVE, SQ[0-3].WAVES, "
		 "SQ[0-3].INSTS_VALU, TA[0-7].BUSY, TCP[0-7].REQ, "
		 "TCP[0-7].REQ_MISS, GL2C[0-3].HIT and GL2C[0-3].MISS", name);
	return -ENOENT;
}

/* 0: global; 1 + i: shader engine i. */
static unsigned segment_of(const struct gpd_spm_counter_id *id)
{
	const struct event_info *ev = &events[id->event];
	switch (ev->placement) {
	case ONE_PER_SE:
		return 1 + id->instance;
	case TWO_PER_SE:
		return 1 + id->instance / 2;
	case GLOBAL:
		break;
	}
	return 0;
}

/* Lays the counters out: each takes the next two slots of its segment. */
static void lay_out(struct gpd_spm_unit *u, const struct gpd_spm_unit_config *cfg)
{
	uint32_t used[1 + GPD_SPM_SHADER_ENGINES] = { TIMESTAMP_SLOTS };
	uint32_t slot[GPD_SPM_MAX_COUNTERS];
	unsigned segment[GPD_SPM_MAX_COUNTERS];
	for (size_t c = 0; c < cfg->n_counters; c++) {
		segment[c] = segment_of(&cfg->counters[c]);
		slot[c] = used[segment[c]];
		used[segment[c]] += 2;
	}
	uint32_t lines[1 + GPD_SPM_SHADER_ENGINES];
	uint32_t stride_lines = 0;
	for (unsigned s = 0; s <= GPD_SPM_SHADER_ENGINES; s++) {
		lines[s] = (used[s] + SLOTS_PER_LINE - 1) / SLOTS_PER_LINE;
		stride_lines += lines[s];
	}
	for (size_t c = 0; c < cfg->n_counters; c++) {
		int64_t lo = gpm_spm_segment_offset(lines, 1 + GPD_SPM_SHADER_ENGINES,
						    segment[c], slot[c]);
		int64_t hi = gpm_spm_segment_offset(lines, 1 + GPD_SPM_SHADER_ENGINES,
						    segment[c], slot[c] + 1);
		u->counters[c] = (struct gpm_spm_counter){
			.offset_lo = (uint32_t)lo,
			.offset_hi = (uint32_t)hi,
			.is_32bit = true,
		};
	}
	u->layout = (struct gpm_spm_layout){
		.wr_ptr_offset = 0,
		.wr_ptr_granularity = cfg->wr_ptr_granularity,
		.sample_offset = SAMPLE_OFFSET,
		.sample_stride = stride_lines * GPM_SPM_LINE_BYTES,
		.max_samples = cfg->max_samples,
		.n_counters = cfg->n_counters,
		.counters = u->counters,
	};
}

static bool config_valid(const struct gpd_spm_unit_config *cfg)
{
	if (cfg->sample_interval < GPD_SPM_MIN_INTERVAL ||
	    cfg->sample_interval > GPD_SPM_MAX_INTERVAL ||
	    !cfg->n_counters || cfg->n_counters > GPD_SPM_MAX_COUNTERS ||
	    !cfg->max_samples || !cfg->wr_ptr_granularity ||
	    GPM_SPM_LINE_BYTES % cfg->wr_ptr_granularity ||
	    !cfg->shader_frequency || !cfg->timestamp_frequency ||
	    !cfg->start_timestamp)
		return false;
	for (size_t c = 0; c < cfg->n_counters; c++)
		if ((unsigned)cfg->counters[c].event >= N_EVENTS ||
		    cfg->counters[c].instance >=
			    events[cfg->counters[c].event].instances)
			return false;
	return true;
}

int gpd_spm_unit_create(const struct gpd_spm_unit_config *cfg,
			struct gpd_spm_unit **out)
{
	if (!config_valid(cfg))
		return -EINVAL;
	struct gpd_spm_unit *u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	lay_out(u, cfg);
	u->len = SAMPLE_OFFSET +
		 (size_t)u->layout.sample_stride * u->layout.max_samples;
	u->data = malloc(u->len);
	struct gpd_workload_config wc = { .load = cfg->load };
	/* The workload's ticks are shader clocks; the clock does not move. */
	struct gpd_workload_clocks clocks = {
		.timestamp_frequency = cfg->shader_frequency,
		.gpu_min_freq = cfg->shader_frequency,
		.gpu_max_freq = cfg->shader_frequency,
	};
	int ret = u->data ? gpd_workload_init(&u->workload, &wc, &clocks,
					      cfg->seed) : -ENOMEM;
	if (ret) {
		gpd_spm_unit_destroy(u);
		return ret;
	}
	for (size_t c = 0; c < cfg->n_counters; c++) {
		unsigned i = cfg->counters[c].instance;
		u->state[c].id = cfg->counters[c];
		/* Instances differ a little, as real ones do. */
		u->state[c].share = 0.85 + 0.05 * (double)((i * 7) % 4);
	}
	/* The ring's memory holds whatever was there before; only the
	 * write pointer and the last slot's timestamp are set. */
	struct gpd_prng junk;
	gpd_prng_fork(&junk, cfg->seed, PRNG_TAG_GARBAGE);
	for (size_t i = 0; i < u->len; i += 8) {
		uint64_t v = gpd_prng_next(&junk);
		memcpy(u->data + i, &v, u->len - i < 8 ? u->len - i : 8);
	}
	memset(u->data + u->layout.wr_ptr_offset, 0, 4);
	memset(u->data + SAMPLE_OFFSET + (size_t)(u->layout.max_samples - 1) *
	       u->layout.sample_stride, 0, 8);
	u->interval = cfg->sample_interval;
	u->shader_frequency = cfg->shader_frequency;
	u->timestamp_frequency = cfg->timestamp_frequency;
	u->start_timestamp = cfg->start_timestamp;
	*out = u;
	return 0;
}

void gpd_spm_unit_destroy(struct gpd_spm_unit *unit)
{
	if (!unit)
		return;
	free(unit->data);
	free(unit);
}

/* Per busy clock of one instance, at the context's mix. */
static double rate(enum gpd_spm_event e, const struct context_mix *m)
{
	switch (e) {
	case GPD_SPM_GRBM_COUNT:
		return 0;       /* counts every clock, busy or not */
	case GPD_SPM_GRBM_GUI_ACTIVE:
		return 1;
	case GPD_SPM_SQ_WAVES:
		return 1.0 / 64;
	case GPD_SPM_SQ_INSTS_VALU:
		return 2 * m->valu;
	case GPD_SPM_TA_BUSY:
		return m->texture;
	case GPD_SPM_TCP_REQ:
		return 0.9 * m->texture;
	case GPD_SPM_TCP_REQ_MISS:
		return 0.9 * m->texture * (1 - m->tcp_hit);
	case GPD_SPM_GL2C_HIT:
		return 0.6 * m->l2_hit;
	case GPD_SPM_GL2C_MISS:
		return 0.6 * (1 - m->l2_hit);
	}
	return 0;
}

/* Counts the clocks from the workload's now to t (no change between). */
static void count_to(struct gpd_spm_unit *u, uint64_t t)
{
	struct gpd_workload *wl = &u->workload;
	uint64_t from = gpd_workload_now(wl);
	if (t <= from)
		return;
	double clocks = (double)(t - from);
	double busy = 0;
	const struct context_mix *m = &mixes[0];
	if (!gpd_workload_idle(wl)) {
		busy = clocks * gpd_workload_utilization(wl, ((double)from + (double)t) / 2);
		m = &mixes[gpd_workload_context(wl) % N_MIXES];
	}
	for (size_t c = 0; c < u->layout.n_counters; c++) {
		struct spm_counter_state *s = &u->state[c];
		if (s->id.event == GPD_SPM_GRBM_COUNT)
			s->count += clocks;
		else if (s->id.event == GPD_SPM_GRBM_GUI_ACTIVE)
			s->count += busy;
		else
			s->count += busy * rate(s->id.event, m) * s->share;
	}
}

/* Runs the workload to clock t, counting when count says. */
static void run_to(struct gpd_spm_unit *u, uint64_t t, bool count)
{
	for (;;) {
		uint64_t change = gpd_workload_next_change(&u->workload);
		uint64_t stop = change < t ? change : t;
		if (count)
			count_to(u, stop);
		gpd_workload_advance(&u->workload, stop);
		if (stop == t)
			return;
	}
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint64_t timestamp_at(const struct gpd_spm_unit *u, uint64_t clock)
{
	return u->start_timestamp +
	       (uint64_t)((unsigned __int128)clock * u->timestamp_frequency /
			  u->shader_frequency);
}

/* Writes sample number `index` (taken at the clock the unit is at) into
 * its slot and moves the write pointer past it. */
static void write_sample(struct gpd_spm_unit *u, uint64_t index)
{
	const struct gpm_spm_layout *l = &u->layout;
	uint64_t slot = index % l->max_samples;
	uint8_t *sample = u->data + l->sample_offset + slot * l->sample_stride;
	/* The RLC writes whole lines: slots no counter uses read 0. */
	memset(sample, 0, l->sample_stride);
	uint64_t ts = timestamp_at(u, u->clock);
	for (unsigned i = 0; i < 8; i++)
		sample[i] = (uint8_t)(ts >> (8 * i));
	for (size_t c = 0; c < l->n_counters; c++) {
		struct spm_counter_state *s = &u->state[c];
		double whole = floor(s->count);
		/* The bound in spm_unit.h keeps a sample's count in 32 bits. */
		uint32_t v = whole >= 4294967295.0 ? 0xffffffffu : (uint32_t)whole;
		s->count -= whole;
		put16(sample + u->counters[c].offset_lo, (uint16_t)v);
		put16(sample + u->counters[c].offset_hi, (uint16_t)(v >> 16));
	}
	uint64_t next = (slot + 1) % l->max_samples;
	uint32_t wr = (uint32_t)(next * l->sample_stride / l->wr_ptr_granularity);
	for (unsigned i = 0; i < 4; i++)
		u->data[l->wr_ptr_offset + i] = (uint8_t)(wr >> (8 * i));
}

void gpd_spm_unit_advance(struct gpd_spm_unit *u, uint64_t clocks)
{
	uint64_t end = u->clock + clocks;
	uint64_t next_sample = (u->samples + 1) * u->interval;
	if (next_sample > end) {
		run_to(u, end, true);
		u->clock = end;
		return;
	}
	uint64_t due = (end - next_sample) / u->interval + 1;
	if (due > u->layout.max_samples) {
		/* These would be overwritten before anyone could read them:
		 * the ring ends as if they were written, their counts are
		 * gone with them. */
		uint64_t skipped = due - u->layout.max_samples;
		uint64_t t = (u->samples + skipped) * u->interval;
		run_to(u, t, false);
		for (size_t c = 0; c < u->layout.n_counters; c++)
			u->state[c].count = 0;
		u->samples += skipped;
		u->clock = t;
		due -= skipped;
	}
	for (uint64_t i = 0; i < due; i++) {
		uint64_t t = (u->samples + 1) * u->interval;
		run_to(u, t, true);
		u->clock = t;
		write_sample(u, u->samples);
		u->samples++;
	}
	run_to(u, end, true);
	u->clock = end;
}

const struct gpm_spm_layout *gpd_spm_unit_layout(const struct gpd_spm_unit *unit)
{
	return &unit->layout;
}

const uint8_t *gpd_spm_unit_data(const struct gpd_spm_unit *unit, size_t *len)
{
	*len = unit->len;
	return unit->data;
}

uint64_t gpd_spm_unit_samples(const struct gpd_spm_unit *unit)
{
	return unit->samples;
}

uint64_t gpd_spm_unit_interval_ticks(const struct gpd_spm_unit *unit)
{
	return (uint64_t)((unsigned __int128)unit->interval *
			  unit->timestamp_frequency / unit->shader_frequency);
}
