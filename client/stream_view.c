/*
 * Frames as rows or as a live view (see stream_view.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "client/human_text.h"
#include "client/stream_view.h"

enum metadata_column {
	COL_PLATFORM,
	COL_METRIC_SET,
	COL_TIMESTAMP,
	COL_DURATION,
	COL_PARTIAL,
	COL_MARK,
	COL_CONTEXT,
	COL_REPORTS,
	COL_LOST,
	COL_BUFFERS_LOST,
	COL_DROPPED,
	COL_PROCESS_GPU_TIME,
	COL_PROCESS_MEMORY,
	N_METADATA,
};

static const struct gpuperf_column metadata[N_METADATA] = {
	[COL_PLATFORM] = { "platform", GPUPERF_COLUMN_TEXT,
			   .machine_only = true },
	[COL_METRIC_SET] = { "metric_set", GPUPERF_COLUMN_TEXT,
			     .machine_only = true },
	[COL_TIMESTAMP] = { "timestamp_ns", GPUPERF_COLUMN_TIME, "time_s" },
	[COL_DURATION] = { "duration_ns", GPUPERF_COLUMN_DURATION, "duration" },
	[COL_PARTIAL] = { "partial", GPUPERF_COLUMN_NUMBER },
	[COL_MARK] = { "mark", GPUPERF_COLUMN_NUMBER },
	[COL_CONTEXT] = { "context_id", GPUPERF_COLUMN_CONTEXT, "context" },
	[COL_REPORTS] = { "reports", GPUPERF_COLUMN_NUMBER },
	[COL_LOST] = { "lost", GPUPERF_COLUMN_NUMBER },
	[COL_BUFFERS_LOST] = { "buffers_lost", GPUPERF_COLUMN_NUMBER },
	[COL_DROPPED] = { "dropped", GPUPERF_COLUMN_NUMBER },
	[COL_PROCESS_GPU_TIME] = { "process_gpu_time_ns", GPUPERF_COLUMN_NUMBER,
				   .units = "ns" },
	[COL_PROCESS_MEMORY] = { "process_memory_bytes", GPUPERF_COLUMN_NUMBER,
				 .units = "bytes" },
};

/* The live view's bars: this many cells between the brackets. */
#define BAR_CELLS 20
/* The live view's lines above the counters: title, window, blank,
 * header; and below them, the line saying what is hidden. */
#define LIVE_HEAD_LINES 4
#define LIVE_FOOT_LINES 1
/* A context column of the live view, with its gap. */
#define LIVE_CONTEXT_WIDTH 14

