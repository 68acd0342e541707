/*
 * The sim:amd source (see spm_source.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/sim/spm_source.h"
#include "daemon/sim/spm_unit.h"
#include "metrics/accumulator.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/sim_builtin.h"

#define SPM_POLL_MS 5
/* After a suspend or a debugger stop, do not run minutes of GPU time;
 * but more than the ring holds, so that a stopped daemon finds its ring
 * overrun, as it would on hardware. */
#define SPM_MAX_CATCH_UP_NS 2000000000ull
/* The ring holds this much time, within the bounds below: two hundred
 * polls, so that only a loop blocked that long (not a busy machine's
 * hiccup) loses samples. */
#define SPM_RING_NS 1000000000ull
#define SPM_RING_MIN_SAMPLES 64u
#define SPM_RING_MAX_SAMPLES 65536u
/* The RLC's write pointer counts 32-byte lines. */
#define SPM_WR_PTR_GRANULARITY 32
#define SPM_START_TIMESTAMP 0x100000000ull
#define SPM_PEC_SLOTS 32

struct spm_source {
	struct gpd_source base;
	uint64_t seed;
	double load;
	uv_timer_t timer;
	bool timer_running;
	uint64_t last_ns;               /* monotonic time the unit is at */
	uint64_t ns_remainder;          /* ns not yet worth a shader clock */
	struct gpd_spm_unit *unit;      /* NULL while closed */
	struct gpm_spm_cursor cursor;
	uint64_t interval_ticks;
	/* The reports. */
	struct gpm_oa_decoder encoder;
	struct gpm_oa_report report;
	size_t n_counters;
	unsigned slot[GPD_SPM_MAX_COUNTERS];
	uint64_t total[GPD_SPM_MAX_COUNTERS];
	bool need_start;
	uint64_t last_timestamp;
	unsigned char *records;
	size_t records_cap;
	uint64_t losses;
};

static uint64_t shader_hz(const struct spm_source *s)
{
	return s->base.info.gpu_max_freq;
}

static size_t put_report(struct spm_source *s, uint64_t timestamp,
			 unsigned char *out)
{
	const struct gpm_oa_format *fmt = s->encoder.format;
	struct gpm_oa_report *r = &s->report;
	memset(r, 0, sizeof(*r));
	/* SPM counts the whole GPU: no context is running. */
	r->ctx_id = GPM_OA_CTX_NONE;
	r->ctx_valid = true;
	r->value[GPM_ACC_GPU_TIME] = timestamp;
	for (size_t c = 0; c < s->n_counters; c++)
		r->value[s->slot[c]] = s->total[c];
	size_t n = gpm_oa_record_put_header(out, GPM_OA_RECORD_SAMPLE,
					    (uint16_t)(GPM_OA_RECORD_HEADER_SIZE +
						       fmt->size));
	gpm_oa_report_encode(&s->encoder, r, out + n, fmt->size);
	return n + fmt->size;
}

/* Room for n samples' records: a loss and a start report, then one
 * report each. */
static int reserve(struct spm_source *s, size_t n)
{
	size_t report = GPM_OA_RECORD_HEADER_SIZE + s->encoder.format->size;
	size_t need = GPM_OA_RECORD_HEADER_SIZE + (n + 1) * report;
	if (need <= s->records_cap)
		return 0;
	unsigned char *grown = realloc(s->records, need);
	if (!grown)
		return -ENOMEM;
	s->records = grown;
	s->records_cap = need;
	return 0;
}

/* The samples as records; their length. A sample that does not come
 * an interval after the last (or, first, after the start) follows lost
 * ones: the unit came round the ring past the reader. */
static size_t build(struct spm_source *s, const struct gpm_spm_samples *samples)
{
	size_t n = 0;
	for (size_t i = 0; i < samples->n_samples; i++) {
		uint64_t ts = samples->timestamps[i];
		if (ts != s->last_timestamp + s->interval_ticks) {
			n += gpm_oa_record_put_header(s->records + n,
						      GPM_OA_RECORD_BUFFER_LOST,
						      GPM_OA_RECORD_HEADER_SIZE);
			s->losses++;
			s->need_start = true;
		}
		if (s->need_start) {
			n += put_report(s, ts - s->interval_ticks, s->records + n);
			s->need_start = false;
		}
		const uint32_t *v = samples->values + i * samples->n_counters;
		for (size_t c = 0; c < s->n_counters; c++)
			s->total[c] += v[c];
		n += put_report(s, ts, s->records + n);
		s->last_timestamp = ts;
	}
	return n;
}

