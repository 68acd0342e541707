/*
 * Usage frames as text: gpuperf top's screen, CSV and NDJSON (see
 * usage_view.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/usage_view.h"
#include "metrics/number_text.h"

void gpuperf_text_printf(struct gpuperf_text *t, const char *fmt, ...)
{
	for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = t->cap - t->len;
		int n = vsnprintf(t->data ? t->data + t->len : NULL,
				  t->data ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->data && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap : 1024;
		while (cap - t->len <= (size_t)n)
			cap *= 2;
		char *data = realloc(t->data, cap);
		if (!data) {
			t->failed = true;
			return;
		}
		t->data = data;
		t->cap = cap;
	}
}

void gpuperf_text_fini(struct gpuperf_text *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

int gpuperf_text_write(struct gpuperf_text *t, FILE *out)
{
	int ret = t->failed ? -ENOMEM : 0;
	fflush(out);
	size_t done = 0;
	while (!ret && done < t->len) {
		ssize_t n = write(fileno(out), t->data + done, t->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	t->len = 0;
	t->failed = false;
	return ret;
}

static const char *const sort_names[GPUPERF_SORT_COUNT] = {
	[GPUPERF_SORT_GPU] = "gpu",
	[GPUPERF_SORT_MEMORY] = "memory",
	[GPUPERF_SORT_PID] = "pid",
	[GPUPERF_SORT_COMMAND] = "command",
};

int gpuperf_usage_sort_parse(const char *name, enum gpuperf_usage_sort *out)
{
	for (unsigned i = 0; i < GPUPERF_SORT_COUNT; i++) {
		if (!strcmp(name, sort_names[i])) {
			*out = (enum gpuperf_usage_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *gpuperf_usage_sort_name(enum gpuperf_usage_sort sort)
{
	return sort < GPUPERF_SORT_COUNT ? sort_names[sort] : "?";
}

/* ------------------------------------------------------------------ */
/* The screen                                                           */

/* "62.1%", or "-" where not measured. */
static void percent(char *buf, size_t size, double share)
{
	if (isnan(share))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", share * 100);
}

