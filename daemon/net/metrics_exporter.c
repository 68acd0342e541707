/*
 * The exposition of /metrics and the subscriptions behind it (see
 * metrics_exporter.h).
 *
 * The exposition has two parts. What changes once a window (the counters'
 * values and the usage series, the bulk of it) is rendered off the loop:
 * subscriptions keep each device's last values, and each new window's
 * take a snapshot (struct render_job: copies, and a reference on each
 * device's counter names) to libuv's thread pool, where its text is
 * written and then kept. What changes at any time (report and loss
 * counts, rings, triggers, connections: a few lines a device) is written
 * on the loop when a scrape is answered, around a copy of the kept text.
 * A scrape is so answered at once, with the last window rendered, and
 * never waits for a thread. Only the first scrape, or one after the
 * devices changed (a new metric set, a device lost or back), waits for the
 * next render. One snapshot is rendered at a time; windows and scrapes
 * that come in the meantime share the next one.
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

/* A device's window as a render shows it: copies. */
struct device_view {
	const char *labels;
	char metric_set[128];
	struct exported_counters *counters;     /* a reference; NULL if none */
	double *values;
};

struct render_job {
	uv_work_t work;
	struct gpd_metrics_exporter *ex;
	struct gpd_scrape *scrapes;     /* answered by it */
	uint64_t deadline_ns;           /* theirs */
	/* The exporter's generation when the snapshot was taken, and
	 * whether every device was ready: only such a text is kept. */
	uint64_t generation;
	bool complete;
	size_t n_devices;
	struct device_view *devices;
	struct gpd_metrics_usage_view *usage;
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
	/* Counts the changes that make a kept text wrong (a device's set,
	 * its loss, a new subscription), not new values. */
	uint64_t generation;
	/* The last window's text by format and process details, once asked
	 * for: kept while the generation it was rendered in lasts. */
	bool asked[2][2];
	struct gpd_metrics_text rendered[2][2];
	bool rendered_ok[2][2];
	uint64_t rendered_generation[2][2];
	bool new_values;                /* since the job's snapshot */
	struct gpd_metrics_text reply;  /* reused by every answer */
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

/* The counters' values and the usage series of the snapshot. */
static void render_work(uv_work_t *work)
{
	struct render_job *job = work->data;
	for (int f = 0; f < 2; f++) {
		for (int d = 0; d < 2; d++) {
			if (!job->wanted[f][d])
				continue;
			struct gpd_metrics_text *t = &job->text[f][d];
			t->format = (enum gpd_metrics_format)f;
			render_counters(job, t);
			gpd_metrics_usage_render(t, job->usage, job->n_devices, d);
		}
	}
}

/* ------------------------------------------------------------------ */
/* What changes at any time, on the loop as a scrape is answered        */

static void render_device_counter(const struct gpd_metrics_exporter *ex,
				  struct gpd_metrics_text *t, const char *name,
				  const char *help, size_t offset)
{
	gpd_metrics_text_family(t, name, GPD_METRICS_COUNTER, NULL, help);
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		uint64_t value;
		memcpy(&value, (const char *)&ed->dev->stats + offset, sizeof(value));
		gpd_metrics_text_sample(t, name, GPD_METRICS_COUNTER);
		gpd_metrics_text_printf(t, "%s", ed->labels);
		gpd_metrics_text_end(t, (double)value);
	}
}

/* How a ring's stat is shown: as it is, in seconds from ns, or in seconds
 * and only where it is not 0 (a ring sized in bytes was asked no span). */
enum ring_value { RING_AS_IS, RING_SECONDS, RING_SECONDS_IF_ANY };

/* One line a device with a flight recorder, of the ring's stats. */
static void render_ring(const struct gpd_metrics_exporter *ex,
			struct gpd_metrics_text *t, const char *name,
			enum gpd_metrics_type type, const char *unit,
			const char *help, size_t offset, enum ring_value how)
{
	bool any = false;
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		if (!ed->dev->ring)
			continue;
		uint64_t value;
		memcpy(&value, (const char *)&ed->dev->ring->stats + offset,
		       sizeof(value));
		if (how == RING_SECONDS_IF_ANY && !value)
			continue;
		if (!any)
			gpd_metrics_text_family(t, name, type, unit, help);
		any = true;
		gpd_metrics_text_sample(t, name, type);
		gpd_metrics_text_printf(t, "%s", ed->labels);
		gpd_metrics_text_end(t, how == RING_AS_IS ? (double)value :
					(double)value * 1e-9);
	}
}

