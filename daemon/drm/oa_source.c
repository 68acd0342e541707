/*
 * The shared part of the DRM OA sources (see oa_source.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/drm/oa_source.h"

int gpd_drm_oa_source_open_card(struct gpd_drm_oa_source *s, const char *node,
				const char *driver,
				const struct gpd_drm_roots *roots,
				struct gpd_error *err)
{
	snprintf(s->base.name, sizeof(s->base.name), "%s", gpd_drm_card_name(node));
	snprintf(s->node, sizeof(s->node), "%s", node);
	int ret = gpd_drm_card_open(node, &s->card_fd);
	if (ret)
		return gpd_fail(err, ret, "cannot open %s: %s%s", node,
				strerror(-ret), ret == -EACCES ?
				"; gpuperfd needs read-write access to the "
				"card (the 'render' or 'video' group)" : "");
	char driven_by[32];
	ret = gpd_drm_card_driver(s->card_fd, driven_by, sizeof(driven_by));
	if (!ret && strcmp(driven_by, driver))
		ret = gpd_fail(err, -ENODEV, "%s is driven by %s, not %s; "
			       "use --device %s:%s", node, driven_by, driver,
			       driven_by, node);
	else if (ret)
		ret = gpd_fail(err, ret, "%s is not a DRM device (%s)", node,
			       strerror(-ret));
	if (!ret && (ret = gpd_drm_card_sysfs_dir(s->card_fd, roots->sysfs,
						  s->card_dir, sizeof(s->card_dir))))
		gpd_fail(err, ret, "%s: no sysfs directory under %s: %s",
			 node, roots->sysfs, strerror(-ret));
	if (!ret)
		gpd_drm_card_pdev(s->card_dir, s->base.device_id,
				  sizeof(s->base.device_id));
	if (ret)
		close(s->card_fd);
	snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", roots->sysfs);
	return ret;
}

int gpd_drm_oa_source_check_fd(struct gpd_source *src, int fd,
			       struct gpd_error *err)
{
	struct gpd_drm_oa_source *s = (struct gpd_drm_oa_source *)src;
	/* What the file's owner made there: i915 GEM contexts, xe exec
	 * queues. */
	const char *what = s->base.kind == GPD_SOURCE_XE ? "exec queue" : "context";
	int ret = gpd_drm_card_same_device(s->card_fd, fd, s->sysfs_root);
	if (ret == -ENOTTY)
		return gpd_fail(err, ret, "the file passed for %s is not a DRM "
				"device node: pass the fd of the %s node (or its "
				"render node) on which the %s was created",
				s->base.name, s->node, what);
	if (ret == -EXDEV)
		return gpd_fail(err, ret, "the DRM file passed for %s is a node "
				"of another GPU: pass the fd of %s (or its render "
				"node), the device the %s runs on",
				s->base.name, s->node, what);
	if (ret)
		return gpd_fail(err, ret, "cannot check the file passed for %s: "
				"%s", s->base.name, strerror(-ret));
	return 0;
}

static int reopen(struct gpd_source *src, struct gpd_error *err)
{
	struct gpd_drm_oa_source *s = (struct gpd_drm_oa_source *)src;
	s->reopening = true;
	int ret = s->open_stream(s, &s->cfg, err);
	s->reopening = false;
	return ret;
}

/* Before the silence counts as a stop, the loop may merely have been
 * busy: whatever the fd has is read first. */
#define SILENCE_MIN_MS 1000

static void lose(struct gpd_drm_oa_source *s, const char *why)
{
	uv_timer_stop(&s->watchdog);
	gpd_oa_pump_stop(s->pump);
	s->pump = NULL;
	gpd_oa_reopen_start(&s->reopen, why);
}

static void on_silence(uv_timer_t *timer)
{
	struct gpd_drm_oa_source *s = timer->data;
	uint64_t reads = s->reads;
	gpd_oa_pump_drain(s->pump);
	if (!s->pump)
		return;                 /* the read found the stream dead */
	if (s->reads != reads) {
		uv_timer_start(&s->watchdog, on_silence, s->silence_ms, 0);
		return;
	}
	char why[256];
	snprintf(why, sizeof(why), "the OA unit wrote no report for %llu ms "
		 "while sampling: a GPU reset drops its programming and the "
		 "kernel does not tell the stream (the kernel log says so); "
		 "reopening", (unsigned long long)s->silence_ms);
	lose(s, why);
}

