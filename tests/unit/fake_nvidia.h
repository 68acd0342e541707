/*
 * A fake NVIDIA GPU behind the nvidia source's function tables: the CUDA
 * driver calls, CUPTI's PM sampling and NVML, answering from one state the
 * tests set and read. Samples advance in fake CLOCK_REALTIME, a decode
 * period's worth per decode, with counts of rate x duration per metric;
 * knobs make a decode overflow, skip time, repeat a sample, the GPU busy
 * with another profiler, or evaluating slow.
 *
 * Counter data images carry their own state, as CUPTI's do: a copy of an
 * initialized image is an empty one. What the fake keeps of CUPTI's
 * behaviour, as the sampler relies on it on an H200: DecodeData fills an
 * image up to its size (COUNTER_DATA_FULL, the rest left in the hardware
 * buffer, of which the next call loses a few ms, as full images did) and
 * leaves the last sample it read half decoded (populated, not completed);
 * the next call completes it in place, or, when it goes to another image
 * or the image was emptied, brings it whole there. Samples thus come out
 * in order, once, whichever image they go to. The fake also counts what
 * CUPTI does not promise to survive: a call that changes the PM sampling
 * object off the thread that enabled it, and an image read or reset
 * while DecodeData writes it (races), and an image decoded into with bytes
 * past its samples' slots left as a decode wrote them (stale).
 *
 * CUPTI's calls take no user pointer, so the state is one static struct;
 * the sampler thread calls in while the test reads, hence the lock.
 */
#ifndef GPD_TEST_FAKE_NVIDIA_H
#define GPD_TEST_FAKE_NVIDIA_H

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "daemon/nvidia/libs.h"
#include "daemon/nvidia/pm_session.h"
#include "daemon/nvidia/report_builder.h"

#define FAKE_IMAGES 4
/* Samples a full image loses (docs/nvidia-pm-sampling.md: 2-28 ms). */
#define FAKE_FULL_LOSS 20

struct fake_sample {
	uint64_t start, end;
	bool setup;
};

/* What an image holds, in the image itself as CUPTI keeps it: a copy of
 * an initialized image is an empty image. */
#define FAKE_IMAGE_MAGIC 0x46414b45u
#define FAKE_IMAGE_HEADER 64
struct fake_contents {
	uint32_t magic;
	uint32_t capacity;              /* samples */
	uint32_t n, completed;          /* populated, of those complete */
	uint8_t pad[FAKE_IMAGE_HEADER - 16];
	struct fake_sample sample[];
};

/* Calls in flight on an image, by its address. */
struct fake_image {
	const void *data;               /* NULL: a free slot */
	struct fake_contents *c;
	bool decoded;                   /* DecodeData wrote it */
	bool writing;                   /* inside DecodeData */
	unsigned reading;               /* inside GetSampleInfo or Evaluate */
};

