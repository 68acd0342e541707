/*
 * The exposition of /metrics and the subscriptions behind it (see
 * metrics_exporter.h).
 *
 * On the loop: subscriptions keep each device's last values; a scrape, once
 * they are there, takes a snapshot (struct render_job: copies, and a
 * reference on each device's counter names) and hands it to libuv's
 * thread pool, where the text is written; the scrapes are answered back on
 * the loop. One snapshot is rendered at a time; scrapes that come in the
 * meantime share the next one.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/device.h"
#include "daemon/device_registry.h"
#include "daemon/log.h"
#include "daemon/net/metrics_exporter.h"
#include "daemon/net/metrics_text.h"
#include "daemon/net/metrics_usage.h"
#include "daemon/net/server.h"
#include "daemon/subscription.h"
#include "metrics/name_match.h"

#define TICK_MS 250
/* Prometheus scrapes every 15 s to 1 min; a minute without one ends the
 * subscriptions (and lets an otherwise idle device close its stream). */
#define IDLE_NS (60ull * 1000000000ull)
/* A first scrape waits this long past a window for values. */
#define GRACE_NS 1000000000ull
#define MAX_COUNTER_NAMES 256

/* The counters of one metric set that /metrics exports, named once when
 * the set is first streamed; renders in flight hold a reference. */
struct exported_counters {
	unsigned refs;
	size_t n;
	struct exported_counter {
		char name[160];         /* gpuperf_gpu_busy_ratio */
		const char *unit;       /* OpenMetrics' UNIT; NULL if none */
		char *help;
		size_t value;           /* index in the subscription's values */
		double scale;           /* value * scale = base unit */
	} c[];
};

struct exported_device {
	struct gpd_metrics_exporter *ex;
	struct gpd_device *dev;
	struct gpd_subscription *sub;
	char *labels;                   /* DEVICE, escaped */
	char *info_labels;              /* gpuperf_info's others, escaped */
	char error[72 + sizeof(((struct gpd_error *)0)->message)];  /* why no values */
	bool lost;                      /* the device is lost */
	bool halted;                    /* busy elsewhere, or ended */
	bool have_values;
	const struct gpm_metric_set *set;       /* of counters */
	size_t n_symbols;               /* the subscription's counters */
	struct exported_counters *counters;
	double *values;                 /* one per counters->c */
};

/* What one scrape renders: copies of everything it shows. */
struct device_view {
	const char *labels, *info_labels;
	char metric_set[128];
	char error[72 + sizeof(((struct gpd_error *)0)->message)];
	bool up, streaming;
	struct exported_counters *counters;     /* a reference; NULL if none */
	double *values;
	struct gpd_device_stats stats;
	bool has_ring;                  /* a flight recorder; its stats */
	struct gpd_flight_recorder_stats ring;
	struct gpd_trigger_counts *triggers;    /* copies, next unused */
	size_t n_triggers;
};

struct render_job {
	uv_work_t work;
	struct gpd_metrics_exporter *ex;
	struct gpd_scrape *scrapes;     /* answered by it */
	size_t n_devices;
	struct device_view *devices;
	struct gpd_metrics_usage_view *usage;
	unsigned connections, unauthenticated;
	uint64_t refused;
	size_t queued_bytes;
	uint64_t slow_readers_dropped;
	uint64_t counter_frames_dropped, usage_frames_dropped;
	uint64_t window_ms;
	/* By format, then with per-process series or without. */
	bool wanted[2][2];
	struct gpd_metrics_text text[2][2];
};

struct gpd_metrics_exporter {
	struct gpd_server *server;
	size_t n_devices;
	struct exported_device *devices;
	struct gpd_metrics_usage *usage;        /* per device */
	/* --metrics-counters: NULL exports all; a list of names else. */
	char *counter_list;
	const char *counter_names[MAX_COUNTER_NAMES];
	size_t n_counter_names;
	uv_timer_t timer;
	bool timer_running;
	uint64_t last_scrape_ns;
	uint64_t deadline_ns;           /* pending scrapes are answered by */
	struct gpd_scrape *pending;
	struct render_job *job;         /* being rendered */
	bool destroyed, timer_closed;
};

/* ------------------------------------------------------------------ */
/* Names and units                                                      */

struct unit {
	const char *xml;                /* units in the metric XML */
	const char *suffix;             /* the base unit in the name */
	double scale;                   /* XML value * scale = base value */
};

static const struct unit units[] = {
	{ "percent", "ratio", 0.01 },
	{ "utilization", "ratio", 1 },
	{ "ns", "seconds", 1e-9 },
	{ "us", "seconds", 1e-6 },
	{ "hz", "hertz", 1 },
	{ "bytes", "bytes", 1 },
	{ "gbps", "bytes_per_second", 1e9 },    /* GB/s: bytes per ns */
};

