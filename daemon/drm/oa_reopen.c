/*
 * Reopening lost OA streams with backoff: 100 ms, doubling up to 5 s.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/drm/oa_reopen.h"
#include "daemon/log.h"
#include "metrics/little_endian.h"
#include "metrics/oa_record.h"

#define REOPEN_FIRST_DELAY_MS 100
#define REOPEN_MAX_DELAY_MS 5000

void gpd_oa_reopen_init(struct gpd_oa_reopen *r, struct gpd_source *source,
			int (*reopen)(struct gpd_source *source,
				      struct gpd_error *err))
{
	memset(r, 0, sizeof(*r));
	r->source = source;
	r->reopen = reopen;
	uv_timer_init(source->loop, &r->timer);
	r->timer.data = r;
}

static void tell(struct gpd_oa_reopen *r, enum gpd_event_kind kind,
		 const char *message)
{
	struct gpd_source_listener *l = &r->source->listener;
	l->event(l->user, kind, message);
}

static void on_retry(uv_timer_t *timer);

static void schedule(struct gpd_oa_reopen *r)
{
	uv_timer_start(&r->timer, on_retry, r->delay_ms, 0);
	r->delay_ms *= 2;
	if (r->delay_ms > REOPEN_MAX_DELAY_MS)
		r->delay_ms = REOPEN_MAX_DELAY_MS;
}

static void deliver_buffer_lost(struct gpd_oa_reopen *r)
{
	unsigned char rec[GPM_OA_RECORD_HEADER_SIZE];
	gpm__le32_store(rec, GPM_OA_RECORD_BUFFER_LOST);
	gpm__le16_store(rec + 4, 0);
	gpm__le16_store(rec + 6, GPM_OA_RECORD_HEADER_SIZE);
	struct gpd_source_listener *l = &r->source->listener;
	l->records(l->user, rec, sizeof(rec));
}

static void on_retry(uv_timer_t *timer)
{
	struct gpd_oa_reopen *r = timer->data;
	const char *name = r->source->name;
	struct gpd_error err = { 0 };
	unsigned generation = r->generation;
	int ret = r->reopen(r->source, &err);
	if (ret) {
		if (ret == -EBUSY && !r->told_busy) {
			r->told_busy = true;
			tell(r, GPD_EVENT_BUSY_ELSEWHERE, err.message);
		} else {
			gpd_debug("%s: reopening the OA stream failed: %s", name,
				  err.message);
		}
		if (generation == r->generation)
			schedule(r);
		return;
	}
	char message[160];
	snprintf(message, sizeof(message),
		 "OA stream reopened after %llu ms; the reports in between "
		 "are lost",
		 (unsigned long long)((gpd_monotonic_ns() - r->lost_at_ns) / 1000000));
	tell(r, GPD_EVENT_RECOVERED, message);
	if (generation == r->generation)
		deliver_buffer_lost(r);
}

void gpd_oa_reopen_start(struct gpd_oa_reopen *r, const char *why)
{
	unsigned generation = r->generation;
	r->lost_at_ns = gpd_monotonic_ns();
	r->delay_ms = REOPEN_FIRST_DELAY_MS;
	r->told_busy = false;
	/* Whoever passes the event on names the device. */
	tell(r, GPD_EVENT_DEVICE_LOST, why);
	if (generation == r->generation)
		schedule(r);
}

void gpd_oa_reopen_cancel(struct gpd_oa_reopen *r)
{
	r->generation++;
	uv_timer_stop(&r->timer);
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct gpd_oa_reopen *r = handle->data;
	r->closed(r->source);
}

void gpd_oa_reopen_fini(struct gpd_oa_reopen *r,
			void (*closed)(struct gpd_source *source))
{
	gpd_oa_reopen_cancel(r);
	r->closed = closed;
	uv_close((uv_handle_t *)&r->timer, on_timer_closed);
}