struct fake_nv {
	pthread_mutex_t lock;
	/* Knobs. */
	bool busy;                      /* another profiler holds the GPU */
	unsigned overflow_at;           /* decode number that overflows */
	unsigned gap_at;                /* decode number after skipped time */
	unsigned duplicate_at;          /* decode number repeating a sample */
	unsigned burst_at;              /* decode number finding more */
	unsigned burst_samples;         /* that many more samples */
	double rate[GPD_NV_MAX_COUNTERS];       /* count per ns, by metric */
	double setup_value;             /* each metric's count in a setup sample */
	unsigned evaluate_delay_us;     /* each HostEvaluate takes this long */
	unsigned evaluate_fail_at;      /* evaluation number that fails */
	size_t sample_bytes;            /* of an image per sample (0: 24) */
	/* Decode number that also writes the image's last byte, as a CUPTI
	 * laying images out otherwise than header and slots might. */
	unsigned stray_write_at;
	double power_w;
	/* The usage calls: percentages, and processes as NVML lists them. */
	unsigned util_gpu, util_memory, util_encoder, util_decoder;
	unsigned n_processes;
	struct fake_process {
		unsigned pid;
		unsigned long long memory;      /* bytes */
		unsigned sm, mem;               /* percent */
		bool graphics;                  /* in the graphics list too */
	} processes[8];
	/* What nvmlDeviceGetProcessesUtilizationInfo answers (0: samples). */
	gpd_nvml_return newer_result;
	/* What the source did. */
	unsigned older_calls, newer_calls;
	unsigned profiler_inits, profiler_deinits, host_inits, host_deinits;
	unsigned enables, disables, configs, starts, stops, decodes;
	unsigned nvml_inits, nvml_shutdowns, gpm_gets;
	unsigned n_metrics;
	char metrics[GPD_NV_MAX_COUNTERS][64];
	uint64_t interval_ns;
	size_t hw_sizes[4];             /* of the first sessions */
	uint32_t max_samples;
	unsigned evaluations;
	unsigned images_used;           /* decoded into, in this session */
	unsigned appends;               /* decodes into an image with samples */
	unsigned full_images;           /* decodes that filled theirs */
	/* Decodes into an image holding bytes that emptying it should have
	 * put back as initialized (past its populated slots). */
	unsigned stale_images;
	unsigned races;                 /* an image read while decoded into */
	unsigned pm_calls_elsewhere;    /* off the thread that enabled */
	unsigned evaluations_on_decoding_thread;
	pthread_t pm_owner;
	/* The GPU. */
	uint64_t now_ns;                /* where the next sample starts */
	bool setup_pending;
	uint64_t backlog;               /* samples in the hardware buffer */
	bool draining;                  /* the last decode filled its image */
	bool half;                      /* the last sample read is half decoded */
	struct fake_sample half_sample;
	const void *half_in;            /* where it lies half decoded */
	struct fake_image images[FAKE_IMAGES];
	uint64_t nvml_start_ns;
	int gpm_samples[2];
};

static struct fake_nv fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t fake_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Back to an idle GPU that counts SM cycles at 132 SMs x 1.98 GHz. */
static void fake_reset(void)
{
	pthread_mutex_lock(&fake.lock);
	memset((char *)&fake + offsetof(struct fake_nv, busy), 0,
	       sizeof(fake) - offsetof(struct fake_nv, busy));
	fake.rate[0] = 132 * 1.98;
	fake.setup_value = 1e15;
	fake.power_w = 300;
	pthread_mutex_unlock(&fake.lock);
}

#define FAKE_LOCKED(expr)                                                    \
	do {                                                                 \
		pthread_mutex_lock(&fake.lock);                              \
		expr;                                                        \
		pthread_mutex_unlock(&fake.lock);                            \
	} while (0)

/* CUDA driver. */
static gpd_cu_result fake_cu_init(unsigned flags) { return 0; }
static gpd_cu_result fake_cu_count(int *count) { *count = 1; return 0; }
static gpd_cu_result fake_cu_get(gpd_cu_device *d, int ordinal)
{
	*d = ordinal;
	return ordinal == 0 ? 0 : 101;
}
static gpd_cu_result fake_cu_name(char *name, int len, gpd_cu_device d)
{
	snprintf(name, (size_t)len, "NVIDIA H200 (fake)");
	return 0;
}
/* nvidia-smi -L's UUID of the fake GPU. */
#define FAKE_GPU_UUID "GPU-8f6b2a31-0c4e-4d2b-9a7e-51d3c0ffee00"
static gpd_cu_result fake_cu_uuid(unsigned char uuid[16], gpd_cu_device d)
{
	static const unsigned char bytes[16] = {
		0x8f, 0x6b, 0x2a, 0x31, 0x0c, 0x4e, 0x4d, 0x2b,
		0x9a, 0x7e, 0x51, 0xd3, 0xc0, 0xff, 0xee, 0x00,
	};
	memcpy(uuid, bytes, sizeof(bytes));
	return 0;
}
static gpd_cu_result fake_cu_attribute(int *v, int attribute, gpd_cu_device d)
{
	*v = attribute == GPD_CU_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 132 :
	     attribute == GPD_CU_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR ? 2048 :
	     attribute == GPD_CU_ATTRIBUTE_CLOCK_RATE ? 1980000 : 0;
	return 0;
}
static gpd_cu_result fake_cu_bus_id(char *id, int len, gpd_cu_device d)
{
	snprintf(id, (size_t)len, "00000000:00:06.0");
	return 0;
}
static gpd_cu_result fake_cu_error(gpd_cu_result r, const char **text)
{
	*text = "fake CUDA error";
	return 0;
}

