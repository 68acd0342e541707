/*
 * A trigger of the daemon's configuration watching a device, and the
 * directory its snapshots go to (see trigger_watch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/snapshot.h"
#include "daemon/subscription.h"
#include "daemon/trigger_watch.h"
#include "metrics/metric_set.h"
#include "metrics/trigger.h"

/* The windows the condition is checked over, of GPU time. */
#define WATCH_WINDOW_NS 10000000ull
/* Past --trigger-after, what the daemon may still have to read of the
 * unit's buffer before the ring holds the span. */
#define READ_SLACK_MS 100
#define FILE_PREFIX "trigger-"
#define FILE_SUFFIX ".i915perf"

struct gpd_trigger_watch {
	struct gpd_device *dev;
	struct gpd_subscription *sub;
	const struct gpd_trigger_dir *dir;
	char text[256];
	struct gpm_trigger trigger;
	struct gpm_trigger_state state;
	long counter;                   /* in the subscription's; -1: none */
	bool waiting_said;              /* that the set lacks the counter */
	/* The firing whose --trigger-after is yet to come. */
	bool pending;
	uint64_t fired_cpu_ns;
	uint64_t fired_wall_s;
	uint64_t not_saved;             /* firings during another's wait */
	uv_timer_t after;
};

/* ------------------------------------------------------------------ */
/* The directory                                                        */

struct dir_file {
	char name[256];
	uint64_t bytes;
	struct timespec mtime;
};

static bool ours(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, FILE_PREFIX, strlen(FILE_PREFIX)) &&
	       n > strlen(FILE_SUFFIX) &&
	       !strcmp(name + n - strlen(FILE_SUFFIX), FILE_SUFFIX);
}

static int older_first(const void *a, const void *b)
{
	const struct dir_file *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The watches' files in the directory, oldest first; free() *files. */
static int list_files(const char *path, struct dir_file **files, size_t *n,
		      uint64_t *total)
{
	size_t cap = 0;
	*files = NULL;
	*n = 0;
	*total = 0;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!ours(e->d_name) || strlen(e->d_name) >= sizeof((*files)->name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			size_t more = cap ? 2 * cap : 16;
			struct dir_file *f = realloc(*files, more * sizeof(*f));
			if (!f) {
				closedir(d);
				free(*files);
				*files = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*files = f;
			cap = more;
		}
		struct dir_file *f = &(*files)[(*n)++];
		snprintf(f->name, sizeof(f->name), "%s", e->d_name);
		f->bytes = (uint64_t)st.st_size;
		f->mtime = st.st_mtim;
		*total += f->bytes;
	}
	closedir(d);
	if (*n)
		qsort(*files, *n, sizeof(**files), older_first);
	return 0;
}

/* Deletes the oldest of the watches' files until `incoming` more bytes
 * fit under the cap. */
static int make_room(const struct gpd_trigger_dir *dir, uint64_t incoming,
		     struct gpd_error *err)
{
	struct dir_file *files;
	size_t n;
	uint64_t total;
	int ret = list_files(dir->path, &files, &n, &total);
	if (ret)
		return gpd_fail(err, ret, "cannot read %s: %s", dir->path,
				strerror(-ret));
	for (size_t i = 0; i < n && total + incoming > dir->max_bytes; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir->path, files[i].name);
		if (unlink(path) && errno != ENOENT) {
			ret = gpd_fail(err, -errno, "cannot delete %s to make room: "
				       "%s", path, strerror(errno));
			break;
		}
		gpd_info("trigger: deleted %s (%.3g MB) to stay within "
			 "--trigger-dir-max", path, (double)files[i].bytes / 1e6);
		total -= files[i].bytes;
	}
	free(files);
	return ret;
}

/* Writes size bytes to path whole, or not at all: a temporary name first,
 * renamed once written, so nobody reads half a recording. */
static int write_whole(const char *path, const void *data, size_t size,
		       struct gpd_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return gpd_fail(err, -errno, "cannot write %s: %s", tmp,
				strerror(errno));
	const char *p = data;
	size_t left = size;
	int ret = 0;
	while (left && !ret) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			ret = -errno;
		else {
			p += w;
			left -= (size_t)w;
		}
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return gpd_fail(err, ret, "cannot write %s: %s", path,
				strerror(-ret));
	}
	return 0;
}

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
	gpd_log(failed ? GPD_LOG_WARNING : GPD_LOG_INFO, "%s: %s",
		w->dev->source->name, message);
	gpd_device_announce(w->dev, GPD_EVENT_TRIGGER_FIRED, message);
}

