/*
 * A CUPTI PM sampling session (see pm_session.h).
 *
 * The decode schedule is what worked on an H200 (docs/nvidia-pm-sampling.md
 * and runs of tests/device/nvidia_probe.c): a decode every 250 samples, at
 * most every 5 ms and at least every 100 ms, into an image of two and a
 * half decodes' worth or 200 ms, whichever is more (within 32 MiB); the
 * sampler hands an image that holds samples to its evaluating thread and
 * decodes into the other. At 10 kHz in a DRAM-bound phase a single
 * DecodeData call took up to 67 ms, after which the 64 ms image of two
 * and a half decodes filled, and switching to the other image then lost
 * samples as a reset does; 200 ms absorbs such a call. Images are emptied
 * by copying an initialized one over them (as OpenXLA's PM sampler does):
 * CounterDataImageInitialize took 0.16-0.36 ms a MB, and wants the PM
 * sampling object on its thread. What
 * must never happen is a full image: CUPTI then loses samples and hands
 * out others twice and out of order, each decode falls further behind,
 * and delivery collapsed to 45% at 16 kHz. A sample still half decoded at
 * a reset is not lost: the next decode brings it whole.
 *
 * A DecodeData call costs its samples' time and 1-2.6 ms of CPU beside
 * (`nvidia_probe sweep`, README's NVIDIA section): per sample 25-30 us
 * idle and 46-73 us DRAM-bound with five counters, 41-80 us idle and
 * 380-570 us DRAM-bound with fifteen, whatever the batch, from 15 to 5000
 * samples. In the daemon over the phased workload at 100 us, decodes of
 * 500 samples cost what decodes of 250 did, 47-48 us a sample: decoding
 * less often saves nothing measurable, and would make every sample reach
 * its clients later and the images larger.
 *
 * The hardware buffer must outlast the longest DecodeData call, and with
 * KEEP_OLDEST a full one ends the session: what it held and the next
 * session's setup are lost, 0.4 s and more. The calls are long: at 10 kHz
 * with five counters (a decode every 25 ms) they took 9.6-11.5 ms on
 * average and up to 55 ms. And a DRAM-bound kernel in another process
 * makes the hardware write far more per sample: at its onset, a buffer of
 * four decodes' worth at 4 KiB per counter (19 MiB, 300 ms of idle
 * samples) overflowed in both runs, 64 ms after the decode before, which
 * had itself taken 64 ms; 4-16 MiB with a decode every 5 ms overflowed as
 * well. Sized for a second of samples at 4 KiB per counter (195 MiB
 * there), it never did, and the calls took about as long as from the
 * small ones (11.4 ms on average, against 10.1): their cost does not grow
 * with the buffer, whose size only lengthens SetConfig (a third of a
 * second at 256 MiB). DRAM-bound, that second is shorter: the 195 MiB
 * (100 us, five counters) and 73 MiB (800 us, fifteen) buffers overflowed
 * when decodes came 0.4-0.6 s apart, some 6 KiB a counter and sample;
 * still several times the longest decode period.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/nvidia/pm_session.h"

#define SAMPLES_PER_DECODE 250
#define MIN_DECODE_PERIOD_NS 5000000ull
#define MAX_DECODE_PERIOD_NS 100000000ull
#define IMAGE_HALF_PERIODS 5
#define IMAGE_SLACK 16
#define IMAGE_SPAN_NS 200000000ull
#define HW_SPAN_NS 1000000000ull
#define HW_BYTES_PER_COUNTER (4u << 10)
#define HW_BUFFER_MIN (8ull << 20)
#define HW_BUFFER_MAX (256ull << 20)

void gpd_nv_pm_schedule_for(uint64_t interval_ns, unsigned n_metrics,
			    struct gpd_nv_pm_schedule *schedule)
{
	if (!interval_ns)
		interval_ns = 1;
	uint64_t period = interval_ns * SAMPLES_PER_DECODE;
	if (period < MIN_DECODE_PERIOD_NS)
		period = MIN_DECODE_PERIOD_NS;
	if (period > MAX_DECODE_PERIOD_NS)
		period = MAX_DECODE_PERIOD_NS;
	uint64_t per_period = (period + interval_ns - 1) / interval_ns;
	schedule->decode_period_ns = period;
	uint64_t least = per_period * IMAGE_HALF_PERIODS / 2 + IMAGE_SLACK;
	uint64_t span = (IMAGE_SPAN_NS + interval_ns - 1) / interval_ns +
			IMAGE_SLACK;
	schedule->min_samples = (uint32_t)least;
	schedule->max_samples = (uint32_t)(span > least ? span : least);
	schedule->reset_at = 1;

	uint64_t hw = (HW_SPAN_NS + interval_ns - 1) / interval_ns *
		      HW_BYTES_PER_COUNTER * (n_metrics ? n_metrics : 1);
	if (hw < HW_BUFFER_MIN)
		hw = HW_BUFFER_MIN;
	if (hw > HW_BUFFER_MAX)
		hw = HW_BUFFER_MAX;
	schedule->hardware_buffer_size = (size_t)hw;
}

static int errno_of(gpd_cupti_result r)
{
	switch (r) {
	case GPD_CUPTI_ERROR_HARDWARE_BUSY:
		return -EBUSY;
	case GPD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		return -EACCES;
	case GPD_CUPTI_ERROR_NOT_SUPPORTED:
	case GPD_CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case GPD_CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case GPD_CUPTI_ERROR_INVALID_DEVICE:
		return -ENODEV;
	case GPD_CUPTI_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static int fail(const struct gpd_nv_pm_session *s, char *why, size_t size,
		const char *call, gpd_cupti_result r)
{
	snprintf(why, size, "%s: %s (CUPTI error %d)", call,
		 gpd_nv_cupti_error(s->libs, r), r);
	return errno_of(r);
}

#define PARAMS(type, last) { .struct_size = GPD_CUPTI_STRUCT_SIZE(type, last) }

static int read_availability(struct gpd_nv_pm_session *s, unsigned device,
			     char *why, size_t size)
{
	const struct gpd_cupti_api *api = &s->libs->cupti;
	struct gpd_cupti_pm_availability_params p =
		PARAMS(struct gpd_cupti_pm_availability_params, image);
	p.device_index = device;
	gpd_cupti_result r = api->pm_get_counter_availability(&p);
	if (r)
		return fail(s, why, size, "cuptiPmSamplingGetCounterAvailability", r);
	s->availability = calloc(1, p.image_size ? p.image_size : 1);
	if (!s->availability)
		return -ENOMEM;
	p.image = s->availability;
	r = api->pm_get_counter_availability(&p);
	if (r)
		return fail(s, why, size, "cuptiPmSamplingGetCounterAvailability", r);
	return 0;
}

static int make_config(struct gpd_nv_pm_session *s, const char *chip,
		       size_t *config_size, char *why, size_t size)
{
	const struct gpd_cupti_api *api = &s->libs->cupti;
	struct gpd_cupti_host_init_params init =
		PARAMS(struct gpd_cupti_host_init_params, host);
	init.profiler_type = GPD_CUPTI_PROFILER_TYPE_PM_SAMPLING;
	init.chip_name = chip;
	init.availability_image = s->availability;
	gpd_cupti_result r = api->host_initialize(&init);
	if (r)
		return fail(s, why, size, "cuptiProfilerHostInitialize", r);
	s->host = init.host;

	struct gpd_cupti_host_add_metrics_params add =
		PARAMS(struct gpd_cupti_host_add_metrics_params, n_names);
	add.host = s->host;
	add.names = s->metrics;
	add.n_names = s->n_metrics;
	r = api->host_config_add_metrics(&add);
	if (r) {
		fail(s, why, size, "cuptiProfilerHostConfigAddMetrics", r);
		/* Unknown names come back as an unknown error. */
		return -EINVAL;
	}
	struct gpd_cupti_host_config_size_params csize =
		PARAMS(struct gpd_cupti_host_config_size_params, image_size);
	csize.host = s->host;
	r = api->host_get_config_image_size(&csize);
	if (r)
		return fail(s, why, size, "cuptiProfilerHostGetConfigImageSize", r);
	s->config = calloc(1, csize.image_size ? csize.image_size : 1);
	if (!s->config)
		return -ENOMEM;
	struct gpd_cupti_host_config_params cimg =
		PARAMS(struct gpd_cupti_host_config_params, image);
	cimg.host = s->host;
	cimg.image_size = csize.image_size;
	cimg.image = s->config;
	r = api->host_get_config_image(&cimg);
	if (r)
		return fail(s, why, size, "cuptiProfilerHostGetConfigImage", r);
	struct gpd_cupti_host_passes_params passes =
		PARAMS(struct gpd_cupti_host_passes_params, passes);
	passes.image_size = csize.image_size;
	passes.image = s->config;
	r = api->host_get_num_of_passes(&passes);
	if (r)
		return fail(s, why, size, "cuptiProfilerHostGetNumOfPasses", r);
	if (passes.passes != 1) {
		snprintf(why, size, "these %u counters need %zu passes and PM "
			 "sampling has one: the metric set asks for too many",
			 s->n_metrics, passes.passes);
		return -EOPNOTSUPP;
	}
	*config_size = csize.image_size;
	return 0;
}

