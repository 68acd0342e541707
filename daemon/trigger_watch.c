/*
 * A trigger of the daemon's configuration watching a device (see
 * trigger_watch.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <uv.h>

#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/snapshot.h"
#include "daemon/subscription.h"
#include "daemon/trigger_save.h"
#include "daemon/trigger_watch.h"
#include "metrics/metric_set.h"
#include "metrics/trigger.h"

/* The windows the condition is checked over, of GPU time. */
#define WATCH_WINDOW_NS 10000000ull
/* Past --trigger-after, what the daemon may still have to read of the
 * unit's buffer before the ring holds the span. */
#define READ_SLACK_MS 100

struct gpd_trigger_watch {
	/* NULL once stopped: the device may be gone. */
	struct gpd_device *dev;
	struct gpd_subscription *sub;   /* NULL once stopped or retired */
	struct gpd_trigger_counts *counts;
	char device[64];
	struct gpd_trigger_dir dir;     /* path: its own copy */
	struct gpd_trigger_saver *saver;
	char text[256];
	struct gpm_trigger trigger;
	struct gpm_trigger_state state;
	long counter;                   /* in the subscription's; -1: none */
	bool waiting_said;              /* that the set lacks the counter */
	/* The firing in flight, from the moment it fired until its snapshot
	 * is written or has failed: waiting for --trigger-after, then
	 * being saved. */
	bool pending;
	uint64_t fired_cpu_ns;
	uint64_t fired_wall_s;
	uint64_t fired_episode;
	uv_timer_t after;
	/* Retired by a reload, with a firing still in flight: in the
	 * daemon's list of those (pprev NULL when in none). */
	struct gpd_trigger_watch **pprev, *next;
};

/* ------------------------------------------------------------------ */
/* Saving a firing                                                      */

/* Tells the device's subscribers, and the log. */
static void announce(struct gpd_trigger_watch *w, bool failed,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void announce(struct gpd_trigger_watch *w, bool failed,
		     const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	gpd_log(failed ? GPD_LOG_WARNING : GPD_LOG_INFO, "%s: %s", w->device,
		message);
	if (w->dev)
		gpd_device_announce(w->dev, GPD_EVENT_TRIGGER_FIRED, message);
}

static void unlink_retired(struct gpd_trigger_watch *w)
{
	if (!w->pprev)
		return;
	*w->pprev = w->next;
	if (w->next)
		w->next->pprev = w->pprev;
	w->pprev = NULL;
	w->next = NULL;
}

static void on_closed(uv_handle_t *handle)
{
	struct gpd_trigger_watch *w = handle->data;
	free((char *)w->dir.path);
	free(w);
}

/* A watch no longer watching, with nothing in flight, goes. */
static void release_if_done(struct gpd_trigger_watch *w)
{
	if (w->sub || w->pending)
		return;
	unlink_retired(w);
	if (w->dev)
		gpd_device_trigger_counts_put(w->dev, w->counts);
	w->counts = NULL;
	w->dev = NULL;
	uv_close((uv_handle_t *)&w->after, on_closed);
}

/* The firing is over: saved, or said why not. */
static void firing_done(struct gpd_trigger_watch *w, bool saved)
{
	if (w->counts) {
		if (saved)
			w->counts->saved++;
		else
			w->counts->failed++;
	}
	w->pending = false;
	release_if_done(w);
}

static void on_saved(struct gpd_trigger_save *save)
{
	struct gpd_trigger_watch *w = save->user;
	if (save->ret)
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); the snapshot "
			 "was not saved: %s", w->text, w->fired_episode,
			 save->err.message);
	else
		announce(w, false, "trigger '%s' fired (%" PRIu64 "); saved %s "
			 "(%.3g MB)", w->text, w->fired_episode, save->names,
			 (double)save->bytes / 1e6);
	bool saved = !save->ret;
	free(save);
	firing_done(w, saved);
}

