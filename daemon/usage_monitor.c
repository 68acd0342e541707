/*
 * A device's usage stream: readings on a grid, shared by subscribers of
 * one interval, differences per subscriber, totals once (see
 * usage_monitor.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/usage_monitor.h"

/* A reading this recent serves a subscriber whose tick comes now: the
 * ticks of one grid point fire in one turn of the loop. */
#define FRESH_NS 5000000ull

struct gpd_usage_subscription {
	struct gpd_usage_monitor *monitor;
	struct gpd_usage_subscription *next;
	uv_timer_t timer;
	uint64_t interval_ns;
	bool processes;
	const struct gpd_usage_subscriber_ops *ops;
	void *user;
	struct gpd_usage_reading prev;
	struct gpd_usage_frame frame;
};

struct gpd_usage_monitor {
	uv_loop_t *loop;
	struct gpd_usage_source *source;
	struct gpd_usage_subscription *subs;
	unsigned n_subs;
	/* The newest reading, and the one the totals were last summed to. */
	struct gpd_usage_reading latest;
	bool have_latest;
	struct gpd_usage_reading summed;
	bool have_summed;
	struct gpd_usage_frame scratch;
	struct gpd_usage_totals totals;
	unsigned pending_closes;        /* timers of subscriptions closing */
	bool closing;
};

static void free_monitor(struct gpd_usage_monitor *m)
{
	m->source->ops->destroy(m->source);
	gpd_usage_reading_fini(&m->latest);
	gpd_usage_reading_fini(&m->summed);
	gpd_usage_frame_fini(&m->scratch);
	gpd_usage_totals_fini(&m->totals);
	free(m);
}

int gpd_usage_monitor_create(uv_loop_t *loop, struct gpd_usage_source *source,
			     struct gpd_usage_monitor **out)
{
	struct gpd_usage_monitor *m = calloc(1, sizeof(*m));
	if (!m) {
		source->ops->destroy(source);
		return -ENOMEM;
	}
	m->loop = loop;
	m->source = source;
	gpd_usage_reading_init(&m->latest);
	gpd_usage_reading_init(&m->summed);
	gpd_usage_frame_init(&m->scratch);
	gpd_usage_totals_init(&m->totals);
	*out = m;
	return 0;
}

const struct gpd_usage_layout *
gpd_usage_monitor_layout(const struct gpd_usage_monitor *m)
{
	return &m->source->layout;
}

const struct gpd_usage_totals *
gpd_usage_monitor_totals(const struct gpd_usage_monitor *m)
{
	return &m->totals;
}

uint64_t gpd_usage_subscription_interval(const struct gpd_usage_subscription *s)
{
	return s->interval_ns;
}

static bool want_processes(const struct gpd_usage_monitor *m)
{
	for (const struct gpd_usage_subscription *s = m->subs; s; s = s->next)
		if (s->processes)
			return true;
	return false;
}

/* Sums the interval from the last summed reading to latest. */
static void sum_latest(struct gpd_usage_monitor *m)
{
	const struct gpd_usage_layout *layout = &m->source->layout;
	if (m->have_summed &&
	    (gpd_usage_diff(layout, &m->summed, &m->latest, &m->scratch) ||
	     gpd_usage_totals_add(&m->totals, layout, &m->scratch)))
		gpd_warn("out of memory summing usage: the totals miss an "
			 "interval");
	m->have_summed = !gpd_usage_reading_copy(&m->summed, &m->latest);
}

/* The reading for a tick now: latest when fresh enough (unless fresh
 * asks for a new one), else a new one. */
static int read_now(struct gpd_usage_monitor *m, bool processes, bool fresh)
{
	uint64_t now = gpd_monotonic_ns();
	if (!fresh && m->have_latest && now - m->latest.time_ns < FRESH_NS &&
	    (m->latest.processes_read || !processes))
		return 0;
	struct gpd_error err = { 0 };
	gpd_usage_reading_clear(&m->latest);
	m->have_latest = false;
	int ret = m->source->ops->read(m->source, &m->latest,
				       want_processes(m), &err);
	if (ret) {
		gpd_warn("reading usage: %s", err.message);
		return ret;
	}
	if (!m->latest.time_ns)
		m->latest.time_ns = now;
	gpd_usage_reading_sort(&m->latest);
	m->have_latest = true;
	sum_latest(m);
	return 0;
}

/* Delay to the next point of s's grid, at least a quarter interval. */
static uint64_t delay_ms(const struct gpd_usage_subscription *s)
{
	uint64_t now = gpd_monotonic_ns();
	uint64_t delay = s->interval_ns - now % s->interval_ns;
	if (delay < s->interval_ns / 4)
		delay += s->interval_ns;
	return (delay + 999999) / 1000000;
}

