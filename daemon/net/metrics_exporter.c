/*
 * The Prometheus exposition of /metrics and the subscriptions behind it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
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

#define TICK_MS 250
/* Prometheus scrapes every 15 s to 1 min; a minute without one ends the
 * subscriptions (and lets an otherwise idle device close its stream). */
#define IDLE_NS (60ull * 1000000000ull)
/* A first scrape waits this long past a window for values. */
#define GRACE_NS 1000000000ull

struct exported_device {
	struct gpd_metrics_exporter *ex;
	struct gpd_device *dev;
	struct gpd_subscription *sub;
	char error[256];                /* why it has no subscription */
	bool have_values;
	const struct gpm_metric_set *set;       /* of counters */
	size_t n;
	const struct gpm_counter **counters;    /* in value order */
	double *values;
	size_t cap;
};

struct gpd_metrics_exporter {
	struct gpd_server *server;
	size_t n_devices;
	struct exported_device *devices;
	struct gpd_metrics_usage *usage;        /* per device */
	uv_timer_t timer;
	bool timer_running;
	uint64_t last_scrape_ns;
	uint64_t deadline_ns;           /* pending scrapes are answered by */
	struct gpd_scrape *pending;
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

static double counter_name(const struct gpm_counter *c, char *out, size_t size)
{
	const struct unit *unit = NULL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(c->units, units[i].xml))
			unit = &units[i];
	size_t pos = (size_t)snprintf(out, size, "gpuperf_");
	pos = append_snake(out, pos, size,
			   *c->underscore_name ? c->underscore_name : c->symbol_name);
	/* "SamplerTexels" in texels is gpuperf_sampler_texels, not
	 * ..._texels_texels. */
	char suffix[96] = "_";
	size_t n = append_snake(suffix, 1, sizeof(suffix),
				unit ? unit->suffix : c->units);
	if (n > 1 && (pos < n || strcmp(out + pos - n, suffix)))
		snprintf(out + pos, size - pos, "%s", suffix);
	return unit ? unit->scale : 1;
}

/* ------------------------------------------------------------------ */
/* Exposition                                                           */

struct sample {
	char name[160];
	size_t device;
	const struct gpm_counter *counter;
	double value;
};

static int compare_samples(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->device < y->device ? -1 : x->device > y->device;
}

static void device_labels(struct gpd_metrics_text *t, const struct exported_device *ed)
{
	gpd_metrics_text_printf(t, "device=\"");
	gpd_metrics_text_label(t, ed->dev->source->name);
	gpd_metrics_text_printf(t, "\",pci_id=\"0x%04x\"", ed->dev->source->info.pci_id);
}

static void render_counters(struct gpd_metrics_exporter *ex, struct gpd_metrics_text *t)
{
	size_t n = 0;
	for (size_t i = 0; i < ex->n_devices; i++)
		if (ex->devices[i].have_values)
			n += ex->devices[i].n;
	struct sample *samples = calloc(n ? n : 1, sizeof(*samples));
	if (!samples) {
		t->failed = true;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < ex->n_devices; i++) {
		struct exported_device *ed = &ex->devices[i];
		if (!ed->have_values)
			continue;
		for (size_t j = 0; j < ed->n; j++) {
			struct sample *s = &samples[k++];
			double scale = counter_name(ed->counters[j], s->name,
						    sizeof(s->name));
			s->device = i;
			s->counter = ed->counters[j];
			s->value = ed->values[j] * scale;
		}
	}
	qsort(samples, n, sizeof(*samples), compare_samples);
	for (size_t i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		bool first = i == 0 || strcmp(s->name, samples[i - 1].name);
		/* Two counters of one set may come out under one name; a
		 * series may appear once. */
		if (!first && s->device == samples[i - 1].device)
			continue;
		if (first) {
			gpd_metrics_text_printf(t, "# HELP %s ", s->name);
			gpd_metrics_text_help(t, s->counter->name);
			if (*s->counter->description) {
				gpd_metrics_text_printf(t, ": ");
				gpd_metrics_text_help(t, s->counter->description);
			}
			gpd_metrics_text_printf(t, " (over the last %llu ms)\n# TYPE %s gauge\n",
				    (unsigned long long)ex->server->options.metrics_window_ms,
				    s->name);
		}
		const struct exported_device *ed = &ex->devices[s->device];
		gpd_metrics_text_printf(t, "%s{", s->name);
		device_labels(t, ed);
		gpd_metrics_text_printf(t, ",metric_set=\"");
		gpd_metrics_text_label(t, ed->set->symbol_name);
		gpd_metrics_text_printf(t, "\"} ");
		gpd_metrics_text_value(t, s->value);
		gpd_metrics_text_printf(t, "\n");
	}
	free(samples);
}