static void fail_stream(struct spm_source *s, const char *why)
{
	char message[300];
	snprintf(message, sizeof(message), "%s: the SPM ring cannot be read: %s",
		 s->base.name, why);
	s->base.listener.event(s->base.listener.user, GPD_EVENT_DEVICE_LOST,
			       message);
}

/* Reads what the unit wrote since the last read and delivers it. */
static void deliver(struct spm_source *s)
{
	struct gpm_spm_samples samples;
	size_t len;
	char why[200];
	const uint8_t *data = gpd_spm_unit_data(s->unit, &len);
	int ret = gpm_spm_read_new(gpd_spm_unit_layout(s->unit), data, len,
				   &s->cursor, &samples, why, sizeof(why));
	if (!ret && reserve(s, samples.n_samples)) {
		gpm_spm_samples_fini(&samples);
		snprintf(why, sizeof(why), "out of memory");
		ret = -ENOMEM;
	}
	if (ret) {
		fail_stream(s, why);
		return;
	}
	size_t n = build(s, &samples);
	gpm_spm_samples_fini(&samples);
	if (n)
		s->base.listener.records(s->base.listener.user, s->records, n);
}

static void advance(struct spm_source *s, uint64_t elapsed)
{
	elapsed += s->ns_remainder;
	if (elapsed > SPM_MAX_CATCH_UP_NS)
		elapsed = SPM_MAX_CATCH_UP_NS;
	uint64_t hz = shader_hz(s);
	uint64_t clocks = (uint64_t)((unsigned __int128)elapsed * hz / 1000000000u);
	s->ns_remainder = elapsed -
		(uint64_t)((unsigned __int128)clocks * 1000000000u / hz);
	gpd_spm_unit_advance(s->unit, clocks);
	deliver(s);
}

static void on_poll(uv_timer_t *timer)
{
	struct spm_source *s = timer->data;
	uint64_t now = gpd_monotonic_ns();
	uint64_t elapsed = now - s->last_ns;
	s->last_ns = now;
	if (s->unit)
		advance(s, elapsed);
}

/* The set's raw counters as the unit's, and the slots they fill. */
static int plan(struct spm_source *s, const struct gpm_metric_set *set,
		struct gpd_spm_counter_id *ids, struct gpd_error *err)
{
	char why[300];
	if (!set->n_raw_counters || set->n_raw_counters > SPM_PEC_SLOTS)
		return gpd_fail(err, -EINVAL, "%s: set %s names %zu SPM counters; "
			    "the simulated unit streams 1 to %d", s->base.name,
			    set->symbol_name, set->n_raw_counters, SPM_PEC_SLOTS);
	for (size_t c = 0; c < set->n_raw_counters; c++) {
		const struct gpm_raw_counter *rc = &set->raw_counters[c];
		if (rc->slot < GPM_ACC_PEC || rc->slot >= GPM_ACC_PEC + SPM_PEC_SLOTS)
			return gpd_fail(err, -EINVAL, "%s: set %s puts %s in a slot "
				    "other than PEC 0-31 (line %u)", s->base.name,
				    set->symbol_name, rc->name, rc->line);
		if (gpd_spm_counter_parse(rc->name, &ids[c], why, sizeof(why)))
			return gpd_fail(err, -ENOENT, "%s: set %s, line %u: %s",
				    s->base.name, set->symbol_name, rc->line, why);
		s->slot[c] = rc->slot;
	}
	s->n_counters = set->n_raw_counters;
	return 0;
}

static void spm_close(struct gpd_source *src)
{
	struct spm_source *s = (struct spm_source *)src;
	if (s->timer_running) {
		uv_timer_stop(&s->timer);
		s->timer_running = false;
	}
	if (s->unit && s->losses)
		gpd_info("%s: %llu samples taken, %llu BUFFER_LOST (the ring went "
			 "round past the reader)", src->name,
			 (unsigned long long)gpd_spm_unit_samples(s->unit),
			 (unsigned long long)s->losses);
	gpd_spm_unit_destroy(s->unit);
	s->unit = NULL;
}

