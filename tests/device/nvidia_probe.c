/*
 * Which CUPTI counters PM sampling takes in one pass, together, and what
 * they count: starts with none and adds each candidate in turn, keeping it
 * when a session with everything kept so far still opens; then samples the
 * kept ones at 1 ms for SECONDS and prints their sums per 100 ms. For
 * authoring metric sets.
 *
 *   nvidia_probe SECONDS COUNTER...      (CUDA device 0)
 *
 * Prints one JSON line per candidate, the kept list, then one line per
 * 100 ms with its CLOCK_MONOTONIC start and each kept counter's sum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/pm_session.h"

#define BUCKET_NS 100000000ull

struct buckets {
	unsigned n;
	int64_t offset;                 /* CLOCK_MONOTONIC - CLOCK_REALTIME */
	uint64_t bucket;                /* start of the bucket being summed */
	double sum[64];
	const char **names;
};

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void flush(struct buckets *b)
{
	printf("{\"start_ns\":%llu", (unsigned long long)b->bucket);
	for (unsigned i = 0; i < b->n; i++)
		printf(",\"%s\":%.17g", b->names[i], b->sum[i]);
	printf("}\n");
	memset(b->sum, 0, sizeof(b->sum));
}

static void on_sample(void *user, uint64_t start_ns, uint64_t end_ns,
		      const double *values)
{
	struct buckets *b = user;
	uint64_t mono = (uint64_t)((int64_t)end_ns + b->offset);
	uint64_t bucket = mono / BUCKET_NS * BUCKET_NS;
	if (!b->bucket)
		b->bucket = bucket;
	if (bucket != b->bucket) {
		flush(b);
		b->bucket = bucket;
	}
	for (unsigned i = 0; i < b->n; i++)
		b->sum[i] += values[i];
}

int main(int argc, char **argv)
{
	struct gpd_nv_libs libs;
	const char *kept[64];
	unsigned n_kept = 0;
	char why[256];

	gpd_nv_libs_load(&libs, NULL);
	if (!libs.have_cupti || libs.cuda.init(0)) {
		printf("{\"error\":\"%s\"}\n", libs.why_no_cupti);
		return 1;
	}
	if (argc < 2)
		return 2;
	double seconds = atof(argv[1]);
	for (int i = 2; i < argc && n_kept < 64; i++) {
		struct gpd_nv_pm_session s;
		kept[n_kept] = argv[i];
		struct gpd_nv_pm_config cfg = {
			.device_index = 0,
			.metrics = kept,
			.n_metrics = n_kept + 1,
			.interval_ns = 1000000,
		};
		int ret = gpd_nv_pm_session_open(&s, &libs, &cfg, why, sizeof(why));
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
	fflush(stdout);

	struct gpd_nv_pm_session s;
	struct gpd_nv_pm_config cfg = {
		.device_index = 0,
		.metrics = kept,
		.n_metrics = n_kept,
		.interval_ns = 1000000,
	};
	struct buckets b = { .n = n_kept, .names = kept };
	if (n_kept && !gpd_nv_pm_session_open(&s, &libs, &cfg, why, sizeof(why))) {
		b.offset = (int64_t)now_ns(CLOCK_MONOTONIC) -
			   (int64_t)now_ns(CLOCK_REALTIME);
		uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
		while (now_ns(CLOCK_MONOTONIC) < end) {
			usleep((useconds_t)(s.decode_period_ns / 1000));
			if (gpd_nv_pm_session_decode(&s, on_sample, &b, why,
						     sizeof(why)) < 0) {
				printf("{\"error\":\"%s\"}\n", why);
				break;
			}
		}
		gpd_nv_pm_session_close(&s);
	}
	gpd_nv_libs_unload(&libs);
	return 0;
}
