/*
 * A device: its source, its one hardware configuration, and the fan-out of
 * decoded report pairs to its subscribers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/device.h"
#include "daemon/log.h"
#include "metrics/oa_delta.h"
#include "metrics/oa_record.h"

/* a * b / c without overflowing the intermediate product. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return c ? (uint64_t)((unsigned __int128)a * b / c) : 0;
}

uint64_t gpd_device_ticks_to_ns(const struct gpd_device *dev, uint64_t ticks)
{
	return mul_div(ticks, 1000000000ull, dev->shape.timestamp_frequency);
}

uint64_t gpd_device_ns_to_ticks(const struct gpd_device *dev, uint64_t ns)
{
	return mul_div(ns, dev->shape.timestamp_frequency, 1000000000ull);
}

uint64_t gpd_device_period_ns(const struct gpd_device *dev, unsigned exponent)
{
	return gpd_exponent_to_ns_at(dev->shape.timestamp_frequency, exponent);
}

int gpd_device_set_shape(struct gpd_device *dev, const struct gpm_metric_set *set,
			 struct gpd_stream_shape *out, struct gpd_error *err)
{
	return gpd_source_shape(dev->source, set, out, err);
}

bool gpd_device_cpu_time(const struct gpd_device *dev, uint64_t ts,
			 uint64_t *cpu_ns)
{
	return gpd_clock_map_cpu_time(&dev->clock, ts, cpu_ns);
}

bool gpd_device_gpu_now(const struct gpd_device *dev, uint64_t *ts)
{
	return gpd_clock_map_ticks(&dev->clock, gpd_monotonic_ns(), ts);
}

static void reset_decoding(struct gpd_device *dev)
{
	dev->have_prev = false;
	dev->running_ctx = GPM_OA_CTX_NONE;
	dev->may_resubmit = false;
	gpd_clock_map_reset(&dev->clock, dev->shape.timestamp_frequency);
	dev->clock_pending = false;
	/* What was read before is of the stream that ended. */
	dev->read_has_sample = false;
	dev->partial_len = 0;
	gpm_oa_ts_extender_init(&dev->ts, dev->decoder.ts_mask);
	/* The next records are of another stream, or another configuration. */
	if (dev->ring)
		gpd_flight_recorder_end_segment(dev->ring);
}

/*
 * Keeps a record in the flight recorder. ts: a SAMPLE's extended
 * timestamp. A segment begins with the first record of each stream
 * configuration; correlation points place the reports in time.
 */
static void ring_record(struct gpd_device *dev, const struct gpm_oa_record *rec,
			uint64_t ts)
{
	struct gpd_flight_recorder *fr = dev->ring;
	/* A media set's reports have their own unit's layout and clock. */
	if (gpd_flight_recorder_needs_segment(fr))
		gpd_flight_recorder_begin_segment(fr, dev->set->symbol_name,
			dev->set->hw_config_guid, dev->exponent,
			gpd_device_period_ns(dev, dev->exponent), dev->shape.format,
			dev->shape.timestamp_frequency);
	if (rec->type == GPM_OA_RECORD_SAMPLE &&
	    gpd_flight_recorder_needs_correlation(fr, ts)) {
		uint64_t cpu_ns;
		if (!gpd_clock_map_cpu_time(&dev->clock, ts, &cpu_ns))
			cpu_ns = dev->read_ns;
		struct gpm_device_info unit;
		gpd_device_unit_info(dev, dev->shape.timestamp_frequency, &unit);
		gpd_flight_recorder_correlate(fr, ts, cpu_ns,
					      gpm_device_cs_ticks(&unit, ts));
	}
	/* A loss record is its header alone: it has no payload to step
	 * back from. */
	gpd_flight_recorder_append(fr, rec->data, rec->size);
}

/* Whole: its counters too, which only subscribers of their own need. */
static const struct gpm_oa_report *decoded(struct gpd_device *dev, unsigned i)
{
	if (!dev->decoded[i]) {
		/* Its header decoded, so its size is right. */
		gpm_oa_report_decode(&dev->decoder, dev->report_bytes[i],
				     dev->decoder.format->size, &dev->report[i]);
		dev->decoded[i] = true;
	}
	return &dev->report[i];
}