static void render_rings(const struct gpd_metrics_exporter *ex,
			 struct gpd_metrics_text *t)
{
	bool any = false;
	for (size_t i = 0; i < ex->n_devices; i++)
		any |= ex->devices[i].dev->ring != NULL;
	if (!any)
		return;
	render_ring(ex, t, "gpuperf_flight_recorder_capacity_bytes",
		    GPD_METRICS_GAUGE, "bytes",
		    "The flight recorder's ring size (--flight-recorder).",
		    offsetof(struct gpd_flight_recorder_stats, capacity), RING_AS_IS);
	render_ring(ex, t, "gpuperf_flight_recorder_used_bytes",
		    GPD_METRICS_GAUGE, "bytes",
		    "Bytes of records the flight recorder holds now.",
		    offsetof(struct gpd_flight_recorder_stats, used), RING_AS_IS);
	render_ring(ex, t, "gpuperf_flight_recorder_overwritten_records",
		    GPD_METRICS_COUNTER, NULL, "Records (reports and loss records) "
		    "the flight recorder let go of to make room for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, records_overwritten),
		    RING_AS_IS);
	render_ring(ex, t, "gpuperf_flight_recorder_overwritten_bytes",
		    GPD_METRICS_COUNTER, "bytes", "Bytes the flight recorder let "
		    "go of to make room for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, bytes_overwritten),
		    RING_AS_IS);
	render_ring(ex, t, "gpuperf_flight_recorder_segments",
		    GPD_METRICS_COUNTER, NULL, "Segments the flight recorder "
		    "began: one per stream configuration.",
		    offsetof(struct gpd_flight_recorder_stats, segments), RING_AS_IS);
	render_ring(ex, t, "gpuperf_flight_recorder_held_seconds",
		    GPD_METRICS_GAUGE, "seconds", "The time the flight recorder "
		    "holds now, from its oldest record to its newest (to 10 ms).",
		    offsetof(struct gpd_flight_recorder_stats, held_ns), RING_SECONDS);
	render_ring(ex, t, "gpuperf_flight_recorder_asked_seconds",
		    GPD_METRICS_GAUGE, "seconds", "The time --flight-recorder "
		    "DURATION sized the ring to hold (none for a ring given in "
		    "bytes). Holding less while it overwrites, it lets go of "
		    "records sooner than asked: its stream runs faster than it "
		    "was sized for.",
		    offsetof(struct gpd_flight_recorder_stats, asked_ns),
		    RING_SECONDS_IF_ANY);
}

/* One line a trigger of the daemon's, of one of its counts. */
static void render_trigger_counts(const struct gpd_metrics_exporter *ex,
				  struct gpd_metrics_text *t, const char *name,
				  const char *help, size_t offset)
{
	gpd_metrics_text_family(t, name, GPD_METRICS_COUNTER, NULL, help);
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		for (const struct gpd_trigger_counts *c = ed->dev->trigger_counts;
		     c; c = c->next) {
			uint64_t value;
			memcpy(&value, (const char *)c + offset, sizeof(value));
			gpd_metrics_text_sample(t, name, GPD_METRICS_COUNTER);
			gpd_metrics_text_printf(t, "%s,trigger=\"", ed->labels);
			gpd_metrics_text_label(t, c->expression);
			gpd_metrics_text_printf(t, "\"");
			gpd_metrics_text_end(t, (double)value);
		}
	}
}

static void render_triggers(const struct gpd_metrics_exporter *ex,
			    struct gpd_metrics_text *t)
{
	bool any = false;
	for (size_t i = 0; i < ex->n_devices; i++)
		any |= ex->devices[i].dev->trigger_counts != NULL;
	if (!any)
		return;
	render_trigger_counts(ex, t, "gpuperf_trigger_firings",
			      "Times a trigger of the daemon's (--trigger) fired: "
			      "episodes of its condition.",
			      offsetof(struct gpd_trigger_counts, firings));
	render_trigger_counts(ex, t, "gpuperf_trigger_snapshots_saved",
			      "Firings whose snapshot was written into "
			      "--trigger-dir.",
			      offsetof(struct gpd_trigger_counts, saved));
	render_trigger_counts(ex, t, "gpuperf_trigger_firings_skipped",
			      "Firings not saved because the trigger's firing "
			      "before was still being saved (its --trigger-after "
			      "or its writing).",
			      offsetof(struct gpd_trigger_counts, skipped));
	render_trigger_counts(ex, t, "gpuperf_trigger_saves_failed",
			      "Firings whose snapshot could not be taken or "
			      "written: nothing in the span, more than "
			      "--trigger-dir-max, a write error (the log says "
			      "which).",
			      offsetof(struct gpd_trigger_counts, failed));
}