/* The header and slot sizes of the images, from their size for the
 * schedule's samples and for half as many (ds holds the first); none
 * when the sizes do not grow by a whole slot a sample. */
static void learn_layout(struct gpd_nv_pm_session *s,
			 struct gpd_cupti_pm_data_size_params *ds)
{
	uint32_t n = ds->max_samples, half = n / 2;
	size_t full_size = ds->data_size;
	s->header_bytes = s->slot_bytes = 0;
	if (n < 2)
		return;
	ds->max_samples = half;
	gpd_cupti_result r = s->libs->cupti.pm_get_counter_data_size(ds);
	size_t half_size = ds->data_size;
	/* Asked again, it must say the same. */
	ds->max_samples = n;
	if (r || s->libs->cupti.pm_get_counter_data_size(ds) ||
	    ds->data_size != full_size || half_size >= full_size ||
	    (full_size - half_size) % (n - half))
		return;
	size_t slot = (full_size - half_size) / (n - half);
	if (slot * n > full_size)
		return;
	s->slot_bytes = slot;
	s->header_bytes = full_size - slot * n;
}

static int configure(struct gpd_nv_pm_session *s, size_t config_size,
		     const struct gpd_nv_pm_config *cfg, char *why, size_t size)
{
	const struct gpd_cupti_api *api = &s->libs->cupti;
	if (cfg->schedule)
		s->schedule = *cfg->schedule;
	else
		gpd_nv_pm_schedule_for(cfg->interval_ns, cfg->n_metrics,
				       &s->schedule);

	struct gpd_cupti_pm_enable_params en =
		PARAMS(struct gpd_cupti_pm_enable_params, pm);
	en.device_index = cfg->device_index;
	gpd_cupti_result r = api->pm_enable(&en);
	if (r)
		return fail(s, why, size, "cuptiPmSamplingEnable", r);
	s->pm = en.pm;

	struct gpd_cupti_pm_config_params sc =
		PARAMS(struct gpd_cupti_pm_config_params, append);
	sc.pm = s->pm;
	sc.config_size = config_size;
	sc.config = s->config;
	sc.hardware_buffer_size = s->schedule.hardware_buffer_size;
	sc.interval = cfg->interval_ns;
	sc.trigger = GPD_CUPTI_PM_TRIGGER_GPU_TIME_INTERVAL;
	sc.append = GPD_CUPTI_PM_APPEND_KEEP_OLDEST;
	r = api->pm_set_config(&sc);
	if (r)
		return fail(s, why, size, "cuptiPmSamplingSetConfig", r);

	struct gpd_cupti_pm_data_size_params ds =
		PARAMS(struct gpd_cupti_pm_data_size_params, data_size);
	ds.pm = s->pm;
	ds.names = s->metrics;
	ds.n_names = s->n_metrics;
	ds.max_samples = s->schedule.max_samples;
	r = api->pm_get_counter_data_size(&ds);
	if (r)
		return fail(s, why, size, "cuptiPmSamplingGetCounterDataSize", r);
	uint32_t least = s->schedule.min_samples < s->schedule.max_samples ?
			 s->schedule.min_samples : s->schedule.max_samples;
	if (ds.data_size > GPD_NV_PM_MAX_IMAGE_BYTES &&
	    s->schedule.max_samples > least) {
		uint64_t fit = (uint64_t)s->schedule.max_samples *
			       GPD_NV_PM_MAX_IMAGE_BYTES / ds.data_size;
		s->schedule.max_samples = (uint32_t)(fit > least ? fit : least);
		ds.max_samples = s->schedule.max_samples;
		r = api->pm_get_counter_data_size(&ds);
		if (r)
			return fail(s, why, size,
				    "cuptiPmSamplingGetCounterDataSize", r);
	}
	s->data_size = ds.data_size;
	learn_layout(s, &ds);
	s->values = calloc(s->n_metrics, sizeof(*s->values));
	s->pristine = calloc(1, ds.data_size ? ds.data_size : 1);
	if (!s->values || !s->pristine)
		return -ENOMEM;
	struct gpd_cupti_pm_data_init_params di =
		PARAMS(struct gpd_cupti_pm_data_init_params, data);
	di.pm = s->pm;
	di.data_size = s->data_size;
	di.data = s->pristine;
	r = api->pm_counter_data_image_initialize(&di);
	if (r)
		return fail(s, why, size,
			    "cuptiPmSamplingCounterDataImageInitialize", r);
	for (unsigned i = 0; i < GPD_NV_PM_IMAGES; i++) {
		struct gpd_nv_pm_image *img = &s->images[i];
		img->data = malloc(ds.data_size ? ds.data_size : 1);
		if (!img->data)
			return -ENOMEM;
		memcpy(img->data, s->pristine, s->data_size);
	}
	return 0;
}