static void handle_sample(struct gpd_device *dev, const struct gpm_oa_record *rec)
{
	unsigned cur = dev->prev ^ 1;
	/* Its header, on the stack: what is not used of it is not even
	 * written (decoded() decodes the whole report where one is needed). */
	struct gpm_oa_report header;
	struct gpm_oa_report *report = &header;
	if (gpm_oa_report_decode_header(&dev->decoder, rec->payload,
					rec->payload_size, report)) {
		dev->stats.bad_records++;
		return;
	}
	/* Copied only if it is still the last when the read ends. */
	dev->report_bytes[cur] = rec->payload;
	dev->decoded[cur] = false;
	dev->stats.reports++;
	uint64_t ts = gpm_oa_ts_extend(&dev->ts, report->timestamp);
	/* A stream of one application's context is for that application's
	 * client alone: neither the ring nor the daemon's own (passive)
	 * subscribers keep it. */
	if (dev->ring && !dev->ctx_filter)
		ring_record(dev, rec, ts);
	dev->read_has_sample = true;
	dev->read_newest_ts = ts;
	uint32_t ctx = gpm_oa_report_context(&dev->decoder, report,
					     dev->running_ctx);
	if (dev->have_prev) {
		/* The delta from one report to the next belongs to the
		 * context that ran from the first; after a resubmission,
		 * which only this report reveals, to the one that ran on. */
		uint32_t pair_ctx = dev->may_resubmit && ctx == dev->ctx_before ?
				    ctx : dev->running_ctx;
		for (struct gpd_pair_sink *k = dev->sinks; k; k = k->next)
			if (!k->dead)
				k->ops->pair(k, &dev->decoder,
					     dev->report_bytes[dev->prev],
					     dev->report_bytes[cur],
					     pair_ctx, dev->prev_ts, ts);
		for (struct gpd_device_subscriber *s =
		     dev->n_subscribers > dev->n_pairs_in_sink ?
		     dev->subscribers : NULL; s; s = s->next)
			if (!s->dead && !s->pairs_in_sink &&
			    !(s->passive && dev->ctx_filter))
				s->ops->pair(s, &dev->decoder,
					     decoded(dev, dev->prev),
					     decoded(dev, cur),
					     pair_ctx, dev->prev_ts, ts);
	}
	dev->may_resubmit = dev->running_ctx != GPM_OA_CTX_NONE &&
			    gpm_oa_report_may_resubmit(&dev->decoder, report);
	dev->ctx_before = dev->running_ctx;
	dev->prev = cur;
	dev->prev_ts = ts;
	dev->have_prev = true;
	dev->running_ctx = ctx;
}

static void handle_loss(struct gpd_device *dev, const struct gpm_oa_record *rec,
			bool buffer_lost)
{
	if (dev->ring && !dev->ctx_filter)
		ring_record(dev, rec, 0);
	if (buffer_lost) {
		/* What the buffer held is gone: no delta may span the gap. */
		dev->stats.buffers_lost++;
		dev->have_prev = false;
	} else {
		dev->stats.reports_lost++;
	}
	for (struct gpd_pair_sink *k = dev->sinks; k; k = k->next)
		if (!k->dead)
			k->ops->loss(k, buffer_lost);
	for (struct gpd_device_subscriber *s = dev->subscribers; s; s = s->next)
		if (!s->dead)
			s->ops->loss(s, buffer_lost);
}

/*
 * The newest report among the records at data, its timestamp extended from
 * where decoding is. A stream's first read gives the clock map its first
 * observation from it, before any of the read's frames needs a CPU time:
 * its oldest report may be a poll older than the read.
 */
static bool newest_report(const struct gpd_device *dev, const unsigned char *data,
			  size_t len, uint64_t *newest)
{
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	struct gpm_oa_ts_extender ts = dev->ts;
	struct gpm_oa_report r;
	bool any = false;

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
				  dev->decoder.format->size, data, len);
	while (gpm_oa_record_next(&rd, &rec) > 0) {
		if (rec.type != GPM_OA_RECORD_SAMPLE ||
		    gpm_oa_report_decode_header(&dev->decoder, rec.payload,
						rec.payload_size, &r))
			continue;
		*newest = gpm_oa_ts_extend(&ts, r.timestamp);
		any = true;
	}
	return any;
}

/* A BUFFER_LOST record, as the kernel frames one. */
static const unsigned char buffer_lost_bytes[GPM_OA_RECORD_HEADER_SIZE] = {
	GPM_OA_RECORD_BUFFER_LOST, 0, 0, 0, 0, 0, GPM_OA_RECORD_HEADER_SIZE, 0,
};
static const struct gpm_oa_record buffer_lost_record = {
	.type = GPM_OA_RECORD_BUFFER_LOST,
	.size = GPM_OA_RECORD_HEADER_SIZE,
	.data = buffer_lost_bytes,
};