static void render_device_counter(struct gpd_metrics_exporter *ex,
				  struct gpd_metrics_text *t, const char *name,
				  const char *help, size_t offset)
{
	gpd_metrics_text_printf(t, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		const uint64_t *value =
			(const uint64_t *)((const char *)&ed->dev->stats + offset);
		gpd_metrics_text_printf(t, "%s{", name);
		device_labels(t, ed);
		gpd_metrics_text_printf(t, "} %llu\n", (unsigned long long)*value);
	}
}

/* One line a device with a flight recorder, of the ring's stats. */
static void render_ring(struct gpd_metrics_exporter *ex, struct gpd_metrics_text *t,
			const char *name, const char *type, const char *help,
			size_t offset)
{
	gpd_metrics_text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		if (!ed->dev->ring)
			continue;
		const uint64_t *value = (const uint64_t *)
			((const char *)&ed->dev->ring->stats + offset);
		gpd_metrics_text_printf(t, "%s{", name);
		device_labels(t, ed);
		gpd_metrics_text_printf(t, "} %llu\n", (unsigned long long)*value);
	}
}

static void render_rings(struct gpd_metrics_exporter *ex, struct gpd_metrics_text *t)
{
	bool any = false;
	for (size_t i = 0; i < ex->n_devices; i++)
		any |= ex->devices[i].dev->ring != NULL;
	if (!any)
		return;
	render_ring(ex, t, "gpuperf_flight_recorder_capacity_bytes", "gauge",
		    "The flight recorder's ring size (--flight-recorder).",
		    offsetof(struct gpd_flight_recorder_stats, capacity));
	render_ring(ex, t, "gpuperf_flight_recorder_used_bytes", "gauge",
		    "Bytes of records the flight recorder holds now.",
		    offsetof(struct gpd_flight_recorder_stats, used));
	render_ring(ex, t, "gpuperf_flight_recorder_overwritten_records_total",
		    "counter", "Records (reports and loss records) the flight "
		    "recorder let go of to make room for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, records_overwritten));
	render_ring(ex, t, "gpuperf_flight_recorder_overwritten_bytes_total",
		    "counter", "Bytes the flight recorder let go of to make room "
		    "for newer ones.",
		    offsetof(struct gpd_flight_recorder_stats, bytes_overwritten));
	render_ring(ex, t, "gpuperf_flight_recorder_segments_total", "counter",
		    "Segments the flight recorder began: one per stream "
		    "configuration.",
		    offsetof(struct gpd_flight_recorder_stats, segments));
}

static void render(struct gpd_metrics_exporter *ex, struct gpd_metrics_text *t)
{
	for (size_t i = 0; i < ex->n_devices; i++)
		if (*ex->devices[i].error)
			gpd_metrics_text_printf(t, "# %s: %s\n", ex->devices[i].dev->source->name,
				    ex->devices[i].error);
	render_counters(ex, t);
	gpd_metrics_usage_render(t, ex->usage, ex->n_devices);
	render_device_counter(ex, t, "gpuperf_reports_total",
			      "OA reports the device delivered.",
			      offsetof(struct gpd_device_stats, reports));
	render_device_counter(ex, t, "gpuperf_reports_lost_total",
			      "OA_REPORT_LOST records: reports the hardware "
			      "could not write.",
			      offsetof(struct gpd_device_stats, reports_lost));
	render_device_counter(ex, t, "gpuperf_buffers_lost_total",
			      "OA_BUFFER_LOST records: the OA buffer "
			      "overflowed before the daemon read it.",
			      offsetof(struct gpd_device_stats, buffers_lost));
	render_rings(ex, t);
	gpd_metrics_text_printf(t, "# HELP gpuperf_info The devices gpuperfd serves.\n"
		       "# TYPE gpuperf_info gauge\n");
	for (size_t i = 0; i < ex->n_devices; i++) {
		const struct exported_device *ed = &ex->devices[i];
		gpd_metrics_text_printf(t, "gpuperf_info{");
		device_labels(t, ed);
		gpd_metrics_text_printf(t, ",platform=\"");
		gpd_metrics_text_label(t, ed->dev->source->platform->name);
		gpd_metrics_text_printf(t, "\",source=\"%s\",version=\"%s\"} 1\n",
			    gpd_source_kind_name(ed->dev->source->kind),
			    GPUPERF_VERSION);
	}
	const struct gpd_admission *a = &ex->server->admission;
	gpd_metrics_text_printf(t, "# HELP gpuperf_connections Open protocol connections.\n"
		       "# TYPE gpuperf_connections gauge\n"
		       "gpuperf_connections %u\n", ex->server->n_sessions);
	gpd_metrics_text_printf(t, "# HELP gpuperf_connections_unauthenticated Connections "
		       "waiting to authenticate (at most --max-unauthenticated).\n"
		       "# TYPE gpuperf_connections_unauthenticated gauge\n"
		       "gpuperf_connections_unauthenticated %u\n", a->waiting);
	gpd_metrics_text_printf(t, "# HELP gpuperf_connections_refused_total Connections "
		       "the server had no room for.\n"
		       "# TYPE gpuperf_connections_refused_total counter\n"
		       "gpuperf_connections_refused_total %llu\n", a->refused);
	gpd_metrics_text_printf(t, "# HELP gpuperf_send_queue_bytes Bytes queued for all "
		       "clients (at most --send-budget).\n"
		       "# TYPE gpuperf_send_queue_bytes gauge\n"
		       "gpuperf_send_queue_bytes %zu\n", ex->server->queued_bytes);
	gpd_metrics_text_printf(t, "# HELP gpuperf_slow_readers_dropped_total Clients cut "
		       "off for leaving more than their share of --send-budget "
		       "unread.\n"
		       "# TYPE gpuperf_slow_readers_dropped_total counter\n"
		       "gpuperf_slow_readers_dropped_total %llu\n",
		    ex->server->slow_readers_dropped);
	gpd_metrics_text_printf(t, "# HELP gpuperf_frames_dropped_total Frames dropped "
		       "because a client read too slowly.\n"
		       "# TYPE gpuperf_frames_dropped_total counter\n"
		       "gpuperf_frames_dropped_total %llu\n",
		    (unsigned long long)ex->server->frames_dropped);
}

static void answer(struct gpd_metrics_exporter *ex)
{
	struct gpd_metrics_text t = { 0 };
	render(ex, &t);
	if (t.failed) {
		t.len = 0;
		gpd_metrics_text_printf(&t, "# out of memory\n");
	}
	while (ex->pending) {
		struct gpd_scrape *s = ex->pending;
		ex->pending = s->next;
		s->next = NULL;
		s->done(s, t.failed ? "" : t.data, t.failed ? 0 : t.len);
	}
	free(t.data);
}

/* ------------------------------------------------------------------ */
/* Subscriptions                                                        */

static bool all_ready(const struct gpd_metrics_exporter *ex)
{
	for (size_t i = 0; i < ex->n_devices; i++)
		if ((ex->devices[i].sub && !ex->devices[i].have_values) ||
		    (ex->usage[i].sub && !ex->usage[i].have_frame))
			return false;
	return true;
}

static void on_usage_ready(void *user)
{
	struct gpd_metrics_exporter *ex = user;
	if (ex->pending && all_ready(ex))
		answer(ex);
}

static bool resolve_counters(struct exported_device *ed)
{
	const char *const *symbols;
	size_t n = gpd_subscription_counters(ed->sub, &symbols);
	const struct gpm_metric_set *set = ed->dev->set;
	if (set == ed->set && n == ed->n)
		return true;
	if (n > ed->cap) {
		const struct gpm_counter **c = realloc(ed->counters, n * sizeof(*c));
		if (c)
			ed->counters = c;
		double *v = realloc(ed->values, n * sizeof(*v));
		if (v)
			ed->values = v;
		if (!c || !v)
			return false;
		ed->cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		int k = gpm_metric_set_find_counter(set, symbols[i]);
		if (k < 0)
			return false;
		ed->counters[i] = &set->counters[k];
	}
	ed->set = set;
	ed->n = n;
	return true;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct exported_device *ed = user;
	if (!resolve_counters(ed)) {
		ed->have_values = false;
		return;
	}
	for (size_t i = 0; i < ed->n && i < f->n_values; i++)
		ed->values[i] = gpm_value_as_double(f->values[i]);
	ed->have_values = true;
	struct gpd_metrics_exporter *ex = ed->ex;
	if (ex->pending && all_ready(ex))
		answer(ex);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct exported_device *ed = user;
	if (ev->kind == GPD_EVENT_CONFIG_CHANGED)
		ed->have_values = false;        /* they were another set's */
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
		ed->set = NULL;
		ed->n = 0;
		gpd_metrics_usage_stop(&ex->usage[i]);
	}
}

