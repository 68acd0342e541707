/*
 * Draining an OA stream fd on the loop: uv_poll wakes us when the kernel
 * says reports are ready, and non-blocking read()s take everything there
 * is. Shared by the i915 and xe sources; what the bytes mean and what an
 * error means is theirs.
 */
#ifndef GPD_DRM_OA_PUMP_H
#define GPD_DRM_OA_PUMP_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

struct gpd_oa_pump;

struct gpd_oa_pump_ops {
	/* What one read() returned. May stop the pump. */
	void (*data)(void *user, const unsigned char *buf, size_t len);
	/* read() failed with code, a negative errno other than -EAGAIN and
	 * -EINTR. Return true
	 * to read on, false to wait for the next wake-up. May stop the pump
	 * (then the return value does not matter). */
	bool (*error)(void *user, int code);
};

/* Starts polling fd, which the pump then owns. 0 or a negative errno;
 * on failure fd is left open for the caller. */
int gpd_oa_pump_start(uv_loop_t *loop, int fd, const struct gpd_oa_pump_ops *ops,
		      void *user, struct gpd_oa_pump **out);

/* Stops polling and closes the fd; the pump frees itself once the loop
 * lets go of it. Safe from inside a callback. */
void gpd_oa_pump_stop(struct gpd_oa_pump *pump);

/* Reads what the fd has now, as a wake-up would. */
void gpd_oa_pump_drain(struct gpd_oa_pump *pump);

/* The fd, for the stream's own ioctls. */
int gpd_oa_pump_fd(const struct gpd_oa_pump *pump);

#endif
