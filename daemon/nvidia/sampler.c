/*
 * The sampler and evaluating threads (see sampler.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/nvidia/sampler.h"
#include "metrics/oa_record.h"

/* What the loop may owe the thread before batches are dropped: seconds of
 * records at the fastest rates. */
#define MAX_QUEUED_BYTES (32u << 20)
#define BATCH_INITIAL (64u << 10)
/* Each overflow doubles the hardware buffer, up to 16 times the
 * schedule's but no further than 1 GiB: SetConfig takes longer the larger
 * it is (a third of a second at 256 MiB), and so does every new session. */
#define MAX_BUFFER_DOUBLINGS 4
#define MAX_HW_BUFFER (1ull << 30)

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC - CLOCK_REALTIME, read between two realtime reads so
 * that the error is half the time the three reads take. */
static int64_t clock_offset_ns(void)
{
	uint64_t before = gpd_nv_realtime_ns();
	uint64_t mono = monotonic_ns();
	uint64_t after = gpd_nv_realtime_ns();
	return (int64_t)mono - (int64_t)(before + (after - before) / 2);
}

/* Sleeps until deadline (CLOCK_MONOTONIC ns) or a stop request; false on
 * the latter. */
static bool wait_until(struct gpd_nv_sampler *s, uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000ull),
		.tv_nsec = (long)(deadline % 1000000000ull),
	};
	pthread_mutex_lock(&s->lock);
	while (!s->stop && monotonic_ns() < deadline)
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	bool go_on = !s->stop;
	pthread_mutex_unlock(&s->lock);
	return go_on;
}