/* Appends text lower-cased with every run of other characters as one
 * '_'; CamelCase gets '_' between a lower and an upper letter. */
static size_t append_snake(char *out, size_t pos, size_t size, const char *text)
{
	bool sep = pos > 0 && out[pos - 1] != '_';
	for (const char *c = text; *c && pos + 2 < size; c++) {
		unsigned char ch = (unsigned char)*c;
		if (isalnum(ch)) {
			bool camel = isupper(ch) && c > text &&
				     islower((unsigned char)c[-1]);
			if ((sep || camel) && pos > 0 && out[pos - 1] != '_')
				out[pos++] = '_';
			out[pos++] = (char)tolower(ch);
			sep = false;
		} else {
			sep = true;
		}
	}
	out[pos] = '\0';
	return pos;
}

static void name_counter(const struct gpm_counter *c, struct exported_counter *out)
{
	const struct unit *unit = NULL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(c->units, units[i].xml))
			unit = &units[i];
	size_t size = sizeof(out->name);
	size_t pos = (size_t)snprintf(out->name, size, "gpuperf_");
	pos = append_snake(out->name, pos, size,
			   *c->underscore_name ? c->underscore_name : c->symbol_name);
	/* "SamplerTexels" in texels is gpuperf_sampler_texels, not
	 * ..._texels_texels. */
	char suffix[96] = "_";
	size_t n = append_snake(suffix, 1, sizeof(suffix),
				unit ? unit->suffix : c->units);
	if (n > 1 && (pos < n || strcmp(out->name + pos - n, suffix)))
		snprintf(out->name + pos, size - pos, "%s", suffix);
	/* OpenMetrics' UNIT must end the name: only a base unit is one. */
	out->unit = unit ? unit->suffix : NULL;
	out->scale = unit ? unit->scale : 1;
}

static void counters_unref(struct exported_counters *c)
{
	if (!c || --c->refs)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->c[i].help);
	free(c);
}

static bool counter_wanted(const struct gpd_metrics_exporter *ex,
			   const struct gpm_counter *c)
{
	if (!ex->counter_list)
		return true;
	for (size_t i = 0; i < ex->n_counter_names; i++)
		if (!strcasecmp(ex->counter_names[i], c->symbol_name))
			return true;
	return false;
}

/* The exported counters of the subscription's values (symbols in set). */
static struct exported_counters *
export_counters(const struct gpd_metrics_exporter *ex,
		const struct gpm_metric_set *set, const char *const *symbols,
		size_t n)
{
	struct exported_counters *ec = calloc(1, sizeof(*ec) + n * sizeof(ec->c[0]));
	if (!ec)
		return NULL;
	ec->refs = 1;
	for (size_t i = 0; i < n; i++) {
		int k = gpm_metric_set_find_counter(set, symbols[i]);
		if (k < 0 || !counter_wanted(ex, &set->counters[k]))
			continue;
		const struct gpm_counter *c = &set->counters[k];
		struct exported_counter *e = &ec->c[ec->n];
		name_counter(c, e);
		e->value = i;
		struct gpd_metrics_text help = { 0 };
		gpd_metrics_text_printf(&help, "%s%s%s (over the last %llu ms)",
					c->name, *c->description ? ": " : "",
					c->description,
					(unsigned long long)ex->server->options.metrics_window_ms);
		e->help = help.data;
		ec->n++;
		if (help.failed) {
			counters_unref(ec);
			return NULL;
		}
	}
	return ec;
}

/* ------------------------------------------------------------------ */
/* Rendering, on a worker thread: the job's copies only                  */

struct sample {
	const struct exported_counter *counter;
	size_t device;
	double value;
};

static int compare_samples(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->counter->name, y->counter->name);
	if (c)
		return c;
	return x->device < y->device ? -1 : x->device > y->device;
}

