/*
 * /metrics' usage series (see metrics_usage.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/net/metrics_usage.h"

static void keep_rows(struct gpd_metrics_usage *mu, const struct gpd_usage_frame *f)
{
	if (!f->processes_read)
		return;
	if (f->n_processes > mu->cap_rows) {
		struct gpd_metrics_usage_process *rows =
			realloc(mu->rows, f->n_processes * sizeof(*rows));
		if (!rows) {
			gpd_warn("out of memory keeping processes for /metrics");
			return;
		}
		mu->rows = rows;
		mu->cap_rows = f->n_processes;
	}
	for (size_t i = 0; i < f->n_processes; i++) {
		mu->rows[i].pid = f->processes[i].pid;
		memcpy(mu->rows[i].command, f->processes[i].command,
		       sizeof(mu->rows[i].command));
		mu->rows[i].memory_bytes = f->processes[i].memory_bytes;
	}
	mu->n_rows = f->n_processes;
}

static void on_usage_frame(void *user, const struct gpd_usage_frame *f)
{
	struct gpd_metrics_usage *mu = user;
	mu->actual_hz = f->actual_freq_hz;
	mu->requested_hz = f->requested_freq_hz;
	mu->min_hz = f->min_freq_hz;
	mu->max_hz = f->max_freq_hz;
	mu->power_w = f->power_w;
	mu->temperature_c = f->temperature_c;
	memcpy(mu->gauges, f->gauges, sizeof(mu->gauges));
	keep_rows(mu, f);
	mu->have_frame = true;
	if (mu->ready)
		mu->ready(mu->user);
}

static const struct gpd_usage_subscriber_ops metrics_usage_ops = {
	.frame = on_usage_frame,
};

bool gpd_metrics_usage_start(struct gpd_metrics_usage *mu,
			     struct gpd_device *dev, uint64_t interval_ns)
{
	mu->dev = dev;
	if (!dev->usage || mu->sub)
		return mu->sub != NULL;
	if (interval_ns < GPD_USAGE_MIN_INTERVAL_NS)
		interval_ns = GPD_USAGE_MIN_INTERVAL_NS;
	struct gpd_error err = { 0 };
	if (gpd_usage_subscribe(dev->usage, interval_ns, mu->processes,
				&metrics_usage_ops, mu, &mu->sub, &err)) {
		gpd_warn("%s: /metrics has no usage: %s", dev->source->name,
			 err.message);
		mu->sub = NULL;
		return false;
	}
	return true;
}

void gpd_metrics_usage_stop(struct gpd_metrics_usage *mu)
{
	gpd_usage_unsubscribe(mu->sub);
	mu->sub = NULL;
	mu->have_frame = false;
}

void gpd_metrics_usage_fini(struct gpd_metrics_usage *mu)
{
	gpd_metrics_usage_stop(mu);
	free(mu->rows);
	mu->rows = NULL;
	mu->n_rows = mu->cap_rows = 0;
}

static void header(struct gpd_metrics_text *t, const char *name,
		   const char *type, const char *help)
{
	gpd_metrics_text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help,
				name, type);
}

static void sample_start(struct gpd_metrics_text *t, const char *name,
			 const struct gpd_metrics_usage *mu)
{
	gpd_metrics_text_printf(t, "%s{device=\"", name);
	gpd_metrics_text_label(t, mu->dev->source->name);
	gpd_metrics_text_printf(t, "\"");
}

static void sample_end(struct gpd_metrics_text *t, double v)
{
	gpd_metrics_text_printf(t, "} ");
	gpd_metrics_text_value(t, v);
	gpd_metrics_text_printf(t, "\n");
}

/* Which of an engine's counters. */
enum engine_part { BUSY, WAIT, SEMA };

