/*
 * gpuperf top: the devices' engines, clocks, power and the processes
 * using them, every interval. On a terminal a full screen redrawn in
 * place, with keys; elsewhere (or with -o) the same screens one after
 * another, or CSV or NDJSON rows.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/output.h"
#include "client/usage_view.h"

static const char *const cmd = "top";

static const char usage[] =
	"gpuperf top [-d DEVICE] [-i INTERVAL] [-s SORT] [--hide-idle]\n"
	"       [--engines] [--no-processes] [--format FORMAT] [-o FILE]\n"
	"       [--duration D] [CONNECTION OPTIONS]";

static const char help[] =
	"Shows how busy each device's engines are, its clock, RC6 (sleep),\n"
	"power and temperature, and the processes using it, every interval.\n"
	"It needs no counter stream: it runs beside any other client, and\n"
	"while another program owns the OA unit.\n\n"
	"  -d, --device DEVICE  only this device (default: every device with\n"
	"                       a usage stream)\n"
	"  -i, --interval D     one screen or row per D (default 1s, at least\n"
	"                       100ms)\n"
	"  -s, --sort SORT      processes by gpu (engine time, the default),\n"
	"                       memory, pid or command\n"
	"      --hide-idle      leave out processes idle in the interval\n"
	"      --engines        a row per physical engine, not per class\n"
	"      --no-processes   no process table\n"
	"      --format FORMAT  table (the screen; the default), csv or\n"
	"                       ndjson\n"
	"  -o, --output FILE    write to FILE\n"
	"      --duration D     stop after D (e.g. 30s)\n\n"
	"On a terminal (without -o) the screen is redrawn in place. Keys:\n"
	"q quits, s cycles the sort (g, m, p, c pick one), i hides or shows\n"
	"idle processes, 1 switches between engine classes and physical\n"
	"engines.\n\n"
	"CSV rows (one per engine, device value and process value):\n";

static const char machine_help[] =
	"kind is engine (busy, wait and sema ratios of the interval), device\n"
	"(name actual_frequency, requested_frequency, min_frequency,\n"
	"max_frequency in hertz; rc6 as a ratio; power in watts; energy used\n"
	"in the interval in joules; temperature in celsius; value and unit\n"
	"columns) or process (busy: its share of engine_class; gpu_time and\n"
	"gpu_time_total in ns; memory and resident in bytes; share_source,\n"
	"where its shares came from: kernel_counters, driver_sampled,\n"
	"measured_in_process or simulated; for measured_in_process also\n"
	"records_lost, kernel records its own measure lost, in records).\n"
	"NDJSON gives a\n"
	"line per device and interval with the same names, units in the keys\n"
	"(busy_ratio, power_watts, memory_bytes, ...). Unknown values are\n"
	"empty (CSV) or null (NDJSON); note says why. A process list that\n"
	"lacks some processes (the daemon may not read other users' files)\n"
	"says so in processes_note.\n\n";

struct top_device {
	struct top *top;
	const struct gpc_device *device;
	struct gpc_usage_subscription *sub;
	/* The newest frame, for redraws between frames (keys, resizes). */
	bool have_frame;
	struct gpc_usage_frame_copy {
		struct gpc_usage_frame frame;
		void *storage;
	} last;
};

struct top {
	/* Options. */
	struct gpuperf_connection conn;
	const char *device;
	uint64_t interval_ns;
	uint64_t duration_ns;
	enum gpuperf_format format;
	const char *output;
	bool processes;
	struct gpuperf_usage_screen screen;

	uv_loop_t loop;
	bool loop_ready;
	struct gpc_client *client;
	struct top_device *devices;
	size_t n_devices;
	FILE *out;
	bool live;                      /* full screen on a terminal */
	bool csv_header_done;
	struct gpuperf_text text;
	uv_tty_t tty;
	bool tty_ready;
	char keys[64];
	uv_signal_t sigint, sigterm, sigwinch;
	uv_timer_t duration;
	bool handles_ready;
	bool stopping;
	int exit_code;
};

