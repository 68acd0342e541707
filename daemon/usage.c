/*
 * Usage readings, frames and totals: the arithmetic every usage source
 * shares (see usage.h). Pure: no clocks, no files.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/usage.h"

int gpd_usage_layout_class(struct gpd_usage_layout *layout, const char *name)
{
	for (unsigned i = 0; i < layout->n_classes; i++)
		if (!strcmp(layout->classes[i], name))
			return (int)i;
	if (layout->n_classes >= GPD_USAGE_MAX_CLASSES)
		return -ENOSPC;
	snprintf(layout->classes[layout->n_classes],
		 sizeof(layout->classes[0]), "%s", name);
	return (int)layout->n_classes++;
}

int gpd_usage_layout_add_engine(struct gpd_usage_layout *layout,
				const char *name, const char *class_name,
				bool has_wait, bool has_sema)
{
	if (layout->n_engines >= GPD_USAGE_MAX_ENGINES)
		return -ENOSPC;
	int c = gpd_usage_layout_class(layout, class_name);
	if (c < 0)
		return c;
	struct gpd_usage_engine_info *e = &layout->engines[layout->n_engines++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->class_index = (unsigned)c;
	e->has_wait = has_wait;
	e->has_sema = has_sema;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Readings                                                             */

void gpd_usage_reading_init(struct gpd_usage_reading *r)
{
	memset(r, 0, sizeof(*r));
}

void gpd_usage_reading_fini(struct gpd_usage_reading *r)
{
	free(r->clients);
	free(r->processes);
	memset(r, 0, sizeof(*r));
}

void gpd_usage_reading_clear(struct gpd_usage_reading *r)
{
	struct gpd_usage_client *clients = r->clients;
	struct gpd_usage_process *processes = r->processes;
	size_t cap_clients = r->cap_clients, cap_processes = r->cap_processes;
	memset(r, 0, sizeof(*r));
	r->clients = clients;
	r->cap_clients = cap_clients;
	r->processes = processes;
	r->cap_processes = cap_processes;
}

/* Grows *items to hold n; false on ENOMEM. */
static bool reserve(void **items, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return true;
	size_t want = *cap ? *cap : 16;
	while (want < n)
		want *= 2;
	void *grown = realloc(*items, want * size);
	if (!grown)
		return false;
	*items = grown;
	*cap = want;
	return true;
}

int gpd_usage_reading_copy(struct gpd_usage_reading *dst,
			   const struct gpd_usage_reading *src)
{
	struct gpd_usage_client *clients = dst->clients;
	struct gpd_usage_process *processes = dst->processes;
	size_t cap_clients = dst->cap_clients, cap_processes = dst->cap_processes;
	if (!reserve((void **)&clients, &cap_clients, src->n_clients,
		     sizeof(*clients)) ||
	    !reserve((void **)&processes, &cap_processes, src->n_processes,
		     sizeof(*processes))) {
		dst->clients = clients;
		dst->cap_clients = cap_clients;
		dst->processes = processes;
		dst->cap_processes = cap_processes;
		return -ENOMEM;
	}
	*dst = *src;
	dst->clients = clients;
	dst->cap_clients = cap_clients;
	dst->processes = processes;
	dst->cap_processes = cap_processes;
	if (src->n_clients)
		memcpy(clients, src->clients, src->n_clients * sizeof(*clients));
	if (src->n_processes)
		memcpy(processes, src->processes,
		       src->n_processes * sizeof(*processes));
	return 0;
}

struct gpd_usage_client *gpd_usage_reading_add_client(struct gpd_usage_reading *r)
{
	if (r->n_clients >= GPD_USAGE_MAX_CLIENTS ||
	    !reserve((void **)&r->clients, &r->cap_clients, r->n_clients + 1,
		     sizeof(*r->clients)))
		return NULL;
	struct gpd_usage_client *c = &r->clients[r->n_clients++];
	memset(c, 0, sizeof(*c));
	return c;
}

struct gpd_usage_process *gpd_usage_reading_add_process(struct gpd_usage_reading *r)
{
	if (r->n_processes >= GPD_USAGE_MAX_CLIENTS ||
	    !reserve((void **)&r->processes, &r->cap_processes,
		     r->n_processes + 1, sizeof(*r->processes)))
		return NULL;
	struct gpd_usage_process *p = &r->processes[r->n_processes++];
	memset(p, 0, sizeof(*p));
	return p;
}