/* The span of the firing is in the ring: its copy goes to the saver. */
static void save(struct gpd_trigger_watch *w)
{
	const struct gpd_trigger_dir *dir = &w->dir;
	struct gpd_trigger_save *save = calloc(1, sizeof(*save));
	if (!save) {
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); no snapshot: "
			 "out of memory", w->text, w->fired_episode);
		firing_done(w, false);
		return;
	}
	struct gpd_error err = { 0 };
	uint64_t from = w->fired_cpu_ns > dir->before_ns ?
			w->fired_cpu_ns - dir->before_ns : 1;
	int ret = gpd_snapshot_take(w->dev, from, w->fired_cpu_ns + dir->after_ns,
				    &save->snap, &err);
	if (ret) {
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); no snapshot: "
			 "%s", w->text, w->fired_episode, err.message);
		free(save);
		firing_done(w, false);
		return;
	}
	if (save->snap.size > dir->max_bytes) {
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); its snapshot "
			 "of %.3g MB is more than --trigger-dir-max (%.3g MB) "
			 "allows, so it is not written", w->text,
			 w->fired_episode, (double)save->snap.size / 1e6,
			 (double)dir->max_bytes / 1e6);
		gpd_snapshot_free(&save->snap);
		free(save);
		firing_done(w, false);
		return;
	}
	char stamp[32];
	time_t wall = (time_t)w->fired_wall_s;
	struct tm tm;
	if (!localtime_r(&wall, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%" PRIu64, w->fired_wall_s);
	snprintf(save->dir, sizeof(save->dir), "%s", dir->path);
	snprintf(save->stem, sizeof(save->stem), "%s/" GPD_TRIGGER_FILE_PREFIX
		 "%s-%s-%" PRIu64, dir->path, w->device, stamp, w->fired_episode);
	save->max_bytes = dir->max_bytes;
	save->done = on_saved;
	save->user = w;
	gpd_trigger_saver_queue(w->saver, save);
}

static void on_after(uv_timer_t *timer)
{
	save(timer->data);
}

/* ------------------------------------------------------------------ */
/* The windows                                                          */

/* The counter's place in the subscription's counters, and its unit. */
static int bind_counter(struct gpd_trigger_watch *w, struct gpd_error *err)
{
	w->counter = -1;
	w->state.held_ns = w->state.cleared_ns = 0;
	const char *units = NULL;
	if (!w->trigger.lost) {
		const char *const *symbols;
		size_t n = gpd_subscription_counters(w->sub, &symbols);
		for (size_t i = 0; i < n; i++)
			if (!strcasecmp(symbols[i], w->trigger.subject))
				w->counter = (long)i;
		const struct gpm_metric_set *set = w->dev->set;
		int k = w->counter >= 0 && set ?
			gpm_metric_set_find_counter(set, symbols[w->counter]) :
			-ENOENT;
		if (k < 0) {
			w->counter = -1;
			return -ENOENT;
		}
		units = set->counters[k].units;
	}
	struct gpm_trigger_error terr;
	if (gpm_trigger_bind(&w->trigger, units, &terr)) {
		char text[1024];
		gpm_trigger_error_text(w->text, &terr, text, sizeof(text));
		w->counter = -1;
		return gpd_fail(err, -EINVAL, "--trigger: %s", text);
	}
	if (w->trigger.lost)
		w->counter = 0;
	return 0;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct gpd_trigger_watch *w = user;
	if (w->counter < 0)
		return;
	double value = NAN;
	if (w->trigger.lost)
		value = (double)f->lost_reports + f->buffer_lost;
	else if (f->reports && (size_t)w->counter < f->n_values)
		value = gpm_value_as_double(f->values[w->counter]);
	if (!gpm_trigger_step(&w->trigger, &w->state, value,
			      f->gpu_end_ns - f->gpu_start_ns))
		return;
	if (w->counts)
		w->counts->firings++;
	if (w->pending) {
		if (w->counts)
			w->counts->skipped++;
		announce(w, true, "trigger '%s' fired (%" PRIu64 ") while the "
			 "snapshot of the one before is still being saved; this "
			 "one is not saved (%" PRIu64 " so far)", w->text,
			 w->state.episodes, w->counts ? w->counts->skipped : 0);
		return;
	}
	w->pending = true;
	w->fired_cpu_ns = f->cpu_end_ns;
	w->fired_wall_s = (uint64_t)time(NULL);
	w->fired_episode = w->state.episodes;
	gpd_info("%s: trigger '%s': episode %" PRIu64 " began; its snapshot "
		 "follows --trigger-after (%.3g s)", w->device, w->text,
		 w->fired_episode, (double)w->dir.after_ns / 1e9);
	uv_timer_start(&w->after, on_after,
		       w->dir.after_ns / 1000000 + READ_SLACK_MS, 0);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct gpd_trigger_watch *w = user;
	if (ev->kind != GPD_EVENT_CONFIG_CHANGED)
		return;
	struct gpd_error err = { 0 };
	int ret = bind_counter(w, &err);
	if (!ret) {
		if (w->waiting_said)
			gpd_info("%s: trigger '%s' watches %s again",
				 w->dev->source->name, w->text,
				 w->dev->set->symbol_name);
		w->waiting_said = false;
	} else if (!w->waiting_said) {
		gpd_warn("%s: trigger '%s' waits: %s", w->dev->source->name,
			 w->text, ret == -ENOENT ? "the set streamed now lacks "
			 "its counter" : err.message);
		w->waiting_said = true;
	}
}

static const struct gpd_subscriber_ops watch_ops = {
	.frame = on_frame,
	.event = on_event,
};

/* ------------------------------------------------------------------ */
/* Starting and stopping                                                */

/* The trigger's counter in set, and its unit (NULL for `lost`). */
static int find_counter(const struct gpm_metric_set *set,
			const struct gpm_trigger *t, const char **units,
			struct gpd_error *err)
{
	*units = NULL;
	if (t->lost || !set)
		return 0;
	int k = gpm_metric_set_lookup_counter(set, t->subject);
	if (k < 0) {
		const char *close = gpm_metric_set_closest_counter(set, t->subject);
		return gpd_fail(err, -ENOENT, "metric set %s has no counter '%s'; "
				"%s%s%slist them with 'gpuperf counters %s'",
				set->symbol_name, t->subject,
				close ? "did you mean " : "", close ? close : "",
				close ? "? " : "", set->symbol_name);
	}
	*units = set->counters[k].units;
	return 0;
}

int gpd_trigger_watch_check(const struct gpd_device *dev, const char *text,
			    struct gpd_error *err)
{
	struct gpm_trigger t;
	struct gpm_trigger_error terr;
	char words[1024];
	if (gpm_trigger_parse(text, &t, &terr)) {
		gpm_trigger_error_text(text, &terr, words, sizeof(words));
		return gpd_fail(err, -EINVAL, "--trigger: %s", words);
	}
	const char *units;
	int ret = find_counter(dev->set, &t, &units, err);
	if (ret) {
		snprintf(words, sizeof(words), "%s", err->message);
		return gpd_fail(err, ret, "--trigger %s: %s", text, words);
	}
	if ((units || t.lost) && gpm_trigger_bind(&t, units, &terr)) {
		gpm_trigger_error_text(text, &terr, words, sizeof(words));
		return gpd_fail(err, -EINVAL, "--trigger: %s", words);
	}
	return 0;
}

int gpd_trigger_watch_start(const struct gpd_device_registry *devices,
			    struct gpd_device *dev, const char *text,
			    const struct gpd_trigger_dir *dir,
			    struct gpd_trigger_saver *saver,
			    struct gpd_trigger_watch **out,
			    struct gpd_error *err)
{
	struct gpd_trigger_watch *w = calloc(1, sizeof(*w));
	char *path = strdup(dir->path);
	if (w)
		w->counts = gpd_device_trigger_counts(dev, text);
	if (!w || !path || !w->counts) {
		if (w)
			gpd_device_trigger_counts_put(dev, w->counts);
		free(w);
		free(path);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	w->dev = dev;
	snprintf(w->device, sizeof(w->device), "%s", dev->source->name);
	w->dir = *dir;
	w->dir.path = path;
	w->saver = saver;
	w->counter = -1;
	snprintf(w->text, sizeof(w->text), "%s", text);
	struct gpm_trigger_error terr;
	int ret = 0;
	if (gpm_trigger_parse(w->text, &w->trigger, &terr)) {
		char words[1024];
		gpm_trigger_error_text(w->text, &terr, words, sizeof(words));
		ret = gpd_fail(err, -EINVAL, "--trigger: %s", words);
	}
	const char *counters[] = { w->trigger.subject };
	struct gpd_subscribe_request req = {
		.device = dev->source->name,
		.window_ns = WATCH_WINDOW_NS,
		.counters = counters,
		.n_counters = w->trigger.lost ? 0 : 1,
		.role = GPD_ROLE_VIEWER,
		.passive = true,
	};
	if (!ret && (ret = gpd_subscribe(devices, &req, &watch_ops, w, &w->sub,
					 err))) {
		char words[sizeof(err->message)];
		snprintf(words, sizeof(words), "%s", err->message);
		gpd_fail(err, ret, "--trigger %s: %s", text, words);
	}
	if (!ret && (ret = bind_counter(w, err)) == -ENOENT)
		ret = gpd_fail(err, -ENOENT, "--trigger %s: %s streams %s, "
			       "which has no counter %s", text,
			       dev->source->name, dev->set ?
			       dev->set->symbol_name : "nothing",
			       w->trigger.subject);
	if (ret) {
		if (w->sub)
			gpd_unsubscribe(w->sub);
		gpd_device_trigger_counts_put(dev, w->counts);
		free(path);
		free(w);
		return ret;
	}
	uv_timer_init(dev->loop, &w->after);
	w->after.data = w;
	gpd_info("%s: trigger '%s' watches %s; snapshots go to %s",
		 dev->source->name, text, dev->set->symbol_name, dir->path);
	*out = w;
	return 0;
}

/* No more windows. */
static void stop_watching(struct gpd_trigger_watch *w)
{
	if (w->sub)
		gpd_unsubscribe(w->sub);
	w->sub = NULL;
}

void gpd_trigger_watch_stop(struct gpd_trigger_watch *w)
{
	if (!w)
		return;
	stop_watching(w);
	unlink_retired(w);
	if (w->pending && uv_is_active((uv_handle_t *)&w->after)) {
		uv_timer_stop(&w->after);
		gpd_info("%s: trigger '%s': the snapshot of episode %" PRIu64
			 " is not taken: the daemon stops", w->device, w->text,
			 w->fired_episode);
		w->pending = false;
	}
	/* A snapshot being written finishes, told to the log alone. */
	gpd_device_trigger_counts_put(w->dev, w->counts);
	w->counts = NULL;
	w->dev = NULL;
	release_if_done(w);
}

void gpd_trigger_watch_retire(struct gpd_trigger_watch *w,
			      struct gpd_trigger_watch **retired)
{
	stop_watching(w);
	if (!w->pending) {
		release_if_done(w);
		return;
	}
	w->next = *retired;
	if (w->next)
		w->next->pprev = &w->next;
	w->pprev = retired;
	*retired = w;
}

void gpd_trigger_watch_stop_retired(struct gpd_trigger_watch **retired)
{
	while (*retired)
		gpd_trigger_watch_stop(*retired);
}
