/*
 * OA streams of the fake kernel: the OA model, paced by the monotonic
 * clock, behind an eventfd that is readable while the stream's pollin is
 * set, as poll() on the kernel's stream fds reports it.
 *
 * A thread plays the poll hrtimer of both kernels (Linux 6.12 i915_perf.c
 * oa_poll_check_timer_cb(), Linux 7.0 xe_oa.c xe_oa_poll_check_timer_cb()):
 * every poll period, while the stream is enabled, it brings the model up
 * to date and sets pollin once at least one report waits (xe: the stream's
 * wait_num_reports). A read clears pollin unless it ended with ENOSPC (xe:
 * or EIO).
 *
 * i915 (i915_perf_read(), gen8_oa_read()): reads fail with EIO while the
 * stream is disabled; a read returns what the hrtimer last found, as
 * records, with BUFFER_LOST and a buffer reset after an overflow and the
 * context rules of gen8_append_oa_reports().
 *
 * xe (xe_oa_read(), __xe_oa_read()): a read of a stream without SAMPLE_OA
 * fails with EINVAL; else it first brings the tail up to
 * date, then reads and clears the status; any status bit fails the read
 * with EIO before a single report is copied, and the reports stay in the
 * buffer for the next read. STATUS returns what that read found and
 * clears nothing. xe never resets the buffer on an overflow nor touches a
 * report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

/* Where the sim source starts its model, so that both give the same
 * reports for the same seed. */
#define FK_START_TIMESTAMP 0x80000000u
/* A hardware context ID no workload context has (they are 1..0x7ff): what
 * a stream filtering on a context that never runs looks for. */
#define FK_NO_HW_CONTEXT 0

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The unit's timestamp now: it counts on from its first stream's open,
 * streams or not. */
static uint64_t unit_timestamp(struct fk_unit *unit, uint64_t now)
{
	if (!unit->boot_ns)
		unit->boot_ns = now;
	return FK_START_TIMESTAMP + unit->stalled_ticks +
	       (uint64_t)((unsigned __int128)(now - unit->boot_ns) *
			  unit->timestamp_frequency / 1000000000ull);
}

static int make_model(struct fk_card *card, const struct fk_stream_params *p,
		      bool filter, uint32_t context_id, uint64_t now,
		      struct gpd_oa_model **out)
{
	char guid[37];
	const struct gpm_oa_format *layout = fk_format_layout(p->format);
	*out = NULL;
	if (!layout)
		return 0;       /* accepted, and the model writes no reports */
	if (fk_config_guid(card, p->set_id, guid))
		return -EINVAL;
	/* The unit's clock: on xe a media GT's OAM unit runs at its
	 * reference clock. */
	struct gpm_device_info dev = card->info;
	dev.timestamp_frequency = p->unit->timestamp_frequency;
	struct gpd_oa_model_config mc = {
		.dev = &dev,
		.format = layout,
		.exponent = p->exponent,
		.seed = fk.seed,
		.buffer_size = p->buffer_size ? p->buffer_size : FK_OA_BUFFER_SIZE,
		.set = fk_find_set(card, guid),
		.start_timestamp = unit_timestamp(p->unit, now),
		.filter_context = filter,
		.filter_context_id = context_id,
	};
	mc.workload.report_loss_probability = fk_control()->report_loss;
	return gpd_oa_model_create(&mc, out);
}

uint32_t fk_workload_context_id(const struct fk_card *card, unsigned index)
{
	/* The IDs follow from the seed alone, as the model's workload draws
	 * them. */
	struct gpd_workload wl;
	const struct gpd_workload_clocks clocks = {
		.timestamp_frequency = card->info.timestamp_frequency,
		.gpu_min_freq = card->info.gpu_min_freq,
		.gpu_max_freq = card->info.gpu_max_freq,
	};
	if (gpd_workload_init(&wl, NULL, &clocks, fk.seed))
		return FK_NO_HW_CONTEXT;
	return gpd_workload_context_id(&wl, index % gpd_workload_n_contexts(&wl));
}

bool fk_inject_einval(struct fk_card *card, uint64_t set_id)
{
	char what[16];
	if (!*fk_take_einval(what, sizeof(what)))
		return false;
	if (!strcmp(what, "set"))
		fk_config_remove(card, set_id);
	fk_log("card%u stream open refused for its %s (injected)", card->index, what);
	return true;
}

/* Brings the model to now plus extra ticks, and lets a pending i915
 * configuration take effect once the GPU idles, when the low-priority
 * kernel context that carries it runs (i915_perf_config_locked(): "it
 * will effectively take effect when idle"). Called with the lock held. */