static int compare_clients(const void *a, const void *b)
{
	const struct gpd_usage_client *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int compare_processes(const void *a, const void *b)
{
	const struct gpd_usage_process *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void gpd_usage_reading_sort(struct gpd_usage_reading *r)
{
	if (r->n_clients > 1)
		qsort(r->clients, r->n_clients, sizeof(*r->clients),
		      compare_clients);
	if (r->n_processes > 1)
		qsort(r->processes, r->n_processes, sizeof(*r->processes),
		      compare_processes);
}

void gpd_usage_note(char *note, const char *fmt, ...)
{
	size_t len = strlen(note);
	if (len && len + 2 < GPD_USAGE_NOTE_MAX) {
		memcpy(note + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= GPD_USAGE_NOTE_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note + len, GPD_USAGE_NOTE_MAX - len, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Frames                                                               */

void gpd_usage_frame_init(struct gpd_usage_frame *f)
{
	memset(f, 0, sizeof(*f));
}

void gpd_usage_frame_fini(struct gpd_usage_frame *f)
{
	free(f->processes);
	memset(f, 0, sizeof(*f));
}

/* b - a of a client's counter: drm-usage-stats lets one read lower than
 * before for a while, which counts as not having moved. */
static uint64_t forward(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* A share in [0, 1]; NaN without a time base. */
static double share(uint64_t part, uint64_t whole)
{
	if (!whole)
		return NAN;
	double s = (double)part / (double)whole;
	return s > 1 ? 1 : s;
}

static const struct gpd_usage_client *find_client(const struct gpd_usage_reading *r,
						  uint64_t id)
{
	size_t lo = 0, hi = r->n_clients;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->clients[mid].id < id)
			lo = mid + 1;
		else if (r->clients[mid].id > id)
			hi = mid;
		else
			return &r->clients[mid];
	}
	return NULL;
}

static void fill_devicewide(const struct gpd_usage_layout *layout,
			    const struct gpd_usage_reading *prev,
			    const struct gpd_usage_reading *cur,
			    struct gpd_usage_frame *f)
{
	double seconds = (double)(cur->time_ns - prev->time_ns) / 1e9;
	unsigned have = prev->have & cur->have;

	for (unsigned i = 0; i < layout->n_engines; i++) {
		struct gpd_usage_engine_share *e = &f->engines[i];
		const struct gpd_usage_engine_count *a = &prev->engines[i];
		const struct gpd_usage_engine_count *b = &cur->engines[i];
		const struct gpd_usage_engine_info *info = &layout->engines[i];
		e->busy = e->wait = e->sema = NAN;
		if (!(have & GPD_USAGE_HAVE_ENGINES))
			continue;
		/* Kernel counters are u64s: their differences hold across
		 * a wrap. */
		uint64_t total = b->total - a->total;
		e->busy = share(b->busy - a->busy, total);
		if (info->has_wait)
			e->wait = share(b->wait - a->wait, total);
		if (info->has_sema)
			e->sema = share(b->sema - a->sema, total);
	}
	f->actual_freq_hz = f->requested_freq_hz = NAN;
	f->min_freq_hz = f->max_freq_hz = NAN;
	f->rc6 = f->power_w = f->energy_j = f->temperature_c = NAN;
	for (unsigned g = 0; g < GPD_USAGE_MAX_GAUGES; g++)
		f->gauges[g] = NAN;
	/* Frequencies and RC6 accumulate over the counters' own time:
	 * measured against the clock read before them they would carry the
	 * delay between the two reads (a loaded machine's scheduling). */
	uint64_t counted_ns = cur->time_ns - prev->time_ns;
	if (have & GPD_USAGE_HAVE_COUNTER_TIME)
		counted_ns = cur->counter_time_ns - prev->counter_time_ns;
	double counted_s = (double)counted_ns / 1e9;
	if (counted_s > 0 && (have & GPD_USAGE_HAVE_ACTUAL_FREQ))
		f->actual_freq_hz = (cur->actual_freq_mhz_s -
				     prev->actual_freq_mhz_s) / counted_s * 1e6;
	if (counted_s > 0 && (have & GPD_USAGE_HAVE_REQUESTED_FREQ))
		f->requested_freq_hz = (cur->requested_freq_mhz_s -
					prev->requested_freq_mhz_s) / counted_s * 1e6;
	if (have & GPD_USAGE_HAVE_RC6)
		f->rc6 = share(cur->rc6_ns - prev->rc6_ns, counted_ns);
	if (have & GPD_USAGE_HAVE_ENERGY) {
		f->energy_j = cur->energy_j - prev->energy_j;
		if (seconds > 0)
			f->power_w = f->energy_j / seconds;
	}
	if (cur->have & GPD_USAGE_HAVE_TEMPERATURE)
		f->temperature_c = cur->temperature_c;
	if (cur->have & GPD_USAGE_HAVE_FREQ_RANGE) {
		f->min_freq_hz = cur->min_freq_hz;
		f->max_freq_hz = cur->max_freq_hz;
	}
	if (cur->have & GPD_USAGE_HAVE_GAUGES)
		for (unsigned g = 0; g < layout->n_gauges; g++)
			f->gauges[g] = cur->gauges[g];
}

static struct gpd_usage_process_row *row_of(struct gpd_usage_frame *f,
					    int32_t pid)
{
	size_t lo = 0, hi = f->n_processes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->processes[mid].pid < pid)
			lo = mid + 1;
		else if (f->processes[mid].pid > pid)
			hi = mid;
		else
			return &f->processes[mid];
	}
	return NULL;
}

/* One client's interval, added to its process's row. */
static void add_client(const struct gpd_usage_layout *layout,
		       const struct gpd_usage_reading *prev,
		       const struct gpd_usage_reading *cur,
		       const struct gpd_usage_client *c,
		       struct gpd_usage_process_row *row)
{
	const struct gpd_usage_client *before = find_client(prev, c->id);
	uint64_t interval_ns = cur->time_ns - prev->time_ns;

	for (unsigned k = 0; k < layout->n_classes; k++) {
		uint64_t busy = before ? forward(before->busy[k], c->busy[k])
				       : c->busy[k];
		uint64_t total;
		if (!c->total[k])
			total = interval_ns;
		else if (before && before->total[k])
			total = forward(before->total[k], c->total[k]);
		else if (prev->class_total[k])
			/* New: its time base starts where its class's was. */
			total = forward(prev->class_total[k], c->total[k]);
		else
			total = 0;
		unsigned capacity = c->capacity[k] ? c->capacity[k] : 1;
		if (!busy || !total)
			continue;
		double s = (double)busy / ((double)total * capacity);
		if (s > 1)
			s = 1;
		row->class_busy[k] += s;
		if (row->class_busy[k] > 1)
			row->class_busy[k] = 1;
		row->gpu_time_ns += c->total[k] ? (uint64_t)(s * capacity *
							    (double)interval_ns)
						: busy;
	}
	row->memory_bytes += c->memory_bytes;
	row->resident_bytes += c->resident_bytes;
	if (row->n_client_ids < GPD_USAGE_MAX_CLIENT_IDS)
		row->client_ids[row->n_client_ids] = c->id;
	row->n_client_ids++;
}

static int fill_processes(const struct gpd_usage_layout *layout,
			  const struct gpd_usage_reading *prev,
			  const struct gpd_usage_reading *cur,
			  struct gpd_usage_frame *f)
{
	if (!reserve((void **)&f->processes, &f->cap_processes,
		     cur->n_processes, sizeof(*f->processes)))
		return -ENOMEM;
	for (size_t i = 0; i < cur->n_processes; i++) {
		const struct gpd_usage_process *p = &cur->processes[i];
		struct gpd_usage_process_row *row = &f->processes[i];
		memset(row, 0, sizeof(*row));
		row->pid = p->pid;
		row->ppid = p->ppid;
		memcpy(row->command, p->command, sizeof(row->command));
		row->pod = p->pod;
		row->share_source = p->share_source;
		row->records_lost = p->records_lost;
	}
	f->n_processes = cur->n_processes;
	for (size_t i = 0; i < cur->n_clients; i++) {
		struct gpd_usage_process_row *row = row_of(f, cur->clients[i].pid);
		if (row)
			add_client(layout, prev, cur, &cur->clients[i], row);
	}
	return 0;
}

int gpd_usage_diff(const struct gpd_usage_layout *layout,
		   const struct gpd_usage_reading *prev,
		   const struct gpd_usage_reading *cur,
		   struct gpd_usage_frame *out)
{
	out->start_ns = prev->time_ns;
	out->end_ns = cur->time_ns;
	out->n_processes = 0;
	out->note[0] = '\0';
	out->processes_note[0] = '\0';
	out->processes_read = cur->processes_read;
	out->processes_unreadable = cur->processes_unreadable;
	memcpy(out->note, cur->note, sizeof(out->note));
	memcpy(out->processes_note, cur->processes_note,
	       sizeof(out->processes_note));
	if (prev->generation != cur->generation ||
	    cur->time_ns <= prev->time_ns) {
		struct gpd_usage_reading none;
		gpd_usage_reading_init(&none);
		fill_devicewide(layout, &none, &none, out);
		gpd_usage_note(out->note, "the counters restarted: values "
			       "come back with the next interval");
		out->processes_read = false;
		return 0;
	}
	fill_devicewide(layout, prev, cur, out);
	if (!cur->processes_read)
		return 0;
	return fill_processes(layout, prev, cur, out);
}

const struct gpd_usage_process_row *
gpd_usage_frame_process(const struct gpd_usage_frame *f, int32_t pid)
{
	return row_of((struct gpd_usage_frame *)f, pid);
}

/* ------------------------------------------------------------------ */
/* Totals                                                               */

void gpd_usage_totals_init(struct gpd_usage_totals *t)
{
	memset(t, 0, sizeof(*t));
}

void gpd_usage_totals_fini(struct gpd_usage_totals *t)
{
	free(t->processes);
	memset(t, 0, sizeof(*t));
}

static void add_seconds(double *total, double share_of, double seconds)
{
	if (!isnan(share_of))
		*total += share_of * seconds;
}

const struct gpd_usage_process_total *
gpd_usage_totals_process(const struct gpd_usage_totals *t, int32_t pid)
{
	size_t lo = 0, hi = t->n_processes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->processes[mid].pid < pid)
			lo = mid + 1;
		else if (t->processes[mid].pid > pid)
			hi = mid;
		else
			return &t->processes[mid];
	}
	return NULL;
}

