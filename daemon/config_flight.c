/*
 * --flight-recorder, --flight-recorder-memory and --keep-streaming: their
 * words, then what they name, then applying them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_flight.h"
#include "daemon/daemon.h"
#include "daemon/keep_streaming.h"
#include "daemon/log.h"
#include "metrics/quantity.h"

/* Takes "DEVICE=" off the front of text into device ("" without one);
 * returns the rest. */
static const char *device_prefix(const char *text, char *device, size_t size,
				 const char *option, struct gpd_error *err)
{
	const char *eq = strchr(text, '=');
	device[0] = '\0';
	if (!eq)
		return text;
	size_t len = (size_t)(eq - text);
	if (!len || len >= size) {
		gpd_fail(err, -EINVAL, "--%s %s: '%.*s' is no device name",
			 option, text, (int)len, text);
		return NULL;
	}
	memcpy(device, text, len);
	device[len] = '\0';
	return eq + 1;
}

int gpd_flight_recorder_spec_parse(const char *text,
				   struct gpd_flight_recorder_spec *out,
				   struct gpd_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *value = device_prefix(text, out->device, sizeof(out->device),
					  "flight-recorder", err);
	if (!value)
		return -EINVAL;
	if (!gpm_parse_bytes(value, &out->bytes)) {
		if (out->bytes >= GPD_FLIGHT_RECORDER_MIN_BYTES)
			return 0;
		return gpd_fail(err, -EINVAL, "--flight-recorder %s: a ring "
			    "holds at least %u bytes (256Ki)", text,
			    GPD_FLIGHT_RECORDER_MIN_BYTES);
	}
	if (!gpm_parse_duration(value, &out->duration_ns))
		return 0;
	return gpd_fail(err, -EINVAL, "--flight-recorder takes [DEVICE=]SIZE or "
		    "[DEVICE=]DURATION, such as 64Mi, sim0=256M or 30s, not "
		    "'%s'", text);
}

int gpd_keep_streaming_spec_parse(const char *text,
				  struct gpd_keep_streaming_spec *out,
				  struct gpd_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *value = device_prefix(text, out->device, sizeof(out->device),
					  "keep-streaming", err);
	if (!value)
		return -EINVAL;
	const char *at = strchr(value, '@');
	size_t len = at ? (size_t)(at - value) : strlen(value);
	if (!len || len >= sizeof(out->metric_set) ||
	    (at && gpm_parse_duration(at + 1, &out->period_ns)))
		return gpd_fail(err, -EINVAL, "--keep-streaming takes "
			    "[DEVICE=]SET[@PERIOD], such as RenderBasic@1ms or "
			    "sim0=ComputeBasic@100us, not '%s'", text);
	memcpy(out->metric_set, value, len);
	out->metric_set[len] = '\0';
	return 0;
}

/* What the options ask of one device, resolved. */
struct plan {
	struct gpd_device *dev;
	bool keep;
	const struct gpm_metric_set *set;
	uint64_t period_ns;             /* 0: the device's default */
	const char *keep_text;          /* the option that asked */
	uint64_t ring_bytes;            /* 0: no ring */
	uint64_t ring_asked_ns;         /* 0: given in bytes */
	const char *ring_text;
	bool ring_for_all;              /* given without DEVICE= */
};

static struct plan *plan_of(struct plan *plans, size_t n, const char *device,
			    const char *option, const char *text,
			    struct gpd_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(plans[i].dev->source->name, device))
			return &plans[i];
	gpd_fail(err, -ENODEV, "--%s %s: no device '%s'; the devices are "
		 "named as 'gpuperf devices' lists them (sim0, card0, ...)",
		 option, text, device);
	return NULL;
}

static int plan_keep(struct plan *p, const struct gpd_keep_streaming_spec *spec,
		     const char *text, struct gpd_error *err)
{
	if (p->keep_text && !strcmp(p->keep_text, text))
		return 0;
	if (p->keep_text)
		return gpd_fail(err, -EINVAL, "--keep-streaming %s and %s both "
			    "name device %s; give one", p->keep_text, text,
			    p->dev->source->name);
	const struct gpm_metric_set *set = gpd_device_find_set(p->dev,
							      spec->metric_set);
	if (!set)
		return gpd_fail(err, -ENOENT, "--keep-streaming %s: device %s "
			    "(%s) has no metric set '%s'; 'gpuperf sets -d %s' "
			    "lists them", text, p->dev->source->name,
			    p->dev->metrics->platform, spec->metric_set,
			    p->dev->source->name);
	const char *fixed = p->dev->source->fixed_metric_set;
	if (fixed && strcmp(fixed, set->symbol_name))
		return gpd_fail(err, -EINVAL, "--keep-streaming %s: device %s "
			    "replays a recording of %s and streams nothing else",
			    text, p->dev->source->name, fixed);
	p->keep = true;
	p->set = set;
	p->period_ns = spec->period_ns;
	p->keep_text = text;
	return 0;
}

/* The bytes a ring needs for duration_ns of the device's reports at its
 * kept (else default) period, and at its context switches where the
 * device knows how often they come, with the correlation points between. */