/* A scrape's answer: why a device has no values (in the text format),
 * the last window's text as rendered, then what changes at any time as it
 * is now. */
static void render_answer(const struct gpd_metrics_exporter *ex,
			  struct gpd_metrics_text *t,
			  const struct gpd_metrics_text *window)
{
	const struct gpd_server *server = ex->server;
	/* OpenMetrics has no room for comments: there, the reason is in
	 * the log, and gpuperf_device_up says 0. */
	for (size_t i = 0; t->format == GPD_METRICS_TEXT && i < ex->n_devices; i++)
		if (*ex->devices[i].error)
			gpd_metrics_text_printf(t, "# %s\n", ex->devices[i].error);
	gpd_metrics_text_append(t, window->data, window->len);
	render_device_counter(ex, t, "gpuperf_reports",
			      "OA reports the device delivered.",
			      offsetof(struct gpd_device_stats, reports));
	render_device_counter(ex, t, "gpuperf_reports_lost",
			      "OA_REPORT_LOST records: reports the hardware "
			      "could not write.",
			      offsetof(struct gpd_device_stats, reports_lost));
	render_device_counter(ex, t, "gpuperf_buffers_lost",
			      "OA_BUFFER_LOST records: the OA buffer "
			      "overflowed before the daemon read it.",
			      offsetof(struct gpd_device_stats, buffers_lost));
	render_rings(ex, t);
	render_triggers(ex, t);
	gpd_metrics_text_family(t, "gpuperf_device_up", GPD_METRICS_GAUGE, NULL,
				"0 once the device is lost (unplugged, wedged, "
				"its driver gone) until it recovers; else 1.");
	for (size_t i = 0; i < ex->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf_device_up", GPD_METRICS_GAUGE);
		gpd_metrics_text_printf(t, "%s", ex->devices[i].labels);
		gpd_metrics_text_end(t, !ex->devices[i].lost);
	}
	gpd_metrics_text_family(t, "gpuperf_counters_streaming", GPD_METRICS_GAUGE,
				NULL, "1 while the device's counters have values "
				"here; 0 while another program owns its counter "
				"unit, the stream was refused, or it ended.");
	for (size_t i = 0; i < ex->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf_counters_streaming",
					GPD_METRICS_GAUGE);
		gpd_metrics_text_printf(t, "%s", ex->devices[i].labels);
		gpd_metrics_text_end(t, ex->devices[i].have_values);
	}
	gpd_metrics_text_family(t, "gpuperf", GPD_METRICS_INFO, NULL,
				"The devices gpuperfd serves.");
	for (size_t i = 0; i < ex->n_devices; i++) {
		gpd_metrics_text_sample(t, "gpuperf", GPD_METRICS_INFO);
		gpd_metrics_text_printf(t, "%s,%s", ex->devices[i].labels,
					ex->devices[i].info_labels);
		gpd_metrics_text_end(t, 1);
	}
	gpd_metrics_text_family(t, "gpuperf_connections", GPD_METRICS_GAUGE, NULL,
				"Open protocol connections.");
	gpd_metrics_text_printf(t, "gpuperf_connections %u\n", server->n_sessions);
	gpd_metrics_text_family(t, "gpuperf_connections_unauthenticated",
				GPD_METRICS_GAUGE, NULL, "Connections waiting to "
				"authenticate (at most --max-unauthenticated).");
	gpd_metrics_text_printf(t, "gpuperf_connections_unauthenticated %u\n",
				server->admission.waiting);
	gpd_metrics_text_family(t, "gpuperf_connections_refused", GPD_METRICS_COUNTER,
				NULL, "Connections the server had no room for.");
	gpd_metrics_text_printf(t, "gpuperf_connections_refused_total %llu\n",
				(unsigned long long)server->admission.refused);
	gpd_metrics_text_family(t, "gpuperf_send_queue_bytes", GPD_METRICS_GAUGE,
				"bytes", "Bytes queued for all clients (at most "
				"--send-budget).");
	gpd_metrics_text_printf(t, "gpuperf_send_queue_bytes %zu\n", server->queued_bytes);
	gpd_metrics_text_family(t, "gpuperf_slow_readers_dropped", GPD_METRICS_COUNTER,
				NULL, "Clients cut off for leaving more than their "
				"share of --send-budget unread.");
	gpd_metrics_text_printf(t, "gpuperf_slow_readers_dropped_total %llu\n",
				(unsigned long long)server->slow_readers_dropped);
	gpd_metrics_text_family(t, "gpuperf_frames_dropped", GPD_METRICS_COUNTER, NULL,
				"Frames dropped because a client read too slowly, "
				"by stream: counters or usage.");
	gpd_metrics_text_printf(t, "gpuperf_frames_dropped_total{stream=\"counters\"} "
				"%llu\n", (unsigned long long)server->counter_frames_dropped);
	gpd_metrics_text_printf(t, "gpuperf_frames_dropped_total{stream=\"usage\"} "
				"%llu\n", (unsigned long long)server->usage_frames_dropped);
	gpd_metrics_text_finish(t);
}

