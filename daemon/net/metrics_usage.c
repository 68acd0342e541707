/*
 * /metrics' usage series (see metrics_usage.h).
 */
#include <errno.h>
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
		mu->rows[i].pod = f->processes[i].pod;
		mu->rows[i].memory_bytes = f->processes[i].memory_bytes;
		mu->rows[i].share_source = f->processes[i].share_source;
		mu->rows[i].records_lost = f->processes[i].records_lost;
	}
	mu->n_rows = f->n_processes;
}

static void on_usage_frame(void *user, const struct gpd_usage_frame *f)
{
	struct gpd_metrics_usage *mu = user;
	mu->last.actual_hz = f->actual_freq_hz;
	mu->last.requested_hz = f->requested_freq_hz;
	mu->last.min_hz = f->min_freq_hz;
	mu->last.max_hz = f->max_freq_hz;
	mu->last.power_w = f->power_w;
	mu->last.temperature_c = f->temperature_c;
	memcpy(mu->last.gauges, f->gauges, sizeof(mu->last.gauges));
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

/* ------------------------------------------------------------------ */
/* Views                                                                */

static void *copy_array(const void *from, size_t n, size_t size)
{
	void *to = malloc(n ? n * size : 1);
	if (to && n)
		memcpy(to, from, n * size);
	return to;
}

int gpd_metrics_usage_view(const struct gpd_metrics_usage *mu,
			   const char *labels,
			   struct gpd_metrics_usage_view *view)
{
	memset(view, 0, sizeof(*view));
	view->labels = labels;
	if (!mu->have_frame || !mu->dev || !mu->dev->usage)
		return 0;
	const struct gpd_usage_totals *tot = gpd_usage_monitor_totals(mu->dev->usage);
	view->processes = mu->processes;
	view->max_processes = mu->max_processes;
	view->last = mu->last;
	view->layout = *gpd_usage_monitor_layout(mu->dev->usage);
	view->have = tot->have;
	memcpy(view->engine_busy_s, tot->engine_busy_s, sizeof(view->engine_busy_s));
	memcpy(view->engine_wait_s, tot->engine_wait_s, sizeof(view->engine_wait_s));
	memcpy(view->engine_sema_s, tot->engine_sema_s, sizeof(view->engine_sema_s));
	view->rc6_s = tot->rc6_s;
	view->energy_j = tot->energy_j;
	if (mu->processes) {
		view->totals = copy_array(tot->processes, tot->n_processes,
					  sizeof(*tot->processes));
		view->rows = copy_array(mu->rows, mu->n_rows, sizeof(*mu->rows));
		if (!view->totals || !view->rows) {
			gpd_metrics_usage_view_fini(view);
			view->labels = labels;
			return -ENOMEM;
		}
		view->n_totals = tot->n_processes;
		view->n_rows = mu->n_rows;
	}
	view->have_frame = true;
	return 0;
}

void gpd_metrics_usage_view_fini(struct gpd_metrics_usage_view *view)
{
	free(view->totals);
	free(view->rows);
	memset(view, 0, sizeof(*view));
}

/* ------------------------------------------------------------------ */
/* Rendering                                                            */

static void sample_start(struct gpd_metrics_text *t, const char *name,
			 enum gpd_metrics_type type,
			 const struct gpd_metrics_usage_view *v)
{
	gpd_metrics_text_sample(t, name, type);
	gpd_metrics_text_printf(t, "%s", v->labels);
}

/* Which of an engine's counters. */
enum engine_part { BUSY, WAIT, SEMA };

static void render_engines(struct gpd_metrics_text *t,
			   const struct gpd_metrics_usage_view *views, size_t n,
			   enum engine_part part)
{
	static const char *const names[] = {
		"gpuperf_engine_busy_seconds",
		"gpuperf_engine_wait_seconds",
		"gpuperf_engine_sema_seconds",
	};
	static const char *const helps[] = {
		"Time each engine was busy, since the daemon first read it.",
		"Time each engine waited on an event while busy (i915).",
		"Time each engine waited on a semaphore while busy (i915).",
	};
	bool first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage_view *v = &views[d];
		if (!v->have_frame || !(v->have & GPD_USAGE_HAVE_ENGINES))
			continue;
		const struct gpd_usage_layout *l = &v->layout;
		for (unsigned e = 0; e < l->n_engines; e++) {
			const struct gpd_usage_engine_info *info = &l->engines[e];
			if ((part == WAIT && !info->has_wait) ||
			    (part == SEMA && !info->has_sema))
				continue;
			const double *values = part == BUSY ? v->engine_busy_s :
					       part == WAIT ? v->engine_wait_s :
					       v->engine_sema_s;
			if (first)
				gpd_metrics_text_family(t, names[part],
							GPD_METRICS_COUNTER,
							"seconds", helps[part]);
			first = false;
			sample_start(t, names[part], GPD_METRICS_COUNTER, v);
			gpd_metrics_text_printf(t, ",engine=\"");
			gpd_metrics_text_label(t, info->name);
			gpd_metrics_text_printf(t, "\",class=\"");
			gpd_metrics_text_label(t, l->classes[info->class_index]);
			gpd_metrics_text_printf(t, "\"");
			gpd_metrics_text_end(t, values[e]);
		}
	}
}

