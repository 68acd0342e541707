/*
 * What keeping a flight recorder costs, on the sim device, in process:
 *
 * The records the simulated OA unit writes when asked for a 100 us period
 * (its longest period not above that: 53 us), fed through the device (framing, decoding, timestamp
 * extension, one subscriber's 100 ms windows) as fast as it takes them,
 * with a 64 MiB ring and without one, in the same run; the difference is
 * the ring's cost per report. At the sim's period that is a share of a
 * core. Target: under 1 %. The ring alone (the copy of each record and
 * its correlation points) is measured too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/sim/oa_model.h"
#include "metrics/oa_record.h"
#include "metrics/sim_device.h"

#define RING_BYTES (64u << 20)
#define PERIOD_NS 100000ull

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_frame(void *user, const struct gpd_frame *f)
{
}

static const struct gpd_subscriber_ops ops = { .frame = on_frame };

/* Records of n reports from the model at exponent, in one buffer. */
static unsigned char *make_records(const struct gpm_metric_set *set,
				   unsigned exponent, size_t n, size_t *len)
{
	struct gpm_device_info dev;
	gpm_sim_device_info(&dev);
	struct gpd_oa_model_config mc = {
		.dev = &dev, .oa_format = 10, .exponent = (int)exponent, .seed = 9,
		.set = set,
	};
	struct gpd_oa_model *model;
	if (gpd_oa_model_create(&mc, &model))
		return NULL;
	gpd_oa_model_enable(model);
	size_t rec = gpd_oa_model_record_size(model);
	size_t cap = n * rec + (4u << 20);
	unsigned char *buf = malloc(cap);
	size_t used = 0;
	while (buf && used < n * rec) {
		gpd_oa_model_advance(model, dev.timestamp_frequency / 200);
		ssize_t got;
		while ((got = gpd_oa_model_read(model, buf + used, cap - used)) > 0)
			used += (size_t)got;
	}
	gpd_oa_model_destroy(model);
	*len = used;
	return buf;
}

/* Best of five: seconds to ingest len bytes of records. */
static double ingest(struct gpd_device *dev, const unsigned char *records,
		     size_t len)
{
	double best = 1e9;
	for (int round = 0; round < 5; round++) {
		double t0 = now_s();
		dev->source->listener.records(dev->source->listener.user,
					      records, len);
		double t = now_s() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

/* Best of five: seconds for the ring alone to take the records. */
static double ring_alone(const unsigned char *records, size_t len,
			 uint64_t correlation_ticks)
{
	struct gpd_flight_recorder fr;
	if (gpd_flight_recorder_init(&fr, RING_BYTES, correlation_ticks))
		exit(1);
	double best = 1e9;
	for (int round = 0; round < 5; round++) {
		struct gpm_oa_record_reader rd;
		struct gpm_oa_record rec;
		uint64_t ts = 0;
		double t0 = now_s();
		gpd_flight_recorder_begin_segment(&fr, "RenderBasic", "guid", 3,
						  PERIOD_NS, NULL, 0);
		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, 256, records,
					  len);
		while (gpm_oa_record_next(&rd, &rec) > 0) {
			ts += 2048;
			if (gpd_flight_recorder_needs_correlation(&fr, ts))
				gpd_flight_recorder_correlate(&fr, ts, ts, ts);
			gpd_flight_recorder_append(&fr, rec.payload - 8, rec.size);
		}
		gpd_flight_recorder_end_segment(&fr);
		double t = now_s() - t0;
		if (t < best)
			best = t;
	}
	gpd_flight_recorder_fini(&fr);
	return best;
}

int main(void)
{
	gpd_log_set_level(GPD_LOG_WARNING);
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1, .seed = 1,
	};
	uv_loop_t loop;
	struct gpd_daemon d;
	struct gpd_error err;
	uv_loop_init(&loop);
	if (gpd_daemon_init(&d, &loop, &opts, &err)) {
		fprintf(stderr, "bench_flight_recorder: %s\n", err.message);
		return 1;
	}
	struct gpd_subscribe_request req = {
		.sampling_period_ns = PERIOD_NS, .window_ns = 100000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	if (gpd_subscribe(&d.registry, &req, &ops, NULL, &sub, &err)) {
		fprintf(stderr, "bench_flight_recorder: %s\n", err.message);
		return 1;
	}
	struct gpd_device *dev = d.registry.devices[0];
	uint64_t period = gpd_exponent_to_ns(&dev->source->info, dev->exponent);
	size_t len = 0;
	unsigned char *records = make_records(dev->set, dev->exponent, 200000, &len);
	if (!records) {
		fprintf(stderr, "bench_flight_recorder: the OA model refused the set\n");
		return 1;
	}
	size_t reports = len / 264;
	double without = ingest(dev, records, len);
	if (gpd_device_keep_flight_recorder(dev, RING_BYTES, &err)) {
		fprintf(stderr, "bench_flight_recorder: %s\n", err.message);
		return 1;
	}
	double with = ingest(dev, records, len);
	double alone = ring_alone(records, len,
				  gpd_device_ns_to_ticks(dev, 10000000));
	double per_report = (with - without) / (double)reports;
	double alone_per_report = alone / (double)reports;
	double per_second = 1e9 / (double)period;

	printf("flight recorder on sim at a %llu ns period (%zu reports, one "
	       "subscriber, 100 ms windows, a %u MiB ring):\n",
	       (unsigned long long)period, reports, RING_BYTES >> 20);
	printf("  ingest without the ring %7.2f ns/report\n",
	       without * 1e9 / (double)reports);
	printf("  ingest with the ring    %7.2f ns/report (%.3fx)\n",
	       with * 1e9 / (double)reports, with / without);
	printf("  the ring's share        %7.2f ns/report = %.3f%% of a core at "
	       "%.0f reports/s (target < 1%%)\n", per_report * 1e9,
	       100 * per_report * per_second, per_second);
	printf("  the ring alone          %7.2f ns/report = %.3f%% of a core\n",
	       alone_per_report * 1e9, 100 * alone_per_report * per_second);
	printf("  ring: %.1f MB held, %llu records overwritten\n",
	       (double)dev->ring->stats.used / 1e6,
	       (unsigned long long)dev->ring->stats.records_overwritten);
	free(records);
	gpd_unsubscribe(sub);
	gpd_daemon_stop(&d);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);
	uv_loop_close(&loop);
	return 0;
}