static void stop(struct top *t, int exit_code)
{
	if (t->stopping)
		return;
	t->stopping = true;
	t->exit_code = exit_code;
	if (t->handles_ready) {
		uv_close((uv_handle_t *)&t->sigint, NULL);
		uv_close((uv_handle_t *)&t->sigterm, NULL);
		uv_close((uv_handle_t *)&t->sigwinch, NULL);
		uv_close((uv_handle_t *)&t->duration, NULL);
		t->handles_ready = false;
	}
	if (t->tty_ready) {
		uv_read_stop((uv_stream_t *)&t->tty);
		uv_close((uv_handle_t *)&t->tty, NULL);
		t->tty_ready = false;
	}
	if (t->client) {
		gpc_close(t->client, NULL, NULL);
		t->client = NULL;
		for (size_t i = 0; i < t->n_devices; i++)
			t->devices[i].sub = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Keeping a frame for redraws                                          */

static size_t string_size(const char *s)
{
	return s ? strlen(s) + 1 : 1;
}

/* dst's arrays and strings in one allocation; false on ENOMEM. */
static bool copy_frame(struct gpc_usage_frame_copy *dst,
		       const struct gpc_usage_frame *f)
{
	size_t size = f->n_engines * sizeof(struct gpc_engine_usage) +
		      f->n_gauges * sizeof(struct gpc_gauge) +
		      f->n_processes * sizeof(struct gpc_process_usage) +
		      f->n_engine_classes * sizeof(char *);
	size += string_size(f->device) + string_size(f->note) +
		string_size(f->processes_note);
	for (size_t i = 0; i < f->n_engines; i++)
		size += string_size(f->engines[i].name) +
			string_size(f->engines[i].engine_class);
	for (size_t i = 0; i < f->n_engine_classes; i++)
		size += string_size(f->engine_classes[i]);
	for (size_t i = 0; i < f->n_gauges; i++)
		size += string_size(f->gauges[i].name) +
			string_size(f->gauges[i].unit);
	for (size_t i = 0; i < f->n_processes; i++)
		size += string_size(f->processes[i].command) +
			f->processes[i].n_class_busy * sizeof(double) +
			f->processes[i].n_client_ids * sizeof(uint64_t);
	char *p = malloc(size + 16);
	if (!p)
		return false;
	free(dst->storage);
	dst->storage = p;
	dst->frame = *f;
	/* Pointers and doubles first, so each stays aligned. */
	struct gpc_engine_usage *engines = (void *)p;
	p += f->n_engines * sizeof(*engines);
	struct gpc_gauge *gauges = (void *)p;
	p += f->n_gauges * sizeof(*gauges);
	struct gpc_process_usage *processes = (void *)p;
	p += f->n_processes * sizeof(*processes);
	const char **classes = (void *)p;
	p += f->n_engine_classes * sizeof(*classes);
	for (size_t i = 0; i < f->n_processes; i++) {
		processes[i] = f->processes[i];
		double *busy = (void *)p;
		memcpy(busy, f->processes[i].class_busy,
		       f->processes[i].n_class_busy * sizeof(double));
		processes[i].class_busy = busy;
		p += f->processes[i].n_class_busy * sizeof(double);
		uint64_t *ids = (void *)p;
		memcpy(ids, f->processes[i].client_ids,
		       f->processes[i].n_client_ids * sizeof(uint64_t));
		processes[i].client_ids = ids;
		p += f->processes[i].n_client_ids * sizeof(uint64_t);
	}
#define COPY_STRING(dst_field, src)                                          \
	do {                                                                 \
		const char *from_ = (src) ? (src) : "";                      \
		size_t n_ = strlen(from_) + 1;                               \
		memcpy(p, from_, n_);                                        \
		dst_field = p;                                               \
		p += n_;                                                     \
	} while (0)
	COPY_STRING(dst->frame.device, f->device);
	COPY_STRING(dst->frame.note, f->note);
	COPY_STRING(dst->frame.processes_note, f->processes_note);
	for (size_t i = 0; i < f->n_engines; i++) {
		engines[i] = f->engines[i];
		COPY_STRING(engines[i].name, f->engines[i].name);
		COPY_STRING(engines[i].engine_class, f->engines[i].engine_class);
	}
	for (size_t i = 0; i < f->n_engine_classes; i++)
		COPY_STRING(classes[i], f->engine_classes[i]);
	for (size_t i = 0; i < f->n_gauges; i++) {
		gauges[i] = f->gauges[i];
		COPY_STRING(gauges[i].name, f->gauges[i].name);
		COPY_STRING(gauges[i].unit, f->gauges[i].unit);
	}
	for (size_t i = 0; i < f->n_processes; i++)
		COPY_STRING(processes[i].command, f->processes[i].command);
#undef COPY_STRING
	dst->frame.engines = engines;
	dst->frame.gauges = gauges;
	dst->frame.processes = processes;
	dst->frame.engine_classes = classes;
	return true;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                              */

static void terminal_size(unsigned *width, unsigned *height)
{
	struct winsize ws;
	*width = 80;
	*height = 24;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		*width = ws.ws_col;
		*height = ws.ws_row;
	}
}

static const char *description(const struct top_device *d)
{
	const struct gpc_usage_info *info = d->sub ? gpc_usage_info(d->sub) : NULL;
	return info ? info->description : "";
}

static void redraw(struct top *t)
{
	unsigned width, height;
	terminal_size(&width, &height);
	struct gpuperf_usage_screen s = t->screen;
	s.width = width;
	s.keys_line = true;
	s.height = (unsigned)(height / (t->n_devices ? t->n_devices : 1));
	if (s.height > 2)
		s.height -= 2;
	/* Home and clear, then the screen. */
	gpuperf_text_printf(&t->text, "\033[H\033[2J");
	bool any = false;
	for (size_t i = 0; i < t->n_devices; i++) {
		const struct top_device *d = &t->devices[i];
		if (!d->have_frame)
			continue;
		if (any)
			gpuperf_text_printf(&t->text, "\n");
		gpuperf_usage_screen_render(&t->text, &s, &d->last.frame,
					    description(d));
		any = true;
	}
	if (!any)
		gpuperf_text_printf(&t->text, "gpuperf top: waiting for the "
				    "first interval (q quits)\n");
	gpuperf_text_write(&t->text, t->out);
}

static int write_frame(struct top *t, const struct top_device *d,
		       const struct gpc_usage_frame *f)
{
	switch (t->format) {
	case GPUPERF_FORMAT_TABLE: {
		struct gpuperf_usage_screen s = t->screen;
		s.width = 100;
		gpuperf_usage_screen_render(&t->text, &s, f, description(d));
		gpuperf_text_printf(&t->text, "\n");
		break;
	}
	case GPUPERF_FORMAT_CSV:
		gpuperf_usage_csv(&t->text, f, !t->csv_header_done);
		t->csv_header_done = true;
		break;
	case GPUPERF_FORMAT_NDJSON:
		gpuperf_usage_ndjson(&t->text, f);
		break;
	case GPUPERF_FORMAT_PERFETTO:
		break;          /* refused with the options */
	}
	return gpuperf_text_write(&t->text, t->out);
}

static void on_frame(struct gpc_usage_subscription *u,
		     const struct gpc_usage_frame *f, void *user)
{
	struct top_device *d = user;
	struct top *t = d->top;
	if (t->stopping)
		return;
	if (!t->live) {
		int ret = write_frame(t, d, f);
		if (ret == -EPIPE) {
			stop(t, GPUPERF_EXIT_OK);
		} else if (ret) {
			gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot write the "
				     "output: %s", strerror(-ret));
			stop(t, GPUPERF_EXIT_FAILURE);
		}
		return;
	}
	if (!copy_frame(&d->last, f))
		return;
	d->have_frame = true;
	redraw(t);
}

/* ------------------------------------------------------------------ */
/* Keys, signals                                                        */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct top *t = h->data;
	(void)suggested;
	*buf = uv_buf_init(t->keys, sizeof(t->keys));
}

