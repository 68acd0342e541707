/*
 * Writes a recording with known episodes, for the trigger tests: a Tiger
 * Lake GT2 RenderBasic recording from the simulated OA unit, sampled every
 * 2.7 ms (and at its context switches) for SECONDS of GPU time, with
 *
 * - an OA_BUFFER_LOST record after the first report at or past each MS
 *   given (ms from the first report);
 * - with busy:FROM-TO=PCT arguments, GpuBusy (A0 over the GPU clock) made
 *   PCT percent between FROM and TO ms, the last such argument that holds
 *   winning, and 20 percent elsewhere: the A0 counter of each report is
 *   rewritten to count that share of the GPU clocks since the report
 *   before.
 *
 *   episodes-recording METRICS_DIR FILE SECONDS [MS | busy:FROM-TO=PCT]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_model.h"
#include "metrics/accumulator.h"
#include "metrics/little_endian.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/platform.h"
#include "metrics/recording.h"

/* 2^15 ticks of 12 MHz. */
#define EXPONENT 14

/* GpuBusy outside the busy spans. */
#define BASE_BUSY 20.0
#define MAX_SPANS 32

struct busy_span {
	double from_ms, to_ms, percent;
};

static int fail(const char *what)
{
	fprintf(stderr, "episodes-recording: %s\n", what);
	return 1;
}

/* GpuBusy at ms: the last span holding it, or the base. */
static double busy_at(const struct busy_span *spans, size_t n, double ms)
{
	double percent = BASE_BUSY;
	for (size_t i = 0; i < n; i++)
		if (ms >= spans[i].from_ms && ms < spans[i].to_ms)
			percent = spans[i].percent;
	return percent;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fail("usage: episodes-recording METRICS_DIR FILE SECONDS "
			    "[MS | busy:FROM-TO=PCT]...");
	/* The losses' times, in order, and the busy spans. */
	double losses[64];
	size_t n_losses = 0;
	struct busy_span spans[MAX_SPANS];
	size_t n_spans = 0;
	for (int i = 4; i < argc; i++) {
		struct busy_span *b = &spans[n_spans];
		if (!strncmp(argv[i], "busy:", 5)) {
			if (n_spans == MAX_SPANS ||
			    sscanf(argv[i] + 5, "%lf-%lf=%lf", &b->from_ms,
				   &b->to_ms, &b->percent) != 3)
				return fail("busy takes FROM-TO=PCT (ms, ms, "
					    "percent)");
			n_spans++;
		} else if (n_losses < sizeof(losses) / sizeof(*losses)) {
			losses[n_losses++] = atof(argv[i]);
		} else {
			return fail("too many losses");
		}
	}
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	if (gpm_metrics_db_add_platform_file(&db, argv[1], "tglgt2") != 1)
		return fail("no tglgt2 metric file in METRICS_DIR");
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	const struct gpm_platform *platform = gpm_platform_by_name("tglgt2");
	struct gpm_recording_info info = { 0 };
	gpm_platform_default_device(platform, &info.device);
	info.oa_format = platform->i915_oa_format;
	snprintf(info.metric_set, sizeof(info.metric_set), "%s", set->symbol_name);
	snprintf(info.uuid, sizeof(info.uuid), "%s", set->hw_config_guid);

	struct gpd_oa_model_config mc = {
		.dev = &info.device,
		.oa_format = platform->i915_oa_format,
		.exponent = EXPONENT,
		.seed = 5,
		.set = set,
	};
	struct gpd_oa_model *model;
	if (gpd_oa_model_create(&mc, &model))
		return fail("the OA model refused its configuration");
	gpd_oa_model_enable(model);
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;
	if (gpm_oa_format_from_i915(platform->i915_oa_format, &fmt) ||
	    gpm_oa_decoder_init(&dec, fmt, info.device.graphics_version))
		return fail("no decoder for the platform's reports");
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return fail("cannot write FILE");
	static struct gpm_recording_writer w;
	gpm_recording_writer_init_file(&w, f, 0);
	if (gpm_recording_write_header(&w, &info, NULL))
		return fail("cannot write the header");

	double tick_ms = 1e3 / (double)info.device.timestamp_frequency;
	double end_ms = atof(argv[3]) * 1e3, at_ms = 0;
	size_t next_loss = 0;
	static unsigned char buf[1 << 20];
	bool have_first = false;
	uint32_t first = 0;
	/* The GPU clock and A0 of the report before, as rewritten. */
	uint64_t clock = 0, busy = 0;
	unsigned char report[256];
	while (at_ms < end_ms) {
		gpd_oa_model_advance(model, 64ull << EXPONENT);
		ssize_t n;
		while ((n = gpd_oa_model_read(model, buf, sizeof(buf))) > 0) {
			struct gpm_oa_record_reader rd;
			struct gpm_oa_record rec;
			gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, 256, buf,
						  (size_t)n);
			while (gpm_oa_record_next(&rd, &rec) > 0 && at_ms < end_ms) {
				if (rec.type != GPM_OA_RECORD_SAMPLE)
					continue;
				/* Dword 1: the 32-bit timestamp, which 4 s at
				 * 12 MHz does not wrap. */
				uint32_t ts = gpm__le32_load(rec.payload + 4);
				if (!have_first)
					first = ts;
				have_first = true;
				at_ms = (double)(uint32_t)(ts - first) * tick_ms;
				struct gpm_oa_report r;
				if (rec.payload_size > sizeof(report) ||
				    gpm_oa_report_decode(&dec, rec.payload,
							 rec.payload_size, &r))
					return fail("a report cannot be read");
				uint64_t clocks = r.value[GPM_ACC_GPU_CLOCK] - clock;
				clock = r.value[GPM_ACC_GPU_CLOCK];
				busy += (uint64_t)((double)(clocks & 0xffffffff) *
						   busy_at(spans, n_spans, at_ms) /
						   100.0);
				if (n_spans)
					r.value[GPM_ACC_A] = busy & ((1ull << 40) - 1);
				memcpy(report, rec.payload, rec.payload_size);
				if (gpm_oa_report_encode(&dec, &r, report,
							 rec.payload_size))
					return fail("a report cannot be written");
				if (gpm_recording_write_sample(&w, report,
							       rec.payload_size,
							       NULL))
					return fail("cannot write a report");
				if (next_loss < n_losses &&
				    at_ms >= losses[next_loss]) {
					gpm_recording_write_buffer_lost(&w, NULL);
					next_loss++;
				}
			}
		}
	}
	if (gpm_recording_writer_flush(&w, NULL) || fclose(f))
		return fail("cannot write FILE");
	gpd_oa_model_destroy(model);
	gpm_metrics_db_fini(&db);
	return 0;
}