static void save(struct gpd_trigger_watch *w)
{
	const struct gpd_trigger_dir *dir = w->dir;
	struct gpd_snapshot snap;
	struct gpd_error err = { 0 };
	uint64_t from = w->fired_cpu_ns > dir->before_ns ?
			w->fired_cpu_ns - dir->before_ns : 1;
	int ret = gpd_snapshot_take(w->dev, from, w->fired_cpu_ns + dir->after_ns,
				    &snap, &err);
	if (ret) {
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); no snapshot: "
			 "%s", w->text, w->state.episodes, err.message);
		return;
	}
	if (snap.size > dir->max_bytes) {
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); its snapshot "
			 "of %.3g MB is more than --trigger-dir-max (%.3g MB) "
			 "allows, so it is not written", w->text,
			 w->state.episodes, (double)snap.size / 1e6,
			 (double)dir->max_bytes / 1e6);
		gpd_snapshot_free(&snap);
		return;
	}
	ret = make_room(dir, snap.size, &err);
	char stamp[32], names[1024] = "";
	time_t wall = (time_t)w->fired_wall_s;
	struct tm tm;
	if (!localtime_r(&wall, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%" PRIu64, w->fired_wall_s);
	size_t used = 0;
	for (size_t i = 0; !ret && i < snap.n_segments; i++) {
		/* The newest segment gets the plain name, as gpuperf
		 * snapshot names them. */
		char path[4096], suffix[32] = "";
		if (i + 1 < snap.n_segments)
			snprintf(suffix, sizeof(suffix), "-%zu", i + 1);
		snprintf(path, sizeof(path), "%s/" FILE_PREFIX "%s-%s-%" PRIu64
			 "%s" FILE_SUFFIX, dir->path, w->dev->source->name, stamp,
			 w->state.episodes, suffix);
		const struct gpd_snapshot_segment *s = &snap.segments[i];
		ret = write_whole(path, snap.data + s->offset, s->size, &err);
		if (!ret)
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 "%s%s", i ? ", " : "", path);
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
	}
	if (ret)
		announce(w, true, "trigger '%s' fired (%" PRIu64 "); the snapshot "
			 "was not saved: %s", w->text, w->state.episodes,
			 err.message);
	else
		announce(w, false, "trigger '%s' fired (%" PRIu64 "); saved %s "
			 "(%.3g MB)", w->text, w->state.episodes, names,
			 (double)snap.size / 1e6);
	gpd_snapshot_free(&snap);
}

static void on_after(uv_timer_t *timer)
{
	struct gpd_trigger_watch *w = timer->data;
	w->pending = false;
	save(w);
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
	if (w->pending) {
		w->not_saved++;
		announce(w, true, "trigger '%s' fired (%" PRIu64 ") while the "
			 "snapshot of the one before waits for its "
			 "--trigger-after; this one is not saved (%" PRIu64 " so "
			 "far)", w->text, w->state.episodes, w->not_saved);
		return;
	}
	w->pending = true;
	w->fired_cpu_ns = f->cpu_end_ns;
	w->fired_wall_s = (uint64_t)time(NULL);
	uv_timer_start(&w->after, on_after,
		       w->dir->after_ns / 1000000 + READ_SLACK_MS, 0);
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

int gpd_trigger_watch_start(const struct gpd_device_registry *devices,
			    struct gpd_device *dev, const char *text,
			    const struct gpd_trigger_dir *dir,
			    struct gpd_trigger_watch **out,
			    struct gpd_error *err)
{
	struct gpd_trigger_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return gpd_fail(err, -ENOMEM, "out of memory");
	w->dev = dev;
	w->dir = dir;
	w->counter = -1;
	snprintf(w->text, sizeof(w->text), "%s", text);
	struct gpm_trigger_error terr;
	if (gpm_trigger_parse(w->text, &w->trigger, &terr)) {
		char words[1024];
		gpm_trigger_error_text(w->text, &terr, words, sizeof(words));
		free(w);
		return gpd_fail(err, -EINVAL, "--trigger: %s", words);
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
	int ret = gpd_subscribe(devices, &req, &watch_ops, w, &w->sub, err);
	if (ret) {
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

static void on_closed(uv_handle_t *handle)
{
	free(handle->data);
}

void gpd_trigger_watch_stop(struct gpd_trigger_watch *w)
{
	if (!w)
		return;
	gpd_unsubscribe(w->sub);
	uv_timer_stop(&w->after);
	uv_close((uv_handle_t *)&w->after, on_closed);
}