static void advance(struct fk_stream *s, uint64_t extra)
{
	uint64_t freq = s->unit->timestamp_frequency;
	uint64_t now = now_ns();
	uint64_t elapsed = now - s->last_ns + s->remainder_ns;
	s->last_ns = now;
	uint64_t ticks = (uint64_t)((unsigned __int128)elapsed * freq / 1000000000ull);
	s->remainder_ns = elapsed -
		(uint64_t)((unsigned __int128)ticks * 1000000000ull / freq);
	if (!s->model)
		return;
	s->unit->stalled_ticks += extra;
	gpd_oa_model_advance(s->model, ticks + extra);
	if (s->pending_set_id && gpd_oa_model_idle(s->model)) {
		char guid[37];
		if (!fk_config_guid(s->card, s->pending_set_id, guid)) {
			const struct gpm_metric_set *set = fk_find_set(s->card, guid);
			if (set)
				gpd_oa_model_set_metric_set(s->model, set, NULL);
		}
		fk_log("card%u stream config id=%llu in effect from OA tick %llu",
		       s->card->index, (unsigned long long)s->pending_set_id,
		       (unsigned long long)gpd_oa_model_time(s->model));
		s->pending_set_id = 0;
	}
}

static bool reports_wait(const struct fk_stream *s)
{
	if (!s->model)
		return false;
	return gpd_oa_model_pending_reports(s->model) >=
	       (s->card->driver == FK_XE ? s->wait_num_reports : 1);
}

static void set_pollin(struct fk_stream *s)
{
	uint64_t one = 1;
	if (s->pollin)
		return;
	s->pollin = true;
	if (write(s->fd, &one, sizeof(one)) != sizeof(one))
		fk_log("card%u stream: cannot signal poll", s->card->index);
}

static void clear_pollin(struct fk_stream *s)
{
	uint64_t count;
	s->pollin = false;
	fk_real_read(s->fd, &count, sizeof(count));
}

static void *poll_timer(void *arg)
{
	struct fk_stream *s = arg;
	pthread_mutex_lock(&s->lock);
	struct timespec at;
	clock_gettime(CLOCK_MONOTONIC, &at);
	while (!s->stopping) {
		uint64_t next = (uint64_t)at.tv_nsec + s->poll_period_ns;
		at.tv_sec += (time_t)(next / 1000000000ull);
		at.tv_nsec = (long)(next % 1000000000ull);
		while (!s->stopping &&
		       pthread_cond_timedwait(&s->wake, &s->lock, &at) != ETIMEDOUT)
			;
		if (s->stopping || !s->enabled)
			continue;
		advance(s, 0);
		if (reports_wait(s))
			set_pollin(s);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int fk_stream_open(struct fk_card *card, const struct fk_stream_params *p)
{
	struct gpd_oa_model *model;
	uint32_t context_id = FK_NO_HW_CONTEXT;
	uint64_t now = now_ns();
	int ret;
	if (p->filter_context && p->context_index >= 0)
		context_id = fk_workload_context_id(card, (unsigned)p->context_index);
	ret = make_model(card, p, p->filter_context, context_id, now, &model);
	if (ret)
		return ret;
	struct fk_stream *s = calloc(1, sizeof(*s));
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!s || fd < 0 || fd >= FK_MAX_FDS) {
		if (fd >= 0)
			close(fd);
		free(s);
		gpd_oa_model_destroy(model);
		return -EMFILE;
	}
	s->card = card;
	s->unit = p->unit;
	s->fd = fd;
	s->model = model;
	s->set_id = p->set_id;
	s->context_counters = p->context_counters;
	memcpy(s->counted_context, p->counted_context, sizeof(s->counted_context));
	s->no_sample = p->no_sample;
	s->poll_period_ns = p->poll_period_ns;
	s->wait_num_reports = p->wait_num_reports ? p->wait_num_reports : 1;
	s->buffer_size = p->buffer_size ? p->buffer_size : FK_OA_BUFFER_SIZE;
	s->last_ns = now;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (!p->disabled)
		fk_stream_enable(s);
	s->timer_running = pthread_create(&s->timer, NULL, poll_timer, s) == 0;
	/* The open waits for the configuration (i915_perf_stream_enable_sync(),
	 * xe_oa_emit_oa_config()): it is in effect from the first report. */
	fk_log("card%u stream config id=%llu in effect from OA tick %llu",
	       card->index, (unsigned long long)p->set_id,
	       (unsigned long long)(model ? gpd_oa_model_time(model) : 0));
	/* gen12_configure_oar_context(), xe_oa_configure_oa_context(): the
	 * open programs the context's own counters, which its batches read
	 * with MI_REPORT_PERF_COUNT. */
	if (p->context_counters)
		fk_log("card%u %s: %s counters on in its context (OACTXCONTROL "
		       "counter resume, %s_OACONTROL format and counter enable, "
		       "CTX_CONTEXT_CONTROL per-context OA enable)", card->index,
		       p->counted_context, p->context_counters,
		       p->context_counters);
	p->unit->stream = s;
	fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_STREAM, .card = card, .stream = s };
	return fd;
}

void fk_stream_close(struct fk_stream *s)
{
	/* gen12_disable_metric_set(), xe_oa_disable_metric_set(): the
	 * context's OAR/OAC counters go off with the stream. */
	if (s->context_counters)
		fk_log("card%u %s: %s counters off in its context", s->card->index,
		       s->counted_context, s->context_counters);
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (s->timer_running)
		pthread_join(s->timer, NULL);
	if (s->unit->stream == s)
		s->unit->stream = NULL;
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	gpd_oa_model_destroy(s->model);
	free(s);
}

