/*
 * The i915 source.
 *
 * open: the metric set's id from sysfs (registered with ADD_CONFIG when
 * the kernel lacks it), then DRM_IOCTL_I915_PERF_OPEN with the set, the
 * platform's report format, the exponent, an optional context handle
 * (the ioctl then goes through the DRM file a client passed, which owns
 * the context) and,
 * where the perf revision has it, a poll period fitted to the sampling
 * period. Reads are non-blocking on uv_poll and hand the kernel's records
 * up as they are.
 *
 * A metric set switch opens a new stream. I915_PERF_IOCTL_CONFIG would
 * keep the stream, but i915_perf_config_locked() only queues the new
 * configuration on the kernel context, at low priority, without waiting:
 * it takes effect when the GPU next idles, and nothing tells when. Reports
 * in between would count the old programming under the new set's names.
 * An open waits for its configuration (i915_perf_stream_enable_sync()), so
 * every report of the new stream is of the new set.
 *
 * read() fails with EIO only on a stream disabled through its own fd
 * (i915_perf_read()); a GPU reset tells the stream nothing and just
 * silences the OA unit (see oa_source.h). Either way the source tells the
 * listener, reopens with backoff, and marks the gap with a BUFFER_LOST
 * record, since the reports in between are gone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "daemon/error.h"
#include "daemon/drm/oa_source.h"
#include "daemon/i915/i915_describe.h"
#include "daemon/i915/i915_source.h"
#include "daemon/i915/i915_uapi.h"
#include "daemon/log.h"
#include "metrics/oa_unit.h"

/* The kernel checks its buffer every 5 ms unless told otherwise. */
#define POLL_PERIOD_MIN_NS 5000000ull
#define POLL_PERIOD_MAX_NS 100000000ull

struct i915_source {
	struct gpd_drm_oa_source oa;    /* first: the source is one */
	int perf_revision;
};

/* The OA unit a set counts on, as i915 is asked for it: by an engine
 * (OA_ENGINE_CLASS/INSTANCE, perf revision 6 on) and a format of that
 * unit's type. */
struct i915_choice {
	struct gpm_oa_unit_need need;
	uint32_t format;                /* enum drm_i915_oa_format */
};

static int choose_unit(const struct i915_source *s, const struct gpm_metric_set *set,
		       struct i915_choice *out, struct gpd_error *err)
{
	const struct gpm_device_info *info = &s->oa.base.info;
	if (gpm_oa_unit_for_set(set, info->graphics_version, &out->need))
		return gpd_fail(err, -EOPNOTSUPP, "%s: gpuperfd knows no report "
				    "format for %s's %s on %s", s->oa.base.name,
				    set->symbol_name, set->oa_format,
				    s->oa.base.platform->description);
	out->format = s->oa.base.platform->i915_oa_format;
	if (out->need.kind == GPM_OA_UNIT_OAG) {
		out->need.format = s->oa.base.format;
		return 0;
	}
	/* i915 has one OAM group, MTL's SAMEDIA_0 for the video engines
	 * (__oam_engine_group(), Linux 6.12), which perf revision 7 opened to
	 * streams (OA_ENGINE_CLASS of a video engine, the OAM formats). */
	if (s->perf_revision < GPD_I915_PERF_REVISION_MEDIA)
		return gpd_fail(err, -ENODEV, "%s: %s counts on the media GT's "
				    "OAM unit, which i915 perf revision %d cannot "
				    "stream (revision %d can)",
				    s->oa.base.name, set->symbol_name,
				    s->perf_revision, GPD_I915_PERF_REVISION_MEDIA);
	if (out->need.oam != GPM_OAM_SAG)
		return gpd_fail(err, -ENODEV, "%s has no %s OA unit, which %s "
				    "counts on; i915 streams the media GT's "
				    "SAMEDIA_0 unit only", s->oa.base.name,
				    gpm_oa_unit_name(&out->need), set->symbol_name);
	out->format = out->need.format->id == GPM_OA_FORMAT_MPEC8u64_B8_C8 ?
		      GPD_I915_OAM_FORMAT_MPEC8u64_B8_C8 :
		      GPD_I915_OAM_FORMAT_MPEC8u32_B8_C8;
	return 0;
}

/* i915 gives every OA unit the primary GT's OA clock
 * (i915_perf_oa_timestamp_frequency(), I915_PARAM_OA_TIMESTAMP_FREQUENCY). */