/* CUPTI. */
static gpd_cupti_result fake_result_string(gpd_cupti_result r, const char **t)
{
	*t = r == GPD_CUPTI_ERROR_HARDWARE_BUSY ? "the hardware is busy (fake)"
						 : "fake CUPTI error";
	return 0;
}
static gpd_cupti_result fake_profiler_init(struct gpd_cupti_profiler_params *p)
{
	FAKE_LOCKED(fake.profiler_inits++);
	return 0;
}
static gpd_cupti_result fake_profiler_deinit(struct gpd_cupti_profiler_params *p)
{
	FAKE_LOCKED(fake.profiler_deinits++);
	return 0;
}
static gpd_cupti_result fake_chip(struct gpd_cupti_chip_name_params *p)
{
	p->chip_name = "GH100";
	return p->device_index == 0 ? 0 : GPD_CUPTI_ERROR_INVALID_DEVICE;
}
static gpd_cupti_result fake_availability(struct gpd_cupti_pm_availability_params *p)
{
	pthread_mutex_lock(&fake.lock);
	bool busy = fake.busy;
	pthread_mutex_unlock(&fake.lock);
	if (busy)
		return GPD_CUPTI_ERROR_HARDWARE_BUSY;
	if (!p->image)
		p->image_size = 16;
	return 0;
}
static gpd_cupti_result fake_host_init(struct gpd_cupti_host_init_params *p)
{
	FAKE_LOCKED(fake.host_inits++);
	p->host = &fake;
	return strcmp(p->chip_name, "GH100") ? GPD_CUPTI_ERROR_INVALID_PARAMETER : 0;
}
static gpd_cupti_result fake_host_deinit(struct gpd_cupti_host_params *p)
{
	FAKE_LOCKED(fake.host_deinits++);
	return 0;
}
static gpd_cupti_result fake_add_metrics(struct gpd_cupti_host_add_metrics_params *p)
{
	pthread_mutex_lock(&fake.lock);
	fake.n_metrics = (unsigned)p->n_names;
	for (size_t i = 0; i < p->n_names && i < GPD_NV_MAX_COUNTERS; i++)
		snprintf(fake.metrics[i], sizeof(fake.metrics[i]), "%s",
			 p->names[i]);
	pthread_mutex_unlock(&fake.lock);
	for (size_t i = 0; i < p->n_names; i++)
		if (!strncmp(p->names[i], "bogus", 5))
			return GPD_CUPTI_ERROR_UNKNOWN;
	return 0;
}
static gpd_cupti_result fake_config_size(struct gpd_cupti_host_config_size_params *p)
{
	p->image_size = 64;
	return 0;
}
static gpd_cupti_result fake_config(struct gpd_cupti_host_config_params *p)
{
	return p->image_size == 64 ? 0 : GPD_CUPTI_ERROR_INVALID_PARAMETER;
}
static gpd_cupti_result fake_passes(struct gpd_cupti_host_passes_params *p)
{
	pthread_mutex_lock(&fake.lock);
	p->passes = fake.n_metrics > 20 ? 2 : 1;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}
static gpd_cupti_result fake_enable(struct gpd_cupti_pm_enable_params *p)
{
	FAKE_LOCKED(fake.enables++; fake.pm_owner = pthread_self());
	p->pm = &fake;
	return 0;
}

/* Under the lock: a call that takes the PM sampling object. */
static void fake_pm_call(void)
{
	if (!pthread_equal(fake.pm_owner, pthread_self()))
		fake.pm_calls_elsewhere++;
}