/* ------------------------------------------------------------------ */
/* Snapshots and answers, on the loop                                    */

static const char out_of_memory[] = "# out of memory\n";

static void job_free(struct render_job *job)
{
	for (size_t i = 0; i < job->n_devices; i++) {
		counters_unref(job->devices[i].counters);
		free(job->devices[i].values);
		gpd_metrics_usage_view_fini(&job->usage[i]);
	}
	free(job->devices);
	free(job->usage);
	for (int f = 0; f < 2; f++)
		for (int d = 0; d < 2; d++)
			free(job->text[f][d].data);
	free(job);
}

static void forget_rendered(struct gpd_metrics_exporter *ex)
{
	for (int f = 0; f < 2; f++) {
		for (int d = 0; d < 2; d++) {
			free(ex->rendered[f][d].data);
			ex->rendered[f][d] = (struct gpd_metrics_text){ 0 };
			ex->rendered_ok[f][d] = false;
			ex->asked[f][d] = false;
		}
	}
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
	forget_rendered(ex);
	free(ex->reply.data);
	free(ex->counter_list);
	free(ex->usage);
	free(ex->devices);
	free(ex);
}

static bool all_ready(const struct gpd_metrics_exporter *ex)
{
	for (size_t i = 0; i < ex->n_devices; i++)
		if ((ex->devices[i].sub && !ex->devices[i].have_values &&
		     !ex->devices[i].lost && !ex->devices[i].halted) ||
		    (ex->usage[i].sub && !ex->usage[i].have_frame))
			return false;
	return true;
}

/* window: the last window's text in the scrape's format; NULL when it
 * could not be written. */
static void answer(struct gpd_metrics_exporter *ex, struct gpd_scrape *s,
		   const struct gpd_metrics_text *window)
{
	struct gpd_metrics_text *t = &ex->reply;
	t->len = 0;
	t->failed = false;
	t->format = s->format;
	if (window && !window->failed)
		render_answer(ex, t, window);
	if (!window || window->failed || t->failed)
		s->done(s, out_of_memory, sizeof(out_of_memory) - 1);
	else
		s->done(s, t->data, t->len);
}

static void answer_pending(struct gpd_metrics_exporter *ex,
			   const struct gpd_metrics_text window[2][2])
{
	while (ex->pending) {
		struct gpd_scrape *s = ex->pending;
		ex->pending = s->next;
		s->next = NULL;
		answer(ex, s, window ? &window[s->format][s->process_details] : NULL);
	}
}

static void start_render(struct gpd_metrics_exporter *ex);

static void render_done(uv_work_t *work, int status)
{
	struct render_job *job = work->data;
	struct gpd_metrics_exporter *ex = job->ex;
	ex->job = NULL;
	if (ex->destroyed) {
		job_free(job);
		if (ex->timer_closed)
			exporter_free(ex);
		return;
	}
	/* The devices changed while it rendered: its scrapes wait for the
	 * next, as they would have had they come now. */
	bool current = job->generation == ex->generation;
	if (!current && job->scrapes && gpd_monotonic_ns() < job->deadline_ns) {
		struct gpd_scrape **last = &job->scrapes;
		while (*last)
			last = &(*last)->next;
		if (!ex->pending || job->deadline_ns < ex->deadline_ns)
			ex->deadline_ns = job->deadline_ns;
		*last = ex->pending;
		ex->pending = job->scrapes;
		job->scrapes = NULL;
	}
	bool kept[2][2] = { { false } };
	for (int f = 0; f < 2; f++) {
		for (int d = 0; d < 2; d++) {
			if (!job->wanted[f][d] || status || job->text[f][d].failed ||
			    !current || !job->complete)
				continue;
			free(ex->rendered[f][d].data);
			ex->rendered[f][d] = job->text[f][d];
			job->text[f][d] = (struct gpd_metrics_text){ 0 };
			ex->rendered_ok[f][d] = kept[f][d] = true;
			ex->rendered_generation[f][d] = job->generation;
		}
	}
	while (job->scrapes) {
		struct gpd_scrape *s = job->scrapes;
		job->scrapes = s->next;
		s->next = NULL;
		int f = s->format, d = s->process_details;
		answer(ex, s, status ? NULL : kept[f][d] ? &ex->rendered[f][d] :
		       &job->text[f][d]);
	}
	job_free(job);
	/* Scrapes, or windows, that came while it rendered. */
	bool ready = all_ready(ex);
	if ((ex->pending && (ready || gpd_monotonic_ns() >= ex->deadline_ns)) ||
	    (ex->new_values && ready))
		start_render(ex);
}

