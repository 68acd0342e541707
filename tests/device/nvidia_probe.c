/*
 * Two probes of CUPTI PM sampling on CUDA device 0, for authoring metric
 * sets and sizing the decode schedule:
 *
 *   nvidia_probe passes COUNTER...
 *       which counters PM sampling takes in one pass together: starts with
 *       none and adds each candidate in turn, keeping it when a session
 *       with everything kept so far still opens;
 *
 *   nvidia_probe sample SECONDS INTERVAL_NS DECODE_MS IMAGE RESET_AT HW_MB
 *                COUNTER...
 *       samples the counters with that schedule (0 for any of DECODE_MS,
 *       IMAGE, RESET_AT, HW_MB: the source's own) and prints each
 *       counter's sum per 100 ms with its CLOCK_MONOTONIC start, then a
 *       summary: samples against the span they cover, gaps, samples out of
 *       order, the time in DecodeData and in whole decodes (evaluation
 *       and image resets included), the image's size, and the process's
 *       CPU time;
 *
 *   nvidia_probe sweep SECONDS INTERVAL_NS IMAGE HW_MB PERIODS_MS COUNTER...
 *       what each part of a decode costs against how often it runs: one
 *       session (an image of IMAGE samples, 0: the source's own; HW_MB as
 *       above) decodes every period of the comma-separated PERIODS_MS for
 *       SECONDS each, then, per period, prints the DecodeData calls' wall
 *       and thread CPU time against the samples they brought, those of a
 *       second DecodeData straight after each (the buffer all but empty:
 *       the fixed cost of a call), GetSampleInfo's and
 *       HostEvaluateToGpuValues's CPU per sample, the cost of emptying the
 *       image whole and of copying back only the bytes the decode changed,
 *       and which bytes those were;
 *
 *   nvidia_probe layout SECONDS INTERVAL_NS IMAGE PERIOD_MS RESET_AT COUNTER...
 *       where in a counter data image the decodes write: the image's size
 *       for IMAGE and IMAGE/2 samples, the initialized image's non-zero
 *       bytes, then after every decode (every PERIOD_MS, the image
 *       emptied once it holds RESET_AT samples) the samples CUPTI says it
 *       holds and the first and last byte that differ from the
 *       initialized image.
 *
 * Output is one JSON object a line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/pm_session.h"

#define BUCKET_NS 100000000ull

struct probe {
	unsigned n;
	const char **names;
	int64_t offset;                 /* CLOCK_MONOTONIC - CLOCK_REALTIME */
	uint64_t bucket;
	double sum[64];
	uint64_t samples, gaps, out_of_order, first_start, last_end;
};

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void flush(struct probe *p)
{
	printf("{\"start_ns\":%llu", (unsigned long long)p->bucket);
	for (unsigned i = 0; i < p->n; i++)
		printf(",\"%s\":%.17g", p->names[i], p->sum[i]);
	printf("}\n");
	memset(p->sum, 0, sizeof(p->sum));
}

static void on_sample(void *user, uint64_t start_ns, uint64_t end_ns,
		      const double *values)
{
	struct probe *p = user;
	if (p->last_end && start_ns < p->last_end) {
		p->out_of_order++;
		return;
	}
	if (!p->first_start)
		p->first_start = end_ns;    /* the setup sample ends here */
	else if (start_ns > p->last_end)
		p->gaps++;
	if (p->last_end)
		p->samples++;
	p->last_end = end_ns;
	uint64_t bucket = (uint64_t)((int64_t)end_ns + p->offset) / BUCKET_NS *
			  BUCKET_NS;
	if (!p->bucket)
		p->bucket = bucket;
	if (bucket != p->bucket) {
		flush(p);
		p->bucket = bucket;
	}
	for (unsigned i = 0; i < p->n; i++)
		p->sum[i] += values[i];
}