static int spm_open(struct gpd_source *src, const struct gpd_stream_config *cfg,
		    struct gpd_error *err)
{
	struct spm_source *s = (struct spm_source *)src;
	struct gpd_spm_counter_id ids[GPD_SPM_MAX_COUNTERS];
	spm_close(src);
	int ret = plan(s, cfg->set, ids, err);
	if (ret)
		return ret;
	uint64_t period = gpd_exponent_to_ns(&src->info, cfg->exponent);
	uint64_t interval = (uint64_t)((unsigned __int128)period * shader_hz(s) /
				       1000000000u);
	if (interval < GPD_SPM_MIN_INTERVAL || interval > GPD_SPM_MAX_INTERVAL)
		return gpd_fail(err, -EINVAL, "%s: a period of %llu ns is %llu "
			    "shader clocks; SPM samples every %u to %u clocks "
			    "(%llu ns to about a second here)", src->name,
			    (unsigned long long)period,
			    (unsigned long long)interval, GPD_SPM_MIN_INTERVAL,
			    GPD_SPM_MAX_INTERVAL,
			    (unsigned long long)(GPD_SPM_MIN_INTERVAL *
						 1000000000ull / shader_hz(s)));
	uint64_t ring = SPM_RING_NS / period;
	if (ring < SPM_RING_MIN_SAMPLES)
		ring = SPM_RING_MIN_SAMPLES;
	if (ring > SPM_RING_MAX_SAMPLES)
		ring = SPM_RING_MAX_SAMPLES;
	struct gpd_spm_unit_config uc = {
		.counters = ids,
		.n_counters = s->n_counters,
		.sample_interval = (uint32_t)interval,
		.max_samples = (uint32_t)ring,
		.wr_ptr_granularity = SPM_WR_PTR_GRANULARITY,
		.shader_frequency = shader_hz(s),
		.timestamp_frequency = src->info.timestamp_frequency,
		.start_timestamp = SPM_START_TIMESTAMP,
		.seed = s->seed,
		.load = s->load,
	};
	ret = gpd_spm_unit_create(&uc, &s->unit);
	if (ret)
		return gpd_fail(err, ret, "%s: the simulated SPM unit refused "
			    "set %s: %s", src->name, cfg->set->symbol_name,
			    strerror(-ret));
	memset(&s->cursor, 0, sizeof(s->cursor));
	memset(s->total, 0, sizeof(s->total));
	s->interval_ticks = gpd_spm_unit_interval_ticks(s->unit);
	s->need_start = true;
	s->last_timestamp = SPM_START_TIMESTAMP;
	s->losses = 0;
	s->last_ns = gpd_monotonic_ns();
	s->ns_remainder = 0;
	uv_timer_start(&s->timer, on_poll, SPM_POLL_MS, SPM_POLL_MS);
	s->timer_running = true;
	return 0;
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct spm_source *s = handle->data;
	free(s->records);
	free(s);
}

static void spm_destroy(struct gpd_source *src)
{
	struct spm_source *s = (struct spm_source *)src;
	spm_close(src);
	uv_close((uv_handle_t *)&s->timer, on_timer_closed);
}

static const struct gpd_source_ops spm_ops = {
	.open = spm_open,
	.close = spm_close,
	.destroy = spm_destroy,
};

int gpd_spm_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			  const struct gpd_spm_source_options *opts,
			  struct gpd_source **out, struct gpd_error *err)
{
	const struct gpm_platform *platform =
		gpm_platform_by_name(GPD_SIM_AMD_PLATFORM);
	const struct gpm_oa_format *format;
	if (!platform || gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &format))
		return gpd_fail(err, -ENOENT, "sim:amd: no such platform");
	if (!gpm_metrics_db_find_platform(db, platform->name) &&
	    gpm_metrics_db_add_buffer(db, "<built-in>/" GPM_SIMAMD_METRICS_NAME,
				      gpm_simamd_metrics_xml,
				      gpm_simamd_metrics_xml_size()))
		return gpd_fail(err, -ENOMEM, "out of memory");
	struct spm_source *s = calloc(1, sizeof(*s));
	if (!s || gpm_oa_decoder_init(&s->encoder, format, 0)) {
		free(s);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	s->base.ops = &spm_ops;
	s->base.kind = GPD_SOURCE_SIM;
	snprintf(s->base.name, sizeof(s->base.name), "sim%u", opts->index);
	snprintf(s->base.device_id, sizeof(s->base.device_id),
		 "sim%u-amd-seed%llu", opts->index,
		 (unsigned long long)opts->seed);
	gpm_platform_default_device(platform, &s->base.info);
	s->base.platform = platform;
	s->base.format = format;
	s->base.loop = loop;
	s->seed = opts->seed;
	s->load = opts->load;
	uv_timer_init(loop, &s->timer);
	s->timer.data = s;
	*out = &s->base;
	return 0;
}
