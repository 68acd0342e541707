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
 *       CPU time.
 *
 * Output is one JSON object a line.
 */
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
	else
		fprintf(stderr, "usage: nvidia_probe passes COUNTER... | sample "
			"SECONDS INTERVAL_NS DECODE_MS IMAGE RESET_AT HW_MB "
			"COUNTER...\n");
	gpd_nv_libs_unload(&libs);
	return ret;
}