/* The read at hand ends: what is kept of its reports is copied. */
static void end_read(struct gpd_device *dev)
{
	for (struct gpd_pair_sink *k = dev->sinks; k; k = k->next)
		if (!k->dead)
			k->ops->read_end(k);
	unsigned prev = dev->prev;
	if (dev->have_prev && dev->report_bytes[prev] != dev->bytes[prev]) {
		memcpy(dev->bytes[prev], dev->report_bytes[prev],
		       dev->decoder.format->size);
		dev->report_bytes[prev] = dev->bytes[prev];
	}
}

static size_t read_records(struct gpd_device *dev, const unsigned char *data,
			   size_t len)
{
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	uint64_t newest;

	if (!dev->clock.anchored && newest_report(dev, data, len, &newest)) {
		gpd_clock_map_observe(&dev->clock, newest, dev->read_ns);
		/* An extended timestamp keeps the low bits of the report's,
		 * and the clock read ts after the newest report. */
		if (dev->clock_pending)
			gpd_clock_map_observe(&dev->clock, newest +
					      ((dev->clock_pending_ts - newest) &
					       dev->ts.mask),
					      dev->clock_pending_ns);
		dev->clock_pending = false;
	}
	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
				  dev->decoder.format->size, data, len);
	for (;;) {
		int ret = gpm_oa_record_next(&rd, &rec);
		if (ret == 0)
			break;
		if (ret < 0) {
			if (ret == -EAGAIN)     /* a record continues later */
				return rd.offset;
			/* A malformed record: its size cannot be trusted, so
			 * nothing after it in this read can be either. */
			dev->stats.bad_records++;
			gpd_warn("%s: malformed OA record at byte %zu of a read (%s); "
				 "dropping the rest of the read",
				 dev->source->name, rd.offset, strerror(-ret));
			dev->have_prev = false;
			/* The flight recorder says so too: no delta may span
			 * what was dropped. */
			if (dev->ring)
				ring_record(dev, &buffer_lost_record, 0);
			return len;
		}
		switch (rec.type) {
		case GPM_OA_RECORD_SAMPLE:
			handle_sample(dev, &rec);
			break;
		case GPM_OA_RECORD_REPORT_LOST:
			handle_loss(dev, &rec, false);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			handle_loss(dev, &rec, true);
			break;
		default:
			break;
		}
	}
	return len;
}

static size_t consume_records(struct gpd_device *dev, const unsigned char *data,
			      size_t len)
{
	size_t used = read_records(dev, data, len);
	end_read(dev);
	return used;
}

static void deliver_records(struct gpd_device *dev, const void *data, size_t len)
{
	if (!dev->open)
		return;
	for (struct gpd_record_tap *t = dev->taps, *n; t; t = n) {
		n = t->next;
		t->records(t->user, data, len);
	}
	/* A tap's owner may have closed the stream. */
	if (!dev->open)
		return;
	const unsigned char *bytes = data;
	if (dev->partial_len) {
		/* Complete the split record first; records are at most 64 KiB. */
		size_t want = 65536 - dev->partial_len;
		size_t take = len < want ? len : want;
		memcpy(dev->partial + dev->partial_len, bytes, take);
		size_t have = dev->partial_len + take;
		size_t used = consume_records(dev, dev->partial, have);
		if (used <= dev->partial_len) {
			dev->partial_len = have;
			if (have == 65536)
				dev->partial_len = 0;   /* cannot be a record */
			return;
		}
		used -= dev->partial_len;
		dev->partial_len = 0;
		bytes += used;
		len -= used;
	}
	size_t used = consume_records(dev, bytes, len);
	if (used < len) {
		if (!dev->partial)
			dev->partial = malloc(65536);
		if (dev->partial && len - used <= 65536) {
			memcpy(dev->partial, bytes + used, len - used);
			dev->partial_len = len - used;
		}
	}
}

static void on_records(void *user, const void *data, size_t len)
{
	struct gpd_device *dev = user;
	gpd_device_dispatch_begin(dev);
	dev->read_ns = gpd_monotonic_ns();
	dev->read_has_sample = false;
	deliver_records(dev, data, len);
	/* The newest report was taken by the time it was read. */
	if (dev->open && dev->read_has_sample)
		gpd_clock_map_observe(&dev->clock, dev->read_newest_ts, dev->read_ns);
	gpd_device_dispatch_end(dev);
}

static void on_clock(void *user, uint64_t ts, uint64_t cpu_ns)
{
	struct gpd_device *dev = user;
	if (!dev->open)
		return;
	/* Before the stream's first report there is no time line to place
	 * ts on: the first read's newest report will give it. */
	if (!dev->ts.started) {
		dev->clock_pending = true;
		dev->clock_pending_ts = ts;
		dev->clock_pending_ns = cpu_ns;
		return;
	}
	/* The unit's clock only moved on from the newest report read. */
	uint64_t since_newest = (ts - dev->ts.last) & dev->ts.mask;
	gpd_clock_map_observe(&dev->clock, dev->ts.extended + since_newest, cpu_ns);
}