static void on_keys(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	struct top *t = stream->data;
	if (n < 0) {
		stop(t, GPUPERF_EXIT_OK);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		switch (buf->base[i]) {
		case 'q':
		case 'Q':
		case 3:         /* Ctrl-C: the terminal is raw */
			stop(t, GPUPERF_EXIT_OK);
			return;
		case 's':
			t->screen.sort = (t->screen.sort + 1) % GPUPERF_SORT_COUNT;
			break;
		case 'g':
			t->screen.sort = GPUPERF_SORT_GPU;
			break;
		case 'm':
			t->screen.sort = GPUPERF_SORT_MEMORY;
			break;
		case 'p':
			t->screen.sort = GPUPERF_SORT_PID;
			break;
		case 'c':
			t->screen.sort = GPUPERF_SORT_COMMAND;
			break;
		case 'i':
			t->screen.hide_idle = !t->screen.hide_idle;
			break;
		case '1':
			t->screen.per_engine = !t->screen.per_engine;
			break;
		default:
			continue;
		}
	}
	redraw(t);
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct top *t = h->data;
	if (signum == SIGWINCH) {
		if (t->live)
			redraw(t);
		return;
	}
	stop(t, GPUPERF_EXIT_OK);
}

static void on_duration(uv_timer_t *timer)
{
	stop(timer->data, GPUPERF_EXIT_OK);
}