static void notice(struct gpd_nv_sampler *s, bool is_event,
		   enum gpd_event_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void notice(struct gpd_nv_sampler *s, bool is_event,
		   enum gpd_event_kind kind, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&s->lock);
	if (s->n_notices < GPD_NV_MAX_NOTICES) {
		struct gpd_nv_notice *n = &s->notices[s->n_notices++];
		n->is_event = is_event;
		n->kind = kind;
		va_start(ap, fmt);
		vsnprintf(n->message, sizeof(n->message), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&s->lock);
}

static bool batch_reserve(struct gpd_nv_sampler *s, size_t more)
{
	if (s->batch_len + more <= s->batch_cap)
		return true;
	size_t cap = s->batch_cap ? s->batch_cap : BATCH_INITIAL;
	while (cap < s->batch_len + more)
		cap *= 2;
	unsigned char *b = realloc(s->batch, cap);
	if (!b)
		return false;
	s->batch = b;
	s->batch_cap = cap;
	return true;
}

/* Writes a BUFFER_LOST record into the batch (or, without memory for
 * it, makes the next report start a new pair all the same). */
static void lose(struct gpd_nv_sampler *s)
{
	unsigned char record[GPM_OA_RECORD_HEADER_SIZE];
	size_t n = gpd_nv_report_builder_loss(&s->builder, record);
	if (batch_reserve(s, n)) {
		memcpy(s->batch + s->batch_len, record, n);
		s->batch_len += n;
	}
}

static void on_sample(void *user, uint64_t start_ns, uint64_t end_ns,
		      const double *values)
{
	struct gpd_nv_sampler *s = user;
	struct gpd_nv_sample sample = {
		.start_ns = start_ns, .end_ns = end_ns, .values = values,
	};
	if (!batch_reserve(s, GPD_NV_SAMPLE_RECORDS_MAX)) {
		lose(s);
		return;
	}
	s->batch_len += gpd_nv_report_builder_add(&s->builder, &sample,
						  s->batch + s->batch_len);
}

/* Hands the batch to the loop; when the loop is that far behind, drops it
 * and leaves a BUFFER_LOST record instead, since a dropped batch may hold
 * the start of a new pair. By the turn's holder. */
static void publish(struct gpd_nv_sampler *s)
{
	unsigned char lost[GPM_OA_RECORD_HEADER_SIZE];
	const unsigned char *data = s->batch;
	size_t len = s->batch_len;

	pthread_mutex_lock(&s->lock);
	if (s->out_len + len > MAX_QUEUED_BYTES) {
		len = gpd_nv_report_builder_loss(&s->builder, lost);
		data = lost;
		s->dropped_batches++;
	}
	if (s->out_len + len > s->out_cap) {
		size_t cap = s->out_cap ? s->out_cap : BATCH_INITIAL;
		while (cap < s->out_len + len)
			cap *= 2;
		unsigned char *out = realloc(s->out, cap);
		if (out) {
			s->out = out;
			s->out_cap = cap;
		}
	}
	if (len && s->out_len + len <= s->out_cap) {
		memcpy(s->out + s->out_len, data, len);
		s->out_len += len;
	}
	s->stats.reports = s->builder.stats;
	s->stats.dropped_batches = s->dropped_batches;
	s->stats.pm.evaluate_ns_max = s->evaluate_ns_max;
	s->stats.pm.reset_bytes = s->reset_bytes;
	pthread_mutex_unlock(&s->lock);
	s->batch_len = 0;
	uv_async_send(s->wake);
}

/* Copies the sampler thread's own statistics into stats, leaving the
 * turn's as they are. */
static void share_decoding(struct gpd_nv_sampler *s)
{
	pthread_mutex_lock(&s->lock);
	s->stats.sessions = s->mine.sessions;
	s->stats.overflows = s->mine.overflows;
	s->stats.failures = s->mine.failures;
	s->stats.evaluation_waits = s->mine.evaluation_waits;
	struct gpd_nv_pm_stats turns = s->stats.pm;
	s->stats.pm = s->mine.pm;
	s->stats.pm.evaluate_ns_max = turns.evaluate_ns_max;
	s->stats.pm.reset_bytes = turns.reset_bytes;
	pthread_mutex_unlock(&s->lock);
}

/* Waits until the evaluating thread holds no image: the turn is then the
 * sampler thread's. */
static void quiesce(struct gpd_nv_sampler *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->handed >= 0)
		pthread_cond_wait(&s->handoff, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* The evaluating thread: evaluates each image handed to it, empties it,
 * publishes its records and hands it back. */
static void *evaluate(void *arg)
{
	struct gpd_nv_sampler *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (s->handed < 0 && !s->stop_evaluating)
			pthread_cond_wait(&s->handoff, &s->lock);
		if (s->handed < 0)
			break;
		struct gpd_nv_pm_image *img = &s->pm.images[s->handed];
		pthread_mutex_unlock(&s->lock);

		char why[256];
		uint64_t began = monotonic_ns();
		int ret = gpd_nv_pm_image_evaluate(&s->pm, img, 0, on_sample, s,
						   why, sizeof(why));
		s->reset_bytes += gpd_nv_pm_image_reset(&s->pm, img);
		uint64_t took = monotonic_ns() - began;
		if (took > s->evaluate_ns_max)
			s->evaluate_ns_max = took;
		publish(s);

		pthread_mutex_lock(&s->lock);
		if (ret && !s->evaluation_error) {
			s->evaluation_error = ret;
			snprintf(s->evaluation_why, sizeof(s->evaluation_why),
				 "%s", why);
		}
		s->handed = -1;
		pthread_cond_broadcast(&s->handoff);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int open_session(struct gpd_nv_sampler *s, char *why, size_t size)
{
	const struct gpd_nv_plan *plan = &s->cfg.plan;
	int ret;

	if (plan->kind == GPD_NV_PLAN_PM) {
		struct gpd_nv_pm_schedule schedule;
		gpd_nv_pm_schedule_for(plan->interval_ns, plan->n, &schedule);
		uint64_t hw = (uint64_t)schedule.hardware_buffer_size
			      << s->buffer_doublings;
		schedule.hardware_buffer_size =
			(size_t)(hw < MAX_HW_BUFFER ? hw : MAX_HW_BUFFER);
		struct gpd_nv_pm_config pc = {
			.device_index = s->cfg.device_index,
			.metrics = plan->names,
			.n_metrics = plan->n,
			.interval_ns = plan->interval_ns,
			.schedule = &schedule,
			.stats = &s->mine.pm,
		};
		ret = gpd_nv_pm_session_open(&s->pm, s->cfg.libs, &pc, why, size);
	} else {
		ret = gpd_nv_telemetry_open(&s->telemetry, s->cfg.libs,
					    s->cfg.pci_bus_id, plan->names,
					    plan->n, why, size);
	}
	if (ret)
		return ret;
	s->session_open = true;
	s->filling = 0;
	s->mine.sessions++;
	gpd_nv_report_builder_restart(&s->builder, clock_offset_ns());
	return 0;
}

static void close_session(struct gpd_nv_sampler *s)
{
	if (!s->session_open)
		return;
	quiesce(s);
	if (s->cfg.plan.kind == GPD_NV_PLAN_PM)
		gpd_nv_pm_session_close(&s->pm);
	else
		gpd_nv_telemetry_close(&s->telemetry);
	s->session_open = false;
}

static uint64_t period_of(const struct gpd_nv_sampler *s)
{
	if (s->cfg.plan.kind == GPD_NV_PLAN_PM)
		return s->pm.schedule.decode_period_ns;
	uint64_t p = s->cfg.plan.interval_ns;
	return p < GPD_NV_TELEMETRY_MIN_PERIOD_NS ? GPD_NV_TELEMETRY_MIN_PERIOD_NS
						  : p;
}

/* Hands the image being filled to the evaluating thread and decodes into
 * the other from now on. While the evaluating thread still holds the
 * other, the image is filled further, unless it must not (it is full, or
 * short of room): then the sampler thread waits for the other. */
static void hand_off(struct gpd_nv_sampler *s, bool must)
{
	/* Read before the evaluating thread may empty it: a half-decoded
	 * sample left in it comes whole into the other. */
	const struct gpd_nv_pm_image *img = &s->pm.images[s->filling];
	uint64_t cut = img->populated - img->completed;

	pthread_mutex_lock(&s->lock);
	if (s->handed >= 0 && !must) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (s->handed >= 0)
		s->mine.evaluation_waits++;
	while (s->handed >= 0)
		pthread_cond_wait(&s->handoff, &s->lock);
	s->handed = (int)s->filling;
	pthread_cond_broadcast(&s->handoff);
	pthread_mutex_unlock(&s->lock);

	s->mine.pm.resets++;
	s->mine.pm.cut_samples += cut;
	s->filling = (s->filling + 1) % GPD_NV_PM_IMAGES;
}

/* Whether img has room for what the next decode may bring: what the GPU
 * sampled since the last decode, and a decode period more. A full image
 * loses samples (docs/nvidia-pm-sampling.md), so one short of room is
 * handed over first, waiting for the evaluating thread if it must. */
static bool room_for_next(const struct gpd_nv_sampler *s,
			  const struct gpd_nv_pm_image *img)
{
	const struct gpd_nv_pm_session *pm = &s->pm;
	uint64_t since = pm->last_decode_at ? monotonic_ns() - pm->last_decode_at
					    : 0;
	uint64_t coming = (since + pm->schedule.decode_period_ns) /
			  s->cfg.plan.interval_ns + 1;
	return img->populated + coming <= pm->schedule.max_samples;
}

/* One decode period of a PM session: the evaluating thread does the
 * rest. */
static int decode(struct gpd_nv_sampler *s, char *why, size_t size)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->evaluation_error) {
		ret = s->evaluation_error;
		snprintf(why, size, "%s", s->evaluation_why);
		s->evaluation_error = 0;
	}
	pthread_mutex_unlock(&s->lock);
	for (unsigned round = 0; !ret && round < GPD_NV_PM_MAX_DRAIN_ROUNDS;
	     round++) {
		struct gpd_nv_pm_image *img = &s->pm.images[s->filling];
		if (img->completed && !room_for_next(s, img)) {
			hand_off(s, true);
			img = &s->pm.images[s->filling];
		}
		bool full = false;
		int n = gpd_nv_pm_session_decode_into(&s->pm, img, &full, why,
						       size);
		if (n < 0)
			ret = n;
		else if (img->completed || full)
			hand_off(s, full);
		if (!full)
			break;
	}
	share_decoding(s);
	return ret;
}

/* One decode, or one telemetry read. */
static int step(struct gpd_nv_sampler *s, char *why, size_t size)
{
	if (s->cfg.plan.kind == GPD_NV_PLAN_PM)
		return decode(s, why, size);
	struct gpd_nv_sample sample;
	int ret = gpd_nv_telemetry_read(&s->telemetry, &sample, why, size);
	if (!ret) {
		on_sample(s, sample.start_ns, sample.end_ns, sample.values);
		publish(s);
	}
	return ret;
}

/* Opens a new session after one broke, as long as it takes; false when
 * asked to stop first. */
static bool reopen(struct gpd_nv_sampler *s)
{
	char why[256];
	int told = 0;

	for (;;) {
		int ret = open_session(s, why, sizeof(why));
		if (!ret) {
			if (told)
				notice(s, true, GPD_EVENT_RECOVERED,
				       "%s: sampling again", s->cfg.name);
			return true;
		}
		if (ret != told) {
			if (ret == -EBUSY)
				notice(s, true, GPD_EVENT_BUSY_ELSEWHERE,
				       "%s: PM sampling is busy elsewhere: another "
				       "profiler took the GPU (%s); retrying",
				       s->cfg.name, why);
			else
				notice(s, true, GPD_EVENT_DEVICE_LOST,
				       "%s: sampling stopped: %s; retrying",
				       s->cfg.name, why);
			told = ret;
			publish(s);
			share_decoding(s);
		}
		if (!wait_until(s, monotonic_ns() + s->cfg.retry_ns))
			return false;
	}
}

static void *run(void *arg)
{
	struct gpd_nv_sampler *s = arg;
	char why[256] = "";
	int ret = open_session(s, why, sizeof(why));

	pthread_mutex_lock(&s->lock);
	s->setup_done = true;
	s->setup_result = ret;
	snprintf(s->setup_why, sizeof(s->setup_why), "%s", why);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (ret)
		return NULL;

	uint64_t next = monotonic_ns() + period_of(s);
	while (wait_until(s, next)) {
		uint64_t now = monotonic_ns();
		/* A late step is not made up for with a burst of steps. */
		next += period_of(s);
		if (next <= now)
			next = now + period_of(s);
		ret = step(s, why, sizeof(why));
		if (!ret)
			continue;
		/* The evaluating thread finishes the image it holds before
		 * the loss is written after its records. */
		quiesce(s);
		lose(s);
		if (ret == -EOVERFLOW) {
			s->mine.overflows++;
			if (s->buffer_doublings < MAX_BUFFER_DOUBLINGS)
				s->buffer_doublings++;
		} else {
			s->mine.failures++;
		}
		notice(s, false, 0, "%s: %s; starting a new session",
		       s->cfg.name, why);
		close_session(s);
		publish(s);
		share_decoding(s);
		if (!reopen(s))
			break;
		/* Counted before the new session's samples can reach anyone. */
		share_decoding(s);
		next = monotonic_ns() + period_of(s);
	}
	close_session(s);
	quiesce(s);
	share_decoding(s);
	pthread_mutex_lock(&s->lock);
	s->stats.reports = s->builder.stats;
	s->stats.dropped_batches = s->dropped_batches;
	s->stats.pm.reset_bytes = s->reset_bytes;
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void free_buffers(struct gpd_nv_sampler *s)
{
	free(s->out);
	free(s->batch);
	s->out = s->batch = NULL;
	s->out_len = s->out_cap = s->batch_len = s->batch_cap = 0;
}

/* Ends the evaluating thread once it holds no image. */
static void stop_evaluating(struct gpd_nv_sampler *s)
{
	if (!s->evaluating)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop_evaluating = true;
	pthread_cond_broadcast(&s->handoff);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->evaluator, NULL);
	s->evaluating = false;
}

static void destroy_sync(struct gpd_nv_sampler *s)
{
	pthread_cond_destroy(&s->handoff);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
}

int gpd_nv_sampler_start(struct gpd_nv_sampler *s,
			 const struct gpd_nv_sampler_config *cfg,
			 uv_async_t *wake, char *why, size_t why_size)
{
	pthread_condattr_t attr;
	int ret;

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->wake = wake;
	ret = gpd_nv_report_builder_init(&s->builder, cfg->plan.slots,
					 cfg->plan.n, cfg->timestamp_frequency);
	if (ret) {
		snprintf(why, why_size, "the metric set's slots do not fit an "
			 "NVIDIA report");
		return ret;
	}
	s->handed = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&s->handoff, NULL);

	if (cfg->plan.kind == GPD_NV_PLAN_PM) {
		ret = -pthread_create(&s->evaluator, NULL, evaluate, s);
		if (ret) {
			snprintf(why, why_size, "cannot start the evaluating "
				 "thread: %s", strerror(-ret));
			destroy_sync(s);
			return ret;
		}
		s->evaluating = true;
	}
	ret = -pthread_create(&s->thread, NULL, run, s);
	if (ret) {
		snprintf(why, why_size, "cannot start the sampler thread: %s",
			 strerror(-ret));
		stop_evaluating(s);
		destroy_sync(s);
		return ret;
	}
	s->running = true;
	pthread_mutex_lock(&s->lock);
	while (!s->setup_done)
		pthread_cond_wait(&s->cond, &s->lock);
	ret = s->setup_result;
	snprintf(why, why_size, "%s", s->setup_why);
	pthread_mutex_unlock(&s->lock);
	if (ret)
		gpd_nv_sampler_stop(s);
	return ret;
}

void gpd_nv_sampler_stop(struct gpd_nv_sampler *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = false;
	stop_evaluating(s);
	destroy_sync(s);
	free_buffers(s);
}

void gpd_nv_sampler_take(struct gpd_nv_sampler *s, unsigned char **records,
			 size_t *len, size_t *cap, struct gpd_nv_notice *notices,
			 unsigned *n_notices, struct gpd_nv_sampler_stats *stats)
{
	pthread_mutex_lock(&s->lock);
	unsigned char *mine = *records;
	size_t mine_cap = *cap;
	*records = s->out;
	*len = s->out_len;
	*cap = s->out_cap;
	s->out = mine;
	s->out_cap = mine_cap;
	s->out_len = 0;
	memcpy(notices, s->notices, s->n_notices * sizeof(*notices));
	*n_notices = s->n_notices;
	s->n_notices = 0;
	*stats = s->stats;
	pthread_mutex_unlock(&s->lock);
}
