/*
 * Writes a recording with known episodes of loss, for the trigger tests:
 * a Tiger Lake GT2 RenderBasic recording from the simulated OA unit,
 * sampled every 2.7 ms (and at its context switches) for SECONDS of GPU
 * time, with an OA_BUFFER_LOST record after the first report at or past
 * each time given (ms from the first report).
 *
 *   episodes-recording METRICS_DIR FILE SECONDS MS...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_model.h"
#include "metrics/little_endian.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_record.h"
#include "metrics/platform.h"
#include "metrics/recording.h"

/* 2^15 ticks of 12 MHz. */
#define EXPONENT 14

static int fail(const char *what)
{
	fprintf(stderr, "episodes-recording: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fail("usage: episodes-recording METRICS_DIR FILE SECONDS "
			    "MS...");
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
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return fail("cannot write FILE");
	static struct gpm_recording_writer w;
	gpm_recording_writer_init_file(&w, f, 0);
	if (gpm_recording_write_header(&w, &info, NULL))
		return fail("cannot write the header");

	double tick_ms = 1e3 / (double)info.device.timestamp_frequency;
	double end_ms = atof(argv[3]) * 1e3, at_ms = 0;
	int next_loss = 4;
	static unsigned char buf[1 << 20];
	bool have_first = false;
	uint32_t first = 0;
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
				if (gpm_recording_write_sample(&w, rec.payload,
							       rec.payload_size,
							       NULL))
					return fail("cannot write a report");
				if (next_loss < argc &&
				    at_ms >= atof(argv[next_loss])) {
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