/* The per-device values: a gauge's offset in struct
 * gpd_metrics_usage_gauges, or a totals bit for a counter. */
static void render_device_values(struct gpd_metrics_text *t,
				 const struct gpd_metrics_usage_view *views, size_t n)
{
	static const struct {
		const char *name, *unit, *help, *kind;
		enum gpd_metrics_type type;
		size_t offset;          /* gauge */
		unsigned total;         /* counter: GPD_USAGE_HAVE_RC6, _ENERGY */
		bool more;              /* the next row is the same family */
	} values[] = {
		{ "gpuperf_frequency_hertz", "hertz", "The GPU clock's mean over "
		  "the last interval (actual: 0 while in RC6).", "actual",
		  GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, actual_hz), 0, true },
		{ "gpuperf_frequency_hertz", NULL, NULL, "requested",
		  GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, requested_hz), 0, false },
		{ "gpuperf_frequency_min_hertz", "hertz", "The lowest clock the "
		  "driver may choose now.", NULL, GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, min_hz), 0, false },
		{ "gpuperf_frequency_max_hertz", "hertz", "The highest clock the "
		  "driver may choose now.", NULL, GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, max_hz), 0, false },
		{ "gpuperf_rc6_seconds", "seconds", "Time the GPU slept "
		  "(RC6; GT C6 on xe), since the daemon first read it.", NULL,
		  GPD_METRICS_COUNTER, 0, GPD_USAGE_HAVE_RC6, false },
		{ "gpuperf_energy_joules", "joules", "Energy the GPU used, "
		  "since the daemon first read it.", NULL, GPD_METRICS_COUNTER,
		  0, GPD_USAGE_HAVE_ENERGY, false },
		{ "gpuperf_power_watts", "watts", "The GPU's mean power over the "
		  "last interval.", NULL, GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, power_w), 0, false },
		{ "gpuperf_temperature_celsius", "celsius", "The GPU's "
		  "temperature.", NULL, GPD_METRICS_GAUGE,
		  offsetof(struct gpd_metrics_usage_gauges, temperature_c), 0, false },
	};
	bool first = true;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		for (size_t d = 0; d < n; d++) {
			const struct gpd_metrics_usage_view *v = &views[d];
			if (!v->have_frame)
				continue;
			double x;
			if (values[i].total) {
				if (!(v->have & values[i].total))
					continue;
				x = values[i].total == GPD_USAGE_HAVE_RC6 ?
				    v->rc6_s : v->energy_j;
			} else {
				memcpy(&x, (const char *)&v->last + values[i].offset,
				       sizeof(x));
				if (isnan(x))
					continue;
			}
			if (first)
				gpd_metrics_text_family(t, values[i].name,
							values[i].type,
							values[i].unit,
							values[i].help);
			first = false;
			sample_start(t, values[i].name, values[i].type, v);
			if (values[i].kind)
				gpd_metrics_text_printf(t, ",kind=\"%s\"",
							values[i].kind);
			gpd_metrics_text_end(t, x);
		}
		if (!values[i].more)
			first = true;
	}
}