static uint64_t ring_bytes_for(const struct plan *p, uint64_t duration_ns)
{
	const struct gpd_source *src = p->dev->source;
	uint64_t period = gpd_exponent_to_ns(&src->info, gpd_exponent_for_period(
		&src->info, p->period_ns ? p->period_ns :
			    src->fixed_period_ns ? src->fixed_period_ns :
			    GPD_DEFAULT_PERIOD_NS));
	if (!period)
		period = 1;
	long double reports = (long double)duration_ns / period;
	if (src->context_switch_interval_ns)
		reports += (long double)duration_ns / src->context_switch_interval_ns;
	/* A record is a header and a report; 1 % more for the rest. */
	long double bytes = reports * (8 + src->format->size) * 1.01L;
	if (bytes > (long double)(1ull << 62))
		return 1ull << 62;
	uint64_t n = (uint64_t)bytes;
	return n < GPD_FLIGHT_RECORDER_MIN_BYTES ? GPD_FLIGHT_RECORDER_MIN_BYTES : n;
}

static int plan_ring(struct plan *p, const struct gpd_flight_recorder_spec *spec,
		     const char *text, bool for_all, struct gpd_error *err)
{
	/* One naming the device wins over one for every device. */
	if (p->ring_text && !p->ring_for_all && !for_all &&
	    strcmp(p->ring_text, text))
		return gpd_fail(err, -EINVAL, "--flight-recorder %s and %s both "
			    "name device %s; give one", p->ring_text, text,
			    p->dev->source->name);
	if (p->ring_text && !p->ring_for_all && for_all)
		return 0;
	const char *misfit = gpd_device_i915perf_misfit(p->dev);
	if (misfit) {
		if (for_all) {
			gpd_info("%s keeps no flight recorder: it %s",
				 p->dev->source->name, misfit);
			return 0;
		}
		return gpd_fail(err, -EOPNOTSUPP, "--flight-recorder %s: device "
			    "%s %s, the format of the flight recorder's "
			    "snapshots; record it with gpuperf record --format "
			    "perfetto", text, p->dev->source->name, misfit);
	}
	p->ring_bytes = spec->bytes ? spec->bytes :
			ring_bytes_for(p, spec->duration_ns);
	p->ring_asked_ns = spec->bytes ? 0 : spec->duration_ns;
	p->ring_text = text;
	p->ring_for_all = for_all;
	return 0;
}

/* Every option resolved against the devices, changing nothing. */
static int make_plan(struct gpd_daemon *d, struct plan *plans,
		     struct gpd_error *err)
{
	const struct gpd_options *o = &d->options;
	size_t n = d->registry.n_devices;
	for (size_t i = 0; i < n; i++)
		plans[i].dev = d->registry.devices[i];
	/* Periods first: a duration's bytes depend on them. */
	for (size_t k = 0; k < o->n_keep_streaming; k++) {
		struct gpd_keep_streaming_spec spec;
		const char *text = o->keep_streaming[k];
		int ret = gpd_keep_streaming_spec_parse(text, &spec, err);
		for (size_t i = 0; !ret && i < n; i++) {
			struct plan *p = &plans[i];
			if (spec.device[0] &&
			    !(p = plan_of(plans, n, spec.device, "keep-streaming",
					  text, err)))
				return -ENODEV;
			ret = plan_keep(p, &spec, text, err);
			if (spec.device[0])
				break;
		}
		if (ret)
			return ret;
	}
	for (size_t k = 0; k < o->n_flight_recorders; k++) {
		struct gpd_flight_recorder_spec spec;
		const char *text = o->flight_recorders[k];
		int ret = gpd_flight_recorder_spec_parse(text, &spec, err);
		for (size_t i = 0; !ret && i < n; i++) {
			struct plan *p = &plans[i];
			if (spec.device[0] &&
			    !(p = plan_of(plans, n, spec.device, "flight-recorder",
					  text, err)))
				return -ENODEV;
			ret = plan_ring(p, &spec, text, !spec.device[0], err);
			if (spec.device[0])
				break;
		}
		if (ret)
			return ret;
	}
	uint64_t limit = o->flight_recorder_memory ? o->flight_recorder_memory :
			 GPD_DEFAULT_FLIGHT_RECORDER_MEMORY;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += plans[i].ring_bytes;
	if (total > limit)
		return gpd_fail(err, -E2BIG, "the flight recorders would take "
			    "%.1f MB, more than --flight-recorder-memory "
			    "allows (%.1f MB); give them less or raise it",
			    (double)total / 1e6, (double)limit / 1e6);
	return 0;
}

int gpd_daemon_start_flight_recorders(struct gpd_daemon *d,
				      struct gpd_error *err)
{
	size_t n = d->registry.n_devices;
	if (!d->options.n_flight_recorders && !d->options.n_keep_streaming)
		return 0;
	struct plan *plans = calloc(n ? n : 1, sizeof(*plans));
	d->keepers = calloc(n ? n : 1, sizeof(*d->keepers));
	if (!plans || !d->keepers) {
		free(plans);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	int ret = make_plan(d, plans, err);
	for (size_t i = 0; !ret && i < n; i++) {
		struct plan *p = &plans[i];
		if (p->ring_bytes)
			ret = gpd_device_keep_flight_recorder(p->dev, p->ring_bytes,
							      p->ring_asked_ns,
							      err);
		if (!ret && p->ring_bytes)
			gpd_info("%s: flight recorder of %.1f MB (--flight-recorder "
				 "%s)", p->dev->source->name,
				 (double)p->ring_bytes / 1e6, p->ring_text);
		if (!ret && p->keep)
			ret = gpd_keeper_start(&d->registry, p->dev,
					       p->set->symbol_name, p->period_ns,
					       &d->keepers[d->n_keepers++], err);
	}
	free(plans);
	return ret;
}
