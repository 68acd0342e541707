/*
 * A tiny driver of the daemon core for tests/device/test-nvidia.sh: runs
 * gpuperfd's devices in process, subscribes to one metric set and prints
 * every frame as one NDJSON line, then a summary line with how many of the
 * samples the period asked for arrived.
 *
 *   nvidia_stream [--device SPEC] [--set NAME] [--period-us N]
 *                 [--window-ms N] [--seconds S] [--counters A,B,...]
 *
 * Exit status: 0 after a run, 3 when the subscription was refused, 4 when
 * it was refused because the GPU is busy elsewhere.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/nvidia/nvidia_source.h"

struct run {
	struct gpd_daemon daemon;
	struct gpd_subscription *sub;
	const char *const *symbols;
	size_t n_symbols;
	uint64_t start_ns;
	uint64_t frames, reports, lost, buffer_lost;
	uint64_t first_gpu_ns, last_gpu_ns;
	uv_timer_t stop;
};

static void print_value(const struct gpm_value *v)
{
	double d = v->type == GPM_VALUE_U64 ? (double)v->u : v->d;
	if (isfinite(d))
		printf("%.6g", d);
	else
		printf("null");
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct run *r = user;
	if (!r->frames)
		r->first_gpu_ns = f->gpu_start_ns;
	r->last_gpu_ns = f->gpu_end_ns;
	r->frames++;
	r->reports += f->reports;
	r->lost += f->lost_reports;
	r->buffer_lost += f->buffer_lost;
	printf("{\"t_ms\":%.3f,\"gpu_start_ns\":%llu,\"gpu_end_ns\":%llu,"
	       "\"reports\":%u,\"lost\":%u,\"buffer_lost\":%u,\"values\":{",
	       (double)(gpd_monotonic_ns() - r->start_ns) / 1e6,
	       (unsigned long long)f->gpu_start_ns,
	       (unsigned long long)f->gpu_end_ns, f->reports, f->lost_reports,
	       f->buffer_lost);
	for (size_t i = 0; i < f->n_values && i < r->n_symbols; i++) {
		printf("%s\"%s\":", i ? "," : "", r->symbols[i]);
		print_value(&f->values[i]);
	}
	printf("}}\n");
}

static const char *event_name(enum gpd_event_kind kind)
{
	switch (kind) {
	case GPD_EVENT_CONFIG_CHANGED:
		return "config_changed";
	case GPD_EVENT_BUSY_ELSEWHERE:
		return "busy_elsewhere";
	case GPD_EVENT_DEVICE_LOST:
		return "device_lost";
	case GPD_EVENT_RECOVERED:
		return "recovered";
	case GPD_EVENT_ENDED:
		return "ended";
	case GPD_EVENT_RESTARTED:
		return "restarted";
	}
	return "unknown";
}

static void on_event(void *user, const struct gpd_event *ev)
{
	printf("{\"event\":\"%s\",\"message\":\"%s\"}\n", event_name(ev->kind),
	       ev->message);
}

static void on_stop(uv_timer_t *t)
{
	struct run *r = t->data;
	struct gpd_device *dev = gpd_daemon_find_device(&r->daemon, NULL);
	struct gpd_nv_sampler_stats st;
	bool nv = dev->source->kind == GPD_SOURCE_NVIDIA &&
		  gpd_nvidia_source_stats(dev->source, &st);
	uint64_t period = gpd_exponent_to_ns(&dev->source->info, dev->exponent);
	double span = (double)(r->last_gpu_ns - r->first_gpu_ns);
	double expected = span / (double)period;

	printf("{\"summary\":{\"set\":\"%s\",\"period_ns\":%llu,\"frames\":%llu,"
	       "\"reports\":%llu,\"expected_reports\":%.0f,\"delivered_pct\":%.3f,"
	       "\"lost\":%llu,\"buffer_lost\":%llu",
	       dev->set->symbol_name, (unsigned long long)period,
	       (unsigned long long)r->frames, (unsigned long long)r->reports,
	       expected, expected > 0 ? 100.0 * (double)r->reports / expected : 0,
	       (unsigned long long)r->lost, (unsigned long long)r->buffer_lost);
	if (nv)
		printf(",\"source\":{\"sessions\":%llu,\"overflows\":%llu,"
		       "\"failures\":%llu,\"dropped_batches\":%llu,"
		       "\"samples\":%llu,\"setup_samples\":%llu,\"gaps\":%llu,"
		       "\"jitter\":%llu,\"out_of_order\":%llu}",
		       (unsigned long long)st.sessions,
		       (unsigned long long)st.overflows,
		       (unsigned long long)st.failures,
		       (unsigned long long)st.dropped_batches,
		       (unsigned long long)st.reports.reports,
		       (unsigned long long)st.reports.setup_samples,
		       (unsigned long long)st.reports.gaps,
		       (unsigned long long)st.reports.jitter,
		       (unsigned long long)st.reports.out_of_order);
	if (nv)
		printf(",\"pm\":{\"decodes\":%llu,\"full_images\":%llu,"
		       "\"resets\":%llu,\"cut_samples\":%llu}",
		       (unsigned long long)st.pm.decodes,
		       (unsigned long long)st.pm.full_images,
		       (unsigned long long)st.pm.resets,
		       (unsigned long long)st.pm.cut_samples);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf(",\"cpu_s\":%.3f,\"wall_s\":%.3f}}\n",
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       (double)(gpd_monotonic_ns() - r->start_ns) / 1e9);
	fflush(stdout);
	gpd_unsubscribe(r->sub);
	uv_close((uv_handle_t *)&r->stop, NULL);
	gpd_daemon_stop(&r->daemon);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "set", required_argument, NULL, 's' },
		{ "period-us", required_argument, NULL, 'p' },
		{ "window-ms", required_argument, NULL, 'w' },
		{ "seconds", required_argument, NULL, 't' },
		{ "counters", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *device = "nvidia:0", *set = NULL;
	char *counters = NULL;
	double period_us = 1000, window_ms = 100, seconds = 5;
	const char *list[64];
	size_t n_list = 0;
	int c;

	while ((c = getopt_long(argc, argv, "d:s:p:w:t:c:", options, NULL)) != -1) {
		switch (c) {
		case 'd': device = optarg; break;
		case 's': set = optarg; break;
		case 'p': period_us = atof(optarg); break;
		case 'w': window_ms = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'c': counters = optarg; break;
		default:
			fprintf(stderr, "usage: nvidia_stream [--device SPEC] "
				"[--set NAME] [--period-us N] [--window-ms N] "
				"[--seconds S] [--counters A,B]\n");
			return 2;
		}
	}
	for (char *save = NULL, *tok = counters ? strtok_r(counters, ",", &save)
						: NULL;
	     tok && n_list < 64; tok = strtok_r(NULL, ",", &save))
		list[n_list++] = tok;

	struct run r;
	memset(&r, 0, sizeof(r));
	struct gpd_options o = {
		.device_specs = &device,
		.n_device_specs = 1,
	};
	struct gpd_error err = { 0 };
	uv_loop_t *loop = uv_default_loop();
	if (gpd_daemon_init(&r.daemon, loop, &o, &err)) {
		printf("{\"error\":%d,\"message\":\"%s\"}\n", err.code, err.message);
		return 3;
	}
	struct gpd_subscribe_request req = {
		.metric_set = set,
		.sampling_period_ns = (uint64_t)(period_us * 1000),
		.window_ns = (uint64_t)(window_ms * 1e6),
		.counters = n_list ? list : NULL,
		.n_counters = n_list,
		.role = GPD_ROLE_CONTROLLER,
	};
	static const struct gpd_subscriber_ops ops = {
		.frame = on_frame,
		.event = on_event,
	};
	r.start_ns = gpd_monotonic_ns();
	if (gpd_subscribe(&r.daemon, &req, &ops, &r, &r.sub, &err)) {
		printf("{\"error\":%d,\"message\":\"%s\"}\n", err.code, err.message);
		fflush(stdout);
		gpd_daemon_stop(&r.daemon);
		uv_run(loop, UV_RUN_DEFAULT);
		gpd_daemon_fini(&r.daemon);
		return err.code == -EBUSY ? 4 : 3;
	}
	r.n_symbols = gpd_subscription_counters(r.sub, &r.symbols);
	uv_timer_init(loop, &r.stop);
	r.stop.data = &r;
	uv_timer_start(&r.stop, on_stop, (uint64_t)(seconds * 1000), 0);
	uv_run(loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&r.daemon);
	return 0;
}