void gpd_drm_oa_source_ready(struct gpd_drm_oa_source *s, uv_loop_t *loop,
			     const struct gpd_source_ops *ops,
			     enum gpd_source_kind kind,
			     const struct gpd_oa_config_ops *config_ops,
			     int (*open_stream)(struct gpd_drm_oa_source *s,
						const struct gpd_stream_config *cfg,
						struct gpd_error *err))
{
	s->base.ops = ops;
	s->base.kind = kind;
	s->base.loop = loop;
	s->open_stream = open_stream;
	gpd_oa_configs_init(&s->configs, s->card_dir, s->base.name, config_ops, s);
	gpd_oa_reopen_init(&s->reopen, &s->base, reopen);
	uv_timer_init(loop, &s->watchdog);
	s->watchdog.data = s;
}

void gpd_drm_oa_source_request(const struct gpd_drm_oa_source *s,
			       enum gpd_source_kind kind,
			       uint64_t format_property,
			       const struct gpd_stream_config *cfg,
			       uint64_t set_id, struct gpd_oa_request *req)
{
	*req = (struct gpd_oa_request){
		.kind = kind,
		.card = s->base.name,
		.node = s->node,
		.card_dir = s->card_dir,
		.info = &s->base.info,
		.set = cfg->set,
		.set_id = set_id,
		.format = s->base.format,
		.format_property = format_property,
		.exponent = cfg->exponent,
		.reopening = s->reopening,
		.ctx_filter = cfg->ctx_filter,
		.ctx_handle = cfg->ctx_handle,
	};
}

int gpd_drm_oa_source_start(struct gpd_drm_oa_source *s, int fd,
			    const struct gpd_oa_pump_ops *ops,
			    const struct gpd_stream_config *cfg,
			    uint64_t set_id, uint64_t silence_ms,
			    struct gpd_error *err)
{
	int ret = gpd_oa_pump_start(s->base.loop, fd, ops, s, &s->pump);
	if (ret) {
		close(fd);
		return gpd_fail(err, ret, "%s: cannot watch the OA stream: %s",
				s->base.name, uv_strerror(ret));
	}
	s->cfg = *cfg;
	s->set_id = set_id;
	/* A stream filtered to one context by the kernel is silent whenever
	 * that context does not run: its silence says nothing of a reset. */
	s->silence_ms = cfg->ctx_filter ? 0 :
			silence_ms > SILENCE_MIN_MS ? silence_ms : SILENCE_MIN_MS;
	if (!s->silence_ms)
		return 0;
	/* An open may come long after the loop last looked at the clock. */
	uv_update_time(s->base.loop);
	uv_timer_start(&s->watchdog, on_silence, s->silence_ms, 0);
	return 0;
}

void gpd_drm_oa_source_records_came(struct gpd_drm_oa_source *s)
{
	s->reads++;
	if (s->pump && s->silence_ms)
		uv_timer_start(&s->watchdog, on_silence, s->silence_ms, 0);
}

void gpd_drm_oa_source_lost(struct gpd_drm_oa_source *s, int code)
{
	char why[192];
	/* i915_perf_read() fails with EIO only on a stream disabled through
	 * its own fd; xe has no such failure. */
	if (code == -EIO)
		snprintf(why, sizeof(why), "the kernel stopped the OA stream "
			 "(EIO: it was disabled through its file descriptor); "
			 "reopening");
	else
		snprintf(why, sizeof(why), "the OA stream failed (%s); reopening",
			 strerror(-code));
	lose(s, why);
}

int gpd_drm_oa_source_open(struct gpd_source *src,
			   const struct gpd_stream_config *cfg,
			   struct gpd_error *err)
{
	struct gpd_drm_oa_source *s = (struct gpd_drm_oa_source *)src;
	int ret = s->open_stream(s, cfg, err);
	if (ret)
		gpd_oa_configs_remove_added(&s->configs);
	return ret;
}

void gpd_drm_oa_source_close(struct gpd_source *src)
{
	struct gpd_drm_oa_source *s = (struct gpd_drm_oa_source *)src;
	gpd_oa_reopen_cancel(&s->reopen);
	uv_timer_stop(&s->watchdog);
	if (s->pump) {
		gpd_oa_pump_stop(s->pump);
		s->pump = NULL;
	}
	gpd_oa_configs_remove_added(&s->configs);
}

static void on_watchdog_closed(uv_handle_t *handle)
{
	struct gpd_drm_oa_source *s = handle->data;
	gpd_oa_reopen_fini(&s->reopen, s->free_source);
}

void gpd_drm_oa_source_destroy(struct gpd_drm_oa_source *s,
			       void (*free_source)(struct gpd_source *))
{
	gpd_drm_oa_source_close(&s->base);
	gpd_oa_configs_fini(&s->configs);
	close(s->card_fd);
	s->free_source = free_source;
	uv_close((uv_handle_t *)&s->watchdog, on_watchdog_closed);
}