static void flush_subscribers(struct gpd_device *dev)
{
	for (struct gpd_device_subscriber *s = dev->subscribers; s; s = s->next)
		if (!s->dead)
			s->ops->flush(s);
	for (struct gpd_pair_sink *k = dev->sinks; k; k = k->next)
		if (!k->dead)
			k->ops->flush(k);
}

static void tell_subscribers(struct gpd_device *dev, enum gpd_event_kind kind,
			     const char *message)
{
	for (struct gpd_device_subscriber *s = dev->subscribers; s; s = s->next)
		if (!s->dead)
			s->ops->event(s, kind, message);
}

void gpd_device_announce(struct gpd_device *dev, enum gpd_event_kind kind,
			 const char *message)
{
	gpd_device_dispatch_begin(dev);
	tell_subscribers(dev, kind, message);
	gpd_device_dispatch_end(dev);
}

struct gpd_trigger_counts *gpd_device_trigger_counts(struct gpd_device *dev,
						     const char *expression)
{
	struct gpd_trigger_counts *c;
	for (c = dev->trigger_counts; c; c = c->next)
		if (!strcmp(c->expression, expression))
			break;
	if (!c && (c = calloc(1, sizeof(*c)))) {
		snprintf(c->expression, sizeof(c->expression), "%s", expression);
		c->next = dev->trigger_counts;
		dev->trigger_counts = c;
	}
	if (c)
		c->refs++;
	return c;
}

void gpd_device_trigger_counts_put(struct gpd_device *dev,
				   struct gpd_trigger_counts *counts)
{
	if (!counts || --counts->refs)
		return;
	for (struct gpd_trigger_counts **p = &dev->trigger_counts; *p;
	     p = &(*p)->next) {
		if (*p == counts) {
			*p = counts->next;
			break;
		}
	}
	free(counts);
}

static void on_source_event(void *user, enum gpd_event_kind kind,
			    const char *message)
{
	struct gpd_device *dev = user;
	gpd_device_dispatch_begin(dev);
	if (kind == GPD_EVENT_DEVICE_LOST || kind == GPD_EVENT_BUSY_ELSEWHERE ||
	    kind == GPD_EVENT_ENDED || kind == GPD_EVENT_RESTARTED) {
		flush_subscribers(dev);
		reset_decoding(dev);
	}
	gpd_info("%s: %s", dev->source->name, message);
	tell_subscribers(dev, kind, message);
	gpd_device_dispatch_end(dev);
}

/* One binding slot per set of metrics, made on first use. */
static int alloc_bindings(const struct gpm_metrics_file *metrics,
			  struct gpm_binding **bindings, bool **bound)
{
	size_t n = metrics->n_sets ? metrics->n_sets : 1;
	*bindings = calloc(n, sizeof(**bindings));
	*bound = calloc(n, sizeof(**bound));
	if (!*bindings || !*bound) {
		free(*bindings);
		free(*bound);
		return -ENOMEM;
	}
	return 0;
}

static void free_bindings(struct gpd_device *dev)
{
	for (size_t i = 0; i < dev->metrics->n_sets; i++)
		if (dev->bound[i])
			gpm_binding_fini(&dev->bindings[i]);
	free(dev->bindings);
	free(dev->bound);
}

/* Takes next_metrics when nothing holds a set or binding of the current
 * ones: subscribers, recordings (taps), the open stream, and a dispatch or
 * configuration under way (which may close the stream on its way to
 * reopening it with a set of the current ones). */
static void adopt_metrics(struct gpd_device *dev)
{
	if (!dev->next_metrics || dev->open || dev->subscribers || dev->taps ||
	    dev->dispatching || dev->closing ||
	    (dev->owner.stopping && dev->owner.stopping(dev->owner.user)))
		return;
	struct gpm_binding *bindings;
	bool *bound;
	if (alloc_bindings(dev->next_metrics, &bindings, &bound)) {
		gpd_warn("%s: out of memory taking the reloaded metric "
			 "definitions; keeping the previous ones",
			 dev->source->name);
		dev->next_metrics = NULL;
		return;
	}
	free_bindings(dev);
	dev->bindings = bindings;
	dev->bound = bound;
	dev->metrics = dev->next_metrics;
	dev->next_metrics = NULL;
	dev->set = NULL;
	dev->binding = NULL;
	if (dev->source->ops->forget_sets)
		dev->source->ops->forget_sets(dev->source);
	gpd_info("%s: using the reloaded metric definitions (%zu sets)",
		 dev->source->name, dev->metrics->n_sets);
	if (dev->owner.metrics_adopted)
		dev->owner.metrics_adopted(dev->owner.user, dev);
}