/* The drivers' own gauges: one family per name, whichever devices have it. */
static void render_gauges(struct gpd_metrics_text *t,
			  const struct gpd_metrics_usage_view *views, size_t n)
{
	for (size_t d = 0; d < n; d++) {
		if (!views[d].have_frame)
			continue;
		const struct gpd_usage_layout *l = &views[d].layout;
		for (unsigned g = 0; g < l->n_gauges; g++) {
			/* Rendered with the first device that has it. */
			bool seen = false;
			for (size_t e = 0; e < d && !seen; e++) {
				const struct gpd_usage_layout *k = &views[e].layout;
				for (unsigned h = 0; views[e].have_frame && h < k->n_gauges; h++)
					seen |= !strcmp(k->gauges[h].name, l->gauges[g].name) &&
						!strcmp(k->gauges[h].unit, l->gauges[g].unit);
			}
			if (seen)
				continue;
			char name[96];
			snprintf(name, sizeof(name), "gpuperf_%s_%s",
				 l->gauges[g].name, l->gauges[g].unit);
			bool first = true;
			for (size_t e = d; e < n; e++) {
				const struct gpd_metrics_usage_view *v = &views[e];
				for (unsigned h = 0; v->have_frame && h < v->layout.n_gauges; h++) {
					if (strcmp(v->layout.gauges[h].name, l->gauges[g].name) ||
					    strcmp(v->layout.gauges[h].unit, l->gauges[g].unit) ||
					    isnan(v->last.gauges[h]))
						continue;
					if (first)
						gpd_metrics_text_family(t, name, GPD_METRICS_GAUGE,
									l->gauges[g].unit,
									"A reading of the device's driver.");
					first = false;
					sample_start(t, name, GPD_METRICS_GAUGE, v);
					gpd_metrics_text_end(t, v->last.gauges[h]);
				}
			}
		}
	}
}

static void process_labels(struct gpd_metrics_text *t, int32_t pid,
			   const char *command, const struct gpd_pod *pod)
{
	gpd_metrics_text_printf(t, ",pid=\"%d\",command=\"", pid);
	gpd_metrics_text_label(t, command);
	gpd_metrics_text_printf(t, "\"");
	/* Outside a pod, no labels: an empty one is an absent one to
	 * Prometheus anyway. Both are hex and dashes (cgroup_pod.c). */
	if (*pod->pod_uid)
		gpd_metrics_text_printf(t, ",pod_uid=\"%s\"", pod->pod_uid);
	if (*pod->container_id)
		gpd_metrics_text_printf(t, ",container_id=\"%s\"", pod->container_id);
}

static double process_seconds(const struct gpd_usage_process_total *p)
{
	double s = 0;
	for (unsigned k = 0; k < GPD_USAGE_MAX_CLASSES; k++)
		s += p->class_busy_s[k];
	return s;
}

static int by_gpu_time(const void *a, const void *b)
{
	double x = process_seconds(a), y = process_seconds(b);
	const struct gpd_usage_process_total *p = a, *q = b;
	if (x != y)
		return x > y ? -1 : 1;
	return (p->pid > q->pid) - (p->pid < q->pid);
}

/* The view's processes that get series: the max_processes of most GPU
 * time, first in the (sorted) totals. */
static size_t exported_processes(const struct gpd_metrics_usage_view *v)
{
	return v->n_totals < v->max_processes ? v->n_totals : v->max_processes;
}

static bool is_exported(const struct gpd_metrics_usage_view *v, int32_t pid)
{
	for (size_t p = 0; p < exported_processes(v); p++)
		if (v->totals[p].pid == pid)
			return true;
	return false;
}

/* A family with a sample per exported process of the last interval. */
struct row_family {
	const char *name;
	enum gpd_metrics_type type;
	const char *unit, *help;
	/* Whether the row has a sample; NULL: every row. */
	bool (*has)(const struct gpd_metrics_usage_process *row);
	double (*value)(const struct gpd_metrics_usage_process *row);
	bool source_label;
};

static double memory_bytes(const struct gpd_metrics_usage_process *row)
{
	return (double)row->memory_bytes;
}

static double one(const struct gpd_metrics_usage_process *row)
{
	(void)row;
	return 1;
}

static bool measured_in_process(const struct gpd_metrics_usage_process *row)
{
	return row->share_source == GPD_USAGE_SHARE_MEASURED_IN_PROCESS;
}

static double records_lost(const struct gpd_metrics_usage_process *row)
{
	return (double)row->records_lost;
}