int gpd_nv_pm_session_open(struct gpd_nv_pm_session *s,
			   const struct gpd_nv_libs *libs,
			   const struct gpd_nv_pm_config *cfg,
			   char *why, size_t why_size)
{
	const struct gpd_cupti_api *api = &libs->cupti;
	size_t config_size = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	s->libs = libs;
	s->metrics = (const char **)cfg->metrics;
	s->n_metrics = cfg->n_metrics;
	s->stats = cfg->stats ? cfg->stats : &s->own_stats;
	snprintf(why, why_size, "out of memory");

	struct gpd_cupti_profiler_params init =
		PARAMS(struct gpd_cupti_profiler_params, priv);
	gpd_cupti_result r = api->profiler_initialize(&init);
	if (r)
		return fail(s, why, why_size, "cuptiProfilerInitialize", r);
	s->profiler = true;

	struct gpd_cupti_chip_name_params chip =
		PARAMS(struct gpd_cupti_chip_name_params, chip_name);
	chip.device_index = cfg->device_index;
	r = api->device_get_chip_name(&chip);
	if (r) {
		ret = fail(s, why, why_size, "cuptiDeviceGetChipName", r);
		goto err;
	}
	ret = read_availability(s, cfg->device_index, why, why_size);
	if (!ret)
		ret = make_config(s, chip.chip_name, &config_size, why, why_size);
	if (!ret)
		ret = configure(s, config_size, cfg, why, why_size);
	if (ret)
		goto err;

	struct gpd_cupti_pm_params start = PARAMS(struct gpd_cupti_pm_params, pm);
	start.pm = s->pm;
	r = api->pm_start(&start);
	if (r) {
		ret = fail(s, why, why_size, "cuptiPmSamplingStart", r);
		goto err;
	}
	s->started = true;
	why[0] = '\0';
	return 0;
err:
	gpd_nv_pm_session_close(s);
	return ret;
}