/* Under the lock: the image at data, given a slot if new. */
static struct fake_image *fake_image_of(const void *data)
{
	struct fake_image *free_slot = NULL;
	for (unsigned i = 0; i < FAKE_IMAGES; i++) {
		if (fake.images[i].data == data)
			return &fake.images[i];
		if (!fake.images[i].data && !free_slot)
			free_slot = &fake.images[i];
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		free_slot->data = data;
		free_slot->c = (struct fake_contents *)data;
	}
	return free_slot;
}
static gpd_cupti_result fake_disable(struct gpd_cupti_pm_params *p)
{
	FAKE_LOCKED(fake.disables++);
	return 0;
}
static gpd_cupti_result fake_set_config(struct gpd_cupti_pm_config_params *p)
{
	pthread_mutex_lock(&fake.lock);
	gpd_cupti_result r = 0;
	if (fake.busy) {
		r = GPD_CUPTI_ERROR_HARDWARE_BUSY;
	} else {
		if (fake.configs < 4)
			fake.hw_sizes[fake.configs] = p->hardware_buffer_size;
		fake_pm_call();
		fake.configs++;
		fake.interval_ns = p->interval;
		for (unsigned i = 0; i < FAKE_IMAGES; i++)
			fake.images[i].data = NULL;
		fake.images_used = 0;
		fake.backlog = 0;
		fake.half = false;
		fake.half_in = NULL;
	}
	pthread_mutex_unlock(&fake.lock);
	return r;
}
static gpd_cupti_result fake_start(struct gpd_cupti_pm_params *p)
{
	pthread_mutex_lock(&fake.lock);
	fake_pm_call();
	fake.starts++;
	fake.now_ns = fake_realtime_ns();
	fake.setup_pending = true;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}
static gpd_cupti_result fake_stop(struct gpd_cupti_pm_params *p)
{
	FAKE_LOCKED(fake.stops++; fake_pm_call());
	return 0;
}
static gpd_cupti_result fake_data_size(struct gpd_cupti_pm_data_size_params *p)
{
	pthread_mutex_lock(&fake.lock);
	size_t per = fake.sample_bytes ? fake.sample_bytes
				       : sizeof(struct fake_sample);
	fake.max_samples = p->max_samples;
	pthread_mutex_unlock(&fake.lock);
	p->data_size = FAKE_IMAGE_HEADER + (size_t)p->max_samples * per;
	return 0;
}
static gpd_cupti_result fake_data_init(struct gpd_cupti_pm_data_init_params *p)
{
	pthread_mutex_lock(&fake.lock);
	fake_pm_call();
	struct fake_image *img = fake_image_of(p->data);
	gpd_cupti_result r = GPD_CUPTI_ERROR_INVALID_PARAMETER;
	if (img) {
		if (img->reading || img->writing)
			fake.races++;
		size_t per = fake.sample_bytes ? fake.sample_bytes
					       : sizeof(struct fake_sample);
		memset(img->c, 0, FAKE_IMAGE_HEADER);
		img->c->magic = FAKE_IMAGE_MAGIC;
		img->c->capacity = (uint32_t)((p->data_size - FAKE_IMAGE_HEADER) / per);
		r = 0;
	}
	pthread_mutex_unlock(&fake.lock);
	return r;
}
/* Under the lock: a complete sample into c; false when it is full. */
static bool fake_push(struct fake_contents *c, uint64_t start, uint64_t end,
		      bool setup)
{
	if (c->n >= c->capacity)
		return false;
	c->sample[c->n++] = (struct fake_sample){ start, end, setup };
	c->completed = c->n;
	return true;
}
/* Under the lock: the samples waiting in the hardware buffer into img, as
 * far as it has room; true when it filled. */