static bool column_wanted(const struct gpuperf_stream_view_options *o,
			  enum metadata_column col)
{
	if (col == COL_MARK)
		return o->mark_column;
	if (col == COL_CONTEXT)
		return o->per_context;
	if (col == COL_PROCESS_GPU_TIME || col == COL_PROCESS_MEMORY)
		return o->process_columns;
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

static char *copy(const char *s)
{
	return strdup(s ? s : "");
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

	v->title = copy(options->title);
	v->platform = copy(options->platform);
	v->metric_set = copy(options->metric_set ? options->metric_set :
			     info->metric_set);
	v->columns = calloc(n, sizeof(*v->columns));
	v->cells = calloc(n, sizeof(*v->cells));
	v->raw_keys = calloc(n_raw ? n_raw : 1, sizeof(*v->raw_keys));
	v->counter_keys = calloc(v->n_counters ? v->n_counters : 1,
				 sizeof(*v->counter_keys));
	v->bounds = calloc(v->n_counters ? v->n_counters : 1,
			   sizeof(*v->bounds));
	if (!v->title || !v->platform || !v->metric_set || !v->columns ||
	    !v->cells || !v->raw_keys || !v->counter_keys || !v->bounds)
		return -ENOMEM;
	v->options.title = v->title;
	v->options.platform = v->platform;
	v->options.metric_set = v->metric_set;
	size_t c = 0;
	for (int col = 0; col < N_METADATA; col++)
		if (column_wanted(options, (enum metadata_column)col))
			v->columns[c++] = metadata[col];
	v->first_counter = c;
	for (size_t i = 0; i < v->n_counters; i++, c++) {
		const struct gpc_counter *k =
			set ? gpc_find_counter(set, info->counters[i]) : NULL;
		struct gpuperf_column *column = &v->columns[c];
		v->counter_keys[i] = strdup(info->counters[i]);
		if (!v->counter_keys[i])
			return -ENOMEM;
		column->key = v->counter_keys[i];
		column->kind = GPUPERF_COLUMN_COUNTER;
		column->units = k && k->units[0] ? k->units : NULL;
		gpuperf_display_of(&column->display, k);
		/* The bound of a counter shown per second is the device's
		 * over a second at its highest frequency. */
		v->bounds[i] = k && (k->has_max_value || k->max_equation) ?
			       k->device_max * column->display.scale : NAN;
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

void gpuperf_stream_view_set_process_tree(struct gpuperf_stream_view *v,
					  uint64_t gpu_time_ns,
					  uint64_t memory_bytes)
{
	v->have_process_tree = true;
	v->process_gpu_time_ns = gpu_time_ns;
	v->process_memory_bytes = memory_bytes;
}

void gpuperf_stream_view_fini(struct gpuperf_stream_view *v)
{
	if (v->output_ready)
		gpuperf_output_fini(&v->output);
	free(v->title);
	free(v->platform);
	free(v->metric_set);
	free(v->columns);
	free(v->cells);
	free(v->raw_keys);
	for (size_t i = 0; v->counter_keys && i < v->n_counters; i++)
		free(v->counter_keys[i]);
	free(v->counter_keys);
	free(v->bounds);
	free(v->contexts);
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

static struct gpuperf_cell text_cell(const char *text)
{
	return (struct gpuperf_cell){ .type = GPUPERF_CELL_TEXT, .text = text };
}

static struct gpuperf_cell context_cell(const struct gpc_context_row *row)
{
	return row->idle ? text_cell(GPUPERF_IDLE_CONTEXT) :
			   u64_cell(row->context_id);
}

/* One row: the window's, or (row not NULL) one context's share of it. */
static int write_row(struct gpuperf_stream_view *v, const struct gpc_frame *f,
		     const struct gpc_context_row *row)
{
	const struct gpuperf_stream_view_options *o = &v->options;
	struct gpuperf_cell *cells = v->cells;
	struct gpuperf_cell none = { .type = GPUPERF_CELL_NONE };
	size_t c = 0;

	for (int col = 0; col < N_METADATA; col++) {
		if (!column_wanted(o, (enum metadata_column)col))
			continue;
		switch ((enum metadata_column)col) {
		case COL_PLATFORM:
			cells[c] = text_cell(v->platform);
			break;
		case COL_METRIC_SET:
			cells[c] = text_cell(v->metric_set);
			break;
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
			cells[c] = row ? context_cell(row) : none;
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
		case COL_PROCESS_GPU_TIME:
		case COL_PROCESS_MEMORY:
			cells[c] = !row && f->mark && v->have_process_tree ?
				   u64_cell(col == COL_PROCESS_GPU_TIME ?
					    v->process_gpu_time_ns :
					    v->process_memory_bytes) :
				   (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
			break;
		case N_METADATA:
			break;
		}
		c++;
	}
	const double *values = row ? row->values : f->values;
	size_t n_values = row ? row->n_values : f->n_values;
	for (size_t i = 0; i < v->n_counters; i++, c++)
		cells[c] = i < n_values ? double_cell(values[i]) : none;
	const uint64_t *raw = row ? row->raw : f->raw;
	size_t n_raw = row ? row->n_raw : f->n_raw;
	for (; c < v->n_columns; c++) {
		size_t slot = c - v->first_counter - v->n_counters;
		cells[c] = slot < n_raw ? u64_cell(raw[slot]) : none;
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

/* Adds text padded to width cells, left- or right-aligned. */
static void screen_cell(struct gpuperf_stream_view *v, const char *text,
			int width, bool left)
{
	int pad = width - gpuperf_text_width(text);
	if (pad < 0)
		pad = 0;
	if (left)
		screen_add(v, "%s%*s", text, pad, "");
	else
		screen_add(v, "%*s%s", pad, "", text);
}

/* The live view's size: the options', else the terminal's, else 80x24. */
static void live_size(const struct gpuperf_stream_view *v, int *rows,
		      int *columns)
{
	struct winsize ws = { 0 };

	*rows = v->options.rows;
	*columns = v->options.columns;
	if ((!*rows || !*columns) &&
	    !ioctl(fileno(v->options.out), TIOCGWINSZ, &ws)) {
		if (!*rows)
			*rows = ws.ws_row;
		if (!*columns)
			*columns = ws.ws_col;
	}
	if (*rows <= 0)
		*rows = 24;
	if (*columns <= 0)
		*columns = 80;
}

/* Keeps the contexts in the order they first ran, so that their columns
 * stay put from one window to the next. */
static void note_contexts(struct gpuperf_stream_view *v,
			  const struct gpc_frame *f)
{
	for (size_t k = 0; k < f->n_contexts; k++) {
		const struct gpc_context_row *row = &f->contexts[k];
		bool known = false;
		for (size_t i = 0; i < v->n_contexts && !known; i++)
			known = v->contexts[i].idle == row->idle &&
				(row->idle || v->contexts[i].id == row->context_id);
		if (known)
			continue;
		if (v->n_contexts == v->cap_contexts) {
			size_t cap = v->cap_contexts ? v->cap_contexts * 2 : 8;
			struct gpuperf_live_context *c =
				realloc(v->contexts, cap * sizeof(*c));
			if (!c)
				return;
			v->contexts = c;
			v->cap_contexts = cap;
		}
		v->contexts[v->n_contexts++] = (struct gpuperf_live_context){
			.id = row->context_id, .idle = row->idle,
		};
	}
}

static const struct gpc_context_row *
context_row(const struct gpc_frame *f, const struct gpuperf_live_context *c)
{
	for (size_t k = 0; k < f->n_contexts; k++) {
		const struct gpc_context_row *row = &f->contexts[k];
		if (row->idle == c->idle && (c->idle || row->context_id == c->id))
			return row;
	}
	return NULL;
}

/* "[#####...............]": the value's share of its bound. */
static void add_bar(struct gpuperf_stream_view *v, double value, double bound)
{
	char bar[BAR_CELLS + 3];
	int filled = 0;

	if (isfinite(value) && isfinite(bound) && bound > 0) {
		double share = value / bound;
		if (share > 1)
			share = 1;
		if (share > 0)
			filled = (int)lround(share * BAR_CELLS);
	}
	bar[0] = '[';
	for (int i = 0; i < BAR_CELLS; i++)
		bar[1 + i] = i < filled ? '#' : '.';
	bar[BAR_CELLS + 1] = ']';
	bar[BAR_CELLS + 2] = '\0';
	screen_add(v, "  %s", bar);
}

/*
 * The live view: home, clear, then the whole screen in one write, never
 * more lines than the terminal has: the counters that do not fit are
 * counted on the last line, with how to choose them.
 */
static int draw(struct gpuperf_stream_view *v, const struct gpc_frame *f)
{
	char text[GPUPERF_HUMAN_TEXT_MAX];
	int rows, columns, name_width = 7;
	double window_ns = (double)(f->gpu_end_ns - f->gpu_start_ns);
	struct gpuperf_cell cell;

	live_size(v, &rows, &columns);
	note_contexts(v, f);
	for (size_t i = 0; i < v->n_counters; i++) {
		int len = (int)strlen(v->columns[v->first_counter + i].key);
		if (len > name_width)
			name_width = len;
	}
	/* Counter, value and bar; then as many contexts as fit. */
	int fixed = name_width + 2 + 14 + 2 + BAR_CELLS + 2;
	size_t n_ctx = columns > fixed ?
		       (size_t)((columns - fixed) / LIVE_CONTEXT_WIDTH) : 0;
	if (n_ctx > v->n_contexts)
		n_ctx = v->n_contexts;
	int room = rows - LIVE_HEAD_LINES - LIVE_FOOT_LINES;
	size_t shown = room > 0 ? (size_t)room : 0;
	if (shown >= v->n_counters)
		shown = v->n_counters;

	v->screen_len = 0;
	screen_add(v, "\033[H\033[2J%.*s\n", columns, v->title);
	gpuperf_duration_text(text, sizeof(text), window_ns);
	screen_add(v, "window %" PRIu64 "%s: %s of GPU time, %" PRIu32
		   " reports; lost: %" PRIu32 " reports, %" PRIu32
		   " buffers, %" PRIu32 " frames dropped\n\n", v->windows,
		   f->partial ? " (partial)" : "", text, f->reports,
		   f->lost_reports, f->buffer_lost, f->frames_dropped);
	screen_cell(v, "COUNTER", name_width, true);
	screen_add(v, "  ");
	screen_cell(v, "VALUE", 14, false);
	screen_add(v, "  ");
	screen_cell(v, "OF ITS BOUND", BAR_CELLS + 2, true);
	for (size_t k = 0; k < n_ctx; k++) {
		const struct gpuperf_live_context *c = &v->contexts[k];
		if (c->idle)
			snprintf(text, sizeof(text), "idle");
		else
			snprintf(text, sizeof(text), "ctx 0x%" PRIx32, c->id);
		screen_cell(v, text, LIVE_CONTEXT_WIDTH, false);
	}
	screen_add(v, "\n");
	for (size_t i = 0; i < shown; i++) {
		const struct gpuperf_column *col = &v->columns[v->first_counter + i];
		cell = i < f->n_values ? double_cell(f->values[i]) :
		       (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
		screen_cell(v, col->key, name_width, true);
		screen_add(v, "  ");
		gpuperf_human_text(text, sizeof(text), col, &cell, window_ns);
		screen_cell(v, text, 14, false);
		if (isfinite(v->bounds[i]))
			add_bar(v, cell.type == GPUPERF_CELL_NONE ? NAN :
				gpuperf_display_value(&col->display, cell.d,
						      window_ns / 1e9),
				v->bounds[i]);
		else
			screen_add(v, "  %*s", BAR_CELLS + 2, "");
		for (size_t k = 0; k < n_ctx; k++) {
			const struct gpc_context_row *row =
				context_row(f, &v->contexts[k]);
			cell = row && i < row->n_values ?
			       double_cell(row->values[i]) :
			       (struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
			gpuperf_human_text(text, sizeof(text), col, &cell,
					   row ? (double)row->gpu_time_ns : NAN);
			screen_cell(v, text, LIVE_CONTEXT_WIDTH, false);
		}
		screen_add(v, "\n");
	}
	size_t hidden_contexts = v->n_contexts - n_ctx;
	if (shown < v->n_counters || hidden_contexts) {
		char contexts[64] = "";
		if (hidden_contexts)
			snprintf(contexts, sizeof(contexts), "%s%zu contexts",
				 shown < v->n_counters ? " and " : "",
				 hidden_contexts);
		char counters[64] = "";
		if (shown < v->n_counters)
			snprintf(counters, sizeof(counters), "%zu of %zu counters",
				 v->n_counters - shown, v->n_counters);
		screen_add(v, "(%s%s hidden: the terminal is %dx%d; choose "
			   "counters with -c C1,C2, or make it larger)",
			   counters, contexts, columns, rows);
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