void gpd_device_replace_metrics(struct gpd_device *dev,
				const struct gpm_metrics_file *metrics)
{
	dev->next_metrics = metrics;
	adopt_metrics(dev);
	if (dev->next_metrics)
		gpd_info("%s: busy; it takes the reloaded metric definitions "
			 "when its stream next closes", dev->source->name);
}

int gpd_device_init(struct gpd_device *dev, uv_loop_t *loop,
		    struct gpd_source *source,
		    const struct gpm_metrics_file *metrics, uint64_t linger_ms,
		    const struct gpd_device_owner *owner)
{
	memset(dev, 0, sizeof(*dev));
	dev->loop = loop;
	dev->owner = *owner;
	dev->source = source;
	dev->metrics = metrics;
	dev->linger_ms = linger_ms;
	dev->ctx_fd = -1;
	gpm_device_vars_init(&dev->vars, &source->info);
	dev->shape = (struct gpd_stream_shape){
		.format = source->format,
		.timestamp_frequency = source->info.timestamp_frequency,
	};
	int ret = gpm_oa_decoder_init(&dev->decoder, source->format,
				      source->info.graphics_version);
	if (ret)
		return ret;
	ret = alloc_bindings(metrics, &dev->bindings, &dev->bound);
	if (ret)
		return ret;
	uv_timer_init(loop, &dev->linger_timer);
	dev->linger_timer.data = dev;
	source->listener.records = on_records;
	source->listener.clock = on_clock;
	source->listener.event = on_source_event;
	source->listener.user = dev;
	reset_decoding(dev);
	return 0;
}

const struct gpm_metric_set *gpd_device_find_set(const struct gpd_device *dev,
						 const char *name)
{
	return gpm_metrics_file_find_set(dev->metrics, name);
}

const struct gpm_metric_set *gpd_device_default_set(const struct gpd_device *dev)
{
	if (dev->source->fixed_metric_set)
		return gpd_device_find_set(dev, dev->source->fixed_metric_set);
	const struct gpm_metric_set *set = gpd_device_find_set(dev, "RenderBasic");
	if (set)
		return set;
	return dev->metrics->n_sets ? &dev->metrics->sets[0] : NULL;
}

const struct gpm_binding *gpd_device_binding(struct gpd_device *dev,
					     const struct gpm_metric_set *set)
{
	size_t i = (size_t)(set - dev->metrics->sets);
	if (i >= dev->metrics->n_sets)
		return NULL;
	if (!dev->bound[i]) {
		/* Equations turn ticks into time with $GpuTimestampFrequency:
		 * the clock of the unit the set counts on. */
		struct gpm_device_vars vars = dev->vars;
		struct gpd_stream_shape shape;
		struct gpd_error err;
		if (!gpd_source_shape(dev->source, set, &shape, &err))
			vars.value[GPM_VAR_GPU_TIMESTAMP_FREQUENCY] =
				shape.timestamp_frequency;
		if (gpm_binding_init(&dev->bindings[i], set, &vars))
			return NULL;
		dev->bound[i] = true;
	}
	return &dev->bindings[i];
}

static void stop_stream(struct gpd_device *dev)
{
	if (!dev->open)
		return;
	gpd_device_dispatch_begin(dev);
	flush_subscribers(dev);
	gpd_device_dispatch_end(dev);
	if (!dev->open)
		return;
	dev->source->ops->close(dev->source);
	dev->open = false;
	gpd_info("%s: stream closed", dev->source->name);
	adopt_metrics(dev);
}

/* The passed DRM file is held for its stream only. */
static void drop_context(struct gpd_device *dev)
{
	if (!dev->ctx_filter)
		return;
	close(dev->ctx_fd);
	dev->ctx_filter = false;
	dev->ctx_fd = -1;
}

static void stream_config(const struct gpd_device *dev,
			  struct gpd_stream_config *cfg)
{
	*cfg = (struct gpd_stream_config){
		.set = dev->set,
		.binding = dev->binding,
		.exponent = dev->exponent,
		.ctx_filter = dev->ctx_filter,
		.ctx_fd = dev->ctx_fd,
		.ctx_handle = dev->ctx_handle,
	};
}

/* The source refused a new configuration after the old one's stream had
 * closed: its subscribers get the old one back, or are told it is gone. */
static void reopen_previous(struct gpd_device *dev)
{
	if (dev->open || !dev->subscribers)
		return;
	struct gpd_stream_config cfg;
	stream_config(dev, &cfg);
	struct gpd_error err = { 0 };
	if (!dev->source->ops->open(dev->source, &cfg, &err)) {
		reset_decoding(dev);
		dev->open = true;
		return;
	}
	gpd_warn("%s: cannot go back to %s after a refused reconfiguration: %s",
		 dev->source->name, dev->set->symbol_name, err.message);
	tell_subscribers(dev, GPD_EVENT_DEVICE_LOST, err.message);
}