static int merge_processes(struct gpd_usage_totals *t,
			   const struct gpd_usage_layout *layout,
			   const struct gpd_usage_frame *f, double seconds)
{
	struct gpd_usage_process_total *next = NULL;
	size_t cap = 0;
	if (f->n_processes &&
	    !reserve((void **)&next, &cap, f->n_processes, sizeof(*next)))
		return -ENOMEM;
	for (size_t i = 0; i < f->n_processes; i++) {
		const struct gpd_usage_process_row *row = &f->processes[i];
		const struct gpd_usage_process_total *old =
			gpd_usage_totals_process(t, row->pid);
		struct gpd_usage_process_total *p = &next[i];
		/* A pid that now runs another command is another process. */
		if (old && !strcmp(old->command, row->command))
			*p = *old;
		else
			memset(p, 0, sizeof(*p));
		p->pid = row->pid;
		memcpy(p->command, row->command, sizeof(p->command));
		p->pod = row->pod;
		for (unsigned k = 0; k < layout->n_classes; k++)
			add_seconds(&p->class_busy_s[k], row->class_busy[k],
				    seconds);
		p->gpu_time_ns += row->gpu_time_ns;
	}
	free(t->processes);
	t->processes = next;
	t->n_processes = f->n_processes;
	t->cap_processes = cap;
	return 0;
}

