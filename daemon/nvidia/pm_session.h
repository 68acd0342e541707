/*
 * One CUPTI PM sampling session on one GPU: the call sequence of
 * docs/nvidia-pm-sampling.md §1, with its sizes chosen so that the counter
 * data image never fills between two decodes.
 *
 * A session decodes into two counter data images, so that one can be
 * evaluated on another thread while the next decode fills the other. Only
 * DecodeData and GetCounterDataInfo stay on the thread that opened the
 * session (with setup and teardown); reading a decoded image's samples
 * (GetSampleInfo, HostEvaluateToGpuValues) and emptying it again (a copy
 * of a freshly initialized image, no CUPTI call) may run on another.
 * CUPTI documents no thread safety for any of these calls: that
 * GetSampleInfo, which takes the PM sampling object, runs safely beside
 * DecodeData into another image was seen on an H200 (driver 580, CUPTI
 * 13.0: four 32 s streams at 10 kHz, every sample in order and right; the
 * README's NVIDIA performance section), not promised.
 *
 * An image is a header and a slot per sample, the slots filled in order
 * (on an H200, CUPTI 13.0, idle and DRAM-bound: GetCounterDataSize is
 * header + samples x slot, and a decode changed no byte past the slots of
 * the samples it populated). Emptying it copies back only those bytes;
 * the first time in a session, the rest is checked to be as initialized,
 * and if it is not, images are emptied whole from then on.
 */
#ifndef GPD_NVIDIA_PM_SESSION_H
#define GPD_NVIDIA_PM_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/nvidia/libs.h"

#define GPD_NV_PM_MIN_INTERVAL_NS 10000ull            /* 10 us */
#define GPD_NV_PM_MAX_INTERVAL_NS 1000000000ull       /* 1 s */
/* A decode that keeps finding a full image is fed faster than it drains;
 * it leaves the rest to the next decode after this many calls. */
#define GPD_NV_PM_MAX_DRAIN_ROUNDS 8
#define GPD_NV_PM_MAX_IMAGE_BYTES (32u << 20)

/* What the decoding did, over sessions. The times say where a sampler
 * that fell behind lost its time: in CUPTI's decoding, in evaluating
 * samples, or between decodes. */
struct gpd_nv_pm_stats {
	uint64_t decodes;               /* DecodeData calls */
	uint64_t full_images;           /* decodes that filled the image */
	uint64_t resets;                /* counter data image resets */
	uint64_t cut_samples;           /* half-decoded samples at a reset */
	uint64_t decode_ns, decode_ns_max;      /* in DecodeData */
	uint64_t decode_cpu_ns;         /* of the decoding thread, in it */
	uint64_t reset_bytes;           /* copied emptying images */
	uint64_t evaluate_ns_max;       /* an image's samples, evaluated */
	uint64_t apart_ns_max;          /* from one decode to the next */
	uint64_t samples_max;           /* samples a decode brought */
};

/* How a session decodes: every decode_period_ns, into an image of
 * max_samples samples (fewer when that many would take more than
 * GPD_NV_PM_MAX_IMAGE_BYTES, but never below min_samples), from a
 * hardware buffer of hardware_buffer_size bytes.
 * gpd_nv_pm_session_decode resets its image once it holds reset_at
 * samples (1: after every decode that brought any); the sampler resets
 * each image once it is evaluated. */
struct gpd_nv_pm_schedule {
	uint64_t decode_period_ns;
	uint32_t max_samples, min_samples;
	uint32_t reset_at;
	size_t hardware_buffer_size;
};

struct gpd_nv_pm_config {
	unsigned device_index;          /* CUDA device index */
	const char *const *metrics;     /* CUPTI metric names */
	unsigned n_metrics;
	uint64_t interval_ns;
	/* NULL: gpd_nv_pm_schedule_for(interval_ns, n_metrics). */
	const struct gpd_nv_pm_schedule *schedule;
	struct gpd_nv_pm_stats *stats;  /* counted into; may be NULL */
};

#define GPD_NV_PM_IMAGES 2

/* A counter data image, as the last decode into it left it. */
struct gpd_nv_pm_image {
	uint8_t *data;
	size_t completed;               /* samples decoded whole */
	size_t populated;               /* those and a half-decoded one */
};