static bool same_context(const struct gpd_device *dev,
			 const struct gpd_device_context *ctx)
{
	return ctx ? dev->ctx_filter && dev->ctx_fd == ctx->fd &&
		     dev->ctx_handle == ctx->handle : !dev->ctx_filter;
}

static int configure(struct gpd_device *dev, const struct gpm_metric_set *set,
		     unsigned exponent, const struct gpd_device_context *ctx,
		     struct gpd_error *err)
{
	const struct gpm_binding *binding = gpd_device_binding(dev, set);
	if (!binding) {
		err->code = -ENOMEM;
		snprintf(err->message, sizeof(err->message),
			 "out of memory binding %s", set->symbol_name);
		return err->code;
	}
	struct gpd_stream_config cfg = {
		.set = set,
		.binding = binding,
		.exponent = exponent,
		.ctx_filter = ctx != NULL,
		.ctx_fd = ctx ? ctx->fd : -1,
		.ctx_handle = ctx ? ctx->handle : 0,
	};
	uv_timer_stop(&dev->linger_timer);
	bool same_filter = same_context(dev, ctx);
	if (dev->open && dev->set == set && dev->exponent == exponent &&
	    same_filter)
		return 0;
	struct gpd_stream_shape shape;
	int ret = gpd_source_shape(dev->source, set, &shape, err);
	if (ret)
		return ret;

	ret = -EOPNOTSUPP;
	if (dev->open) {
		flush_subscribers(dev);
		/* Another context, or none, is another stream. */
		if (dev->source->ops->reconfigure && same_filter)
			ret = dev->source->ops->reconfigure(dev->source, &cfg, err);
		if (ret == -EOPNOTSUPP)
			stop_stream(dev);
		else if (ret)
			return ret;
		dev->stats.reconfigurations++;
	}
	if (ret) {
		ret = dev->source->ops->open(dev->source, &cfg, err);
		if (ret) {
			reopen_previous(dev);
			return ret;
		}
	}
	/* Reports of another unit (a media set's OAM unit) have their own
	 * layout and clock. */
	if (shape.format != dev->shape.format &&
	    gpm_oa_decoder_init(&dev->decoder, shape.format,
				dev->source->info.graphics_version))
		gpd_warn("%s: no decoder for %s's reports", dev->source->name,
			 set->symbol_name);
	dev->shape = shape;
	reset_decoding(dev);
	dev->open = true;
	dev->set = set;
	dev->binding = binding;
	dev->exponent = exponent;
	if (!same_filter) {
		drop_context(dev);
		dev->ctx_filter = ctx != NULL;
		dev->ctx_fd = ctx ? ctx->fd : -1;
		dev->ctx_handle = ctx ? ctx->handle : 0;
	}
	if (dev->ctx_filter)
		gpd_info("%s: streaming %s every %llu ns, of context %u only",
			 dev->source->name, set->symbol_name,
			 (unsigned long long)gpd_device_period_ns(dev, exponent),
			 dev->ctx_handle);
	else
		gpd_info("%s: streaming %s every %llu ns", dev->source->name,
			 set->symbol_name,
			 (unsigned long long)gpd_device_period_ns(dev, exponent));
	return 0;
}

int gpd_device_configure(struct gpd_device *dev,
			 const struct gpm_metric_set *set, unsigned exponent,
			 const struct gpd_device_context *ctx,
			 struct gpd_error *err)
{
	gpd_device_dispatch_begin(dev);
	int ret = configure(dev, set, exponent, ctx, err);
	gpd_device_dispatch_end(dev);
	return ret;
}

static void unlink_sink(struct gpd_device *dev, struct gpd_pair_sink *sink)
{
	for (struct gpd_pair_sink **p = &dev->sinks; *p; p = &(*p)->next) {
		if (*p == sink) {
			*p = sink->next;
			break;
		}
	}
}

/* Unlinks and releases the subscribers and sinks dropped during a
 * dispatch. */
