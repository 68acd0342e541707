/*
 * Frames as rows or as a live view (see stream_view.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/stream_view.h"

enum metadata_column {
	COL_TIMESTAMP,
	COL_DURATION,
	COL_PARTIAL,
	COL_MARK,
	COL_CONTEXT,
	COL_REPORTS,
	COL_LOST,
	COL_BUFFERS_LOST,
	COL_DROPPED,
	N_METADATA,
};

static const struct gpuperf_column metadata[N_METADATA] = {
	[COL_TIMESTAMP] = { "timestamp_ns", GPUPERF_UNITS_TIMESTAMP },
	[COL_DURATION] = { "duration_ns", "ns" },
	[COL_PARTIAL] = { "partial", NULL },
	[COL_MARK] = { "mark", NULL },
	[COL_CONTEXT] = { "context_id", GPUPERF_UNITS_CONTEXT },
	[COL_REPORTS] = { "reports", NULL },
	[COL_LOST] = { "lost", NULL },
	[COL_BUFFERS_LOST] = { "buffers_lost", NULL },
	[COL_DROPPED] = { "dropped", NULL },
};

/* Live view: contexts shown side by side at most. */
#define LIVE_CONTEXTS 6

static bool column_wanted(const struct gpuperf_stream_view_options *o,
			  enum metadata_column col)
{
	if (col == COL_MARK)
		return o->mark_column;
	if (col == COL_CONTEXT)
		return o->per_context;
	return true;
}

static void raw_key(char *key, size_t size, unsigned slot)
{
	static const struct {
		unsigned first, count;
		const char *name;
	} ranges[] = {
		{ GPC_RAW_A, 64, "raw_a" },
		{ GPC_RAW_B, 8, "raw_b" },
		{ GPC_RAW_C, 8, "raw_c" },
		{ GPC_RAW_PERFCNT, 8, "raw_perfcnt" },
		{ GPC_RAW_PEC, 64, "raw_pec" },
	};

	if (slot == GPC_RAW_GPU_TIME)
		snprintf(key, size, "raw_gpu_time");
	else if (slot == GPC_RAW_GPU_CLOCK)
		snprintf(key, size, "raw_gpu_clock");
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (slot >= ranges[i].first &&
		    slot < ranges[i].first + ranges[i].count)
			snprintf(key, size, "%s%u", ranges[i].name,
				 slot - ranges[i].first);
}

int gpuperf_stream_view_init(struct gpuperf_stream_view *v,
			     const struct gpuperf_stream_view_options *options,
			     const struct gpc_subscription_info *info,
			     const struct gpc_metric_set *set)
{
	memset(v, 0, sizeof(*v));
	v->options = *options;
	v->n_counters = info->n_counters;
	size_t n_raw = options->raw ? GPC_RAW_SLOTS : 0;
	size_t n = N_METADATA + v->n_counters + n_raw;

	v->columns = calloc(n, sizeof(*v->columns));
	v->cells = calloc(n, sizeof(*v->cells));
	v->raw_keys = calloc(n_raw ? n_raw : 1, sizeof(*v->raw_keys));
	v->counter_keys = calloc(v->n_counters ? v->n_counters : 1,
				 sizeof(*v->counter_keys));
	if (!v->columns || !v->cells || !v->raw_keys || !v->counter_keys)
		return -ENOMEM;
	size_t c = 0;
	for (int col = 0; col < N_METADATA; col++)
		if (column_wanted(options, (enum metadata_column)col))
			v->columns[c++] = metadata[col];
	v->first_counter = c;
	for (size_t i = 0; i < v->n_counters; i++, c++) {
		const struct gpc_counter *k =
			set ? gpc_find_counter(set, info->counters[i]) : NULL;
		v->counter_keys[i] = strdup(info->counters[i]);
		if (!v->counter_keys[i])
			return -ENOMEM;
		v->columns[c].key = v->counter_keys[i];
		v->columns[c].units = k && k->units[0] ? k->units : NULL;
	}
	for (size_t i = 0; i < n_raw; i++, c++) {
		raw_key(v->raw_keys[i], sizeof(v->raw_keys[i]), (unsigned)i);
		v->columns[c].key = v->raw_keys[i];
	}
	v->n_columns = c;
	if (options->live)
		return 0;
	if (gpuperf_output_init(&v->output, options->out, options->format,
				v->columns, v->n_columns) < 0)
		return -ENOMEM;
	gpuperf_output_set_units_row(&v->output, options->units_row);
	v->output_ready = true;
	return 0;
}