static int view_device(struct exported_device *ed, struct device_view *v)
{
	v->labels = ed->labels;
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

/* Takes a snapshot, and the pending scrapes, to the thread pool. */
static void start_render(struct gpd_metrics_exporter *ex)
{
	bool asked = false;
	for (int f = 0; f < 2; f++)
		for (int d = 0; d < 2; d++)
			asked |= ex->asked[f][d];
	if (ex->job || (!ex->pending && !(ex->new_values && asked)))
		return;
	struct render_job *job = calloc(1, sizeof(*job));
	if (!job) {
		answer_pending(ex, NULL);
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
		job_free(job);
		answer_pending(ex, NULL);
		return;
	}
	job->generation = ex->generation;
	job->complete = all_ready(ex);
	job->scrapes = ex->pending;
	job->deadline_ns = ex->deadline_ns;
	ex->pending = NULL;
	ex->new_values = false;
	for (struct gpd_scrape *s = job->scrapes; s; s = s->next)
		job->wanted[s->format][s->process_details] = true;
	for (int f = 0; f < 2; f++)
		for (int d = 0; d < 2; d++)
			job->wanted[f][d] |= ex->asked[f][d];
	job->work.data = job;
	ex->job = job;
	if (uv_queue_work(ex->server->loop, &job->work, render_work, render_done)) {
		render_work(&job->work);
		render_done(&job->work, 0);
	}
}

/* ------------------------------------------------------------------ */
/* Subscriptions                                                        */

/* What a kept text shows is no longer so. */
static void devices_changed(struct gpd_metrics_exporter *ex)
{
	ex->generation++;
}

/* A window's values came: pending scrapes are answered once every
 * device has them; the last window's text is rendered again. */
static void values_came(struct gpd_metrics_exporter *ex)
{
	ex->new_values = true;
	if (all_ready(ex))
		start_render(ex);
}

static void on_usage_ready(void *user)
{
	values_came(user);
}

static bool resolve_counters(struct exported_device *ed)
{
	const char *const *symbols;
	size_t n = gpd_subscription_counters(ed->sub, &symbols);
	const struct gpm_metric_set *set = ed->dev->set;
	if (set == ed->set && n == ed->n_symbols && ed->counters)
		return true;
	devices_changed(ed->ex);
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
	if (!ed->have_values || ed->lost || ed->halted)
		devices_changed(ed->ex);
	ed->have_values = true;
	ed->lost = ed->halted = false;
	values_came(ed->ex);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct exported_device *ed = user;
	if (ev->kind != GPD_EVENT_TRIGGER_FIRED)
		devices_changed(ed->ex);
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
	devices_changed(ex);
	forget_rendered(ex);
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
	devices_changed(ex);
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
		bool had_usage = ex->usage[i].sub != NULL;
		gpd_metrics_usage_start(&ex->usage[i], ex->devices[i].dev,
					ex->server->options.metrics_window_ms *
					1000000ull);
		if (!had_usage && ex->usage[i].sub)
			devices_changed(ex);
	}
	if (!ex->timer_running) {
		uv_timer_start(&ex->timer, on_tick, TICK_MS, TICK_MS);
		ex->timer_running = true;
	}
	int f = scrape->format, d = scrape->process_details;
	ex->asked[f][d] = true;
	if (ex->rendered_ok[f][d] && ex->rendered_generation[f][d] == ex->generation &&
	    all_ready(ex)) {
		answer(ex, scrape, &ex->rendered[f][d]);
		return;
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