static void on_disconnect(struct gpc_client *c, const struct gpc_error *err,
			  void *user)
{
	struct top *t = user;
	if (!t->stopping)
		stop(t, gpuperf_report(cmd, "the connection to the daemon ended",
				       err));
}

/* ------------------------------------------------------------------ */
/* Starting                                                             */

static int parse(struct top *t, int argc, char **argv, bool *show_help)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		int m = gpuperf_connection_option(cmd, usage, argc, argv, &i,
						  &t->conn);
		if (m < 0)
			return GPUPERF_EXIT_USAGE;
		if (m)
			continue;
		if (gpuperf_arg_flag(arg, "--help", "-h")) {
			*show_help = true;
			return 0;
		}
		if (gpuperf_arg_flag(arg, "--hide-idle", NULL)) {
			t->screen.hide_idle = true;
			continue;
		}
		if (gpuperf_arg_flag(arg, "--engines", NULL)) {
			t->screen.per_engine = true;
			continue;
		}
		if (gpuperf_arg_flag(arg, "--no-processes", NULL)) {
			t->processes = false;
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--device", "-d",
					   &value))) {
			if (m < 0)
				goto missing;
			t->device = value;
			continue;
		}
		const char *duration_name = "--interval";
		uint64_t *ns = &t->interval_ns;
		m = gpuperf_arg_value(argc, argv, &i, "--interval", "-i", &value);
		if (!m) {
			duration_name = "--duration";
			ns = &t->duration_ns;
			m = gpuperf_arg_value(argc, argv, &i, "--duration", NULL,
					      &value);
		}
		if (m) {
			if (m < 0)
				goto missing;
			if (gpuperf_parse_duration(value, ns) < 0)
				return gpuperf_usage_error(cmd, usage, "%s takes a "
							   "duration such as "
							   "500ms or 2s, not "
							   "'%s'", duration_name,
							   value);
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--sort", "-s",
					   &value))) {
			if (m < 0)
				goto missing;
			if (gpuperf_usage_sort_parse(value, &t->screen.sort))
				return gpuperf_usage_error(cmd, usage, "--sort takes "
							   "gpu, memory, pid or "
							   "command, not '%s'",
							   value);
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--format", NULL,
					   &value))) {
			if (m < 0)
				goto missing;
			if (gpuperf_format_parse(value, &t->format) ||
			    t->format == GPUPERF_FORMAT_PERFETTO)
				return gpuperf_usage_error(cmd, usage, "--format "
							   "takes table, csv or "
							   "ndjson, not '%s'",
							   value);
			continue;
		}
		if ((m = gpuperf_arg_value(argc, argv, &i, "--output", "-o",
					   &value))) {
			if (m < 0)
				goto missing;
			t->output = value;
			continue;
		}
		return gpuperf_usage_error(cmd, usage, "unknown argument '%s'",
					   arg);
missing:
		return gpuperf_usage_error(cmd, usage, "%s needs a value", arg);
	}
	return 0;
}

static int subscribe_all(struct top *t)
{
	const struct gpc_device *devices;
	size_t n = gpc_devices(t->client, &devices);
	const struct gpc_device *only = NULL;
	if (t->device) {
		only = gpc_find_device(t->client, t->device);
		if (!only)
			return gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "the daemon "
					    "has no device '%s'; 'gpuperf "
					    "devices' lists them", t->device);
		if (!only->usage)
			return gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s "
					    "(%s) has no usage stream: a replay "
					    "has no engines or processes",
					    only->name, only->source);
	}
	t->devices = calloc(n ? n : 1, sizeof(*t->devices));
	if (!t->devices)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if ((only && &devices[i] != only) || !devices[i].usage)
			continue;
		struct top_device *d = &t->devices[t->n_devices];
		d->top = t;
		d->device = &devices[i];
		struct gpc_usage_options o = {
			.device = devices[i].name,
			.interval_ns = t->interval_ns,
			.processes = t->processes,
		};
		struct gpc_usage_cbs cbs = { .frame = on_frame };
		struct gpc_error err;
		if (gpc_usage_subscribe_sync(t->client, &o, &cbs, d, &d->sub, &err))
			return gpuperf_report(cmd, "the daemon refused the usage "
					      "stream", &err);
		t->n_devices++;
	}
	if (!t->n_devices)
		return gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "no device of the "
				    "daemon has a usage stream");
	return 0;
}