static void bytes_text(char *buf, size_t size, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* A bar of width cells for share. */
static void bar(struct gpuperf_text *t, double share, unsigned width,
		bool unicode)
{
	static const char *const eighths[] = {
		"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a",
		"\u2589",
	};
	if (isnan(share) || share < 0)
		share = 0;
	if (share > 1)
		share = 1;
	unsigned units = (unsigned)lround(share * width * 8);
	unsigned used = 0;
	for (; units >= 8 && used < width; units -= 8, used++)
		gpuperf_text_printf(t, "%s", unicode ? "\u2588" : "#");
	if (units && used < width) {
		gpuperf_text_printf(t, "%s", unicode ? eighths[units] : "");
		if (unicode)
			used++;
	}
	for (; used < width; used++)
		gpuperf_text_printf(t, " ");
}

/* An engine row, or a class's: its engines' mean. */
struct engine_line {
	char label[48];
	double busy, wait, sema;
};

static size_t engine_lines(const struct gpc_usage_frame *f, bool per_engine,
			   struct engine_line *lines, size_t max)
{
	size_t n = 0;
	if (per_engine) {
		for (size_t i = 0; i < f->n_engines && n < max; i++, n++) {
			const struct gpc_engine_usage *e = &f->engines[i];
			snprintf(lines[n].label, sizeof(lines[n].label), "%s %s",
				 e->name, e->engine_class);
			lines[n].busy = e->busy;
			lines[n].wait = e->wait;
			lines[n].sema = e->sema;
		}
		return n;
	}
	for (size_t k = 0; k < f->n_engine_classes && n < max; k++) {
		struct engine_line *l = &lines[n];
		double busy = 0, wait = 0, sema = 0;
		unsigned engines = 0, with_busy = 0, with_wait = 0, with_sema = 0;
		for (size_t i = 0; i < f->n_engines; i++) {
			const struct gpc_engine_usage *e = &f->engines[i];
			if (strcmp(e->engine_class, f->engine_classes[k]))
				continue;
			engines++;
			if (!isnan(e->busy)) {
				busy += e->busy;
				with_busy++;
			}
			if (!isnan(e->wait)) {
				wait += e->wait;
				with_wait++;
			}
			if (!isnan(e->sema)) {
				sema += e->sema;
				with_sema++;
			}
		}
		if (!engines)
			continue;
		snprintf(l->label, sizeof(l->label), engines > 1 ? "%s x%u" : "%s",
			 f->engine_classes[k], engines);
		l->busy = with_busy ? busy / with_busy : NAN;
		l->wait = with_wait ? wait / with_wait : NAN;
		l->sema = with_sema ? sema / with_sema : NAN;
		n++;
	}
	return n;
}

static double interval_s(const struct gpc_usage_frame *f)
{
	return f->cpu_end_ns > f->cpu_start_ns ?
	       (double)(f->cpu_end_ns - f->cpu_start_ns) / 1e9 : 0;
}

static void device_line(struct gpuperf_text *t, const struct gpc_usage_frame *f)
{
	gpuperf_text_printf(t, " clock ");
	if (isnan(f->actual_frequency_hz))
		gpuperf_text_printf(t, "-");
	else
		gpuperf_text_printf(t, "%.0f", f->actual_frequency_hz / 1e6);
	if (!isnan(f->requested_frequency_hz))
		gpuperf_text_printf(t, "/%.0f", f->requested_frequency_hz / 1e6);
	gpuperf_text_printf(t, " MHz");
	if (!isnan(f->min_frequency_hz) && !isnan(f->max_frequency_hz))
		gpuperf_text_printf(t, " (%.0f-%.0f)", f->min_frequency_hz / 1e6,
				    f->max_frequency_hz / 1e6);
	char rc6[16];
	percent(rc6, sizeof(rc6), f->rc6);
	gpuperf_text_printf(t, "   RC6 %s", rc6);
	if (!isnan(f->power_watts))
		gpuperf_text_printf(t, "   power %.2f W", f->power_watts);
	else
		gpuperf_text_printf(t, "   power -");
	if (!isnan(f->temperature_celsius))
		gpuperf_text_printf(t, "   %.0f C", f->temperature_celsius);
	for (size_t g = 0; g < f->n_gauges; g++)
		gpuperf_text_printf(t, "   %s %.4g %s", f->gauges[g].name,
				    f->gauges[g].value, f->gauges[g].unit);
	gpuperf_text_printf(t, "\n");
}

/* "" from a daemon that does not say. */
static const char *share_source(const struct gpc_process_usage *p)
{
	return p->share_source ? p->share_source : "";
}

static int compare_processes(const void *a, const void *b, void *arg)
{
	const struct gpc_process_usage *x = *(const struct gpc_process_usage *const *)a;
	const struct gpc_process_usage *y = *(const struct gpc_process_usage *const *)b;
	switch (*(const enum gpuperf_usage_sort *)arg) {
	case GPUPERF_SORT_GPU:
		if (x->gpu_time_ns != y->gpu_time_ns)
			return x->gpu_time_ns < y->gpu_time_ns ? 1 : -1;
		break;
	case GPUPERF_SORT_MEMORY:
		if (x->memory_bytes != y->memory_bytes)
			return x->memory_bytes < y->memory_bytes ? 1 : -1;
		break;
	case GPUPERF_SORT_COMMAND: {
		int c = strcmp(x->command, y->command);
		if (c)
			return c;
		break;
	}
	case GPUPERF_SORT_PID:
	case GPUPERF_SORT_COUNT:
		break;
	}
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool idle(const struct gpc_process_usage *p)
{
	return p->gpu_time_ns == 0;
}

static void process_table(struct gpuperf_text *t,
			  const struct gpuperf_usage_screen *s,
			  const struct gpc_usage_frame *f, unsigned rows)
{
	if (!f->processes_included) {
		if (f->process_visibility == GPC_PROCESSES_NONE)
			gpuperf_text_printf(t, " processes: not shown (the "
					    "daemon's --process-details none)\n");
		return;
	}
	const struct gpc_process_usage **order =
		malloc((f->n_processes ? f->n_processes : 1) * sizeof(*order));
	if (!order) {
		t->failed = true;
		return;
	}
	size_t n = 0, hidden_idle = 0;
	for (size_t i = 0; i < f->n_processes; i++) {
		if (s->hide_idle && idle(&f->processes[i]))
			hidden_idle++;
		else
			order[n++] = &f->processes[i];
	}
	enum gpuperf_usage_sort sort = s->sort;
	qsort_r(order, n, sizeof(*order), compare_processes, &sort);
	gpuperf_text_printf(t, "\n %7s %-15s %6s", "PID", "COMMAND", "GPU");
	for (size_t k = 0; k < f->n_engine_classes; k++)
		gpuperf_text_printf(t, " %8.8s", f->engine_classes[k]);
	gpuperf_text_printf(t, " %10s %10s  %s\n", "MEMORY", "RESIDENT",
			    "SHARE_SOURCE");
	double seconds = interval_s(f);
	size_t shown = n;
	if (rows && shown > rows)
		shown = rows > 1 ? rows - 1 : 0;
	for (size_t i = 0; i < shown; i++) {
		const struct gpc_process_usage *p = order[i];
		char gpu[16], mem[24], res[24];
		percent(gpu, sizeof(gpu), seconds > 0 ?
			(double)p->gpu_time_ns / 1e9 / seconds : NAN);
		bytes_text(mem, sizeof(mem), (double)p->memory_bytes);
		bytes_text(res, sizeof(res), (double)p->resident_bytes);
		if (p->pid)
			gpuperf_text_printf(t, " %7u %-15.15s %6s", p->pid,
					    p->command, gpu);
		else
			gpuperf_text_printf(t, " %7s %-15s %6s", "-",
					    "(hidden)", gpu);
		for (size_t k = 0; k < f->n_engine_classes; k++) {
			char cls[16];
			percent(cls, sizeof(cls), k < p->n_class_busy ?
				p->class_busy[k] : NAN);
			gpuperf_text_printf(t, " %8s", cls);
		}
		gpuperf_text_printf(t, " %10s %10s  %s", mem, res,
				    share_source(p));
		if (p->records_lost)
			gpuperf_text_printf(t, " (%llu records lost)",
					    (unsigned long long)p->records_lost);
		gpuperf_text_printf(t, "\n");
	}
	if (shown < n)
		gpuperf_text_printf(t, " ... %zu more (a taller terminal shows "
				    "them)\n", n - shown);
	if (hidden_idle)
		gpuperf_text_printf(t, " %zu idle not shown ('i' shows them)\n",
				    hidden_idle);
	if (!f->n_processes)
		gpuperf_text_printf(t, " no process uses the GPU\n");
	if (f->process_visibility == GPC_PROCESSES_ANONYMOUS)
		gpuperf_text_printf(t, " pids and commands are shown to "
				    "controllers only (the daemon's "
				    "--process-details)\n");
	if (f->processes_unreadable || *f->processes_note)
		gpuperf_text_printf(t, " partial: %s\n", f->processes_note);
	free(order);
}

void gpuperf_usage_screen_render(struct gpuperf_text *t,
				 const struct gpuperf_usage_screen *s,
				 const struct gpc_usage_frame *f,
				 const char *description)
{
	unsigned width = s->width >= 60 ? s->width : 80;
	gpuperf_text_printf(t, "%s: %s\n", f->device,
			    description && *description ? description : "");
	device_line(t, f);
	struct engine_line lines[64];
	size_t n = engine_lines(f, s->per_engine, lines, 64);
	unsigned label = 4;
	for (size_t i = 0; i < n; i++)
		if (strlen(lines[i].label) > label)
			label = (unsigned)strlen(lines[i].label);
	/* label, bar, then busy, wait and sema at 7 each. */
	unsigned bar_width = width > label + 30 ? width - label - 30 : 10;
	gpuperf_text_printf(t, "\n %-*s %-*s %7s %7s %7s\n", label,
			    s->per_engine ? "ENGINE" : "CLASS", bar_width, "",
			    "BUSY", "WAIT", "SEMA");
	for (size_t i = 0; i < n; i++) {
		char busy[16], wait[16], sema[16];
		percent(busy, sizeof(busy), lines[i].busy);
		percent(wait, sizeof(wait), lines[i].wait);
		percent(sema, sizeof(sema), lines[i].sema);
		gpuperf_text_printf(t, " %-*s ", label, lines[i].label);
		bar(t, lines[i].busy, bar_width, s->unicode);
		gpuperf_text_printf(t, " %7s %7s %7s\n", busy, wait, sema);
	}
	if (*f->note)
		gpuperf_text_printf(t, " note: %s\n", f->note);
	if (f->frames_dropped)
		gpuperf_text_printf(t, " %u frames dropped: this client read "
				    "too slowly\n", f->frames_dropped);
	unsigned used = 5 + (unsigned)n + (*f->note ? 1 : 0);
	unsigned rows = 0;
	if (s->height)
		rows = s->height > used + 3 ? s->height - used - 3 : 1;
	process_table(t, s, f, rows);
	if (s->keys_line)
		gpuperf_text_printf(t, "\n q quit   s sort (%s)   i %s idle   "
				    "1 %s\n", gpuperf_usage_sort_name(s->sort),
				    s->hide_idle ? "show" : "hide",
				    s->per_engine ? "engine classes" :
				    "physical engines");
}

/* ------------------------------------------------------------------ */
/* CSV and NDJSON                                                       */

const char gpuperf_usage_csv_columns[] =
	"timestamp_ns,duration_ns,device,kind,name,engine_class,pid,command,"
	"busy_ratio,wait_ratio,sema_ratio,value,unit,share_source";

/* A value, or none where it is unknown; infinities are none too, as in
 * gpuperf stream's output: neither CSV readers nor JSON agree on them. */
static void number(struct gpuperf_text *t, double v, const char *none)
{
	if (!isfinite(v)) {
		gpuperf_text_printf(t, "%s", none);
		return;
	}
	char buf[GPM_NUMBER_TEXT_MAX];
	gpm_double_text(buf, v);
	gpuperf_text_printf(t, "%s", buf);
}

static void csv_field(struct gpuperf_text *t, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		gpuperf_text_printf(t, "%s", s);
		return;
	}
	gpuperf_text_printf(t, "\"");
	for (; *s; s++)
		gpuperf_text_printf(t, *s == '"' ? "\"\"" : "%c", *s);
	gpuperf_text_printf(t, "\"");
}

static void json_string(struct gpuperf_text *t, const char *s)
{
	gpuperf_text_printf(t, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			gpuperf_text_printf(t, "\\%c", ch);
		else if (ch < 0x20)
			gpuperf_text_printf(t, "\\u%04x", ch);
		else
			gpuperf_text_printf(t, "%c", ch);
	}
	gpuperf_text_printf(t, "\"");
}

/* The device-wide values: name, value, unit. */
struct device_value {
	const char *name;
	double value;
	const char *unit;
};

static size_t device_values(const struct gpc_usage_frame *f,
			    struct device_value *v)
{
	size_t n = 0;
	v[n++] = (struct device_value){ "actual_frequency", f->actual_frequency_hz, "hertz" };
	v[n++] = (struct device_value){ "requested_frequency", f->requested_frequency_hz, "hertz" };
	v[n++] = (struct device_value){ "min_frequency", f->min_frequency_hz, "hertz" };
	v[n++] = (struct device_value){ "max_frequency", f->max_frequency_hz, "hertz" };
	v[n++] = (struct device_value){ "rc6", f->rc6, "ratio" };
	v[n++] = (struct device_value){ "power", f->power_watts, "watts" };
	v[n++] = (struct device_value){ "energy", f->energy_joules, "joules" };
	v[n++] = (struct device_value){ "temperature", f->temperature_celsius, "celsius" };
	return n;
}

static void csv_start(struct gpuperf_text *t, const struct gpc_usage_frame *f,
		      const char *kind)
{
	gpuperf_text_printf(t, "%llu,%llu,", (unsigned long long)f->cpu_start_ns,
			    (unsigned long long)(f->cpu_end_ns - f->cpu_start_ns));
	csv_field(t, f->device);
	gpuperf_text_printf(t, ",%s,", kind);
}

void gpuperf_usage_csv(struct gpuperf_text *t, const struct gpc_usage_frame *f,
		       bool header)
{
	if (header)
		gpuperf_text_printf(t, "%s\n", gpuperf_usage_csv_columns);
	for (size_t i = 0; i < f->n_engines; i++) {
		const struct gpc_engine_usage *e = &f->engines[i];
		csv_start(t, f, "engine");
		csv_field(t, e->name);
		gpuperf_text_printf(t, ",");
		csv_field(t, e->engine_class);
		gpuperf_text_printf(t, ",,,");
		number(t, e->busy, "");
		gpuperf_text_printf(t, ",");
		number(t, e->wait, "");
		gpuperf_text_printf(t, ",");
		number(t, e->sema, "");
		gpuperf_text_printf(t, ",,,\n");
	}
	struct device_value values[8];
	size_t n = device_values(f, values);
	for (size_t i = 0; i < n; i++) {
		csv_start(t, f, "device");
		gpuperf_text_printf(t, "%s,,,,,,,", values[i].name);
		number(t, values[i].value, "");
		gpuperf_text_printf(t, ",%s,\n", values[i].unit);
	}
	for (size_t g = 0; g < f->n_gauges; g++) {
		csv_start(t, f, "device");
		csv_field(t, f->gauges[g].name);
		gpuperf_text_printf(t, ",,,,,,,");
		number(t, f->gauges[g].value, "");
		gpuperf_text_printf(t, ",");
		csv_field(t, f->gauges[g].unit);
		gpuperf_text_printf(t, ",\n");
	}
	for (size_t i = 0; f->processes_included && i < f->n_processes; i++) {
		const struct gpc_process_usage *p = &f->processes[i];
		for (size_t k = 0; k < f->n_engine_classes && k < p->n_class_busy;
		     k++) {
			csv_start(t, f, "process");
			gpuperf_text_printf(t, "busy,");
			csv_field(t, f->engine_classes[k]);
			gpuperf_text_printf(t, ",%u,", p->pid);
			csv_field(t, p->command);
			gpuperf_text_printf(t, ",");
			number(t, p->class_busy[k], "");
			gpuperf_text_printf(t, ",,,,ratio,");
			csv_field(t, share_source(p));
			gpuperf_text_printf(t, "\n");
		}
		const struct { const char *name; uint64_t v; const char *unit; } more[] = {
			{ "gpu_time", p->gpu_time_ns, "ns" },
			{ "gpu_time_total", p->gpu_time_total_ns, "ns" },
			{ "memory", p->memory_bytes, "bytes" },
			{ "resident", p->resident_bytes, "bytes" },
			{ "records_lost", p->records_lost, "records" },
		};
		/* records_lost belongs to a measure taken in the process. */
		size_t n_more = sizeof(more) / sizeof(more[0]) -
				(strcmp(share_source(p), "measured_in_process") != 0);
		for (size_t m = 0; m < n_more; m++) {
			csv_start(t, f, "process");
			gpuperf_text_printf(t, "%s,,%u,", more[m].name, p->pid);
			csv_field(t, p->command);
			gpuperf_text_printf(t, ",,,,%llu,%s,",
					    (unsigned long long)more[m].v,
					    more[m].unit);
			csv_field(t, share_source(p));
			gpuperf_text_printf(t, "\n");
		}
	}
}

static void json_number_field(struct gpuperf_text *t, const char *key, double v)
{
	gpuperf_text_printf(t, ",\"%s\":", key);
	number(t, v, "null");
}

void gpuperf_usage_ndjson(struct gpuperf_text *t, const struct gpc_usage_frame *f)
{
	gpuperf_text_printf(t, "{\"timestamp_ns\":%llu,\"duration_ns\":%llu,"
			    "\"device\":", (unsigned long long)f->cpu_start_ns,
			    (unsigned long long)(f->cpu_end_ns - f->cpu_start_ns));
	json_string(t, f->device);
	gpuperf_text_printf(t, ",\"engines\":[");
	for (size_t i = 0; i < f->n_engines; i++) {
		const struct gpc_engine_usage *e = &f->engines[i];
		gpuperf_text_printf(t, "%s{\"name\":", i ? "," : "");
		json_string(t, e->name);
		gpuperf_text_printf(t, ",\"engine_class\":");
		json_string(t, e->engine_class);
		json_number_field(t, "busy_ratio", e->busy);
		json_number_field(t, "wait_ratio", e->wait);
		json_number_field(t, "sema_ratio", e->sema);
		gpuperf_text_printf(t, "}");
	}
	gpuperf_text_printf(t, "]");
	struct device_value values[8];
	size_t n = device_values(f, values);
	for (size_t i = 0; i < n; i++) {
		char key[64];
		snprintf(key, sizeof(key), "%s_%s", values[i].name, values[i].unit);
		json_number_field(t, key, values[i].value);
	}
	gpuperf_text_printf(t, ",\"gauges\":{");
	for (size_t g = 0; g < f->n_gauges; g++) {
		char key[96];
		snprintf(key, sizeof(key), "%s_%s", f->gauges[g].name,
			 f->gauges[g].unit);
		gpuperf_text_printf(t, "%s", g ? "," : "");
		json_string(t, key);
		gpuperf_text_printf(t, ":");
		number(t, f->gauges[g].value, "null");
	}
	gpuperf_text_printf(t, "}");
	if (f->processes_included) {
		gpuperf_text_printf(t, ",\"processes\":[");
		for (size_t i = 0; i < f->n_processes; i++) {
			const struct gpc_process_usage *p = &f->processes[i];
			gpuperf_text_printf(t, "%s{\"pid\":%u,\"ppid\":%u,"
					    "\"command\":", i ? "," : "",
					    p->pid, p->ppid);
			json_string(t, p->command);
			gpuperf_text_printf(t, ",\"client_ids\":[");
			for (size_t c = 0; c < p->n_client_ids; c++)
				gpuperf_text_printf(t, "%s%llu", c ? "," : "",
						    (unsigned long long)p->client_ids[c]);
			gpuperf_text_printf(t, "],\"clients\":%u,\"busy_ratio\":{",
					    p->clients);
			for (size_t k = 0; k < p->n_class_busy &&
			     k < f->n_engine_classes; k++) {
				gpuperf_text_printf(t, "%s", k ? "," : "");
				json_string(t, f->engine_classes[k]);
				gpuperf_text_printf(t, ":");
				number(t, p->class_busy[k], "null");
			}
			gpuperf_text_printf(t, "},\"gpu_time_ns\":%llu,"
					    "\"gpu_time_total_ns\":%llu,"
					    "\"memory_bytes\":%llu,"
					    "\"resident_bytes\":%llu,\"records_lost\":%llu,"
					    "\"share_source\":",
					    (unsigned long long)p->gpu_time_ns,
					    (unsigned long long)p->gpu_time_total_ns,
					    (unsigned long long)p->memory_bytes,
					    (unsigned long long)p->resident_bytes,
					    (unsigned long long)p->records_lost);
			json_string(t, share_source(p));
			gpuperf_text_printf(t, "}");
		}
		gpuperf_text_printf(t, "],\"processes_unreadable\":%u,"
				    "\"processes_note\":", f->processes_unreadable);
		json_string(t, f->processes_note);
	}
	gpuperf_text_printf(t, ",\"note\":");
	json_string(t, f->note);
	gpuperf_text_printf(t, ",\"dropped\":%u}\n", f->frames_dropped);
}