static int i915_shape(struct gpd_source *src, const struct gpm_metric_set *set,
		      struct gpd_stream_shape *out, struct gpd_error *err)
{
	const struct i915_source *s = (const struct i915_source *)src;
	struct i915_choice c;
	int ret = choose_unit(s, set, &c, err);
	if (ret)
		return ret;
	out->format = c.need.format;
	out->timestamp_frequency = s->oa.base.info.timestamp_frequency;
	return 0;
}

static void describe_request(const struct i915_source *s,
			     const struct gpd_stream_config *cfg, uint64_t set_id,
			     const struct i915_choice *c, struct gpd_oa_request *req)
{
	gpd_drm_oa_source_request(&s->oa, GPD_SOURCE_I915,
				  c ? c->format : s->oa.base.platform->i915_oa_format,
				  cfg, set_id, req);
	if (c) {
		req->format = c->need.format;
		req->media = c->need.kind == GPM_OA_UNIT_OAM;
	}
}

static int add_config(void *user, const struct gpm_binding *b, uint64_t *id)
{
	struct i915_source *s = user;
	struct drm_i915_perf_oa_config config = {
		.n_mux_regs = (uint32_t)b->n_registers[GPM_REGISTERS_MUX],
		.n_boolean_regs = (uint32_t)b->n_registers[GPM_REGISTERS_BOOLEAN],
		.n_flex_regs = (uint32_t)b->n_registers[GPM_REGISTERS_FLEX],
		/* struct gpm_register is the kernel's (u32 address, u32
		 * value) pair. */
		.mux_regs_ptr = (uintptr_t)b->registers[GPM_REGISTERS_MUX],
		.boolean_regs_ptr = (uintptr_t)b->registers[GPM_REGISTERS_BOOLEAN],
		.flex_regs_ptr = (uintptr_t)b->registers[GPM_REGISTERS_FLEX],
	};
	if (strlen(b->set->hw_config_guid) != sizeof(config.uuid))
		return -EINVAL;
	memcpy(config.uuid, b->set->hw_config_guid, sizeof(config.uuid));
	int ret = drmIoctl(s->oa.card_fd, DRM_IOCTL_I915_PERF_ADD_CONFIG, &config);
	if (ret < 0)
		return -errno;
	*id = (uint64_t)ret;
	return 0;
}

static int refused_config(void *user, const struct gpm_binding *b, int code,
			  struct gpd_error *err)
{
	struct i915_source *s = user;
	struct gpd_stream_config cfg = { .set = b->set, .binding = b };
	struct i915_choice c;
	struct gpd_error unused;
	struct gpd_oa_request req;
	describe_request(s, &cfg, 0,
			 choose_unit(s, b->set, &c, &unused) ? NULL : &c, &req);
	return gpd_oa_refusal_add_config(&req, code, err);
}

static int remove_config(void *user, uint64_t id)
{
	struct i915_source *s = user;
	return drmIoctl(s->oa.card_fd, DRM_IOCTL_I915_PERF_REMOVE_CONFIG, &id) ?
	       -errno : 0;
}

static const struct gpd_oa_config_ops config_ops = {
	.add = add_config,
	.refused = refused_config,
	.remove = remove_config,
};

/* No more than a wake-up per report, and one at least every 100 ms so
 * that frames never lag far behind. */
static uint64_t poll_period_ns(const struct i915_source *s, unsigned exponent)
{
	uint64_t period = gpd_exponent_to_ns(&s->oa.base.info, exponent);
	if (period < POLL_PERIOD_MIN_NS)
		return POLL_PERIOD_MIN_NS;
	return period > POLL_PERIOD_MAX_NS ? POLL_PERIOD_MAX_NS : period;
}

static void on_data(void *user, const unsigned char *buf, size_t len)
{
	struct i915_source *s = user;
	gpd_drm_oa_source_records_came(&s->oa);
	s->oa.base.listener.records(s->oa.base.listener.user, buf, len);
}

static bool on_read_error(void *user, int code);

static const struct gpd_oa_pump_ops pump_ops = {
	.data = on_data,
	.error = on_read_error,
};