static void render_counters(const struct render_job *job, struct gpd_metrics_text *t)
{
	size_t n = 0;
	for (size_t i = 0; i < job->n_devices; i++)
		if (job->devices[i].counters)
			n += job->devices[i].counters->n;
	struct sample *samples = calloc(n ? n : 1, sizeof(*samples));
	if (!samples) {
		t->failed = true;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < job->n_devices; i++) {
		const struct device_view *d = &job->devices[i];
		for (size_t j = 0; d->counters && j < d->counters->n; j++) {
			const struct exported_counter *c = &d->counters->c[j];
			samples[k++] = (struct sample){
				.counter = c,
				.device = i,
				.value = d->values[j] * c->scale,
			};
		}
	}
	qsort(samples, n, sizeof(*samples), compare_samples);
	for (size_t i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		bool first = i == 0 || strcmp(s->counter->name, samples[i - 1].counter->name);
		/* Two counters of one set may come out under one name; a
		 * series may appear once. */
		if (!first && s->device == samples[i - 1].device)
			continue;
		if (first)
			gpd_metrics_text_family(t, s->counter->name, GPD_METRICS_GAUGE,
						s->counter->unit, s->counter->help);
		const struct device_view *d = &job->devices[s->device];
		gpd_metrics_text_sample(t, s->counter->name, GPD_METRICS_GAUGE);
		gpd_metrics_text_printf(t, "%s,metric_set=\"", d->labels);
		gpd_metrics_text_label(t, d->metric_set);
		gpd_metrics_text_printf(t, "\"");
		gpd_metrics_text_end(t, s->value);
	}
	free(samples);
}

static void render_device_counter(const struct render_job *job,
				  struct gpd_metrics_text *t, const char *name,
				  const char *help, size_t offset)
{
	gpd_metrics_text_family(t, name, GPD_METRICS_COUNTER, NULL, help);
	for (size_t i = 0; i < job->n_devices; i++) {
		const struct device_view *d = &job->devices[i];
		uint64_t value;
		memcpy(&value, (const char *)&d->stats + offset, sizeof(value));
		gpd_metrics_text_sample(t, name, GPD_METRICS_COUNTER);
		gpd_metrics_text_printf(t, "%s", d->labels);
		gpd_metrics_text_end(t, (double)value);
	}
}

/* One line a device with a flight recorder, of the ring's stats. */
static void render_ring(const struct render_job *job, struct gpd_metrics_text *t,
			const char *name, enum gpd_metrics_type type,
			const char *unit, const char *help, size_t offset)
{
	gpd_metrics_text_family(t, name, type, unit, help);
	for (size_t i = 0; i < job->n_devices; i++) {
		const struct device_view *d = &job->devices[i];
		if (!d->has_ring)
			continue;
		uint64_t value;
		memcpy(&value, (const char *)&d->ring + offset, sizeof(value));
		gpd_metrics_text_sample(t, name, type);
		gpd_metrics_text_printf(t, "%s", d->labels);
		gpd_metrics_text_end(t, (double)value);
	}
}