static int start(struct top *t)
{
	if (uv_loop_init(&t->loop))
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot start an "
				    "event loop");
	t->loop_ready = true;
	int ret = gpuperf_connect(cmd, &t->conn, &t->loop, &t->client);
	if (ret)
		return ret;
	gpc_set_disconnect_cb(t->client, on_disconnect, t);
	t->out = stdout;
	if (t->output && !(t->out = fopen(t->output, "w"))) {
		t->out = NULL;
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot write %s: "
				    "%s", t->output, strerror(errno));
	}
	t->live = t->format == GPUPERF_FORMAT_TABLE && !t->output &&
		  isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	const char *lang = getenv("LC_ALL");
	if (!lang || !*lang)
		lang = getenv("LC_CTYPE");
	if (!lang || !*lang)
		lang = getenv("LANG");
	t->screen.unicode = lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8"));
	ret = subscribe_all(t);
	if (ret)
		return ret;
	uv_signal_init(&t->loop, &t->sigint);
	uv_signal_init(&t->loop, &t->sigterm);
	uv_signal_init(&t->loop, &t->sigwinch);
	uv_timer_init(&t->loop, &t->duration);
	t->sigint.data = t->sigterm.data = t->sigwinch.data = t;
	t->duration.data = t;
	t->handles_ready = true;
	uv_signal_start(&t->sigint, on_signal, SIGINT);
	uv_signal_start(&t->sigterm, on_signal, SIGTERM);
	uv_signal_start(&t->sigwinch, on_signal, SIGWINCH);
	if (t->duration_ns)
		uv_timer_start(&t->duration, on_duration,
			       (t->duration_ns + 999999) / 1000000, 0);
	if (t->live && !uv_tty_init(&t->loop, &t->tty, STDIN_FILENO, 1)) {
		t->tty.data = t;
		t->tty_ready = true;
		uv_tty_set_mode(&t->tty, UV_TTY_MODE_RAW);
		uv_read_start((uv_stream_t *)&t->tty, on_alloc, on_keys);
		/* The terminal's other screen, without a cursor. */
		fputs("\033[?1049h\033[?25l", stdout);
		fflush(stdout);
		redraw(t);
	}
	return 0;
}

static void finish(struct top *t)
{
	if (t->live) {
		uv_tty_reset_mode();
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
	}
	if (t->loop_ready) {
		stop(t, t->exit_code);
		uv_run(&t->loop, UV_RUN_DEFAULT);
		if (uv_loop_close(&t->loop))
			fprintf(stderr, "gpuperf %s: handles left open at exit\n",
				cmd);
	}
	if (t->out && t->out != stdout && fclose(t->out) && !t->exit_code)
		t->exit_code = gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "cannot "
					    "write the output: %s",
					    strerror(errno));
	for (size_t i = 0; i < t->n_devices; i++)
		free(t->devices[i].last.storage);
	free(t->devices);
	gpuperf_text_fini(&t->text);
}

int gpuperf_cmd_top(int argc, char **argv)
{
	struct top t = {
		.processes = true,
		.format = GPUPERF_FORMAT_TABLE,
	};
	bool show_help = false;
	int ret = parse(&t, argc, argv, &show_help);
	if (ret || show_help) {
		if (show_help)
			printf("usage: %s\n\n%s  %s\n\n%s%s", usage, help,
			       gpuperf_usage_csv_columns, machine_help,
			       gpuperf_connection_help);
		return ret;
	}
	ret = start(&t);
	if (!ret && !t.stopping)
		uv_run(&t.loop, UV_RUN_DEFAULT);
	if (ret)
		t.exit_code = ret;
	finish(&t);
	return t.exit_code;
}