static void enable_locked(struct fk_stream *s)
{
	if (s->enabled)
		return;
	s->enabled = true;
	if (s->model)
		gpd_oa_model_enable(s->model);
	s->last_ns = now_ns();
	s->remainder_ns = 0;
	clear_pollin(s);
}

void fk_stream_enable(struct fk_stream *s)
{
	pthread_mutex_lock(&s->lock);
	enable_locked(s);
	pthread_mutex_unlock(&s->lock);
}

void fk_stream_disable(struct fk_stream *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->enabled) {
		/* xe_oa_stream_disable() brings the tail up to date so that
		 * the last reports can still be read. */
		advance(s, 0);
		s->enabled = false;
		if (s->model)
			gpd_oa_model_disable(s->model);
		if (s->card->driver == FK_XE && reports_wait(s))
			set_pollin(s);
	}
	pthread_mutex_unlock(&s->lock);
}

int fk_stream_set_config(struct fk_stream *s, uint64_t set_id, uint64_t *prev)
{
	char guid[37];
	if (fk_config_guid(s->card, set_id, guid))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	*prev = s->set_id;
	if (set_id != s->set_id) {
		s->set_id = set_id;
		if (s->card->driver == FK_I915) {
			s->pending_set_id = set_id;
		} else if (s->model) {
			/* xe_oa_emit_oa_config() waits for the batch
			 * (dma_fence_wait) when no sync is given. */
			const struct gpm_metric_set *set = fk_find_set(s->card, guid);
			if (set)
				gpd_oa_model_set_metric_set(s->model, set, NULL);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

uint64_t fk_stream_buffer_size(const struct fk_stream *s)
{
	return s->buffer_size;
}

uint64_t fk_stream_status(struct fk_stream *s)
{
	pthread_mutex_lock(&s->lock);
	uint64_t status = s->xe_status;
	pthread_mutex_unlock(&s->lock);
	return status;
}

/* A GPU reset wipes the programming of every OA unit of the card. */
static void gpu_reset(struct fk_card *card)
{
	fk_log("card%u GPU reset: the OA units lose their programming", card->index);
	for (unsigned u = 0; u < card->n_units; u++) {
		struct fk_stream *s = card->units[u].stream;
		if (!s || !s->model)
			continue;
		pthread_mutex_lock(&s->lock);
		advance(s, 0);
		gpd_oa_model_reset_unit(s->model);
		pthread_mutex_unlock(&s->lock);
	}
}

static ssize_t read_i915(struct fk_stream *s, void *buf, size_t len)
{
	if (!s->enabled)
		return -EIO;
	if (fk_take_eio()) {
		s->enabled = false;
		if (s->model)
			gpd_oa_model_disable(s->model);
		fk_log("card%u stream read -> EIO (disabled through its fd)",
		       s->card->index);
		return -EIO;
	}
	/* What the hrtimer last found: i915 does not look at the tail on a
	 * non-blocking read. A stall moves time on at once. */
	uint64_t stall_ms = fk_take_stall_ms();
	if (stall_ms) {
		fk_log("card%u stream stall %llu ms", s->card->index,
		       (unsigned long long)stall_ms);
		advance(s, stall_ms * s->unit->timestamp_frequency / 1000);
	}
	return s->model ? gpd_oa_model_read(s->model, buf, len) : -EAGAIN;
}

static ssize_t read_xe(struct fk_stream *s, void *buf, size_t len)
{
	/* xe_oa_read(): a stream without SAMPLE_OA has no buffer to read. */
	if (s->no_sample)
		return -EINVAL;
	uint64_t stall_ms = fk_take_stall_ms();
	if (stall_ms)
		fk_log("card%u stream stall %llu ms", s->card->index,
		       (unsigned long long)stall_ms);
	/* xe_oa_buffer_check_unlocked() first, on a non-blocking read. */
	advance(s, stall_ms * s->unit->timestamp_frequency / 1000);
	if (!s->model)
		return -EAGAIN;
	s->xe_status = gpd_oa_model_take_status(s->model);
	if (s->xe_status) {
		fk_log("card%u stream read -> EIO status=0x%llx", s->card->index,
		       (unsigned long long)s->xe_status);
		return -EIO;
	}
	return gpd_oa_model_read_reports(s->model, buf, len);
}

ssize_t fk_stream_read(struct fk_stream *s, void *buf, size_t len)
{
	if (fk_take_gpu_reset())
		gpu_reset(s->card);
	pthread_mutex_lock(&s->lock);
	ssize_t n = s->card->driver == FK_I915 ? read_i915(s, buf, len)
					       : read_xe(s, buf, len);
	if (n != -ENOSPC && !(s->card->driver == FK_XE && n == -EIO))
		clear_pollin(s);
	pthread_mutex_unlock(&s->lock);
	if (n < 0 && n != -EAGAIN && n != -EIO)
		fk_log("card%u stream read -> %s", s->card->index, fk_errname((int)n));
	return n;
}
