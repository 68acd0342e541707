/*
 * Usage frames as trace tracks (see usage_trace.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/usage_trace.h"

/* Ranks among the device's children: after the sets (0..), the contexts
 * (1000) and the marks (1001). */
#define USAGE_RANK 1002
/* The key of the summed processes. */
#define OTHER "other"
/* Engine classes summed for the other processes at most. */
#define MAX_CLASSES 16

struct gpm_usage_track {
	char *key;                      /* the NDJSON key: the description's start */
	uint64_t uuid;
	enum gpm_trace_counter_kind kind;
	uint64_t process;               /* its process's track, or 0 */
};

struct gpm_usage_process {
	uint32_t pid;                   /* 0: the other processes */
	uint64_t track;
	bool present;                   /* in this frame */
	bool gone;                      /* zeroed, not in the list since */
};

/* What one of a frame's values is. */
struct value {
	uint64_t parent;
	const char *key;
	const char *name;
	const char *what;               /* the description after the key */
	int rank;
	struct gpm_trace_unit unit;
	uint64_t process;
};

static const struct gpm_trace_unit RATIO = { GPM_TRACE_UNIT_NAMED, "ratio" };
static const struct gpm_trace_unit NS = { GPM_TRACE_UNIT_TIME_NS, NULL };
static const struct gpm_trace_unit BYTES = { GPM_TRACE_UNIT_BYTES, NULL };

void gpm_usage_trace_init(struct gpm_usage_trace *t,
			  struct gpm_trace_writer *w, uint64_t device)
{
	memset(t, 0, sizeof(*t));
	t->w = w;
	t->device = device;
}

void gpm_usage_trace_fini(struct gpm_usage_trace *t)
{
	for (size_t i = 0; i < t->n_tracks; i++)
		free(t->tracks[i].key);
	free(t->tracks);
	free(t->procs);
	free(t->note);
	free(t->processes_note);
	memset(t, 0, sizeof(*t));
}

static struct gpm_usage_track *track_of(struct gpm_usage_trace *t,
					const struct value *v,
					enum gpm_trace_counter_kind kind)
{
	char description[256];

	for (size_t i = 0; i < t->n_tracks; i++)
		if (!strcmp(t->tracks[i].key, v->key))
			return &t->tracks[i];
	if (t->n_tracks == t->cap_tracks) {
		size_t cap = t->cap_tracks ? 2 * t->cap_tracks : 32;
		void *grown = realloc(t->tracks, cap * sizeof(*t->tracks));
		if (!grown)
			return NULL;
		t->tracks = grown;
		t->cap_tracks = cap;
	}
	snprintf(description, sizeof(description), "%s: %s", v->key, v->what);
	struct gpm_usage_track *k = &t->tracks[t->n_tracks];
	k->key = strdup(v->key);
	k->uuid = gpm_trace_counter_track(t->w, v->parent, v->name, description,
					  v->rank, kind, v->unit);
	k->kind = kind;
	k->process = v->process;
	if (!k->key || !k->uuid) {
		free(k->key);
		return NULL;
	}
	t->n_tracks++;
	return k;
}

/* A value at ts; none where it is unknown (NaN). */
static int put_double(struct gpm_usage_trace *t, const struct value *v,
		      uint64_t ts, double x)
{
	if (!isfinite(x))
		return 0;
	struct gpm_usage_track *k = track_of(t, v, GPM_TRACE_COUNTER_DOUBLE);
	if (!k)
		return -ENOSPC;
	return gpm_trace_counter(t->w, k->uuid, GPM_TRACE_CLOCK_MONOTONIC, ts,
				 (union gpm_trace_value){ .d = x });
}

static int put_int(struct gpm_usage_trace *t, const struct value *v,
		   uint64_t ts, uint64_t x)
{
	struct gpm_usage_track *k = track_of(t, v, GPM_TRACE_COUNTER_INT);
	if (!k)
		return -ENOSPC;
	return gpm_trace_counter(t->w, k->uuid, GPM_TRACE_CLOCK_MONOTONIC, ts,
				 (union gpm_trace_value){ .i = (int64_t)x });
}

/* An instant on the usage track when text differs from *last. */
static int note(struct gpm_usage_trace *t, char **last, uint64_t ts,
		const char *name, const char *text, uint32_t count,
		const char *count_name)
{
	if (!text)
		text = "";
	struct gpm_trace_arg args[2] = {
		{ .name = "note", .type = GPM_TRACE_ARG_STRING, .s = text },
		{ .name = count_name, .type = GPM_TRACE_ARG_UINT, .u = count },
	};
	if (*last ? !strcmp(*last, text) : !text[0])
		return 0;
	char *copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	free(*last);
	*last = copy;
	return gpm_trace_instant_on(t->w, t->usage, GPM_TRACE_CLOCK_MONOTONIC,
				    ts, name, args, count_name ? 2 : 1);
}

