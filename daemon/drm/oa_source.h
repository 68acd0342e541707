/*
 * What the i915 and xe sources share: the card they opened and checked,
 * the metric set ids they added, the stream's pump, and the reopening
 * after the kernel stops a stream. Each driver's source embeds this first
 * and adds what its uAPI needs.
 */
#ifndef GPD_DRM_OA_SOURCE_H
#define GPD_DRM_OA_SOURCE_H

#include <limits.h>
#include <stdint.h>

#include "daemon/drm/card.h"
#include "daemon/drm/oa_configs.h"
#include "daemon/drm/oa_pump.h"
#include "daemon/drm/oa_refusal.h"
#include "daemon/drm/oa_reopen.h"
#include "daemon/error.h"
#include "daemon/source.h"

struct gpd_drm_oa_source {
	struct gpd_source base;
	int card_fd;
	char node[PATH_MAX];
	char card_dir[PATH_MAX];
	char sysfs_root[PATH_MAX];
	struct gpd_oa_configs configs;
	struct gpd_oa_pump *pump;
	struct gpd_stream_config cfg;   /* what runs, or ran before a loss */
	uint64_t set_id;
	struct gpd_oa_reopen reopen;
	bool reopening;                 /* opening again after a loss */
	/* Neither kernel tells a stream of a GPU reset, which leaves the OA
	 * unit unprogrammed: the stream stays open and no report comes.
	 * Both keep RC6 off while a stream is open, so a periodic stream
	 * writes reports busy or idle; silence this long is a stopped unit. */
	uv_timer_t watchdog;
	uint64_t silence_ms;
	uint64_t reads;                 /* reads that returned records */
	void (*free_source)(struct gpd_source *);
	/* The driver's: opens cfg's stream and hands its fd to
	 * gpd_drm_oa_source_start(). */
	int (*open_stream)(struct gpd_drm_oa_source *s,
			   const struct gpd_stream_config *cfg,
			   struct gpd_error *err);
};

/*
 * Opens node, checks that driver drives it and finds its sysfs directory;
 * names the source after the card. 0, or the error in words with nothing
 * left open.
 */
int gpd_drm_oa_source_open_card(struct gpd_drm_oa_source *s, const char *node,
				const char *driver,
				const struct gpd_drm_roots *roots,
				struct gpd_error *err);

/*
 * Finishes a source whose card is open and whose info, platform and format
 * the driver has filled in: its ops and kind, the metric set ids it adds
 * through config_ops (user: the source) and the reopening after a loss,
 * which calls open_stream again with what ran.
 */
void gpd_drm_oa_source_ready(struct gpd_drm_oa_source *s, uv_loop_t *loop,
			     const struct gpd_source_ops *ops,
			     enum gpd_source_kind kind,
			     const struct gpd_oa_config_ops *config_ops,
			     int (*open_stream)(struct gpd_drm_oa_source *s,
						const struct gpd_stream_config *cfg,
						struct gpd_error *err));

/* The request as the refusal messages describe it: kind and the format
 * property as the driver's uAPI spells them, and the context filter. */
void gpd_drm_oa_source_request(const struct gpd_drm_oa_source *s,
			       enum gpd_source_kind kind,
			       uint64_t format_property,
			       const struct gpd_stream_config *cfg,
			       uint64_t set_id, struct gpd_oa_request *req);

/* Starts reading the stream fd (non-blocking from here on) and keeps cfg
 * and set_id as what runs. A stream from which no record comes for
 * silence_ms (at least a second) is taken for stopped and reopened. 0, or
 * the error in words (fd closed). */
int gpd_drm_oa_source_start(struct gpd_drm_oa_source *s, int fd,
			    const struct gpd_oa_pump_ops *ops,
			    const struct gpd_stream_config *cfg,
			    uint64_t set_id, uint64_t silence_ms,
			    struct gpd_error *err);

/* A read returned records: the stream lives. */
void gpd_drm_oa_source_records_came(struct gpd_drm_oa_source *s);

/* The kernel stopped the stream (read() failed with code): stop reading
 * and reopen with backoff. */
void gpd_drm_oa_source_lost(struct gpd_drm_oa_source *s, int code);

/* The source ops open and close, as both drivers have them: open_stream,
 * and the configs it added removed again when it fails; close: no
 * reopening, no reading, the configs it added removed. */
int gpd_drm_oa_source_open(struct gpd_source *src,
			   const struct gpd_stream_config *cfg,
			   struct gpd_error *err);
void gpd_drm_oa_source_close(struct gpd_source *src);

/* The source op check_drm_fd: fd is a node of this card's device. */
int gpd_drm_oa_source_check_fd(struct gpd_source *src, int fd,
			       struct gpd_error *err);

/* Closes, then lets go of the card; free_source frees the source's memory
 * once nothing (a reopen timer) refers to it any more. */
void gpd_drm_oa_source_destroy(struct gpd_drm_oa_source *s,
			       void (*free_source)(struct gpd_source *));

#endif