static void render_rings(const struct render_job *job, struct gpd_metrics_text *t)
{
	bool any = false;
	for (size_t i = 0; i < job->n_devices; i++)
		any |= job->devices[i].has_ring;
	if (!any)
		return;
	render_ring(job, t, "gpuperf_flight_recorder_capacity_bytes",
		    GPD_METRICS_GAUGE, "bytes",
		    "The flight recorder's ring size (--flight-recorder).",
		    offsetof(struct gpd_flight_recorder_stats, capacity));
	render_ring(job, t, "gpuperf_flight_recorder_used_bytes",
		    GPD_METRICS_GAUGE, "bytes",
		    "Bytes of records the flight recorder holds now.",
		    offsetof(struct gpd_flight_recorder_stats, used));
	render_ring(job, t, "gpuperf_flight_recorder_overwritten_records",
		    GPD_METRICS_COUNTER, NULL, "Records (reports and loss records) "
		    "the flight recorder let go of to make room for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, records_overwritten));
	render_ring(job, t, "gpuperf_flight_recorder_overwritten_bytes",
		    GPD_METRICS_COUNTER, "bytes", "Bytes the flight recorder let "
		    "go of to make room for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, bytes_overwritten));
	render_ring(job, t, "gpuperf_flight_recorder_segments",
		    GPD_METRICS_COUNTER, NULL, "Segments the flight recorder "
		    "began: one per stream configuration.",
		    offsetof(struct gpd_flight_recorder_stats, segments));
}

/* One line a trigger of the daemon's, of one of its counts. */
static void render_trigger_counts(const struct render_job *job,
				  struct gpd_metrics_text *t, const char *name,
				  const char *help, size_t offset)
{
	gpd_metrics_text_family(t, name, GPD_METRICS_COUNTER, NULL, help);
	for (size_t i = 0; i < job->n_devices; i++) {
		const struct device_view *d = &job->devices[i];
		for (size_t k = 0; k < d->n_triggers; k++) {
			uint64_t value;
			memcpy(&value, (const char *)&d->triggers[k] + offset,
			       sizeof(value));
			gpd_metrics_text_sample(t, name, GPD_METRICS_COUNTER);
			gpd_metrics_text_printf(t, "%s,trigger=\"", d->labels);
			gpd_metrics_text_label(t, d->triggers[k].expression);
			gpd_metrics_text_printf(t, "\"");
			gpd_metrics_text_end(t, (double)value);
		}
	}
}

static void render_triggers(const struct render_job *job,
			    struct gpd_metrics_text *t)
{
	bool any = false;
	for (size_t i = 0; i < job->n_devices; i++)
		any |= job->devices[i].n_triggers > 0;
	if (!any)
		return;
	render_trigger_counts(job, t, "gpuperf_trigger_firings",
			      "Times a trigger of the daemon's (--trigger) fired: "
			      "episodes of its condition.",
			      offsetof(struct gpd_trigger_counts, firings));
	render_trigger_counts(job, t, "gpuperf_trigger_snapshots_saved",
			      "Firings whose snapshot was written into "
			      "--trigger-dir.",
			      offsetof(struct gpd_trigger_counts, saved));
	render_trigger_counts(job, t, "gpuperf_trigger_firings_skipped",
			      "Firings not saved because the trigger's firing "
			      "before was still being saved (its --trigger-after "
			      "or its writing).",
			      offsetof(struct gpd_trigger_counts, skipped));
	render_trigger_counts(job, t, "gpuperf_trigger_saves_failed",
			      "Firings whose snapshot could not be taken or "
			      "written: nothing in the span, more than "
			      "--trigger-dir-max, a write error (the log says "
			      "which).",
			      offsetof(struct gpd_trigger_counts, failed));
}

static void render(struct render_job *job, struct gpd_metrics_text *t,
		   bool process_details)
{
	/* OpenMetrics has no room for comments: there, the reason is in
	 * the log, and gpuperf_device_up says 0. */
	for (size_t i = 0; t->format == GPD_METRICS_TEXT && i < job->n_devices; i++)
		if (*job->devices[i].error)
			gpd_metrics_text_printf(t, "# %s\n", job->devices[i].error);
	render_counters(job, t);
	gpd_metrics_usage_render(t, job->usage, job->n_devices, process_details);
	render_device_counter(job, t, "gpuperf_reports",
			      "OA reports the device delivered.",
			      offsetof(struct gpd_device_stats, reports));
	render_device_counter(job, t, "gpuperf_reports_lost",
			      "OA_REPORT_LOST records: reports the hardware "
			      "could not write.",
			      offsetof(struct gpd_device_stats, reports_lost));
	render_device_counter(job, t, "gpuperf_buffers_lost",
			      "OA_BUFFER_LOST records: the OA buffer "
			      "overflowed before the daemon read it.",
			      offsetof(struct gpd_device_stats, buffers_lost));
	render_rings(job, t);
	render_triggers(job, t);
	gpd_metrics_text_family(t, "gpuperf_device_up", GPD_METRICS_GAUGE, NULL,
				"0 once the device is lost (unplugged, wedged, "
				"its driver gone) until it recovers; else 1.");
	for (size_t i = 0; i < job->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf_device_up", GPD_METRICS_GAUGE);
		gpd_metrics_text_printf(t, "%s", job->devices[i].labels);
		gpd_metrics_text_end(t, job->devices[i].up);
	}
	gpd_metrics_text_family(t, "gpuperf_counters_streaming", GPD_METRICS_GAUGE,
				NULL, "1 while the device's counters have values "
				"here; 0 while another program owns its counter "
				"unit, the stream was refused, or it ended.");
	for (size_t i = 0; i < job->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf_counters_streaming",
					GPD_METRICS_GAUGE);
		gpd_metrics_text_printf(t, "%s", job->devices[i].labels);
		gpd_metrics_text_end(t, job->devices[i].streaming);
	}
	gpd_metrics_text_family(t, "gpuperf", GPD_METRICS_INFO, NULL,
				"The devices gpuperfd serves.");
	for (size_t i = 0; i < job->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf", GPD_METRICS_INFO);
		gpd_metrics_text_printf(t, "%s,%s", job->devices[i].labels,
					job->devices[i].info_labels);
		gpd_metrics_text_end(t, 1);
	}
	gpd_metrics_text_family(t, "gpuperf_connections", GPD_METRICS_GAUGE, NULL,
				"Open protocol connections.");
	gpd_metrics_text_printf(t, "gpuperf_connections %u\n", job->connections);
	gpd_metrics_text_family(t, "gpuperf_connections_unauthenticated",
				GPD_METRICS_GAUGE, NULL, "Connections waiting to "
				"authenticate (at most --max-unauthenticated).");
	gpd_metrics_text_printf(t, "gpuperf_connections_unauthenticated %u\n",
				job->unauthenticated);
	gpd_metrics_text_family(t, "gpuperf_connections_refused", GPD_METRICS_COUNTER,
				NULL, "Connections the server had no room for.");
	gpd_metrics_text_printf(t, "gpuperf_connections_refused_total %llu\n",
				(unsigned long long)job->refused);
	gpd_metrics_text_family(t, "gpuperf_send_queue_bytes", GPD_METRICS_GAUGE,
				"bytes", "Bytes queued for all clients (at most "
				"--send-budget).");
	gpd_metrics_text_printf(t, "gpuperf_send_queue_bytes %zu\n", job->queued_bytes);
	gpd_metrics_text_family(t, "gpuperf_slow_readers_dropped", GPD_METRICS_COUNTER,
				NULL, "Clients cut off for leaving more than their "
				"share of --send-budget unread.");
	gpd_metrics_text_printf(t, "gpuperf_slow_readers_dropped_total %llu\n",
				(unsigned long long)job->slow_readers_dropped);
	gpd_metrics_text_family(t, "gpuperf_frames_dropped", GPD_METRICS_COUNTER, NULL,
				"Frames dropped because a client read too slowly, "
				"by stream: counters or usage.");
	gpd_metrics_text_printf(t, "gpuperf_frames_dropped_total{stream=\"counters\"} "
				"%llu\n", (unsigned long long)job->counter_frames_dropped);
	gpd_metrics_text_printf(t, "gpuperf_frames_dropped_total{stream=\"usage\"} "
				"%llu\n", (unsigned long long)job->usage_frames_dropped);
	gpd_metrics_text_finish(t);
}

static void render_work(uv_work_t *work)
{
	struct render_job *job = work->data;
	for (int f = 0; f < 2; f++) {
		for (int d = 0; d < 2; d++) {
			if (!job->wanted[f][d])
				continue;
			job->text[f][d].format = (enum gpd_metrics_format)f;
			render(job, &job->text[f][d], d);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Snapshots and answers, on the loop                                    */

static void job_free(struct render_job *job)
{
	for (size_t i = 0; i < job->n_devices; i++) {
		counters_unref(job->devices[i].counters);
		free(job->devices[i].values);
		free(job->devices[i].triggers);
		gpd_metrics_usage_view_fini(&job->usage[i]);
	}
	free(job->devices);
	free(job->usage);
	for (int f = 0; f < 2; f++)
		for (int d = 0; d < 2; d++)
			free(job->text[f][d].data);
	free(job);
}

static void exporter_free(struct gpd_metrics_exporter *ex)
{
	for (size_t i = 0; i < ex->n_devices; i++) {
		counters_unref(ex->devices[i].counters);
		free(ex->devices[i].values);
		free(ex->devices[i].labels);
		free(ex->devices[i].info_labels);
		gpd_metrics_usage_fini(&ex->usage[i]);
	}
	free(ex->counter_list);
	free(ex->usage);
	free(ex->devices);
	free(ex);
}

static void start_render(struct gpd_metrics_exporter *ex);
static bool all_ready(const struct gpd_metrics_exporter *ex);

static void render_done(uv_work_t *work, int status)
{
	struct render_job *job = work->data;
	struct gpd_metrics_exporter *ex = job->ex;
	ex->job = NULL;
	while (job->scrapes && !ex->destroyed) {
		struct gpd_scrape *s = job->scrapes;
		job->scrapes = s->next;
		s->next = NULL;
		struct gpd_metrics_text *t = &job->text[s->format][s->process_details];
		if (t->failed || status) {
			static const char oom[] = "# out of memory\n";
			s->done(s, oom, sizeof(oom) - 1);
		} else {
			s->done(s, t->data, t->len);
		}
	}
	job_free(job);
	if (ex->destroyed) {
		if (ex->timer_closed)
			exporter_free(ex);
		return;
	}
	/* Scrapes that came while it rendered. */
	if (ex->pending && (all_ready(ex) || gpd_monotonic_ns() >= ex->deadline_ns))
		start_render(ex);
}

static int view_device(struct exported_device *ed, struct device_view *v)
{
	v->labels = ed->labels;
	v->info_labels = ed->info_labels;
	snprintf(v->error, sizeof(v->error), "%s", ed->error);
	v->stats = ed->dev->stats;
	if (ed->dev->ring) {
		v->has_ring = true;
		v->ring = ed->dev->ring->stats;
	}
	size_t n = 0;
	for (const struct gpd_trigger_counts *c = ed->dev->trigger_counts; c;
	     c = c->next)
		n++;
	if (n && !(v->triggers = calloc(n, sizeof(*v->triggers))))
		return -ENOMEM;
	for (const struct gpd_trigger_counts *c = ed->dev->trigger_counts; c;
	     c = c->next)
		v->triggers[v->n_triggers++] = *c;
	v->up = !ed->lost;
	v->streaming = ed->have_values;
	if (!ed->have_values || !ed->counters)
		return 0;
	v->values = malloc(ed->counters->n ? ed->counters->n * sizeof(double) : 1);
	if (!v->values)
		return -ENOMEM;
	memcpy(v->values, ed->values, ed->counters->n * sizeof(double));
	v->counters = ed->counters;
	ed->counters->refs++;
	snprintf(v->metric_set, sizeof(v->metric_set), "%s", ed->set->symbol_name);
	return 0;
}

static void answer_now(struct gpd_metrics_exporter *ex, struct render_job *job,
		       const char *text)
{
	while (ex->pending) {
		struct gpd_scrape *s = ex->pending;
		ex->pending = s->next;
		s->next = NULL;
		s->done(s, text, strlen(text));
	}
	if (job)
		job_free(job);
}

/* Takes the pending scrapes and a snapshot to the thread pool. */
static void start_render(struct gpd_metrics_exporter *ex)
{
	if (ex->job || !ex->pending)
		return;
	struct render_job *job = calloc(1, sizeof(*job));
	if (!job) {
		answer_now(ex, NULL, "# out of memory\n");
		return;
	}
	job->ex = ex;
	job->n_devices = ex->n_devices;
	job->devices = calloc(ex->n_devices ? ex->n_devices : 1, sizeof(*job->devices));
	job->usage = calloc(ex->n_devices ? ex->n_devices : 1, sizeof(*job->usage));
	bool failed = !job->devices || !job->usage;
	for (size_t i = 0; !failed && i < ex->n_devices; i++)
		failed = view_device(&ex->devices[i], &job->devices[i]) ||
			 gpd_metrics_usage_view(&ex->usage[i], ex->devices[i].labels,
						&job->usage[i]);
	if (failed) {
		if (!job->devices || !job->usage)
			job->n_devices = 0;
		answer_now(ex, job, "# out of memory\n");
		return;
	}
	job->connections = ex->server->n_sessions;
	job->unauthenticated = ex->server->admission.waiting;
	job->refused = ex->server->admission.refused;
	job->queued_bytes = ex->server->queued_bytes;
	job->slow_readers_dropped = ex->server->slow_readers_dropped;
	job->counter_frames_dropped = ex->server->counter_frames_dropped;
	job->usage_frames_dropped = ex->server->usage_frames_dropped;
	job->window_ms = ex->server->options.metrics_window_ms;
	job->scrapes = ex->pending;
	ex->pending = NULL;
	for (struct gpd_scrape *s = job->scrapes; s; s = s->next)
		job->wanted[s->format][s->process_details] = true;
	job->work.data = job;
	ex->job = job;
	if (uv_queue_work(ex->server->loop, &job->work, render_work, render_done)) {
		render_work(&job->work);
		render_done(&job->work, 0);
	}
}

/* ------------------------------------------------------------------ */
/* Subscriptions                                                        */

static bool all_ready(const struct gpd_metrics_exporter *ex)
{
	for (size_t i = 0; i < ex->n_devices; i++)
		if ((ex->devices[i].sub && !ex->devices[i].have_values &&
		     !ex->devices[i].lost && !ex->devices[i].halted) ||
		    (ex->usage[i].sub && !ex->usage[i].have_frame))
			return false;
	return true;
}

static void on_usage_ready(void *user)
{
	struct gpd_metrics_exporter *ex = user;
	if (ex->pending && all_ready(ex))
		start_render(ex);
}

static bool resolve_counters(struct exported_device *ed)
{
	const char *const *symbols;
	size_t n = gpd_subscription_counters(ed->sub, &symbols);
	const struct gpm_metric_set *set = ed->dev->set;
	if (set == ed->set && n == ed->n_symbols && ed->counters)
		return true;
	struct exported_counters *ec = export_counters(ed->ex, set, symbols, n);
	double *values = ec ? calloc(ec->n ? ec->n : 1, sizeof(*values)) : NULL;
	if (!values) {
		counters_unref(ec);
		return false;
	}
	counters_unref(ed->counters);
	free(ed->values);
	ed->counters = ec;
	ed->values = values;
	ed->set = set;
	ed->n_symbols = n;
	return true;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct exported_device *ed = user;
	if (!resolve_counters(ed)) {
		ed->have_values = false;
		return;
	}
	for (size_t i = 0; i < ed->counters->n; i++) {
		size_t k = ed->counters->c[i].value;
		ed->values[i] = k < f->n_values ? gpm_value_as_double(f->values[k]) : 0;
	}
	ed->have_values = true;
	ed->lost = ed->halted = false;
	struct gpd_metrics_exporter *ex = ed->ex;
	if (ex->pending && all_ready(ex))
		start_render(ex);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct exported_device *ed = user;
	switch (ev->kind) {
	case GPD_EVENT_CONFIG_CHANGED:
		ed->have_values = false;        /* they were another set's */
		break;
	case GPD_EVENT_DEVICE_LOST:
		ed->lost = true;
		ed->have_values = false;
		break;
	case GPD_EVENT_BUSY_ELSEWHERE:
	case GPD_EVENT_ENDED:
		ed->halted = true;
		ed->have_values = false;
		break;
	case GPD_EVENT_RECOVERED:
	case GPD_EVENT_RESTARTED:
		ed->lost = ed->halted = false;
		break;
	case GPD_EVENT_TRIGGER_FIRED:
		break;                          /* the values go on */
	}
}

static const struct gpd_subscriber_ops exporter_ops = {
	.frame = on_frame,
	.event = on_event,
};

static void unsubscribe_all(struct gpd_metrics_exporter *ex)
{
	for (size_t i = 0; i < ex->n_devices; i++) {
		struct exported_device *ed = &ex->devices[i];
		gpd_unsubscribe(ed->sub);
		ed->sub = NULL;
		ed->have_values = false;
		ed->lost = ed->halted = false;
		gpd_metrics_usage_stop(&ex->usage[i]);
	}
}

static void on_tick(uv_timer_t *timer)
{
	struct gpd_metrics_exporter *ex = timer->data;
	uint64_t now = gpd_monotonic_ns();
	if (ex->pending && now >= ex->deadline_ns)
		start_render(ex);
	if (!ex->pending && !ex->job && now - ex->last_scrape_ns > IDLE_NS) {
		gpd_debug("/metrics not scraped for a minute: unsubscribing");
		unsubscribe_all(ex);
		uv_timer_stop(&ex->timer);
		ex->timer_running = false;
	}
}

static void subscribe(struct gpd_metrics_exporter *ex, struct exported_device *ed)
{
	struct gpd_subscribe_request req = {
		.device = ed->dev->source->name,
		.window_ns = ex->server->options.metrics_window_ms * 1000000ull,
		.role = GPD_ROLE_VIEWER,
		.passive = true,
	};
	struct gpd_error err = { 0 };
	ed->error[0] = '\0';
	if (gpd_subscribe(ex->server->devices, &req, &exporter_ops, ed, &ed->sub,
			  &err))
		snprintf(ed->error, sizeof(ed->error), "%.63s: %s",
			 ed->dev->source->name, err.message);
}

void gpd_metrics_exporter_scrape(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape)
{
	uint64_t now = gpd_monotonic_ns();
	ex->last_scrape_ns = now;
	for (size_t i = 0; i < ex->n_devices; i++) {
		if (!ex->devices[i].sub)
			subscribe(ex, &ex->devices[i]);
		gpd_metrics_usage_start(&ex->usage[i], ex->devices[i].dev,
					ex->server->options.metrics_window_ms *
					1000000ull);
	}
	if (!ex->timer_running) {
		uv_timer_start(&ex->timer, on_tick, TICK_MS, TICK_MS);
		ex->timer_running = true;
	}
	if (!ex->pending)
		ex->deadline_ns = now + ex->server->options.metrics_window_ms *
					1000000ull + GRACE_NS;
	scrape->next = ex->pending;
	ex->pending = scrape;
	if (all_ready(ex))
		start_render(ex);
}

void gpd_metrics_exporter_cancel(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape)
{
	struct gpd_scrape **lists[] = { &ex->pending, ex->job ? &ex->job->scrapes : NULL };
	for (size_t i = 0; i < 2; i++) {
		for (struct gpd_scrape **p = lists[i]; p && *p; p = &(*p)->next) {
			if (*p == scrape) {
				*p = scrape->next;
				return;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

/* DEVICE, and gpuperf_info's own labels, escaped once. */
static int describe(struct exported_device *ed)
{
	const struct gpd_source *src = ed->dev->source;
	struct gpd_metrics_text t = { 0 };
	gpd_metrics_text_printf(&t, "device=\"");
	gpd_metrics_text_label(&t, src->name);
	gpd_metrics_text_printf(&t, "\",device_id=\"");
	gpd_metrics_text_label(&t, *src->device_id ? src->device_id : src->name);
	gpd_metrics_text_printf(&t, "\",pci_id=\"0x%04x\",model=\"", src->info.pci_id);
	gpd_metrics_text_label(&t, *src->model ? src->model : src->platform->description);
	gpd_metrics_text_printf(&t, "\",driver=\"%s\"", gpd_source_kind_name(src->kind));
	struct gpd_metrics_text info = { 0 };
	gpd_metrics_text_printf(&info, "platform=\"");
	gpd_metrics_text_label(&info, src->platform->name);
	gpd_metrics_text_printf(&info, "\",source=\"%s\",version=\"%s\"",
				gpd_source_kind_name(src->kind), GPUPERF_VERSION);
	ed->labels = t.data;
	ed->info_labels = info.data;
	return t.failed || info.failed ? -ENOMEM : 0;
}

/* --metrics-counters: "all", "none" or names of counters some device
 * has (any case). */
static int parse_counter_list(struct gpd_metrics_exporter *ex,
			      const struct gpd_device_registry *d,
			      struct gpd_error *err)
{
	const char *list = ex->server->options.metrics_counters;
	if (!list || !strcmp(list, "all"))
		return 0;
	ex->counter_list = strdup(list);
	if (!ex->counter_list)
		return gpd_fail(err, -ENOMEM, "out of memory");
	if (!strcmp(list, "none"))
		return 0;
	char *save = NULL;
	for (char *name = strtok_r(ex->counter_list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (ex->n_counter_names == MAX_COUNTER_NAMES)
			return gpd_fail(err, -EINVAL, "--metrics-counters names "
					"more than %d counters", MAX_COUNTER_NAMES);
		const char *closest = NULL;
		size_t distance = SIZE_MAX;
		bool found = false;
		for (size_t i = 0; !found && i < d->n_devices; i++) {
			const struct gpm_metrics_file *file = d->devices[i]->metrics;
			for (size_t s = 0; file && !found && s < file->n_sets; s++) {
				const struct gpm_metric_set *set = &file->sets[s];
				for (size_t c = 0; c < set->n_counters && !found; c++) {
					found = !strcasecmp(name, set->counters[c].symbol_name);
					gpm_name_consider(name, set->counters[c].symbol_name,
							  &closest, &distance);
				}
			}
		}
		if (!found)
			return gpd_fail(err, -EINVAL, "--metrics-counters: no device "
					"has a counter '%s'%s%s%s; 'gpuperf counters SET' "
					"lists them", name, closest ? " (did you mean " : "",
					closest ? closest : "", closest ? "?)" : "");
		ex->counter_names[ex->n_counter_names++] = name;
	}
	return 0;
}

int gpd_metrics_exporter_create(struct gpd_server *server,
				struct gpd_metrics_exporter **out,
				struct gpd_error *err)
{
	const struct gpd_device_registry *d = server->devices;
	struct gpd_metrics_exporter *ex = calloc(1, sizeof(*ex));
	if (!ex)
		return gpd_fail(err, -ENOMEM, "out of memory");
	ex->devices = calloc(d->n_devices ? d->n_devices : 1, sizeof(*ex->devices));
	ex->usage = calloc(d->n_devices ? d->n_devices : 1, sizeof(*ex->usage));
	ex->server = server;
	ex->n_devices = ex->devices && ex->usage ? d->n_devices : 0;
	int ret = ex->devices && ex->usage ? 0 : gpd_fail(err, -ENOMEM, "out of memory");
	/* Process labels multiply series: only when asked for, and never
	 * what --process-details keeps from everyone. */
	bool processes = server->options.metrics_processes &&
			 server->options.process_details != GPD_PROCESS_DETAILS_NONE;
	for (size_t i = 0; !ret && i < ex->n_devices; i++) {
		ex->devices[i].ex = ex;
		ex->devices[i].dev = d->devices[i];
		ex->usage[i].processes = processes;
		ex->usage[i].max_processes = server->options.metrics_max_processes;
		ex->usage[i].ready = on_usage_ready;
		ex->usage[i].user = ex;
		if (describe(&ex->devices[i]))
			ret = gpd_fail(err, -ENOMEM, "out of memory");
	}
	if (!ret)
		ret = parse_counter_list(ex, d, err);
	if (ret) {
		exporter_free(ex);
		return ret;
	}
	uv_timer_init(server->loop, &ex->timer);
	ex->timer.data = ex;
	*out = ex;
	return 0;
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct gpd_metrics_exporter *ex = handle->data;
	ex->timer_closed = true;
	if (!ex->job)
		exporter_free(ex);
}

void gpd_metrics_exporter_destroy(struct gpd_metrics_exporter *ex)
{
	if (!ex)
		return;
	unsubscribe_all(ex);
	ex->pending = NULL;
	ex->destroyed = true;
	uv_timer_stop(&ex->timer);
	uv_close((uv_handle_t *)&ex->timer, on_timer_closed);
}