static int device_values(struct gpm_usage_trace *t,
			 const struct gpm_usage_trace_frame *f, uint64_t ts)
{
	static const struct gpm_trace_unit HERTZ = { GPM_TRACE_UNIT_NAMED, "hertz" };
	const struct {
		const char *key, *name, *what;
		struct gpm_trace_unit unit;
		double value;
	} rows[] = {
		{ "actual_frequency_hertz", "frequency", "the GT clock's mean "
		  "frequency in the interval", HERTZ, f->actual_frequency_hz },
		{ "requested_frequency_hertz", "requested frequency", "the "
		  "frequency the driver asked for", HERTZ, f->requested_frequency_hz },
		{ "min_frequency_hertz", "min frequency", "the lowest frequency "
		  "allowed", HERTZ, f->min_frequency_hz },
		{ "max_frequency_hertz", "max frequency", "the highest frequency "
		  "allowed", HERTZ, f->max_frequency_hz },
		{ "rc6_ratio", "RC6", "the share of the interval the GT slept "
		  "(RC6, GT C6)", RATIO, f->rc6 },
		{ "power_watts", "power", "mean power in the interval",
		  { GPM_TRACE_UNIT_NAMED, "watts" }, f->power_watts },
		{ "energy_joules", "energy", "energy used in the interval",
		  { GPM_TRACE_UNIT_NAMED, "joules" }, f->energy_joules },
		{ "temperature_celsius", "temperature", "the GPU's temperature",
		  { GPM_TRACE_UNIT_NAMED, "celsius" }, f->temperature_celsius },
	};
	struct value interval = { t->usage, "duration_ns", "interval", "the "
				  "time this frame's values cover", 200, NS, 0 };
	int ret = put_int(t, &interval, ts, f->end_ns > f->start_ns ?
			  f->end_ns - f->start_ns : 0);

	for (size_t i = 0; !ret && i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct value v = { t->usage, rows[i].key, rows[i].name,
				   rows[i].what, (int)i, rows[i].unit, 0 };
		ret = put_double(t, &v, ts, rows[i].value);
	}
	for (size_t g = 0; !ret && g < f->n_gauges; g++) {
		const struct gpm_usage_trace_gauge *gauge = &f->gauges[g];
		char key[160];
		snprintf(key, sizeof(key), "gauges.%s_%s", gauge->name, gauge->unit);
		struct value v = { t->usage, key, gauge->name, "a gauge of the "
				   "daemon's", 100 + (int)g,
				   !strcmp(gauge->unit, "bytes") ? BYTES :
				   (struct gpm_trace_unit){ GPM_TRACE_UNIT_NAMED,
							    gauge->unit }, 0 };
		ret = put_double(t, &v, ts, gauge->value);
	}
	return ret;
}

static int engine_values(struct gpm_usage_trace *t,
			 const struct gpm_usage_trace_frame *f, uint64_t ts)
{
	int ret = 0;

	if (!f->n_engines)
		return 0;
	if (!t->engines &&
	    !(t->engines = gpm_trace_ordered_track(t->w, t->usage, "engines",
						   "Per engine, the shares of "
						   "each interval it was busy, "
						   "waiting and on semaphores.",
						   1000)))
		return -ENOSPC;
	for (size_t i = 0; !ret && i < f->n_engines; i++) {
		const struct gpm_usage_trace_engine *e = &f->engines[i];
		const struct {
			const char *field, *what;
			double value;
		} shares[] = {
			{ "busy", "share of the interval it ran work", e->busy },
			{ "wait", "share of the interval it waited", e->wait },
			{ "sema", "share of the interval it waited on "
			  "semaphores", e->sema },
		};
		for (size_t k = 0; !ret && k < 3; k++) {
			char key[128], name[96], what[160];
			snprintf(key, sizeof(key), "engines[%s].%s_ratio", e->name,
				 shares[k].field);
			snprintf(name, sizeof(name), "%s %s", e->name, shares[k].field);
			snprintf(what, sizeof(what), "%s engine %s's %s",
				 e->engine_class, e->name, shares[k].what);
			struct value v = { t->engines, key, name, what,
					   (int)(3 * i + k), RATIO, 0 };
			ret = put_double(t, &v, ts, shares[k].value);
		}
	}
	return ret;
}