static void fill_totals(const struct gpd_usage_monitor *m,
			struct gpd_usage_frame *f)
{
	for (size_t i = 0; i < f->n_processes; i++) {
		const struct gpd_usage_process_total *t =
			gpd_usage_totals_process(&m->totals, f->processes[i].pid);
		f->processes[i].gpu_time_total_ns = t ? t->gpu_time_ns :
						    f->processes[i].gpu_time_ns;
	}
}

/* s's frame from its last reading to now, unless no time passed; fresh:
 * from a reading of its own, however recent another's. */
static void deliver(struct gpd_usage_subscription *s, bool fresh)
{
	struct gpd_usage_monitor *m = s->monitor;

	if (read_now(m, s->processes, fresh) ||
	    m->latest.time_ns <= s->prev.time_ns)
		return;
	if (gpd_usage_diff(&m->source->layout, &s->prev, &m->latest, &s->frame)) {
		gpd_warn("out of memory making a usage frame: one dropped");
		return;
	}
	if (gpd_usage_reading_copy(&s->prev, &m->latest))
		gpd_warn("out of memory keeping a usage reading");
	if (!s->processes) {
		s->frame.processes_read = false;
		s->frame.n_processes = 0;
	}
	fill_totals(m, &s->frame);
	s->ops->frame(s->user, &s->frame);
}

static void on_tick(uv_timer_t *timer)
{
	struct gpd_usage_subscription *s = timer->data;

	uv_timer_start(&s->timer, on_tick, delay_ms(s), 0);
	deliver(s, false);
}

void gpd_usage_flush(struct gpd_usage_subscription *s)
{
	/* The reading a subscriber started from may be the newest: a
	 * subscriber of a few ms gets their frame all the same. */
	deliver(s, true);
}

int gpd_usage_check_interval(uint64_t interval_ns, struct gpd_error *err)
{
	if (interval_ns && (interval_ns < GPD_USAGE_MIN_INTERVAL_NS ||
			    interval_ns > GPD_USAGE_MAX_INTERVAL_NS))
		return gpd_fail(err, -EINVAL, "a usage interval is from 100 ms "
				"to 1 h; %llu ns is not",
				(unsigned long long)interval_ns);
	return 0;
}

int gpd_usage_subscribe(struct gpd_usage_monitor *m, uint64_t interval_ns,
			bool processes, const struct gpd_usage_subscriber_ops *ops,
			void *user, struct gpd_usage_subscription **out,
			struct gpd_error *err)
{
	if (!interval_ns)
		interval_ns = GPD_USAGE_DEFAULT_INTERVAL_NS;
	int ret = gpd_usage_check_interval(interval_ns, err);
	if (ret)
		return ret;
	struct gpd_usage_subscription *s = calloc(1, sizeof(*s));
	if (!s)
		return gpd_fail(err, -ENOMEM, "out of memory");
	s->monitor = m;
	s->interval_ns = interval_ns;
	s->processes = processes;
	s->ops = ops;
	s->user = user;
	gpd_usage_reading_init(&s->prev);
	gpd_usage_frame_init(&s->frame);
	s->next = m->subs;
	m->subs = s;
	m->n_subs++;
	/* The first reading is the subscriber's starting point. */
	ret = read_now(m, processes, false);
	if (!ret)
		ret = gpd_usage_reading_copy(&s->prev, &m->latest);
	if (ret) {
		m->subs = s->next;
		m->n_subs--;
		gpd_usage_reading_fini(&s->prev);
		gpd_usage_frame_fini(&s->frame);
		free(s);
		return gpd_fail(err, ret, "out of memory");
	}
	uv_timer_init(m->loop, &s->timer);
	s->timer.data = s;
	uv_timer_start(&s->timer, on_tick, delay_ms(s), 0);
	*out = s;
	return 0;
}

static void on_sub_closed(uv_handle_t *handle)
{
	struct gpd_usage_subscription *s = handle->data;
	struct gpd_usage_monitor *m = s->monitor;
	gpd_usage_reading_fini(&s->prev);
	gpd_usage_frame_fini(&s->frame);
	free(s);
	if (--m->pending_closes == 0 && m->closing)
		free_monitor(m);
}

static void end_subscription(struct gpd_usage_subscription *s)
{
	struct gpd_usage_monitor *m = s->monitor;
	for (struct gpd_usage_subscription **p = &m->subs; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			m->n_subs--;
			break;
		}
	}
	m->pending_closes++;
	uv_timer_stop(&s->timer);
	uv_close((uv_handle_t *)&s->timer, on_sub_closed);
	if (!m->subs) {
		/* Counters read after a reopen start over. */
		m->source->ops->close(m->source);
		m->have_latest = false;
		m->have_summed = false;
	}
}

void gpd_usage_unsubscribe(struct gpd_usage_subscription *s)
{
	if (s)
		end_subscription(s);
}

void gpd_usage_monitor_close(struct gpd_usage_monitor *m)
{
	if (!m)
		return;
	m->closing = true;
	while (m->subs)
		end_subscription(m->subs);
	if (!m->pending_closes)
		free_monitor(m);
}