static void on_tick(uv_timer_t *timer)
{
	struct gpd_metrics_exporter *ex = timer->data;
	uint64_t now = gpd_monotonic_ns();
	if (ex->pending && now >= ex->deadline_ns)
		answer(ex);
	if (!ex->pending && now - ex->last_scrape_ns > IDLE_NS) {
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
		snprintf(ed->error, sizeof(ed->error), "%s", err.message);
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
		answer(ex);
}

void gpd_metrics_exporter_cancel(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape)
{
	for (struct gpd_scrape **p = &ex->pending; *p; p = &(*p)->next) {
		if (*p == scrape) {
			*p = scrape->next;
			return;
		}
	}
}

int gpd_metrics_exporter_create(struct gpd_server *server,
				struct gpd_metrics_exporter **out)
{
	const struct gpd_device_registry *d = server->devices;
	struct gpd_metrics_exporter *ex = calloc(1, sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	ex->devices = calloc(d->n_devices ? d->n_devices : 1, sizeof(*ex->devices));
	ex->usage = calloc(d->n_devices ? d->n_devices : 1, sizeof(*ex->usage));
	if (!ex->devices || !ex->usage) {
		free(ex->devices);
		free(ex->usage);
		free(ex);
		return -ENOMEM;
	}
	ex->server = server;
	ex->n_devices = d->n_devices;
	/* Process labels multiply series: only when asked for, and never
	 * what --process-details keeps from everyone. */
	bool processes = server->options.metrics_processes &&
			 server->options.process_details != GPD_PROCESS_DETAILS_NONE;
	for (size_t i = 0; i < d->n_devices; i++) {
		ex->devices[i].ex = ex;
		ex->devices[i].dev = d->devices[i];
		ex->usage[i].processes = processes;
		ex->usage[i].ready = on_usage_ready;
		ex->usage[i].user = ex;
	}
	uv_timer_init(server->loop, &ex->timer);
	ex->timer.data = ex;
	*out = ex;
	return 0;
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct gpd_metrics_exporter *ex = handle->data;
	for (size_t i = 0; i < ex->n_devices; i++) {
		free(ex->devices[i].counters);
		free(ex->devices[i].values);
		gpd_metrics_usage_fini(&ex->usage[i]);
	}
	free(ex->usage);
	free(ex->devices);
	free(ex);
}

void gpd_metrics_exporter_destroy(struct gpd_metrics_exporter *ex)
{
	if (!ex)
		return;
	unsubscribe_all(ex);
	ex->pending = NULL;
	uv_timer_stop(&ex->timer);
	uv_close((uv_handle_t *)&ex->timer, on_timer_closed);
}