/* The process of pid (0: the other processes), with its track; NULL when
 * no track can be had. */
static struct gpm_usage_process *
process_of(struct gpm_usage_trace *t, const struct gpm_usage_trace_process *p)
{
	char name[160], description[200];
	uint32_t pid = p->pid;

	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	if (!t->procs) {
		t->procs = calloc(GPM_USAGE_TRACE_MAX_PROCESSES + 1,
				  sizeof(*t->procs));
		if (!t->procs)
			return NULL;
	}
	size_t others = 0;
	for (size_t i = 0; i < t->n_procs; i++)
		others += !t->procs[i].pid;
	if (pid && t->n_procs - others >= GPM_USAGE_TRACE_MAX_PROCESSES)
		pid = 0;
	if (!pid)
		for (size_t i = 0; i < t->n_procs; i++)
			if (!t->procs[i].pid)
				return &t->procs[i];
	if (pid) {
		snprintf(name, sizeof(name), "%" PRIu32 " %s", pid, p->command);
		snprintf(description, sizeof(description), "Process %" PRIu32
			 " (parent %" PRIu32 "): %s.", pid, p->ppid, p->command);
	} else {
		snprintf(name, sizeof(name), "other processes");
		snprintf(description, sizeof(description), "Processes past the "
			 "first %d, and those the daemon does not name to this "
			 "connection, summed.", GPM_USAGE_TRACE_MAX_PROCESSES);
	}
	uint64_t track = gpm_trace_track(t->w, t->processes, name, description,
					 pid ? (int)t->n_procs : 100000);
	if (!track)
		return NULL;
	struct gpm_usage_process *proc = &t->procs[t->n_procs++];
	proc->pid = pid;
	proc->track = track;
	return proc;
}

/* What one process (or the sum of the others) used in the interval. */
struct process_sums {
	uint64_t gpu_time_ns, memory_bytes, resident_bytes;
	double class_busy[MAX_CLASSES];
};

static int process_values(struct gpm_usage_trace *t,
			  const struct gpm_usage_trace_frame *f,
			  struct gpm_usage_process *proc,
			  const struct process_sums *s, uint64_t ts)
{
	char who[32], key[160], name[96], what[160];
	int ret;

	if (proc->pid)
		snprintf(who, sizeof(who), "%" PRIu32, proc->pid);
	else
		snprintf(who, sizeof(who), OTHER);
	snprintf(key, sizeof(key), "processes[%s].gpu_time_ns", who);
	struct value v = { proc->track, key, "GPU time", "engine time in the "
			   "interval, all engines", 0, NS, proc->track };
	ret = put_int(t, &v, ts, s->gpu_time_ns);
	for (size_t c = 0; !ret && c < f->n_engine_classes && c < MAX_CLASSES; c++) {
		snprintf(key, sizeof(key), "processes[%s].busy_ratio.%s", who,
			 f->engine_classes[c]);
		snprintf(name, sizeof(name), "%s busy", f->engine_classes[c]);
		snprintf(what, sizeof(what), "its share of the %s engines' "
			 "time in the interval", f->engine_classes[c]);
		v = (struct value){ proc->track, key, name, what, 1 + (int)c,
				    RATIO, proc->track };
		ret = put_double(t, &v, ts, s->class_busy[c]);
	}
	if (!ret) {
		snprintf(key, sizeof(key), "processes[%s].memory_bytes", who);
		v = (struct value){ proc->track, key, "memory", "GPU memory "
				    "allocated", 100, BYTES, proc->track };
		ret = put_int(t, &v, ts, s->memory_bytes);
	}
	if (!ret) {
		snprintf(key, sizeof(key), "processes[%s].resident_bytes", who);
		v = (struct value){ proc->track, key, "resident", "GPU memory "
				    "resident", 101, BYTES, proc->track };
		ret = put_int(t, &v, ts, s->resident_bytes);
	}
	return ret;
}

/* A process gone from the list holds nothing: zeros on its tracks. */
static int zero_process(struct gpm_usage_trace *t,
			const struct gpm_usage_process *proc, uint64_t ts)
{
	int ret = 0;
	for (size_t i = 0; !ret && i < t->n_tracks; i++) {
		const struct gpm_usage_track *k = &t->tracks[i];
		if (k->process != proc->track)
			continue;
		union gpm_trace_value zero = { 0 };
		if (k->kind != GPM_TRACE_COUNTER_INT)
			zero.d = 0.0;
		ret = gpm_trace_counter(t->w, k->uuid, GPM_TRACE_CLOCK_MONOTONIC,
					ts, zero);
	}
	return ret;
}

