/*
 * Getting a lost OA stream back: when the kernel stops a stream, or the
 * OA unit stops writing reports (a GPU reset), the source tells its
 * listener, retries the open with backoff, says so again when the stream
 * is back, and marks the gap with a BUFFER_LOST record: the reports in
 * between are gone.
 */
#ifndef GPD_DRM_OA_REOPEN_H
#define GPD_DRM_OA_REOPEN_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/source.h"

struct gpd_oa_reopen {
	uv_timer_t timer;
	struct gpd_source *source;
	/* Opens the stream again with what ran before: 0, or a negative
	 * code with err filled. */
	int (*reopen)(struct gpd_source *source, struct gpd_error *err);
	void (*closed)(struct gpd_source *source);
	uint64_t delay_ms;
	uint64_t lost_at_ns;
	bool told_busy;
	/* Bumped by cancel, so that a retry knows when the listener closed
	 * the stream from inside an event. */
	unsigned generation;
};

void gpd_oa_reopen_init(struct gpd_oa_reopen *r, struct gpd_source *source,
			int (*reopen)(struct gpd_source *source,
				      struct gpd_error *err));

/* The stream died (its fd is closed) for the reason why, words for the
 * listener: tells it and starts retrying. */
void gpd_oa_reopen_start(struct gpd_oa_reopen *r, const char *why);

/* Stops retrying: the stream is being closed. */
void gpd_oa_reopen_cancel(struct gpd_oa_reopen *r);

/* Releases the timer; closed(source) runs once the loop has let go. */
void gpd_oa_reopen_fini(struct gpd_oa_reopen *r,
			void (*closed)(struct gpd_source *source));

#endif