static const struct row_family row_families[] = {
	{ "gpuperf_process_memory_bytes", GPD_METRICS_GAUGE, "bytes",
	  "GPU memory a process's DRM clients hold.", NULL, memory_bytes,
	  false },
	{ "gpuperf_process_share_source", GPD_METRICS_GAUGE, NULL,
	  "1, labelled with where a process's engine shares of the last "
	  "interval came from: kernel_counters (DRM fdinfo), driver_sampled "
	  "(NVML's samples), measured_in_process (its own kernels, CUPTI), "
	  "simulated.", NULL, one, true },
	{ "gpuperf_process_records_lost", GPD_METRICS_COUNTER, NULL,
	  "Kernel records a process's own measure lost (CUPTI dropped them, "
	  "its buffers full) since it first reported: their kernels' time "
	  "is missing from its measured_in_process share.",
	  measured_in_process, records_lost, false },
};

static void render_row_family(struct gpd_metrics_text *t,
			      const struct gpd_metrics_usage_view *views,
			      size_t n, const struct row_family *f)
{
	bool first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage_view *v = &views[d];
		if (!v->have_frame || !v->processes)
			continue;
		for (size_t p = 0; p < v->n_rows; p++) {
			const struct gpd_metrics_usage_process *row = &v->rows[p];
			if (!is_exported(v, row->pid) || (f->has && !f->has(row)))
				continue;
			if (first)
				gpd_metrics_text_family(t, f->name, f->type,
							f->unit, f->help);
			first = false;
			sample_start(t, f->name, f->type, v);
			process_labels(t, row->pid, row->command, &row->pod);
			if (f->source_label)
				gpd_metrics_text_printf(t, ",source=\"%s\"",
					gpd_usage_share_source_name(row->share_source));
			gpd_metrics_text_end(t, f->value(row));
		}
	}
}

static void render_processes(struct gpd_metrics_text *t,
			     struct gpd_metrics_usage_view *views, size_t n,
			     bool details)
{
	bool first = true;
	for (size_t d = 0; details && d < n; d++) {
		struct gpd_metrics_usage_view *v = &views[d];
		if (!v->have_frame || !v->processes)
			continue;
		qsort(v->totals, v->n_totals, sizeof(*v->totals), by_gpu_time);
		const struct gpd_usage_layout *l = &v->layout;
		for (size_t p = 0; p < exported_processes(v); p++) {
			const struct gpd_usage_process_total *pt = &v->totals[p];
			for (unsigned k = 0; k < l->n_classes; k++) {
				if (first)
					gpd_metrics_text_family(t,
						"gpuperf_process_gpu_seconds",
						GPD_METRICS_COUNTER, "seconds",
						"Engine time of a process's DRM clients, "
						"per engine class, since the daemon first "
						"saw it.");
				first = false;
				sample_start(t, "gpuperf_process_gpu_seconds",
					     GPD_METRICS_COUNTER, v);
				process_labels(t, pt->pid, pt->command, &pt->pod);
				gpd_metrics_text_printf(t, ",class=\"");
				gpd_metrics_text_label(t, l->classes[k]);
				gpd_metrics_text_printf(t, "\"");
				gpd_metrics_text_end(t, pt->class_busy_s[k]);
			}
		}
	}
	for (size_t f = 0; details && f < sizeof(row_families) /
					      sizeof(row_families[0]); f++)
		render_row_family(t, views, n, &row_families[f]);
	first = true;
	for (size_t d = 0; d < n; d++) {
		const struct gpd_metrics_usage_view *v = &views[d];
		if (!v->have_frame || !v->processes)
			continue;
		if (first)
			gpd_metrics_text_family(t, "gpuperf_processes_omitted",
						GPD_METRICS_GAUGE, NULL,
						"Processes using the GPU that have no "
						"series: more than --metrics-max-processes "
						"did, or --process-details keeps them "
						"from this scraper (then all).");
		first = false;
		sample_start(t, "gpuperf_processes_omitted", GPD_METRICS_GAUGE, v);
		gpd_metrics_text_end(t, (double)(v->n_totals -
						 (details ? exported_processes(v) : 0)));
	}
}

void gpd_metrics_usage_render(struct gpd_metrics_text *t,
			      struct gpd_metrics_usage_view *views, size_t n,
			      bool process_details)
{
	render_engines(t, views, n, BUSY);
	render_engines(t, views, n, WAIT);
	render_engines(t, views, n, SEMA);
	render_device_values(t, views, n);
	render_gauges(t, views, n);
	render_processes(t, views, n, process_details);
}