static void render_engines(struct gpd_metrics_text *t,
			   const struct gpd_metrics_usage *mus, size_t n,
			   enum engine_part part)
{
	static const char *const names[] = {
		"gpuperf_engine_busy_seconds_total",
		"gpuperf_engine_wait_seconds_total",
		"gpuperf_engine_sema_seconds_total",
	};
	static const char *const helps[] = {
		"Time each engine was busy, since the daemon first read it.",
		"Time each engine waited on an event while busy (i915).",
		"Time each engine waited on a semaphore while busy (i915).",
	};
	bool first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage *mu = &mus[d];
		if (!mu->have_frame)
			continue;
		const struct gpd_usage_totals *tot = gpd_usage_monitor_totals(mu->dev->usage);
		const struct gpd_usage_layout *l = gpd_usage_monitor_layout(mu->dev->usage);
		if (!(tot->have & GPD_USAGE_HAVE_ENGINES))
			continue;
		for (unsigned e = 0; e < l->n_engines; e++) {
			const struct gpd_usage_engine_info *info = &l->engines[e];
			if ((part == WAIT && !info->has_wait) ||
			    (part == SEMA && !info->has_sema))
				continue;
			const double *values = part == BUSY ? tot->engine_busy_s :
					       part == WAIT ? tot->engine_wait_s :
					       tot->engine_sema_s;
			if (first)
				header(t, names[part], "counter", helps[part]);
			first = false;
			sample_start(t, names[part], mu);
			gpd_metrics_text_printf(t, ",engine=\"");
			gpd_metrics_text_label(t, info->name);
			gpd_metrics_text_printf(t, "\",class=\"");
			gpd_metrics_text_label(t, l->classes[info->class_index]);
			gpd_metrics_text_printf(t, "\"");
			sample_end(t, values[e]);
		}
	}
}

/* A per-device value: offset of the double in struct gpd_metrics_usage
 * for gauges, or a totals bit for counters. */
static void render_device_values(struct gpd_metrics_text *t,
				 const struct gpd_metrics_usage *mus, size_t n)
{
	static const struct {
		const char *name, *type, *help, *kind;
		size_t offset;          /* gauge: into struct gpd_metrics_usage */
		unsigned total;         /* counter: GPD_USAGE_HAVE_RC6, _ENERGY */
	} values[] = {
		{ "gpuperf_frequency_hertz", "gauge", "The GPU clock's mean over "
		  "the last interval (actual: 0 while in RC6).", "actual",
		  offsetof(struct gpd_metrics_usage, actual_hz), 0 },
		{ "gpuperf_frequency_hertz", NULL, NULL, "requested",
		  offsetof(struct gpd_metrics_usage, requested_hz), 0 },
		{ "gpuperf_frequency_min_hertz", "gauge", "The lowest clock the "
		  "driver may choose now.", NULL,
		  offsetof(struct gpd_metrics_usage, min_hz), 0 },
		{ "gpuperf_frequency_max_hertz", "gauge", "The highest clock the "
		  "driver may choose now.", NULL,
		  offsetof(struct gpd_metrics_usage, max_hz), 0 },
		{ "gpuperf_rc6_seconds_total", "counter", "Time the GPU slept "
		  "(RC6; GT C6 on xe), since the daemon first read it.", NULL, 0,
		  GPD_USAGE_HAVE_RC6 },
		{ "gpuperf_energy_joules_total", "counter", "Energy the GPU used, "
		  "since the daemon first read it.", NULL, 0,
		  GPD_USAGE_HAVE_ENERGY },
		{ "gpuperf_power_watts", "gauge", "The GPU's mean power over the "
		  "last interval.", NULL,
		  offsetof(struct gpd_metrics_usage, power_w), 0 },
		{ "gpuperf_temperature_celsius", "gauge", "The GPU's temperature.",
		  NULL, offsetof(struct gpd_metrics_usage, temperature_c), 0 },
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		bool first = true;
		for (size_t d = 0; d < n; d++) {
			const struct gpd_metrics_usage *mu = &mus[d];
			if (!mu->have_frame)
				continue;
			const struct gpd_usage_totals *tot =
				gpd_usage_monitor_totals(mu->dev->usage);
			double v;
			if (values[i].total) {
				if (!(tot->have & values[i].total))
					continue;
				v = values[i].total == GPD_USAGE_HAVE_RC6 ?
				    tot->rc6_s : tot->energy_j;
			} else {
				memcpy(&v, (const char *)mu + values[i].offset,
				       sizeof(v));
				if (isnan(v))
					continue;
			}
			if (first && values[i].type)
				header(t, values[i].name, values[i].type,
				       values[i].help);
			first = false;
			sample_start(t, values[i].name, mu);
			if (values[i].kind)
				gpd_metrics_text_printf(t, ",kind=\"%s\"",
							values[i].kind);
			sample_end(t, v);
		}
	}
}

