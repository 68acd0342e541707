/*
 * Kernel refusals of an OA stream, in words that say what to do.
 *
 * The kernel answers a stream it will not open with a bare errno, and the
 * same errno can mean different things (EACCES: the paranoid sysctl, or a
 * sampling rate above oa_max_sample_rate). Here the request and the
 * kernel's sysctls are put together into one precise message.
 */
#ifndef GPD_DRM_OA_REFUSAL_H
#define GPD_DRM_OA_REFUSAL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/device_spec.h"
#include "daemon/error.h"
#include "metrics/device.h"
#include "metrics/metric_set.h"
#include "metrics/oa_format.h"

/* What was asked of the kernel. */
struct gpd_oa_request {
	enum gpd_source_kind kind;              /* GPD_SOURCE_I915 or _XE */
	const char *card;                       /* "card0" */
	const char *node;                       /* its device node */
	const char *card_dir;                   /* its sysfs directory */
	const struct gpm_device_info *info;
	const struct gpm_metric_set *set;
	uint64_t set_id;
	const struct gpm_oa_format *format;
	uint32_t format_property;               /* the OA_FORMAT value sent */
	unsigned exponent;
	bool ctx_filter;
	uint32_t ctx_handle;
	bool media;                             /* on a video engine's unit */
	/* A stream the kernel stopped, opened again: the daemon retries it
	 * by itself, nobody has to subscribe again. */
	bool reopening;
};

/* Fills err for a stream open refused with code (a negative errno) and
 * returns code. */
int gpd_oa_refusal_open(const struct gpd_oa_request *req, int code,
			struct gpd_error *err);

/* The same for ADD_CONFIG of req->set. */
int gpd_oa_refusal_add_config(const struct gpd_oa_request *req, int code,
			      struct gpd_error *err);

#endif