size_t gpd_nv_pm_image_reset(struct gpd_nv_pm_session *s,
			     struct gpd_nv_pm_image *img)
{
	size_t n = s->data_size;
	if (s->slot_bytes && img->populated < (n - s->header_bytes) / s->slot_bytes)
		n = s->header_bytes + img->populated * s->slot_bytes;
	if (n < s->data_size && !s->layout_checked) {
		s->layout_checked = true;
		if (memcmp(img->data + n, s->pristine + n, s->data_size - n)) {
			s->slot_bytes = 0;
			n = s->data_size;
		}
	}
	memcpy(img->data, s->pristine, n);
	img->completed = img->populated = 0;
	return n;
}

int gpd_nv_pm_image_evaluate(struct gpd_nv_pm_session *s,
			     const struct gpd_nv_pm_image *img, size_t from,
			     gpd_nv_pm_sample_fn *sample_fn, void *user,
			     char *why, size_t why_size)
{
	const struct gpd_cupti_api *api = &s->libs->cupti;
	for (size_t i = from; i < img->completed; i++) {
		struct gpd_cupti_pm_sample_params sp =
			PARAMS(struct gpd_cupti_pm_sample_params, end_ns);
		sp.pm = s->pm;
		sp.data = img->data;
		sp.data_size = s->data_size;
		sp.index = i;
		gpd_cupti_result r = api->pm_counter_data_get_sample_info(&sp);
		if (r)
			return fail(s, why, why_size,
				    "cuptiPmSamplingCounterDataGetSampleInfo", r);
		struct gpd_cupti_host_evaluate_params ev =
			PARAMS(struct gpd_cupti_host_evaluate_params, values);
		ev.host = s->host;
		ev.counter_data = img->data;
		ev.counter_data_size = s->data_size;
		ev.range_index = i;
		ev.names = s->metrics;
		ev.n_names = s->n_metrics;
		ev.values = s->values;
		r = api->host_evaluate_to_gpu_values(&ev);
		if (r)
			return fail(s, why, why_size,
				    "cuptiProfilerHostEvaluateToGpuValues", r);
		sample_fn(user, sp.start_ns, sp.end_ns, s->values);
	}
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void keep_max(uint64_t *max, uint64_t v)
{
	if (v > *max)
		*max = v;
}

/* Says how long the buffer went without a decode before it overflowed,
 * and what the decode before took: whether the sampler was held up
 * between decodes or in one. */
static void overflowed(const struct gpd_nv_pm_session *s, uint64_t now,
		       char *why, size_t size)
{
	unsigned mib = (unsigned)(s->schedule.hardware_buffer_size >> 20);
	if (!s->last_decode_at) {
		snprintf(why, size, "the GPU's PM sampling buffer (%u MiB) "
			 "overflowed before the session's first decode", mib);
		return;
	}
	snprintf(why, size, "the GPU's PM sampling buffer (%u MiB) overflowed "
		 "%.1f ms after the decode before, which took %.1f ms (the "
		 "sampler fell behind)", mib,
		 (double)(now - s->last_decode_at) / 1e6,
		 (double)s->last_decode_ns / 1e6);
}

int gpd_nv_pm_session_decode_into(struct gpd_nv_pm_session *s,
				  struct gpd_nv_pm_image *img, bool *full,
				  char *why, size_t why_size)
{
	uint64_t began = monotonic_ns(), cpu = thread_cpu_ns();
	size_t before = img->completed;

	if (s->last_decode_at)
		keep_max(&s->stats->apart_ns_max, began - s->last_decode_at);
	struct gpd_cupti_pm_decode_params dp =
		PARAMS(struct gpd_cupti_pm_decode_params, overflow);
	dp.pm = s->pm;
	dp.data = img->data;
	dp.data_size = s->data_size;
	gpd_cupti_result r = s->libs->cupti.pm_decode_data(&dp);
	uint64_t took = monotonic_ns() - began;
	s->stats->decode_cpu_ns += thread_cpu_ns() - cpu;
	s->stats->decodes++;
	s->stats->decode_ns += took;
	keep_max(&s->stats->decode_ns_max, took);
	/* With KEEP_OLDEST a full hardware buffer ends the session: CUPTI
	 * says so by the overflow flag or OUT_OF_MEMORY. */
	if (dp.overflow || r == GPD_CUPTI_ERROR_OUT_OF_MEMORY) {
		overflowed(s, began, why, why_size);
		return -EOVERFLOW;
	}
	if (r)
		return fail(s, why, why_size, "cuptiPmSamplingDecodeData", r);
	struct gpd_cupti_pm_data_info_params info =
		PARAMS(struct gpd_cupti_pm_data_info_params, completed_samples);
	info.data = img->data;
	info.data_size = s->data_size;
	r = s->libs->cupti.pm_get_counter_data_info(&info);
	if (r)
		return fail(s, why, why_size, "cuptiPmSamplingGetCounterDataInfo", r);
	size_t completed = info.completed_samples;
	if (completed > s->schedule.max_samples)
		completed = s->schedule.max_samples;
	if (completed > img->completed)
		img->completed = completed;
	img->populated = info.populated_samples > img->completed ?
			 info.populated_samples : img->completed;
	*full = dp.stop_reason == GPD_CUPTI_PM_STOP_COUNTER_DATA_FULL;
	if (*full)
		s->stats->full_images++;
	size_t got = img->completed - before;
	keep_max(&s->stats->samples_max, got);
	s->last_decode_at = began;
	s->last_decode_ns = monotonic_ns() - began;
	return got > INT32_MAX ? INT32_MAX : (int)got;
}

int gpd_nv_pm_session_decode(struct gpd_nv_pm_session *s,
			     gpd_nv_pm_sample_fn *sample_fn, void *user,
			     char *why, size_t why_size)
{
	struct gpd_nv_pm_image *img = &s->images[0];
	size_t total = 0;

	for (unsigned round = 0; round < GPD_NV_PM_MAX_DRAIN_ROUNDS; round++) {
		bool full = false;
		int ret = gpd_nv_pm_session_decode_into(s, img, &full, why,
							 why_size);
		if (ret < 0)
			return ret;
		uint64_t t0 = monotonic_ns();
		ret = gpd_nv_pm_image_evaluate(s, img, s->evaluated, sample_fn,
					       user, why, why_size);
		keep_max(&s->stats->evaluate_ns_max, monotonic_ns() - t0);
		if (ret)
			return ret;
		total += img->completed - s->evaluated;
		s->evaluated = img->completed;
		uint32_t at = s->schedule.reset_at ? s->schedule.reset_at : 1;
		if (full || img->completed >= at) {
			s->stats->resets++;
			s->stats->cut_samples += img->populated - img->completed;
			s->stats->reset_bytes += gpd_nv_pm_image_reset(s, img);
			s->evaluated = 0;
		}
		if (!full)
			break;
	}
	return total > INT32_MAX ? INT32_MAX : (int)total;
}

void gpd_nv_pm_session_close(struct gpd_nv_pm_session *s)
{
	const struct gpd_cupti_api *api = s->libs ? &s->libs->cupti : NULL;

	if (api && s->started) {
		struct gpd_cupti_pm_params p = PARAMS(struct gpd_cupti_pm_params, pm);
		p.pm = s->pm;
		api->pm_stop(&p);
	}
	if (api && s->pm) {
		struct gpd_cupti_pm_params p = PARAMS(struct gpd_cupti_pm_params, pm);
		p.pm = s->pm;
		api->pm_disable(&p);
	}
	if (api && s->host) {
		struct gpd_cupti_host_params p =
			PARAMS(struct gpd_cupti_host_params, host);
		p.host = s->host;
		api->host_deinitialize(&p);
	}
	if (api && s->profiler) {
		struct gpd_cupti_profiler_params p =
			PARAMS(struct gpd_cupti_profiler_params, priv);
		api->profiler_deinitialize(&p);
	}
	free(s->availability);
	free(s->config);
	for (unsigned i = 0; i < GPD_NV_PM_IMAGES; i++)
		free(s->images[i].data);
	free(s->pristine);
	free(s->values);
	memset(s, 0, sizeof(*s));
}
