/*
 * For benchmarks that need a recording: n_reports of tglgt2's RenderBasic
 * from the simulated OA unit at exponent, written to path in IGT's
 * i915-perf format (the metric files in metrics_dir), so it has the
 * workload's context switches and idle stretches like a real capture.
 */
#ifndef GPM_BENCH_RECORDING_H
#define GPM_BENCH_RECORDING_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_model.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_record.h"
#include "metrics/platform.h"
#include "metrics/recording.h"

static inline int bench_write_recording(const char *path,
					const char *metrics_dir,
					uint64_t n_reports,
					unsigned exponent)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	if (gpm_metrics_db_add_dir(&db, metrics_dir) <= 0) {
		fprintf(stderr, "bench: no metric files in %s\n", metrics_dir);
		return -ENOENT;
	}
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	const struct gpm_platform *platform = gpm_platform_by_name("tglgt2");
	struct gpm_recording_info info = { 0 };
	gpm_platform_default_device(platform, &info.device);
	info.device.pci_id = 0x9a49;
	info.oa_format = platform->i915_oa_format;
	snprintf(info.metric_set, sizeof(info.metric_set), "%s", set->symbol_name);
	snprintf(info.uuid, sizeof(info.uuid), "%s", set->hw_config_guid);

	struct gpd_oa_model_config mc = {
		.dev = &info.device,
		.oa_format = platform->i915_oa_format,
		.exponent = exponent,
		.seed = 42,
		.set = set,
	};
	struct gpd_oa_model *model;
	int ret = gpd_oa_model_create(&mc, &model);
	if (ret) {
		fprintf(stderr, "bench: model: %s\n", strerror(-ret));
		return ret;
	}
	gpd_oa_model_enable(model);

	FILE *f = fopen(path, "w");
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	if (!f || !w)
		return -errno;
	gpm_recording_writer_init_file(w, f, 0);
	gpm_recording_write_header(w, &info, NULL);
	struct gpm_recording_correlation c = { 1000000000ull, 0x80000000ull };
	gpm_recording_write_correlation_bridged(w, &c, NULL);

	size_t buf_size = 4u << 20;
	unsigned char *buf = malloc(buf_size);
	uint64_t samples = 0;
	while (samples < n_reports) {
		gpd_oa_model_advance(model, (2ull << exponent) * 4096);
		ssize_t n;
		while ((n = gpd_oa_model_read(model, buf, buf_size)) > 0) {
			struct gpm_oa_record_reader rd;
			struct gpm_oa_record rec;
			gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, 256, buf,
						  (size_t)n);
			while (gpm_oa_record_next(&rd, &rec) > 0 && samples < n_reports) {
				if (rec.type == GPM_OA_RECORD_SAMPLE) {
					gpm_recording_write_sample(w, rec.payload,
								   rec.payload_size, NULL);
					samples++;
				}
			}
		}
	}
	c.gpu_timestamp = gpd_oa_model_time(model);
	c.cpu_ns = 1000000000ull + (c.gpu_timestamp - 0x80000000ull) *
		   1000000000ull / info.device.timestamp_frequency;
	gpm_recording_write_correlation_bridged(w, &c, NULL);
	gpm_recording_writer_flush(w, NULL);
	fclose(f);
	free(w);
	free(buf);
	gpd_oa_model_destroy(model);
	gpm_metrics_db_fini(&db);
	return 0;
}

#endif