int gpd_usage_totals_add(struct gpd_usage_totals *t,
			 const struct gpd_usage_layout *layout,
			 const struct gpd_usage_frame *f)
{
	if (f->end_ns <= f->start_ns)
		return 0;
	double seconds = (double)(f->end_ns - f->start_ns) / 1e9;
	for (unsigned i = 0; i < layout->n_engines; i++) {
		const struct gpd_usage_engine_share *e = &f->engines[i];
		if (!isnan(e->busy))
			t->have |= GPD_USAGE_HAVE_ENGINES;
		add_seconds(&t->engine_busy_s[i], e->busy, seconds);
		add_seconds(&t->engine_wait_s[i], e->wait, seconds);
		add_seconds(&t->engine_sema_s[i], e->sema, seconds);
	}
	if (!isnan(f->rc6)) {
		t->have |= GPD_USAGE_HAVE_RC6;
		t->rc6_s += f->rc6 * seconds;
	}
	if (!isnan(f->energy_j)) {
		t->have |= GPD_USAGE_HAVE_ENERGY;
		t->energy_j += f->energy_j;
	}
	return f->processes_read ? merge_processes(t, layout, f, seconds) : 0;
}

const char *gpd_usage_share_source_name(enum gpd_usage_share_source s)
{
	switch (s) {
	case GPD_USAGE_SHARE_KERNEL_COUNTERS:
		return "kernel_counters";
	case GPD_USAGE_SHARE_DRIVER_SAMPLED:
		return "driver_sampled";
	case GPD_USAGE_SHARE_MEASURED_IN_PROCESS:
		return "measured_in_process";
	case GPD_USAGE_SHARE_SIMULATED:
		return "simulated";
	}
	return "";
}