void gpuperf_stream_view_fini(struct gpuperf_stream_view *v)
{
	if (v->output_ready)
		gpuperf_output_fini(&v->output);
	free(v->columns);
	free(v->cells);
	free(v->raw_keys);
	for (size_t i = 0; v->counter_keys && i < v->n_counters; i++)
		free(v->counter_keys[i]);
	free(v->counter_keys);
	free(v->screen);
}

static struct gpuperf_cell u64_cell(uint64_t u)
{
	return (struct gpuperf_cell){ .type = GPUPERF_CELL_U64, .u = u };
}

static struct gpuperf_cell double_cell(double d)
{
	if (!isfinite(d))
		return (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
	return (struct gpuperf_cell){ .type = GPUPERF_CELL_DOUBLE, .d = d };
}

/* One row: the window's, or (row not NULL) one context's share of it. */
static int write_row(struct gpuperf_stream_view *v, const struct gpc_frame *f,
		     const struct gpc_context_row *row)
{
	const struct gpuperf_stream_view_options *o = &v->options;
	struct gpuperf_cell *cells = v->cells;
	size_t c = 0;

	for (int col = 0; col < N_METADATA; col++) {
		if (!column_wanted(o, (enum metadata_column)col))
			continue;
		switch ((enum metadata_column)col) {
		case COL_TIMESTAMP:
			cells[c] = u64_cell(f->cpu_start_ns);
			break;
		case COL_DURATION:
			cells[c] = u64_cell(row ? row->gpu_time_ns :
					    f->gpu_end_ns - f->gpu_start_ns);
			break;
		case COL_PARTIAL:
			cells[c] = u64_cell(f->partial);
			break;
		case COL_MARK:
			cells[c] = u64_cell(f->mark);
			break;
		case COL_CONTEXT:
			cells[c] = row ? u64_cell(row->idle ? 0 : row->context_id) :
				   (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
			break;
		case COL_REPORTS:
			cells[c] = u64_cell(row ? row->reports : f->reports);
			break;
		case COL_LOST:
			cells[c] = u64_cell(f->lost_reports);
			break;
		case COL_BUFFERS_LOST:
			cells[c] = u64_cell(f->buffer_lost);
			break;
		case COL_DROPPED:
			cells[c] = u64_cell(f->frames_dropped);
			break;
		case N_METADATA:
			break;
		}
		c++;
	}
	const double *values = row ? row->values : f->values;
	size_t n_values = row ? row->n_values : f->n_values;
	for (size_t i = 0; i < v->n_counters; i++, c++)
		cells[c] = i < n_values ? double_cell(values[i]) :
			   (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
	const uint64_t *raw = row ? row->raw : f->raw;
	size_t n_raw = row ? row->n_raw : f->n_raw;
	for (; c < v->n_columns; c++) {
		size_t slot = c - v->first_counter - v->n_counters;
		cells[c] = slot < n_raw ? u64_cell(raw[slot]) :
			   (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
	}
	return gpuperf_output_row(&v->output, cells);
}

static void screen_add(struct gpuperf_stream_view *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void screen_add(struct gpuperf_stream_view *v, const char *fmt, ...)
{
	va_list ap;

	for (;;) {
		size_t room = v->screen_cap - v->screen_len;
		va_start(ap, fmt);
		int n = vsnprintf(v->screen ? v->screen + v->screen_len : NULL,
				  room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			v->screen_len += (size_t)n;
			return;
		}
		size_t cap = v->screen_cap ? v->screen_cap * 2 : 4096;
		while (cap - v->screen_len <= (size_t)n)
			cap *= 2;
		char *s = realloc(v->screen, cap);
		if (!s)
			return;
		v->screen = s;
		v->screen_cap = cap;
	}
}

/* The live view: home, clear, then the whole table, in one write. */
static int draw(struct gpuperf_stream_view *v, const struct gpc_frame *f)
{
	char text[64];
	int name_width = 7;
	size_t n_ctx = f->n_contexts < LIVE_CONTEXTS ? f->n_contexts :
		       LIVE_CONTEXTS;
	struct gpuperf_cell cell;

	for (size_t i = 0; i < v->n_counters; i++) {
		int len = (int)strlen(v->columns[v->first_counter + i].key);
		if (len > name_width)
			name_width = len;
	}
	v->screen_len = 0;
	screen_add(v, "\033[H\033[2J%s\n", v->options.title ? v->options.title : "");
	cell = u64_cell(f->gpu_end_ns - f->gpu_start_ns);
	gpuperf_human_text(text, sizeof(text), &cell, "ns");
	screen_add(v, "window %" PRIu64 ": %s, %" PRIu32 " reports; lost: %"
		   PRIu32 " reports, %" PRIu32 " buffers, %" PRIu32
		   " frames dropped\n\n", v->windows, text, f->reports,
		   f->lost_reports, f->buffer_lost, f->frames_dropped);
	screen_add(v, "%-*s  %14s", name_width, "COUNTER", "VALUE");
	for (size_t k = 0; k < n_ctx; k++) {
		const struct gpc_context_row *row = &f->contexts[k];
		if (row->idle)
			snprintf(text, sizeof(text), "idle");
		else
			snprintf(text, sizeof(text), "ctx 0x%" PRIx32,
				 row->context_id);
		screen_add(v, "  %14s", text);
	}
	screen_add(v, "\n");
	for (size_t i = 0; i < v->n_counters; i++) {
		const struct gpuperf_column *col = &v->columns[v->first_counter + i];
		cell = i < f->n_values ? double_cell(f->values[i]) :
		       (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
		gpuperf_human_text(text, sizeof(text), &cell, col->units);
		screen_add(v, "%-*s  %14s", name_width, col->key, text);
		for (size_t k = 0; k < n_ctx; k++) {
			const struct gpc_context_row *row = &f->contexts[k];
			cell = i < row->n_values ? double_cell(row->values[i]) :
			       (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
			gpuperf_human_text(text, sizeof(text), &cell, col->units);
			screen_add(v, "  %14s", text);
		}
		screen_add(v, "\n");
	}
	if (fflush(v->options.out) != 0)
		return -errno;
	int fd = fileno(v->options.out);
	for (size_t done = 0; done < v->screen_len;) {
		ssize_t n = write(fd, v->screen + done, v->screen_len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

int gpuperf_stream_view_frame(struct gpuperf_stream_view *v,
			      const struct gpc_frame *f)
{
	v->windows++;
	v->reports += f->reports;
	if (!f->mark)
		v->gpu_ns += f->gpu_end_ns - f->gpu_start_ns;
	v->lost += f->lost_reports;
	v->buffers_lost += f->buffer_lost;
	v->dropped += f->frames_dropped;
	if (v->options.live)
		return draw(v, f);
	int ret = write_row(v, f, NULL);
	for (size_t k = 0; !ret && v->options.per_context && k < f->n_contexts;
	     k++)
		ret = write_row(v, f, &f->contexts[k]);
	return ret;
}

void gpuperf_stream_view_summary(const struct gpuperf_stream_view *v,
				 const char *cmd)
{
	if (!v->lost && !v->buffers_lost && !v->dropped)
		return;
	fprintf(stderr, "gpuperf %s: loss over %" PRIu64 " windows: %" PRIu64
		" reports lost, %" PRIu64 " OA buffer overflows, %" PRIu64
		" frames dropped by the daemon (read too slowly)\n", cmd,
		v->windows, v->lost, v->buffers_lost, v->dropped);
}

bool gpuperf_stream_view_matches(const struct gpuperf_stream_view *v,
				 const struct gpc_subscription_info *info)
{
	if (info->n_counters != v->n_counters)
		return false;
	for (size_t i = 0; i < v->n_counters; i++)
		if (strcmp(info->counters[i], v->counter_keys[i]))
			return false;
	return true;
}