static bool fake_fill(struct fake_image *img)
{
	struct fake_contents *c = img->c;
	if (fake.half) {
		/* Still there, half decoded, unless the image was emptied. */
		if (fake.half_in == img->data && c->n > c->completed &&
		    c->sample[c->n - 1].start == fake.half_sample.start)
			c->completed++;
		else if (!fake_push(c, fake.half_sample.start,
				    fake.half_sample.end, false))
			return true;
		fake.half = false;
		fake.half_in = NULL;
	}
	unsigned first = c->n;
	while (fake.backlog) {
		if (!fake_push(c, fake.now_ns, fake.now_ns + fake.interval_ns,
			       false))
			return true;
		if (c->n == first + 1 && fake.duplicate_at &&
		    fake.decodes == fake.duplicate_at &&
		    !fake_push(c, c->sample[first].start, c->sample[first].end,
			       false))
			return true;
		fake.now_ns += fake.interval_ns;
		fake.backlog--;
	}
	/* The last sample read waits for the next call to be complete. */
	if (c->n > first) {
		c->completed = c->n - 1;
		fake.half = true;
		fake.half_sample = c->sample[c->n - 1];
		fake.half_in = img->data;
	}
	return false;
}
static gpd_cupti_result fake_decode(struct gpd_cupti_pm_decode_params *p)
{
	struct gpd_nv_pm_schedule schedule;

	pthread_mutex_lock(&fake.lock);
	fake_pm_call();
	fake.decodes++;
	if (fake.overflow_at && fake.decodes == fake.overflow_at) {
		pthread_mutex_unlock(&fake.lock);
		p->overflow = 1;
		return GPD_CUPTI_ERROR_OUT_OF_MEMORY;
	}
	struct fake_image *img = fake_image_of(p->data);
	if (!img || img->c->magic != FAKE_IMAGE_MAGIC) {
		pthread_mutex_unlock(&fake.lock);
		return GPD_CUPTI_ERROR_INVALID_PARAMETER;
	}
	/* Long enough for a reader of this image on another thread to show. */
	img->writing = true;
	if (img->reading)
		fake.races++;
	pthread_mutex_unlock(&fake.lock);
	sched_yield();
	pthread_mutex_lock(&fake.lock);
	img->writing = false;
	if (img->reading)
		fake.races++;

	gpd_nv_pm_schedule_for(fake.interval_ns, fake.n_metrics, &schedule);
	/* A call after a full image drains; any other finds a decode
	 * period's samples more. */
	if (!fake.draining) {
		if (fake.gap_at && fake.decodes == fake.gap_at)
			fake.now_ns += 5 * fake.interval_ns;
		fake.backlog += schedule.decode_period_ns / fake.interval_ns;
		if (fake.burst_at && fake.decodes == fake.burst_at)
			fake.backlog += fake.burst_samples;
	} else {
		/* What a full image cost on an H200: samples lost at the
		 * next call, a gap of several ms. */
		uint64_t lost = fake.backlog < FAKE_FULL_LOSS ? fake.backlog
							     : FAKE_FULL_LOSS;
		fake.now_ns += lost * fake.interval_ns;
		fake.backlog -= lost;
	}
	if (!img->decoded) {
		img->decoded = true;
		fake.images_used++;
	}
	size_t per = fake.sample_bytes ? fake.sample_bytes
				       : sizeof(struct fake_sample);
	for (size_t i = FAKE_IMAGE_HEADER + img->c->n * per; i < p->data_size;
	     i++) {
		if (p->data[i]) {
			fake.stale_images++;
			break;
		}
	}
	if (fake.stray_write_at && fake.decodes == fake.stray_write_at)
		p->data[p->data_size - 1] = 1;
	if (img->c->completed)
		fake.appends++;
	if (fake.setup_pending) {
		/* Sample 0 spans the setup: from SetConfig to Start. */
		fake_push(img->c, fake.now_ns - 300000000ull, fake.now_ns, true);
		fake.setup_pending = false;
	}
	fake.draining = fake_fill(img);
	if (fake.draining)
		fake.full_images++;
	pthread_mutex_unlock(&fake.lock);
	p->stop_reason = fake.draining ? GPD_CUPTI_PM_STOP_COUNTER_DATA_FULL
				       : GPD_CUPTI_PM_STOP_END_OF_RECORDS;
	p->overflow = 0;
	return 0;
}
static gpd_cupti_result fake_data_info(struct gpd_cupti_pm_data_info_params *p)
{
	const struct fake_contents *c = (const void *)p->data;
	if (c->magic != FAKE_IMAGE_MAGIC)
		return GPD_CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&fake.lock);
	p->total_samples = c->capacity;
	p->populated_samples = c->n;
	p->completed_samples = c->completed;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}
/* GetSampleInfo takes the PM sampling object but only reads the image:
 * the sampler calls it beside DecodeData into another image, as it ran on
 * an H200; it counts as a race only on the image being decoded into. */