static void render_gauges(struct gpd_metrics_text *t,
			  const struct gpd_metrics_usage *mus, size_t n)
{
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage *mu = &mus[d];
		if (!mu->have_frame)
			continue;
		const struct gpd_usage_layout *l = gpd_usage_monitor_layout(mu->dev->usage);
		for (unsigned g = 0; g < l->n_gauges; g++) {
			if (isnan(mu->gauges[g]))
				continue;
			char name[96];
			snprintf(name, sizeof(name), "gpuperf_%s_%s",
				 l->gauges[g].name, l->gauges[g].unit);
			header(t, name, "gauge", "A reading of the device's driver.");
			sample_start(t, name, mu);
			sample_end(t, mu->gauges[g]);
		}
	}
}

static void process_labels(struct gpd_metrics_text *t, int32_t pid,
			   const char *command)
{
	gpd_metrics_text_printf(t, ",pid=\"%d\",command=\"", pid);
	gpd_metrics_text_label(t, command);
	gpd_metrics_text_printf(t, "\"");
}

static void render_processes(struct gpd_metrics_text *t,
			     const struct gpd_metrics_usage *mus, size_t n)
{
	bool first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage *mu = &mus[d];
		if (!mu->have_frame || !mu->processes)
			continue;
		const struct gpd_usage_totals *tot = gpd_usage_monitor_totals(mu->dev->usage);
		const struct gpd_usage_layout *l = gpd_usage_monitor_layout(mu->dev->usage);
		for (size_t p = 0; p < tot->n_processes; p++) {
			const struct gpd_usage_process_total *pt = &tot->processes[p];
			for (unsigned k = 0; k < l->n_classes; k++) {
				if (first)
					header(t, "gpuperf_process_gpu_seconds_total",
					       "counter", "Engine time of a process's "
					       "DRM clients, per engine class, since "
					       "the daemon first saw it.");
				first = false;
				sample_start(t, "gpuperf_process_gpu_seconds_total", mu);
				process_labels(t, pt->pid, pt->command);
				gpd_metrics_text_printf(t, ",class=\"");
				gpd_metrics_text_label(t, l->classes[k]);
				gpd_metrics_text_printf(t, "\"");
				sample_end(t, pt->class_busy_s[k]);
			}
		}
	}
	first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage *mu = &mus[d];
		if (!mu->have_frame || !mu->processes)
			continue;
		for (size_t p = 0; p < mu->n_rows; p++) {
			if (first)
				header(t, "gpuperf_process_memory_bytes", "gauge",
				       "GPU memory a process's DRM clients hold.");
			first = false;
			sample_start(t, "gpuperf_process_memory_bytes", mu);
			process_labels(t, mu->rows[p].pid, mu->rows[p].command);
			sample_end(t, (double)mu->rows[p].memory_bytes);
		}
	}
}

void gpd_metrics_usage_render(struct gpd_metrics_text *t,
			      const struct gpd_metrics_usage *mus, size_t n)
{
	render_engines(t, mus, n, BUSY);
	render_engines(t, mus, n, WAIT);
	render_engines(t, mus, n, SEMA);
	render_device_values(t, mus, n);
	render_gauges(t, mus, n);
	render_processes(t, mus, n);
}