static void reap_subscribers(struct gpd_device *dev)
{
	while (dev->have_dead && !dev->dispatching) {
		dev->have_dead = false;
		for (struct gpd_pair_sink **p = &dev->sinks; *p;) {
			struct gpd_pair_sink *k = *p;
			if (k->dead) {
				*p = k->next;
				k->ops->release(k);
			} else {
				p = &k->next;
			}
		}
		struct gpd_device_subscriber *dead = NULL;
		for (struct gpd_device_subscriber **p = &dev->subscribers; *p;) {
			struct gpd_device_subscriber *s = *p;
			if (s->dead) {
				*p = s->next;
				dev->n_subscribers--;
				s->next = dead;
				dead = s;
			} else {
				p = &s->next;
			}
		}
		while (dead) {
			struct gpd_device_subscriber *next = dead->next;
			dead->ops->release(dead);
			dead = next;
		}
		/* May close the stream, whose last frames may make more
		 * subscribers leave: hence the loop. */
		gpd_device_release_if_idle(dev);
	}
}

void gpd_device_dispatch_begin(struct gpd_device *dev)
{
	dev->dispatching++;
}

void gpd_device_dispatch_end(struct gpd_device *dev)
{
	if (--dev->dispatching)
		return;
	if (dev->have_dead)
		reap_subscribers(dev);
	adopt_metrics(dev);
}

/* Correlation points lie this far apart in GPU time: a snapshot's span
 * is cut at reports, placed from the point before them. */
#define RING_CORRELATION_NS 10000000ull

const char *gpd_device_i915perf_misfit(const struct gpd_device *dev)
{
	const struct gpm_platform *p = dev->source->platform;
	if (p->i915_oa_format)
		return NULL;
	/* Only Intel's platforms have a graphics IP version. */
	if (!p->graphics_version)
		return "is not an Intel GPU; IGT's i915 perf format holds only "
		       "Intel OA reports";
	return "has reports of a format only xe reads; IGT's i915 perf "
	       "format holds only OA reports of i915's formats";
}

int gpd_device_keep_flight_recorder(struct gpd_device *dev, uint64_t bytes,
				    uint64_t asked_ns, struct gpd_error *err)
{
	if (dev->ring)
		return gpd_fail(err, -EEXIST, "device %s already keeps a flight "
			    "recorder", dev->source->name);
	const char *misfit = gpd_device_i915perf_misfit(dev);
	if (misfit)
		return gpd_fail(err, -EOPNOTSUPP, "device %s %s, the format of "
			    "the flight recorder's snapshots; record it with "
			    "gpuperf record --format perfetto",
			    dev->source->name, misfit);
	if (bytes < GPD_FLIGHT_RECORDER_MIN_BYTES)
		return gpd_fail(err, -EINVAL, "a flight recorder of %llu bytes "
			    "is too small; give at least %u",
			    (unsigned long long)bytes, GPD_FLIGHT_RECORDER_MIN_BYTES);
	struct gpd_flight_recorder *fr = malloc(sizeof(*fr));
	int ret = fr ? gpd_flight_recorder_init(fr, bytes,
				gpd_device_ns_to_ticks(dev, RING_CORRELATION_NS))
		     : -ENOMEM;
	if (ret) {
		free(fr);
		return gpd_fail(err, ret, "cannot keep a flight recorder of %llu "
			    "bytes for device %s: %s", (unsigned long long)bytes,
			    dev->source->name, strerror(-ret));
	}
	fr->stats.asked_ns = asked_ns;
	dev->ring = fr;
	return 0;
}

void gpd_device_unit_info(const struct gpd_device *dev,
			  uint64_t timestamp_frequency,
			  struct gpm_device_info *out)
{
	*out = dev->source->info;
	if (timestamp_frequency)
		out->timestamp_frequency = timestamp_frequency;
}

void gpd_device_recording_info(const struct gpd_device *dev,
			       const char *metric_set, const char *guid,
			       struct gpm_recording_info *info)
{
	memset(info, 0, sizeof(*info));
	info->device = dev->source->info;
	info->oa_format = dev->source->platform->i915_oa_format;
	snprintf(info->metric_set, sizeof(info->metric_set), "%s", metric_set);
	snprintf(info->uuid, sizeof(info->uuid), "%s", guid);
}

void gpd_device_add_tap(struct gpd_device *dev, struct gpd_record_tap *tap)
{
	tap->next = dev->taps;
	dev->taps = tap;
}

void gpd_device_remove_tap(struct gpd_device *dev, struct gpd_record_tap *tap)
{
	for (struct gpd_record_tap **p = &dev->taps; *p; p = &(*p)->next) {
		if (*p == tap) {
			*p = tap->next;
			break;
		}
	}
	adopt_metrics(dev);
}

void gpd_device_add_subscriber(struct gpd_device *dev,
			       struct gpd_device_subscriber *sub)
{
	sub->next = dev->subscribers;
	dev->subscribers = sub;
	dev->n_subscribers++;
	uv_timer_stop(&dev->linger_timer);
}