struct gpd_nv_pm_session {
	const struct gpd_nv_libs *libs;
	const char **metrics;           /* borrowed from the config */
	unsigned n_metrics;
	bool profiler;                  /* cuptiProfilerInitialize done */
	void *host;                     /* CUPTI host object */
	void *pm;                       /* PM sampling object */
	bool started;
	uint8_t *availability, *config;
	struct gpd_nv_pm_image images[GPD_NV_PM_IMAGES];
	uint8_t *pristine;              /* an image as initialized */
	size_t data_size;               /* of each image */
	/* The images' layout: a header, then a slot per sample; slot_bytes
	 * 0: unknown, images are emptied whole. Whoever empties images
	 * reads and may clear it, checking the layout once. */
	size_t header_bytes, slot_bytes;
	bool layout_checked;
	struct gpd_nv_pm_schedule schedule;
	size_t evaluated;               /* of images[0], by ..._decode */
	uint64_t last_decode_at;        /* CLOCK_MONOTONIC ns; 0: none yet */
	uint64_t last_decode_ns;        /* what that decode took */
	struct gpd_nv_pm_stats *stats;
	struct gpd_nv_pm_stats own_stats;       /* when the config gives none */
	double *values;                 /* one sample's, n_metrics; the
					 * evaluating thread's */
};

/* Called for every completed sample, in order. */
typedef void gpd_nv_pm_sample_fn(void *user, uint64_t start_ns,
				 uint64_t end_ns, const double *values);

/*
 * Sets up and starts sampling. Returns 0, or a negative code with why
 * saying what failed in words: -EBUSY when another profiler (a second
 * daemon, ncu, DCGM) holds the GPU's PM sampling, -EACCES without
 * privileges, -EOPNOTSUPP when the GPU or these metrics cannot be sampled
 * in one pass, -ENODEV, -ENOMEM, -EIO.
 */
int gpd_nv_pm_session_open(struct gpd_nv_pm_session *s,
			   const struct gpd_nv_libs *libs,
			   const struct gpd_nv_pm_config *cfg,
			   char *why, size_t why_size);

/*
 * Moves what the GPU sampled since the last call into sample_fn, on one
 * thread: decodes into the first image, evaluates it and resets it once it
 * holds the schedule's reset_at samples. Returns the number of samples, or
 * -EOVERFLOW when the hardware buffer overflowed (the session is finished:
 * close it and open a new one), or another negative code with why filled.
 */
int gpd_nv_pm_session_decode(struct gpd_nv_pm_session *s,
			     gpd_nv_pm_sample_fn *sample_fn, void *user,
			     char *why, size_t why_size);

/*
 * One DecodeData call into img, which may already hold samples of earlier
 * calls. *full says that the image filled before the hardware buffer was
 * drained. Returns the number of samples completed, or as
 * gpd_nv_pm_session_decode. On the session's thread.
 */
int gpd_nv_pm_session_decode_into(struct gpd_nv_pm_session *s,
				  struct gpd_nv_pm_image *img, bool *full,
				  char *why, size_t why_size);

/*
 * Hands every completed sample of img from index `from` on to sample_fn,
 * in order. May run on another thread than the session's, as long as
 * nothing decodes into img meanwhile and one thread at a time evaluates.
 */
int gpd_nv_pm_image_evaluate(struct gpd_nv_pm_session *s,
			     const struct gpd_nv_pm_image *img, size_t from,
			     gpd_nv_pm_sample_fn *sample_fn, void *user,
			     char *why, size_t why_size);

/* Empties img for the next decode, by copying an initialized image over
 * the header and the slots of its populated samples; a sample half
 * decoded into it comes whole with the next decode, into whichever image.
 * Returns the bytes copied. Where gpd_nv_pm_image_evaluate may run. */
size_t gpd_nv_pm_image_reset(struct gpd_nv_pm_session *s,
			     struct gpd_nv_pm_image *img);

/* Stops and frees everything; safe on a session that failed to open. */
void gpd_nv_pm_session_close(struct gpd_nv_pm_session *s);

/* The schedule for n_metrics counters at an interval: decodes often
 * enough, into an image large enough, that the image never fills, from a
 * hardware buffer that holds a second of samples (see pm_session.c). */
void gpd_nv_pm_schedule_for(uint64_t interval_ns, unsigned n_metrics,
			    struct gpd_nv_pm_schedule *schedule);

#endif