static int open_stream(struct gpd_drm_oa_source *oa,
		       const struct gpd_stream_config *cfg, struct gpd_error *err)
{
	struct i915_source *s = (struct i915_source *)oa;
	struct i915_choice c;
	int ret = choose_unit(s, cfg->set, &c, err);
	if (ret)
		return ret;
	uint64_t set_id;
	ret = gpd_oa_configs_id(&s->oa.configs, cfg->binding, &set_id, err);
	if (ret)
		return ret;
	uint64_t props[2 * 8];
	uint32_t n = 0;
#define PROP(id, value) (props[2 * n] = (id), props[2 * n + 1] = (value), n++)
	PROP(DRM_I915_PERF_PROP_SAMPLE_OA, 1);
	PROP(DRM_I915_PERF_PROP_OA_METRICS_SET, set_id);
	PROP(DRM_I915_PERF_PROP_OA_FORMAT, c.format);
	PROP(DRM_I915_PERF_PROP_OA_EXPONENT, cfg->exponent);
	if (c.need.kind == GPM_OA_UNIT_OAM) {
		/* vcs0, whose OA group is SAMEDIA_0. */
		PROP(GPD_I915_PERF_PROP_OA_ENGINE_CLASS, I915_ENGINE_CLASS_VIDEO);
		PROP(GPD_I915_PERF_PROP_OA_ENGINE_INSTANCE, 0);
	}
	if (cfg->ctx_filter)
		PROP(DRM_I915_PERF_PROP_CTX_HANDLE, cfg->ctx_handle);
	uint64_t poll = POLL_PERIOD_MIN_NS;
	if (s->perf_revision >= GPD_I915_PERF_REVISION_POLL_PERIOD) {
		poll = poll_period_ns(s, cfg->exponent);
		PROP(DRM_I915_PERF_PROP_POLL_OA_PERIOD, poll);
	}
#undef PROP
	struct drm_i915_perf_open_param param = {
		.flags = I915_PERF_FLAG_FD_CLOEXEC | I915_PERF_FLAG_FD_NONBLOCK,
		.num_properties = n,
		.properties_ptr = (uintptr_t)props,
	};
	/* i915_perf_open_ioctl_locked() looks the handle up in the DRM file
	 * the ioctl arrives on: the one the context's owner passed. */
	int fd = drmIoctl(cfg->ctx_filter ? cfg->ctx_fd : s->oa.card_fd,
			  DRM_IOCTL_I915_PERF_OPEN, &param);
	if (fd < 0) {
		struct gpd_oa_request req;
		describe_request(s, cfg, set_id, &c, &req);
		return gpd_oa_refusal_open(&req, -errno, err);
	}
	/* A report comes at least every period, and reads every poll. */
	uint64_t period = gpd_exponent_to_ns(&s->oa.base.info, cfg->exponent);
	uint64_t silence_ms = 4 * (period > poll ? period : poll) / 1000000;
	return gpd_drm_oa_source_start(&s->oa, fd, &pump_ops, cfg, set_id,
				       silence_ms, err);
}

static bool on_read_error(void *user, int code)
{
	struct i915_source *s = user;
	gpd_drm_oa_source_lost(&s->oa, code);
	return false;
}

static void free_source(struct gpd_source *src)
{
	free(src);
}

static void i915_destroy(struct gpd_source *src)
{
	gpd_drm_oa_source_destroy((struct gpd_drm_oa_source *)src, free_source);
}

static const struct gpd_source_ops i915_ops = {
	.open = gpd_drm_oa_source_open,
	.close = gpd_drm_oa_source_close,
	.destroy = i915_destroy,
	.shape = i915_shape,
	.check_drm_fd = gpd_drm_oa_source_check_fd,
};

int gpd_i915_source_create(uv_loop_t *loop, const char *node,
			   const struct gpd_drm_roots *roots,
			   struct gpd_source **out, struct gpd_error *err)
{
	struct i915_source *s = calloc(1, sizeof(*s));
	if (!s)
		return gpd_fail(err, -ENOMEM, "out of memory");
	int ret = gpd_drm_oa_source_open_card(&s->oa, node, "i915", roots, err);
	if (ret) {
		free(s);
		return ret;
	}
	struct gpd_i915_description desc;
	ret = gpd_i915_describe(s->oa.card_fd, s->oa.base.name, s->oa.card_dir,
				&desc, err);
	if (!ret && gpm_oa_format_from_i915(desc.platform->i915_oa_format,
					    &s->oa.base.format))
		ret = gpd_fail(err, -EOPNOTSUPP, "%s: gpuperfd cannot decode "
				   "the OA reports of %s", node,
				   desc.platform->description);
	if (ret) {
		close(s->oa.card_fd);
		free(s);
		return ret;
	}
	s->oa.base.info = desc.info;
	s->oa.base.platform = desc.platform;
	s->perf_revision = desc.perf_revision;
	gpd_drm_oa_source_ready(&s->oa, loop, &i915_ops, GPD_SOURCE_I915,
				&config_ops, open_stream);
	*out = &s->oa.base;
	return 0;
}
