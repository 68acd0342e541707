/*
 * NVIDIA samples to NVPM32u64 records (see report_builder.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "daemon/nvidia/report_builder.h"
#include "metrics/accumulator.h"
#include "metrics/oa_record.h"

/* How far, as a fraction of its length, a sample may start from the
 * last one's end and still continue it. */
#define JITTER_FRACTION 16

int gpd_nv_report_builder_init(struct gpd_nv_report_builder *b,
			       const unsigned *slots, unsigned n_counters,
			       uint64_t timestamp_frequency)
{
	const struct gpm_oa_format *fmt;
	memset(b, 0, sizeof(*b));
	if (n_counters > GPD_NV_MAX_COUNTERS || !timestamp_frequency ||
	    gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &fmt) ||
	    gpm_oa_decoder_init(&b->encoder, fmt, 0))
		return -EINVAL;
	for (unsigned i = 0; i < n_counters; i++) {
		bool in_format = slots[i] == GPM_ACC_GPU_CLOCK ||
				 (slots[i] >= GPM_ACC_PEC &&
				  slots[i] < GPM_ACC_PEC + 32);
		if (!in_format)
			return -EINVAL;
		b->slot[i] = slots[i];
	}
	b->n_counters = n_counters;
	b->timestamp_frequency = timestamp_frequency;
	b->need_start = true;
	b->skip_next = true;
	return 0;
}

void gpd_nv_report_builder_restart(struct gpd_nv_report_builder *b,
				   int64_t clock_offset_ns)
{
	b->clock_offset_ns = clock_offset_ns;
	b->skip_next = true;
	b->need_start = true;
	b->have_last = false;
}

size_t gpd_nv_report_builder_loss(struct gpd_nv_report_builder *b,
				  unsigned char *out)
{
	gpm_oa_record_put_header(out, GPM_OA_RECORD_BUFFER_LOST,
				 GPM_OA_RECORD_HEADER_SIZE);
	b->stats.losses++;
	b->need_start = true;
	return GPM_OA_RECORD_HEADER_SIZE;
}

/* A CLOCK_REALTIME time as ticks of the daemon's monotonic clock. */
static uint64_t ticks_of(const struct gpd_nv_report_builder *b,
			 uint64_t realtime_ns)
{
	int64_t mono = (int64_t)realtime_ns + b->clock_offset_ns;
	if (mono < 0)
		mono = 0;
	return (uint64_t)((unsigned __int128)(uint64_t)mono *
			  b->timestamp_frequency / 1000000000u);
}

static size_t put_report(struct gpd_nv_report_builder *b, uint64_t realtime_ns,
			 unsigned char *out)
{
	const struct gpm_oa_format *fmt = b->encoder.format;
	struct gpm_oa_report *r = &b->report;

	memset(r, 0, sizeof(*r));
	/* PM sampling counts the whole GPU: no context is running. */
	r->ctx_id = GPM_OA_CTX_NONE;
	r->ctx_valid = true;
	r->value[GPM_ACC_GPU_TIME] = ticks_of(b, realtime_ns);
	for (unsigned i = 0; i < b->n_counters; i++)
		r->value[b->slot[i]] = b->total[i];
	gpm_oa_record_put_header(out, GPM_OA_RECORD_SAMPLE,
				 (uint16_t)(GPM_OA_RECORD_HEADER_SIZE + fmt->size));
	gpm_oa_report_encode(&b->encoder, r, out + GPM_OA_RECORD_HEADER_SIZE,
			     fmt->size);
	return GPM_OA_RECORD_HEADER_SIZE + fmt->size;
}

static void add_counts(struct gpd_nv_report_builder *b, const double *values)
{
	for (unsigned i = 0; i < b->n_counters; i++) {
		/* A counter never runs backwards; NaN and negatives are
		 * evaluation failures, counted as nothing. */
		double v = values[i] > 0 ? values[i] : 0;
		v += b->fraction[i];
		double whole = floor(v);
		if (whole >= 18446744073709551616.0)
			whole = 0;
		b->fraction[i] = v - whole;
		b->total[i] += (uint64_t)whole;
	}
}

size_t gpd_nv_report_builder_add(struct gpd_nv_report_builder *b,
				 const struct gpd_nv_sample *s,
				 unsigned char *out)
{
	size_t n = 0;

	if (s->end_ns <= s->start_ns) {
		b->stats.out_of_order++;
		return 0;
	}
	if (b->skip_next) {
		b->skip_next = false;
		b->stats.setup_samples++;
		b->have_last = true;
		b->last_end_ns = s->end_ns;
		return 0;
	}
	/* Every few seconds a sample starts a little off the last one's end,
	 * by far less than a sample: the clock, not lost time. */
	uint64_t slack = (s->end_ns - s->start_ns) / JITTER_FRACTION;
	if (b->have_last && s->start_ns + slack < b->last_end_ns) {
		b->stats.out_of_order++;
		return 0;
	}
	if (b->have_last && s->start_ns > b->last_end_ns + slack) {
		b->stats.gaps++;
		b->stats.gap_ns += s->start_ns - b->last_end_ns;
		n += gpd_nv_report_builder_loss(b, out);
	} else if (b->have_last && s->start_ns != b->last_end_ns) {
		b->stats.jitter++;
	}
	if (b->need_start) {
		n += put_report(b, s->start_ns, out + n);
		b->need_start = false;
	}
	add_counts(b, s->values);
	n += put_report(b, s->end_ns, out + n);
	b->stats.reports++;
	b->have_last = true;
	b->last_end_ns = s->end_ns;
	return n;
}