static void add_row(struct process_sums *s,
		    const struct gpm_usage_trace_frame *f,
		    const struct gpm_usage_trace_process *p)
{
	s->gpu_time_ns += p->gpu_time_ns;
	s->memory_bytes += p->memory_bytes;
	s->resident_bytes += p->resident_bytes;
	for (size_t c = 0; c < p->n_class_busy && c < MAX_CLASSES &&
	     c < f->n_engine_classes; c++)
		if (isfinite(p->class_busy[c]))
			s->class_busy[c] += p->class_busy[c];
}

static int processes(struct gpm_usage_trace *t,
		     const struct gpm_usage_trace_frame *f, uint64_t ts)
{
	struct process_sums other = { 0 };
	int ret = 0;

	if (!f->processes_included)
		return 0;
	if (!t->processes &&
	    !(t->processes = gpm_trace_ordered_track(t->w, t->usage, "processes",
						     "The processes using the "
						     "GPU, as the daemon sees "
						     "them.", 1001)))
		return -ENOSPC;
	for (size_t i = 0; i < t->n_procs; i++)
		t->procs[i].present = false;
	for (size_t i = 0; !ret && i < f->n_processes; i++) {
		const struct gpm_usage_trace_process *p = &f->processes[i];
		struct gpm_usage_process *proc = process_of(t, p);
		if (!proc)
			return -ENOSPC;
		proc->present = true;
		if (!proc->pid) {
			add_row(&other, f, p);
			continue;
		}
		struct process_sums s = { 0 };
		add_row(&s, f, p);
		for (size_t c = 0; c < MAX_CLASSES; c++)
			if (c >= p->n_class_busy || !isfinite(p->class_busy[c]))
				s.class_busy[c] = NAN;
		ret = process_values(t, f, proc, &s, ts);
	}
	for (size_t i = 0; !ret && i < t->n_procs; i++) {
		struct gpm_usage_process *proc = &t->procs[i];
		if (proc->present) {
			proc->gone = false;
			if (!proc->pid)
				ret = process_values(t, f, proc, &other, ts);
		} else if (!proc->gone) {
			/* Zeros once, until it comes back. */
			proc->gone = true;
			ret = zero_process(t, proc, ts);
		}
	}
	return ret;
}

/* The usage track, declared with the first thing on it. */
static int usage_track(struct gpm_usage_trace *t)
{
	if (!t->usage &&
	    !(t->usage = gpm_trace_ordered_track(t->w, t->device, "usage",
						 "Engines, clocks, power and "
						 "processes, from the daemon's "
						 "usage stream (gpuperf top), "
						 "on its CLOCK_MONOTONIC.",
						 USAGE_RANK)))
		return -ENOSPC;
	return 0;
}

int gpm_usage_trace_none(struct gpm_usage_trace *t, uint64_t ts,
			 const char *why)
{
	struct gpm_trace_arg arg = { .name = "note",
		.type = GPM_TRACE_ARG_STRING, .s = why };
	int ret = usage_track(t);
	return ret ? ret : gpm_trace_instant_on(t->w, t->usage,
						GPM_TRACE_CLOCK_MONOTONIC, ts,
						"no usage", &arg, 1);
}

uint64_t gpm_usage_trace_frames(const struct gpm_usage_trace *t)
{
	return t->frames;
}

int gpm_usage_trace_frame(struct gpm_usage_trace *t,
			  const struct gpm_usage_trace_frame *f)
{
	uint64_t ts = f->start_ns;
	int ret = usage_track(t);

	if (ret)
		return ret;
	t->frames++;
	ret = note(t, &t->note, ts, "usage note", f->note, 0, NULL);
	if (!ret)
		ret = note(t, &t->processes_note, ts, "processes note",
			   f->processes_note, f->processes_unreadable,
			   "processes_unreadable");
	if (!ret && f->frames_dropped) {
		struct gpm_trace_arg arg = { .name = "count",
			.type = GPM_TRACE_ARG_UINT, .u = f->frames_dropped };
		ret = gpm_trace_instant_on(t->w, t->usage,
					   GPM_TRACE_CLOCK_MONOTONIC, ts,
					   "usage frames dropped", &arg, 1);
	}
	if (!ret)
		ret = device_values(t, f, ts);
	if (!ret)
		ret = engine_values(t, f, ts);
	if (!ret)
		ret = processes(t, f, ts);
	return ret;
}