static void on_linger_expired(uv_timer_t *timer)
{
	struct gpd_device *dev = timer->data;
	if (!dev->subscribers) {
		stop_stream(dev);
		drop_context(dev);
	}
}

void gpd_device_drop_subscriber(struct gpd_device *dev,
				struct gpd_device_subscriber *sub)
{
	if (dev->dispatching) {
		/* Called back from the device: loops and frames in flight
		 * still hold sub; the dispatch's end releases it. */
		sub->dead = true;
		dev->have_dead = true;
		return;
	}
	for (struct gpd_device_subscriber **p = &dev->subscribers; *p;
	     p = &(*p)->next) {
		if (*p == sub) {
			*p = sub->next;
			dev->n_subscribers--;
			break;
		}
	}
	gpd_device_release_if_idle(dev);
	sub->ops->release(sub);
}

void gpd_device_add_sink(struct gpd_device *dev, struct gpd_pair_sink *sink)
{
	sink->dead = false;
	sink->next = dev->sinks;
	dev->sinks = sink;
}

void gpd_device_pairs_in_sink(struct gpd_device *dev,
			      struct gpd_device_subscriber *sub, bool in_sink)
{
	/* Counted while set, linked or not: a subscriber leaves its sink
	 * when it is released, after it was unlinked. */
	if (sub->pairs_in_sink != in_sink)
		dev->n_pairs_in_sink += in_sink ? 1u : (unsigned)-1;
	sub->pairs_in_sink = in_sink;
}

void gpd_device_drop_sink(struct gpd_device *dev, struct gpd_pair_sink *sink)
{
	if (dev->dispatching) {
		sink->dead = true;
		dev->have_dead = true;
		return;
	}
	unlink_sink(dev, sink);
	sink->ops->release(sink);
}

static bool only_passive_left(const struct gpd_device *dev)
{
	for (const struct gpd_device_subscriber *s = dev->subscribers; s;
	     s = s->next)
		if (!s->dead && !s->passive)
			return false;
	return true;
}

void gpd_device_release_if_idle(struct gpd_device *dev)
{
	/* One application's context is streamed for the client that passed
	 * it, and for nobody after it: no lingering, and passive
	 * subscribers (which follow what runs) do not keep it. */
	if (dev->ctx_filter && only_passive_left(dev) && !dev->dispatching) {
		stop_stream(dev);
		drop_context(dev);
	}
	if (!dev->subscribers && dev->open && !dev->closing) {
		if (dev->linger_ms)
			uv_timer_start(&dev->linger_timer, on_linger_expired,
				       dev->linger_ms, 0);
		else
			stop_stream(dev);
	} else if (dev->subscribers && !dev->closing && only_passive_left(dev)) {
		for (struct gpd_device_subscriber *s = dev->subscribers, *n; s;
		     s = n) {
			n = s->next;
			if (!s->dead && s->ops->others_left)
				s->ops->others_left(s);
		}
	}
	adopt_metrics(dev);
}

static void on_linger_closed(uv_handle_t *handle)
{
	struct gpd_device *dev = handle->data;
	if (dev->ring) {
		gpd_flight_recorder_fini(dev->ring);
		free(dev->ring);
	}
	free_bindings(dev);
	free(dev->partial);
	while (dev->trigger_counts) {
		struct gpd_trigger_counts *c = dev->trigger_counts;
		dev->trigger_counts = c->next;
		free(c);
	}
	free(dev);
}

int gpd_device_set_usage_source(struct gpd_device *dev,
				struct gpd_usage_source *source)
{
	return gpd_usage_monitor_create(dev->loop, source, &dev->usage);
}

void gpd_device_no_usage_reason(const struct gpd_device *dev, char *buf,
				size_t size)
{
	snprintf(buf, size, "device %s has no usage stream: a %s has no "
		 "engines, clocks or processes", dev->source->name,
		 gpd_source_kind_name(dev->source->kind));
}

void gpd_device_close(struct gpd_device *dev)
{
	dev->closing = true;
	gpd_device_dispatch_begin(dev);
	tell_subscribers(dev, GPD_EVENT_DEVICE_LOST,
			 "the daemon is shutting down");
	/* Within the dispatch these only mark; its end releases them all. */
	for (struct gpd_device_subscriber *s = dev->subscribers; s; s = s->next)
		gpd_device_drop_subscriber(dev, s);
	gpd_device_dispatch_end(dev);
	stop_stream(dev);
	drop_context(dev);
	gpd_usage_monitor_close(dev->usage);
	dev->usage = NULL;
	dev->source->ops->destroy(dev->source);
	dev->source = NULL;
	uv_timer_stop(&dev->linger_timer);
	uv_close((uv_handle_t *)&dev->linger_timer, on_linger_closed);
}