static gpd_cupti_result fake_sample_info(struct gpd_cupti_pm_sample_params *p)
{
	pthread_mutex_lock(&fake.lock);
	struct fake_image *img = fake_image_of(p->data);
	gpd_cupti_result r = GPD_CUPTI_ERROR_INVALID_PARAMETER;
	if (img && img->writing)
		fake.races++;
	if (img && img->c->magic == FAKE_IMAGE_MAGIC &&
	    p->index < img->c->completed) {
		p->start_ns = img->c->sample[p->index].start;
		p->end_ns = img->c->sample[p->index].end;
		r = 0;
	}
	pthread_mutex_unlock(&fake.lock);
	return r;
}
static gpd_cupti_result fake_evaluate(struct gpd_cupti_host_evaluate_params *p)
{
	pthread_mutex_lock(&fake.lock);
	struct fake_image *img = fake_image_of(p->counter_data);
	if (!img || img->c->magic != FAKE_IMAGE_MAGIC ||
	    p->range_index >= img->c->completed) {
		pthread_mutex_unlock(&fake.lock);
		return GPD_CUPTI_ERROR_INVALID_PARAMETER;
	}
	fake.evaluations++;
	if (fake.evaluate_fail_at && fake.evaluations == fake.evaluate_fail_at) {
		pthread_mutex_unlock(&fake.lock);
		return GPD_CUPTI_ERROR_UNKNOWN;
	}
	if (pthread_equal(fake.pm_owner, pthread_self()))
		fake.evaluations_on_decoding_thread++;
	if (img->writing)
		fake.races++;
	const struct fake_sample *s = &img->c->sample[p->range_index];
	for (size_t i = 0; i < p->n_names; i++)
		p->values[i] = s->setup ? fake.setup_value
					: fake.rate[i] * (double)(s->end - s->start);
	unsigned delay = fake.evaluate_delay_us;
	img->reading++;
	pthread_mutex_unlock(&fake.lock);
	if (delay)
		usleep(delay);
	pthread_mutex_lock(&fake.lock);
	img->reading--;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

/* NVML. */
static gpd_nvml_return fake_nvml_init(void)
{
	FAKE_LOCKED(fake.nvml_inits++; fake.nvml_start_ns = fake_realtime_ns());
	return 0;
}
static gpd_nvml_return fake_nvml_shutdown(void)
{
	FAKE_LOCKED(fake.nvml_shutdowns++);
	return 0;
}
static const char *fake_nvml_error(gpd_nvml_return r) { return "fake NVML error"; }
static gpd_nvml_return fake_nvml_handle(const char *bus, gpd_nvml_device *d)
{
	*d = (gpd_nvml_device)(void *)&fake;
	return strcmp(bus, "0000:00:06.0") ? 13 : 0;
}
static gpd_nvml_return fake_nvml_clock(gpd_nvml_device d, int clock, unsigned *mhz)
{
	*mhz = clock == GPD_NVML_CLOCK_SM ? 1980 : 3201;
	return 0;
}
static gpd_nvml_return fake_nvml_energy(gpd_nvml_device d, unsigned long long *mj)
{
	pthread_mutex_lock(&fake.lock);
	/* W x ms = mJ, counted from an arbitrary start. */
	*mj = 1000000 + (unsigned long long)(fake.power_w *
		(double)(fake_realtime_ns() - fake.nvml_start_ns) / 1e6);
	pthread_mutex_unlock(&fake.lock);
	return 0;
}
static gpd_nvml_return fake_nvml_temperature(gpd_nvml_device d, int s, unsigned *c)
{
	*c = 40;
	return 0;
}
static gpd_nvml_return fake_nvml_memory(gpd_nvml_device d, struct gpd_nvml_memory *m)
{
	m->total = 141ull << 30;
	m->used = 1ull << 30;
	m->free = m->total - m->used;
	return 0;
}
static gpd_nvml_return fake_gpm_support(gpd_nvml_device d, struct gpd_nvml_gpm_support *s)
{
	s->supported = s->version == GPD_NVML_GPM_SUPPORT_VERSION;
	return 0;
}
static gpd_nvml_return fake_gpm_alloc(gpd_nvml_gpm_sample *s)
{
	static int n;
	*s = (gpd_nvml_gpm_sample)(void *)&fake.gpm_samples[n++ & 1];
	return 0;
}
static gpd_nvml_return fake_gpm_free(gpd_nvml_gpm_sample s) { return 0; }
static gpd_nvml_return fake_gpm_sample(gpd_nvml_device d, gpd_nvml_gpm_sample s)
{
	return 0;
}
/* Every other pair did not straddle a GPM refresh: 0 and a NaN bandwidth,
 * as NVML answers. */
static gpd_nvml_return fake_gpm_metrics(struct gpd_nvml_gpm_metrics_get *g)
{
	pthread_mutex_lock(&fake.lock);
	bool valid = fake.gpm_gets++ & 1;
	pthread_mutex_unlock(&fake.lock);
	for (unsigned i = 0; i < g->n_metrics; i++) {
		struct gpd_nvml_gpm_metric *m = &g->metrics[i];
		m->result = 0;
		if (!valid) {
			m->value = m->id == 10 ? NAN : 0;
			continue;
		}
		m->value = m->id == 2 ? 50 : m->id == 3 ? 25 : m->id == 5 ? 80 :
			   m->id == 10 ? 40 : m->id == 12 ? 10 : 100;
	}
	return 0;
}

static gpd_nvml_return fake_utilization(gpd_nvml_device d,
					struct gpd_nvml_utilization *u)
{
	FAKE_LOCKED(u->gpu = fake.util_gpu; u->memory = fake.util_memory);
	return 0;
}

static gpd_nvml_return fake_encoder(gpd_nvml_device d, unsigned *p, unsigned *us)
{
	FAKE_LOCKED(*p = fake.util_encoder; *us = 166666);
	return 0;
}

static gpd_nvml_return fake_decoder(gpd_nvml_device d, unsigned *p, unsigned *us)
{
	FAKE_LOCKED(*p = fake.util_decoder; *us = 166666);
	return 0;
}

static gpd_nvml_return fake_max_clock(gpd_nvml_device d, int clock, unsigned *mhz)
{
	*mhz = 1980;
	return 0;
}

static gpd_nvml_return fake_pcie(gpd_nvml_device d, int counter, unsigned *kbps)
{
	*kbps = counter ? 2000 : 1000;
	return 0;
}

/* nvmlDevice*RunningProcesses: INSUFFICIENT_SIZE with the count when the
 * array is too small, as NVML answers. */
static gpd_nvml_return fake_running(unsigned *count,
				    struct gpd_nvml_process_info *infos,
				    bool graphics)
{
	gpd_nvml_return ret = 0;
	pthread_mutex_lock(&fake.lock);
	unsigned n = 0;
	for (unsigned i = 0; i < fake.n_processes; i++)
		n += !graphics || fake.processes[i].graphics;
	if (n > *count) {
		*count = n;
		ret = GPD_NVML_ERROR_INSUFFICIENT_SIZE;
	} else {
		*count = 0;
		for (unsigned i = 0; i < fake.n_processes; i++)
			if (!graphics || fake.processes[i].graphics)
				infos[(*count)++] = (struct gpd_nvml_process_info){
					.pid = fake.processes[i].pid,
					.used_gpu_memory = fake.processes[i].memory,
				};
	}
	pthread_mutex_unlock(&fake.lock);
	return ret;
}

static gpd_nvml_return fake_compute_processes(gpd_nvml_device d, unsigned *count,
					      struct gpd_nvml_process_info *infos)
{
	return fake_running(count, infos, false);
}

static gpd_nvml_return fake_graphics_processes(gpd_nvml_device d, unsigned *count,
					       struct gpd_nvml_process_info *infos)
{
	return fake_running(count, infos, true);
}

/* One sample per process, stamped now; NOT_FOUND when none is newer than
 * last_seen. */
static gpd_nvml_return fake_process_utilization(
	gpd_nvml_device d, struct gpd_nvml_process_utilization *samples,
	unsigned *count, unsigned long long last_seen_us)
{
	unsigned long long now_us = fake_realtime_ns() / 1000;
	gpd_nvml_return ret = 0;
	pthread_mutex_lock(&fake.lock);
	fake.older_calls++;
	if (now_us <= last_seen_us || !fake.n_processes) {
		ret = GPD_NVML_ERROR_NOT_FOUND;
	} else if (!samples || *count < fake.n_processes) {
		*count = fake.n_processes;
		ret = GPD_NVML_ERROR_INSUFFICIENT_SIZE;
	} else {
		for (unsigned i = 0; i < fake.n_processes; i++)
			samples[i] = (struct gpd_nvml_process_utilization){
				.pid = fake.processes[i].pid,
				.timestamp = now_us,
				.sm_util = fake.processes[i].sm,
				.mem_util = fake.processes[i].mem,
			};
		*count = fake.n_processes;
	}
	pthread_mutex_unlock(&fake.lock);
	return ret;
}

static gpd_nvml_return fake_processes_utilization_info(
	gpd_nvml_device d, struct gpd_nvml_processes_utilization *info)
{
	unsigned long long now_us = fake_realtime_ns() / 1000;
	gpd_nvml_return ret = 0;
	pthread_mutex_lock(&fake.lock);
	fake.newer_calls++;
	if (info->version != GPD_NVML_PROCESSES_UTILIZATION_VERSION) {
		ret = GPD_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	} else if (fake.newer_result) {
		ret = fake.newer_result;
	} else if (now_us <= info->last_seen_us || !fake.n_processes) {
		ret = GPD_NVML_ERROR_NOT_FOUND;
	} else if (!info->samples || info->count < fake.n_processes) {
		info->count = fake.n_processes;
		ret = GPD_NVML_ERROR_INSUFFICIENT_SIZE;
	} else {
		for (unsigned i = 0; i < fake.n_processes; i++)
			info->samples[i] = (struct gpd_nvml_process_utilization_info){
				.pid = fake.processes[i].pid,
				.timestamp = now_us,
				.sm_util = fake.processes[i].sm,
				.mem_util = fake.processes[i].mem,
			};
		info->count = fake.n_processes;
	}
	pthread_mutex_unlock(&fake.lock);
	return ret;
}

static const struct gpd_nv_libs *fake_libs(void)
{
	static struct gpd_nv_libs libs = {
		.cuda = {
			.init = fake_cu_init,
			.device_get_count = fake_cu_count,
			.device_get = fake_cu_get,
			.device_get_name = fake_cu_name,
			.device_get_attribute = fake_cu_attribute,
			.device_get_pci_bus_id = fake_cu_bus_id,
			.device_get_uuid = fake_cu_uuid,
			.get_error_string = fake_cu_error,
		},
		.cupti = {
			.get_result_string = fake_result_string,
			.profiler_initialize = fake_profiler_init,
			.profiler_deinitialize = fake_profiler_deinit,
			.device_get_chip_name = fake_chip,
			.pm_get_counter_availability = fake_availability,
			.host_initialize = fake_host_init,
			.host_deinitialize = fake_host_deinit,
			.host_config_add_metrics = fake_add_metrics,
			.host_get_config_image_size = fake_config_size,
			.host_get_config_image = fake_config,
			.host_get_num_of_passes = fake_passes,
			.host_evaluate_to_gpu_values = fake_evaluate,
			.pm_enable = fake_enable,
			.pm_disable = fake_disable,
			.pm_set_config = fake_set_config,
			.pm_start = fake_start,
			.pm_stop = fake_stop,
			.pm_decode_data = fake_decode,
			.pm_get_counter_data_size = fake_data_size,
			.pm_counter_data_image_initialize = fake_data_init,
			.pm_get_counter_data_info = fake_data_info,
			.pm_counter_data_get_sample_info = fake_sample_info,
		},
		.nvml = {
			.init = fake_nvml_init,
			.shutdown = fake_nvml_shutdown,
			.error_string = fake_nvml_error,
			.device_get_handle_by_pci_bus_id = fake_nvml_handle,
			.device_get_clock_info = fake_nvml_clock,
			.device_get_total_energy_consumption = fake_nvml_energy,
			.device_get_temperature = fake_nvml_temperature,
			.device_get_memory_info = fake_nvml_memory,
			.gpm_query_device_support = fake_gpm_support,
			.gpm_sample_alloc = fake_gpm_alloc,
			.gpm_sample_free = fake_gpm_free,
			.gpm_sample_get = fake_gpm_sample,
			.gpm_metrics_get = fake_gpm_metrics,
		},
		.nvml_usage = {
			.device_get_utilization_rates = fake_utilization,
			.device_get_encoder_utilization = fake_encoder,
			.device_get_decoder_utilization = fake_decoder,
			.device_get_max_clock_info = fake_max_clock,
			.device_get_pcie_throughput = fake_pcie,
			.device_get_compute_running_processes = fake_compute_processes,
			.device_get_graphics_running_processes = fake_graphics_processes,
			.device_get_process_utilization = fake_process_utilization,
			.device_get_processes_utilization_info =
				fake_processes_utilization_info,
		},
		.have_cupti = true,
		.have_nvml = true,
		.have_nvml_usage = true,
	};
	return &libs;
}

#endif