static int passes(const struct gpd_nv_libs *libs, int argc, char **argv)
{
	const char *kept[64];
	unsigned n_kept = 0;
	char why[256];

	for (int i = 0; i < argc && n_kept < 64; i++) {
		struct gpd_nv_pm_session s;
		kept[n_kept] = argv[i];
		struct gpd_nv_pm_config cfg = {
			.metrics = kept,
			.n_metrics = n_kept + 1,
			.interval_ns = 1000000,
		};
		int ret = gpd_nv_pm_session_open(&s, libs, &cfg, why, sizeof(why));
		printf("{\"counter\":\"%s\",\"kept\":%s,\"why\":\"%s\"}\n", argv[i],
		       ret ? "false" : "true", ret ? why : "");
		fflush(stdout);
		if (!ret) {
			gpd_nv_pm_session_close(&s);
			n_kept++;
		}
	}
	printf("{\"one_pass\":[");
	for (unsigned i = 0; i < n_kept; i++)
		printf("%s\"%s\"", i ? "," : "", kept[i]);
	printf("]}\n");
	return 0;
}

static int sample(const struct gpd_nv_libs *libs, int argc, char **argv)
{
	if (argc < 7)
		return 2;
	double seconds = atof(argv[0]);
	uint64_t interval = strtoull(argv[1], NULL, 10);
	struct gpd_nv_pm_schedule sched;
	gpd_nv_pm_schedule_for(interval, (unsigned)(argc - 6), &sched);
	if (atof(argv[2]) > 0)
		sched.decode_period_ns = (uint64_t)(atof(argv[2]) * 1e6);
	if (atoi(argv[3]) > 0)
		sched.max_samples = (uint32_t)atoi(argv[3]);
	if (atoi(argv[4]) > 0)
		sched.reset_at = (uint32_t)atoi(argv[4]);
	if (atoi(argv[5]) > 0)
		sched.hardware_buffer_size = (size_t)atoi(argv[5]) << 20;
	struct probe p = { .n = (unsigned)(argc - 6), .names = (const char **)argv + 6 };
	struct gpd_nv_pm_stats stats = { 0 };
	struct gpd_nv_pm_config cfg = {
		.metrics = (const char *const *)argv + 6,
		.n_metrics = p.n,
		.interval_ns = interval,
		.schedule = &sched,
		.stats = &stats,
	};
	struct gpd_nv_pm_session s;
	char why[256] = "";
	if (gpd_nv_pm_session_open(&s, libs, &cfg, why, sizeof(why))) {
		printf("{\"error\":\"%s\"}\n", why);
		return 1;
	}
	p.offset = (int64_t)now_ns(CLOCK_MONOTONIC) - (int64_t)now_ns(CLOCK_REALTIME);
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	uint64_t next = now_ns(CLOCK_MONOTONIC);
	uint64_t in_decode_ns = 0;      /* DecodeData, evaluation and resets */
	while (now_ns(CLOCK_MONOTONIC) < end) {
		next += sched.decode_period_ns;
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (next > now)
			usleep((useconds_t)((next - now) / 1000));
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);
		int got = gpd_nv_pm_session_decode(&s, on_sample, &p, why,
						   sizeof(why));
		in_decode_ns += now_ns(CLOCK_MONOTONIC) - t0;
		if (got < 0) {
			printf("{\"error\":\"%s\"}\n", why);
			break;
		}
	}
	size_t image_bytes = s.data_size;
	gpd_nv_pm_session_close(&s);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double expected = (double)(p.last_end - p.first_start) / (double)interval;
	printf("{\"summary\":{\"interval_ns\":%llu,\"decode_ms\":%.1f,\"image\":%u,"
	       "\"reset_at\":%u,\"hw_mb\":%zu,\"samples\":%llu,\"expected\":%.0f,"
	       "\"delivered_pct\":%.3f,\"gaps\":%llu,\"out_of_order\":%llu,"
	       "\"decodes\":%llu,\"full_images\":%llu,\"resets\":%llu,"
	       "\"cut_samples\":%llu,\"decode_data_s\":%.3f,"
	       "\"decode_max_ms\":%.1f,\"evaluate_max_ms\":%.1f,"
	       "\"in_decode_s\":%.3f,\"image_mb\":%.1f,\"cpu_s\":%.3f}}\n",
	       (unsigned long long)interval, sched.decode_period_ns / 1e6,
	       sched.max_samples, sched.reset_at,
	       sched.hardware_buffer_size >> 20, (unsigned long long)p.samples,
	       expected, expected > 0 ? 100.0 * (double)p.samples / expected : 0,
	       (unsigned long long)p.gaps, (unsigned long long)p.out_of_order,
	       (unsigned long long)stats.decodes,
	       (unsigned long long)stats.full_images,
	       (unsigned long long)stats.resets,
	       (unsigned long long)stats.cut_samples,
	       (double)stats.decode_ns / 1e9, (double)stats.decode_ns_max / 1e6,
	       (double)stats.evaluate_ns_max / 1e6, (double)in_decode_ns / 1e9,
	       (double)image_bytes / 1048576.0,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	return now_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The part of one sweep period's figures that sums over calls. */
struct sweep_sums {
	uint64_t calls, samples, wall_ns, cpu_ns, wall_max_ns, cpu_max_ns;
	uint64_t empty_calls, empty_samples, empty_wall_ns, empty_cpu_ns;
	uint64_t info_ns, eval_ns, evaluated;
	uint64_t resets, reset_ns, partial_ns;
	uint64_t dirty_max, dirty_ranges_max, full, overflow;
};

/* The last byte of img that differs from the pristine image, +1, and how
 * many separate runs of changed bytes (gaps under 4 KiB joined) there
 * are. */
static size_t dirty_end(const uint8_t *img, const uint8_t *pristine,
			size_t size, uint64_t *ranges)
{
	size_t end = 0, last = 0;
	*ranges = 0;
	for (size_t i = 0; i < size; i += 64) {
		size_t n = size - i < 64 ? size - i : 64;
		if (!memcmp(img + i, pristine + i, n))
			continue;
		if (!end || i > last + 4096)
			(*ranges)++;
		last = i;
		end = i + n;
	}
	return end;
}

static void sweep_decode(struct gpd_nv_pm_session *s, struct sweep_sums *t,
			 bool empty, char *why, size_t why_size)
{
	struct gpd_nv_pm_image *img = &s->images[0];
	bool full = false;
	uint64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = thread_cpu_ns();
	int got = gpd_nv_pm_session_decode_into(s, img, &full, why, why_size);
	uint64_t c = thread_cpu_ns() - c0, w = now_ns(CLOCK_MONOTONIC) - w0;
	if (got < 0) {
		t->overflow++;
		return;
	}
	t->full += full;
	if (empty) {
		t->empty_calls++;
		t->empty_samples += (uint64_t)got;
		t->empty_wall_ns += w;
		t->empty_cpu_ns += c;
	} else {
		t->calls++;
		t->samples += (uint64_t)got;
		t->wall_ns += w;
		t->cpu_ns += c;
		if (w > t->wall_max_ns)
			t->wall_max_ns = w;
		if (c > t->cpu_max_ns)
			t->cpu_max_ns = c;
	}
}

/* Reads the image's samples as the evaluating thread does, each call
 * timed on its own, then empties the image: copying back only the changed
 * bytes is timed too, and then the whole copy is made. */
static void sweep_evaluate(struct gpd_nv_pm_session *s, struct sweep_sums *t)
{
	struct gpd_nv_pm_image *img = &s->images[0];
	const struct gpd_cupti_api *api = &s->libs->cupti;
	for (size_t i = 0; i < img->completed; i++) {
		struct gpd_cupti_pm_sample_params sp = {
			.struct_size = GPD_CUPTI_STRUCT_SIZE(
				struct gpd_cupti_pm_sample_params, end_ns),
			.pm = s->pm, .data = img->data,
			.data_size = s->data_size, .index = i,
		};
		uint64_t c0 = thread_cpu_ns();
		api->pm_counter_data_get_sample_info(&sp);
		uint64_t c1 = thread_cpu_ns();
		struct gpd_cupti_host_evaluate_params ev = {
			.struct_size = GPD_CUPTI_STRUCT_SIZE(
				struct gpd_cupti_host_evaluate_params, values),
			.host = s->host, .counter_data = img->data,
			.counter_data_size = s->data_size, .range_index = i,
			.names = s->metrics, .n_names = s->n_metrics,
			.values = s->values,
		};
		api->host_evaluate_to_gpu_values(&ev);
		t->info_ns += c1 - c0;
		t->eval_ns += thread_cpu_ns() - c1;
		t->evaluated++;
	}
	uint64_t ranges;
	size_t end = dirty_end(img->data, s->pristine, s->data_size, &ranges);
	if (end > t->dirty_max)
		t->dirty_max = end;
	if (ranges > t->dirty_ranges_max)
		t->dirty_ranges_max = ranges;
	uint64_t c0 = thread_cpu_ns();
	memcpy(img->data, s->pristine, end);
	uint64_t c1 = thread_cpu_ns();
	gpd_nv_pm_image_reset(s, img);
	t->partial_ns += c1 - c0;
	t->reset_ns += thread_cpu_ns() - c1;
	t->resets++;
}

static int sweep(const struct gpd_nv_libs *libs, int argc, char **argv)
{
	if (argc < 6)
		return 2;
	double seconds = atof(argv[0]);
	uint64_t interval = strtoull(argv[1], NULL, 10);
	unsigned n = (unsigned)(argc - 5);
	struct gpd_nv_pm_schedule sched;
	gpd_nv_pm_schedule_for(interval, n, &sched);
	if (atoi(argv[2]) > 0)
		sched.max_samples = sched.min_samples = (uint32_t)atoi(argv[2]);
	if (atoi(argv[3]) > 0)
		sched.hardware_buffer_size = (size_t)atoi(argv[3]) << 20;
	struct gpd_nv_pm_stats stats = { 0 };
	struct gpd_nv_pm_config cfg = {
		.metrics = (const char *const *)argv + 5, .n_metrics = n,
		.interval_ns = interval, .schedule = &sched, .stats = &stats,
	};
	struct gpd_nv_pm_session s;
	char why[256] = "";
	if (gpd_nv_pm_session_open(&s, libs, &cfg, why, sizeof(why))) {
		printf("{\"error\":\"%s\"}\n", why);
		return 1;
	}
	printf("{\"session\":{\"interval_ns\":%llu,\"counters\":%u,\"image\":%u,"
	       "\"image_bytes\":%zu,\"hw_mb\":%zu}}\n",
	       (unsigned long long)interval, n, s.schedule.max_samples,
	       s.data_size, s.schedule.hardware_buffer_size >> 20);
	fflush(stdout);
	char *list = argv[4];
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		uint64_t period = (uint64_t)(atof(tok) * 1e6);
		struct sweep_sums t = { 0 };
		struct rusage r0, r1;
		/* The buffer emptied first, so that each period starts
		 * alike. */
		sweep_decode(&s, &t, true, why, sizeof(why));
		sweep_evaluate(&s, &t);
		t = (struct sweep_sums){ 0 };
		getrusage(RUSAGE_SELF, &r0);
		uint64_t c0 = thread_cpu_ns();
		uint64_t start = now_ns(CLOCK_MONOTONIC);
		uint64_t end = start + (uint64_t)(seconds * 1e9), next = start;
		while (now_ns(CLOCK_MONOTONIC) < end && !t.overflow) {
			next += period;
			uint64_t now = now_ns(CLOCK_MONOTONIC);
			if (next > now)
				usleep((useconds_t)((next - now) / 1000));
			sweep_decode(&s, &t, false, why, sizeof(why));
			sweep_decode(&s, &t, true, why, sizeof(why));
			sweep_evaluate(&s, &t);
		}
		uint64_t wall = now_ns(CLOCK_MONOTONIC) - start;
		uint64_t thread = thread_cpu_ns() - c0;
		getrusage(RUSAGE_SELF, &r1);
		double proc = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
			      (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
			      (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
			      (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
		double calls = t.calls ? (double)t.calls : 1;
		double samples = t.samples ? (double)t.samples : 1;
		double ecalls = t.empty_calls ? (double)t.empty_calls : 1;
		double ev = t.evaluated ? (double)t.evaluated : 1;
		double resets = t.resets ? (double)t.resets : 1;
		printf("{\"period_ms\":%.1f,\"calls\":%llu,\"samples_per_call\":%.1f,"
		       "\"decode_wall_ms\":%.3f,\"decode_cpu_ms\":%.3f,"
		       "\"decode_wall_max_ms\":%.2f,\"decode_cpu_max_ms\":%.2f,"
		       "\"decode_cpu_us_per_sample\":%.2f,"
		       "\"empty_wall_ms\":%.3f,\"empty_cpu_ms\":%.3f,"
		       "\"empty_samples_per_call\":%.2f,"
		       "\"info_us\":%.2f,\"eval_us\":%.2f,\"reset_ms\":%.3f,"
		       "\"partial_reset_ms\":%.3f,\"dirty_max\":%llu,"
		       "\"dirty_ranges_max\":%llu,\"full\":%llu,\"overflow\":%llu,"
		       "\"wall_s\":%.2f,\"thread_cpu_s\":%.3f,\"process_cpu_s\":%.3f,"
		       "\"decode_share_of_core\":%.4f}\n",
		       period / 1e6, (unsigned long long)t.calls,
		       (double)t.samples / calls, t.wall_ns / calls / 1e6,
		       t.cpu_ns / calls / 1e6, t.wall_max_ns / 1e6,
		       t.cpu_max_ns / 1e6, t.cpu_ns / samples / 1e3,
		       t.empty_wall_ns / ecalls / 1e6,
		       t.empty_cpu_ns / ecalls / 1e6,
		       (double)t.empty_samples / ecalls,
		       t.info_ns / ev / 1e3, t.eval_ns / ev / 1e3,
		       t.reset_ns / resets / 1e6, t.partial_ns / resets / 1e6,
		       (unsigned long long)t.dirty_max,
		       (unsigned long long)t.dirty_ranges_max,
		       (unsigned long long)t.full, (unsigned long long)t.overflow,
		       wall / 1e9, thread / 1e9, proc,
		       (double)(t.cpu_ns + t.empty_cpu_ns) / (double)wall);
		fflush(stdout);
		if (t.overflow) {
			printf("{\"error\":\"%s\"}\n", why);
			break;
		}
	}
	gpd_nv_pm_session_close(&s);
	return 0;
}

static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

static size_t last_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = n; i > 0; i--)
		if (a[i - 1] != b[i - 1])
			return i;
	return 0;
}

static int layout(const struct gpd_nv_libs *libs, int argc, char **argv)
{
	if (argc < 6)
		return 2;
	double seconds = atof(argv[0]);
	uint64_t interval = strtoull(argv[1], NULL, 10);
	uint32_t image = (uint32_t)atoi(argv[2]);
	uint64_t period = (uint64_t)(atof(argv[3]) * 1e6);
	size_t reset_at = (size_t)atoi(argv[4]);
	unsigned n = (unsigned)(argc - 5);
	struct gpd_nv_pm_schedule sched;
	gpd_nv_pm_schedule_for(interval, n, &sched);
	sched.max_samples = sched.min_samples = image;
	struct gpd_nv_pm_config cfg = {
		.metrics = (const char *const *)argv + 5, .n_metrics = n,
		.interval_ns = interval, .schedule = &sched,
	};
	struct gpd_nv_pm_session s;
	char why[256] = "";
	if (gpd_nv_pm_session_open(&s, libs, &cfg, why, sizeof(why))) {
		printf("{\"error\":\"%s\"}\n", why);
		return 1;
	}
	struct gpd_cupti_pm_data_size_params ds = {
		.struct_size = GPD_CUPTI_STRUCT_SIZE(
			struct gpd_cupti_pm_data_size_params, data_size),
		.pm = s.pm, .names = s.metrics, .n_names = s.n_metrics,
		.max_samples = image / 2,
	};
	s.libs->cupti.pm_get_counter_data_size(&ds);
	size_t nonzero = 0, last_nonzero = 0;
	for (size_t i = 0; i < s.data_size; i++)
		if (s.pristine[i]) {
			nonzero++;
			last_nonzero = i + 1;
		}
	printf("{\"image\":%u,\"bytes\":%zu,\"half_image_bytes\":%zu,"
	       "\"pristine_nonzero\":%zu,\"pristine_last_nonzero\":%zu}\n",
	       image, s.data_size, ds.data_size, nonzero, last_nonzero);
	struct gpd_nv_pm_image *img = &s.images[0];
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	uint64_t next = now_ns(CLOCK_MONOTONIC);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		next += period;
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (next > now)
			usleep((useconds_t)((next - now) / 1000));
		bool full = false;
		int got = gpd_nv_pm_session_decode_into(&s, img, &full, why,
							 sizeof(why));
		if (got < 0) {
			printf("{\"error\":\"%s\"}\n", why);
			break;
		}
		struct gpd_cupti_pm_data_info_params info = {
			.struct_size = GPD_CUPTI_STRUCT_SIZE(
				struct gpd_cupti_pm_data_info_params,
				completed_samples),
			.data = img->data, .data_size = s.data_size,
		};
		s.libs->cupti.pm_get_counter_data_info(&info);
		printf("{\"got\":%d,\"full\":%d,\"total\":%zu,\"populated\":%zu,"
		       "\"completed\":%zu,\"first_diff\":%zu,\"last_diff\":%zu}\n",
		       got, full, info.total_samples, info.populated_samples,
		       info.completed_samples,
		       first_difference(img->data, s.pristine, s.data_size),
		       last_difference(img->data, s.pristine, s.data_size));
		if (full || img->populated >= reset_at)
			gpd_nv_pm_image_reset(&s, img);
	}
	gpd_nv_pm_session_close(&s);
	return 0;
}

int main(int argc, char **argv)
{
	struct gpd_nv_libs libs;
	int ret = 2;

	gpd_nv_libs_load(&libs, NULL);
	if (!libs.have_cupti || libs.cuda.init(0)) {
		printf("{\"error\":\"%s\"}\n", libs.why_no_cupti);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "passes"))
		ret = passes(&libs, argc - 2, argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "sample"))
		ret = sample(&libs, argc - 2, argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "sweep"))
		ret = sweep(&libs, argc - 2, argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "layout"))
		ret = layout(&libs, argc - 2, argv + 2);
	else
		fprintf(stderr, "usage: nvidia_probe passes COUNTER... | sample "
			"SECONDS INTERVAL_NS DECODE_MS IMAGE RESET_AT HW_MB "
			"COUNTER... | sweep SECONDS INTERVAL_NS IMAGE HW_MB "
			"PERIODS_MS COUNTER... | layout SECONDS INTERVAL_NS "
			"IMAGE PERIOD_MS RESET_AT COUNTER...\n");
	gpd_nv_libs_unload(&libs);
	return ret;
}
