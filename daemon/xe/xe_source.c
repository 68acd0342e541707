/*
 * The xe source.
 *
 * Like i915's: the set's id from sysfs or ADD_CONFIG (one combined
 * register list, ids from 1), a stream opened on the OAG unit with a chain
 * of properties, non-blocking reads on uv_poll. Unlike i915, xe returns
 * bare reports back to back, so each is framed here as an i915 SAMPLE
 * record; and it tells of lost reports only by failing a read with EIO,
 * after which DRM_XE_OBSERVATION_IOCTL_STATUS says what happened.
 *
 * Where the loss is (Linux 7.0 __xe_oa_read()): the read that finds the
 * status fails before copying any report, and xe neither resets the
 * buffer nor drops what it holds. An overflow means the buffer was full:
 * the reports in it, written before the unit found no room, come in the
 * next reads, and only after them does the stream skip. So BUFFER_LOST
 * goes after a full buffer's worth of reports (DRM_XE_OBSERVATION_IOCTL_INFO
 * gives its size; the unit leaves one report free, so that head == tail
 * means empty). A lost report is somewhere among what was written since
 * the last read; it is counted where the EIO came.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include "daemon/error.h"
#include "daemon/drm/oa_source.h"
#include "daemon/log.h"
#include "daemon/xe/xe_describe.h"
#include "daemon/xe/xe_source.h"
#include "daemon/xe/xe_uapi.h"
#include "metrics/little_endian.h"
#include "metrics/oa_record.h"
#include "metrics/oa_unit.h"

/* The kernel's buffer where it cannot say (DRM_XE_OBSERVATION_IOCTL_INFO
 * came with Linux 6.13): DEFAULT_XE_OA_BUFFER_SIZE. */
#define XE_DEFAULT_OA_BUFFER (16u << 20)

/* xe's OA_FORMAT of the MPEC formats: type OAM_MPEC (4), counter select
 * (xe_oa.c oa_formats[]). */
#define XE_FORMAT_MPEC8u64_B8_C8 0x104
#define XE_FORMAT_MPEC8u32_B8_C8 0x204

struct xe_source {
	struct gpd_drm_oa_source oa;    /* first: the source is one */
	uint32_t oa_unit_id;            /* OAG's */
	unsigned n_units;
	struct gpd_xe_oa_unit units[GPD_XE_MAX_OA_UNITS];
	bool told_counter_overflow;
	size_t report_size;             /* the open stream's reports */
	uint64_t buffer_reports;        /* reports a full OA buffer holds */
	/* After an overflow: reports still to come before the gap; 0 when no
	 * overflow is pending. */
	uint64_t before_gap;
	/* Reports framed as i915 records. */
	unsigned char *framed;
	size_t framed_size;
};

/* The OA unit a set counts on and the OA_FORMAT of its reports. */
struct xe_choice {
	const struct gpd_xe_oa_unit *unit;
	struct gpm_oa_unit_need need;
	uint64_t format_property;
};

static int choose_unit(const struct xe_source *s, const struct gpm_metric_set *set,
		       struct xe_choice *out, struct gpd_error *err)
{
	if (gpm_oa_unit_for_set(set, s->oa.base.info.graphics_version, &out->need))
		return gpd_fail(err, -EOPNOTSUPP, "%s: gpuperfd knows no report "
				    "format for %s's %s on %s", s->oa.base.name,
				    set->symbol_name, set->oa_format,
				    s->oa.base.platform->description);
	out->unit = NULL;
	for (unsigned i = 0; i < s->n_units; i++)
		if (s->units[i].id == s->oa_unit_id)
			out->unit = &s->units[i];
	out->format_property = s->oa.base.platform->xe_oa_format;
	if (out->need.kind == GPM_OA_UNIT_OAG) {
		out->need.format = s->oa.base.format;
		return out->unit ? 0 : gpd_fail(err, -ENODEV, "%s: xe lists no "
						 "OAG unit", s->oa.base.name);
	}
	/* The media GT's units in xe's order (__xe_oa_init_oa_units()):
	 * MTL's one OAM unit, or Xe2's SAG, SCMI_0 and SCMI_1. */
	out->unit = NULL;
	unsigned k = 0;
	for (unsigned i = 0; i < s->n_units && !out->unit; i++)
		if ((s->units[i].type == DRM_XE_OA_UNIT_TYPE_OAM ||
		     s->units[i].type == DRM_XE_OA_UNIT_TYPE_OAM_SAG) &&
		    k++ == (unsigned)out->need.oam)
			out->unit = &s->units[i];
	if (!out->unit)
		return gpd_fail(err, -ENODEV, "%s has no %s OA unit, which %s "
				    "counts on (its registers program that "
				    "unit's MPES); xe lists %u OA unit(s)",
				    s->oa.base.name, gpm_oa_unit_name(&out->need),
				    set->symbol_name, s->n_units);
	out->format_property =
		out->need.format->id == GPM_OA_FORMAT_MPEC8u64_B8_C8 ?
		XE_FORMAT_MPEC8u64_B8_C8 : XE_FORMAT_MPEC8u32_B8_C8;
	return 0;
}

static uint64_t unit_frequency(const struct xe_source *s, const struct xe_choice *c)
{
	return c->unit->timestamp_frequency ? c->unit->timestamp_frequency
					    : s->oa.base.info.timestamp_frequency;
}

static int xe_shape(struct gpd_source *src, const struct gpm_metric_set *set,
		    struct gpd_stream_shape *out, struct gpd_error *err)
{
	const struct xe_source *s = (const struct xe_source *)src;
	struct xe_choice c;
	int ret = choose_unit(s, set, &c, err);
	if (ret)
		return ret;
	out->format = c.need.format;
	out->timestamp_frequency = unit_frequency(s, &c);
	return 0;
}

static void describe_request(const struct xe_source *s,
			     const struct gpd_stream_config *cfg, uint64_t set_id,
			     const struct xe_choice *c, struct gpd_oa_request *req)
{
	gpd_drm_oa_source_request(&s->oa, GPD_SOURCE_XE, c->format_property,
				  cfg, set_id, req);
	req->format = c->need.format;
	req->media = c->need.kind == GPM_OA_UNIT_OAM;
}

/* On drm_fd: the card's own file, or the one a client passed, in which
 * the kernel looks up an exec queue (xe_exec_queue_lookup()). */
static int observation(int drm_fd, uint64_t op, void *param)
{
	struct drm_xe_observation_param p = {
		.observation_type = DRM_XE_OBSERVATION_TYPE_OA,
		.observation_op = op,
		.param = (uintptr_t)param,
	};
	int ret = drmIoctl(drm_fd, DRM_IOCTL_XE_OBSERVATION, &p);
	return ret < 0 ? -errno : ret;
}

/* xe takes one register list: NOA (mux), then OA (boolean), then FLEX,
 * the order i915 programs its three. */
static int add_config(void *user, const struct gpm_binding *b, uint64_t *id)
{
	struct xe_source *s = user;
	size_t n = 0;
	for (int k = 0; k < GPM_REGISTER_KINDS; k++)
		n += b->n_registers[k];
	struct gpm_register *regs = calloc(n ? n : 1, sizeof(*regs));
	if (!regs)
		return -ENOMEM;
	size_t at = 0;
	for (int k = 0; k < GPM_REGISTER_KINDS; k++) {
		if (b->n_registers[k])
			memcpy(regs + at, b->registers[k],
			       b->n_registers[k] * sizeof(*regs));
		at += b->n_registers[k];
	}
	struct drm_xe_oa_config config = {
		.n_regs = (uint32_t)n,
		.regs_ptr = (uintptr_t)regs,
	};
	int ret = -EINVAL;
	if (strlen(b->set->hw_config_guid) == sizeof(config.uuid)) {
		memcpy(config.uuid, b->set->hw_config_guid, sizeof(config.uuid));
		ret = observation(s->oa.card_fd, DRM_XE_OBSERVATION_OP_ADD_CONFIG,
				  &config);
	}
	free(regs);
	if (ret < 0)
		return ret;
	*id = (uint64_t)ret;
	return 0;
}

static int refused_config(void *user, const struct gpm_binding *b, int code,
			  struct gpd_error *err)
{
	struct xe_source *s = user;
	struct gpd_stream_config cfg = { .set = b->set, .binding = b };
	struct xe_choice c;
	struct gpd_error unused;
	int ret = choose_unit(s, b->set, &c, &unused);
	if (ret)
		return gpd_fail(err, code, "%s refused the metric set %s (%s)",
				s->oa.base.name, b->set->symbol_name,
				strerror(-code));
	struct gpd_oa_request req;
	describe_request(s, &cfg, 0, &c, &req);
	return gpd_oa_refusal_add_config(&req, code, err);
}

static int remove_config(void *user, uint64_t id)
{
	struct xe_source *s = user;
	int ret = observation(s->oa.card_fd, DRM_XE_OBSERVATION_OP_REMOVE_CONFIG, &id);
	return ret < 0 ? ret : 0;
}

static const struct gpd_oa_config_ops config_ops = {
	.add = add_config,
	.refused = refused_config,
	.remove = remove_config,
};

static void put_loss_record(unsigned char *p, uint32_t type)
{
	gpm__le32_store(p, type);
	gpm__le16_store(p + 4, 0);
	gpm__le16_store(p + 6, GPM_OA_RECORD_HEADER_SIZE);
}

static void deliver_loss(struct xe_source *s, unsigned loss)
{
	unsigned char rec[2 * GPM_OA_RECORD_HEADER_SIZE];
	size_t len = 0;
	/* i915's order: BUFFER_LOST before REPORT_LOST. */
	if (loss & GPM_OA_LOSS_BUFFER) {
		put_loss_record(rec + len, GPM_OA_RECORD_BUFFER_LOST);
		len += GPM_OA_RECORD_HEADER_SIZE;
	}
	if (loss & GPM_OA_LOSS_REPORT) {
		put_loss_record(rec + len, GPM_OA_RECORD_REPORT_LOST);
		len += GPM_OA_RECORD_HEADER_SIZE;
	}
	if (len)
		s->oa.base.listener.records(s->oa.base.listener.user, rec, len);
}

static void on_data(void *user, const unsigned char *buf, size_t len)
{
	struct xe_source *s = user;
	size_t report = s->report_size;
	size_t n = len / report;
	/* The gap of a pending overflow falls in this read: where. */
	size_t gap_at = s->before_gap && s->before_gap <= n ? (size_t)s->before_gap
							    : SIZE_MAX;
	size_t need = n * (GPM_OA_RECORD_HEADER_SIZE + report) +
		      (gap_at != SIZE_MAX ? GPM_OA_RECORD_HEADER_SIZE : 0);
	gpd_drm_oa_source_records_came(&s->oa);
	if (need > s->framed_size) {
		unsigned char *framed = realloc(s->framed, need);
		if (!framed) {
			gpd_warn("%s: out of memory framing %zu OA reports; they "
				 "are lost", s->oa.base.name, n);
			deliver_loss(s, GPM_OA_LOSS_BUFFER);
			return;
		}
		s->framed = framed;
		s->framed_size = need;
	}
	unsigned char *p = s->framed;
	for (size_t i = 0; i < n; i++) {
		if (i == gap_at) {
			put_loss_record(p, GPM_OA_RECORD_BUFFER_LOST);
			p += GPM_OA_RECORD_HEADER_SIZE;
		}
		gpm__le32_store(p, GPM_OA_RECORD_SAMPLE);
		gpm__le16_store(p + 4, 0);
		gpm__le16_store(p + 6, (uint16_t)(GPM_OA_RECORD_HEADER_SIZE + report));
		memcpy(p + GPM_OA_RECORD_HEADER_SIZE, buf + i * report, report);
		p += GPM_OA_RECORD_HEADER_SIZE + report;
	}
	if (gap_at == n) {
		put_loss_record(p, GPM_OA_RECORD_BUFFER_LOST);
		p += GPM_OA_RECORD_HEADER_SIZE;
	}
	if (s->before_gap)
		s->before_gap = gap_at != SIZE_MAX ? 0 : s->before_gap - n;
	s->oa.base.listener.records(s->oa.base.listener.user, s->framed,
				    (size_t)(p - s->framed));
}

/* EIO: the OA status has bits set; the status ioctl says which. */
static int read_status(struct xe_source *s, uint64_t *status)
{
	struct drm_xe_oa_stream_status st = { 0 };
	if (ioctl(gpd_oa_pump_fd(s->oa.pump), DRM_XE_OBSERVATION_IOCTL_STATUS, &st) < 0)
		return -errno;
	*status = st.oa_status;
	return 0;
}

static bool on_read_error(void *user, int code)
{
	struct xe_source *s = user;
	uint64_t status = 0;
	if (code == -EIO && !read_status(s, &status)) {
		if (status & GPM_OA_XE_STATUS_COUNTER_OVERFLOW &&
		    !s->told_counter_overflow) {
			s->told_counter_overflow = true;
			gpd_warn("%s: the OA unit reports a counter overflow; "
				 "counter values around it may be wrong", s->oa.base.name);
		}
		unsigned loss = gpm_oa_xe_status_loss(status);
		if (loss & GPM_OA_LOSS_BUFFER) {
			/* A second overflow before the first gap came: the
			 * first gap is behind us already, the new one a full
			 * buffer on. */
			if (s->before_gap)
				deliver_loss(s, GPM_OA_LOSS_BUFFER);
			s->before_gap = s->buffer_reports;
			loss &= ~(unsigned)GPM_OA_LOSS_BUFFER;
		}
		deliver_loss(s, loss);
		/* The listener may have closed the stream. */
		return s->oa.pump != NULL;
	}
	gpd_drm_oa_source_lost(&s->oa, code);
	return false;
}

static const struct gpd_oa_pump_ops pump_ops = {
	.data = on_data,
	.error = on_read_error,
};

static int open_stream(struct gpd_drm_oa_source *oa,
		       const struct gpd_stream_config *cfg, struct gpd_error *err)
{
	struct xe_source *s = (struct xe_source *)oa;
	struct xe_choice c;
	int ret = choose_unit(s, cfg->set, &c, err);
	if (ret)
		return ret;
	uint64_t set_id;
	ret = gpd_oa_configs_id(&s->oa.configs, cfg->binding, &set_id, err);
	if (ret)
		return ret;
	const struct {
		uint32_t property;
		uint64_t value;
	} want[] = {
		{ DRM_XE_OA_PROPERTY_OA_UNIT_ID, c.unit->id },
		{ DRM_XE_OA_PROPERTY_SAMPLE_OA, 1 },
		{ DRM_XE_OA_PROPERTY_OA_METRIC_SET, set_id },
		{ DRM_XE_OA_PROPERTY_OA_FORMAT, c.format_property },
		{ DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT, cfg->exponent },
		{ DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID, cfg->ctx_handle },
	};
	/* A stream of one exec queue: xe programs the queue's context
	 * (OAR for render, OAC for compute) and, unlike i915, hands over
	 * the OA buffer unfiltered (xe_oa_append_reports()). */
	enum { N = sizeof(want) / sizeof(want[0]) };
	size_t n = cfg->ctx_filter ? N : N - 1;
	struct drm_xe_ext_set_property props[N];
	memset(props, 0, sizeof(props));
	for (size_t i = 0; i < n; i++) {
		props[i].base.name = DRM_XE_OA_EXTENSION_SET_PROPERTY;
		props[i].base.next_extension = i + 1 < n ? (uintptr_t)&props[i + 1] : 0;
		props[i].property = want[i].property;
		props[i].value = want[i].value;
	}
	int fd = observation(cfg->ctx_filter ? cfg->ctx_fd : s->oa.card_fd,
			     DRM_XE_OBSERVATION_OP_STREAM_OPEN, props);
	if (fd < 0) {
		struct gpd_oa_request req;
		describe_request(s, cfg, set_id, &c, &req);
		return gpd_oa_refusal_open(&req, fd, err);
	}
	s->report_size = c.need.format->size;
	struct drm_xe_oa_stream_info info = { 0 };
	uint64_t buffer = ioctl(fd, DRM_XE_OBSERVATION_IOCTL_INFO, &info) == 0 &&
			  info.oa_buf_size ? info.oa_buf_size : XE_DEFAULT_OA_BUFFER;
	s->buffer_reports = buffer / s->report_size - 1;
	s->before_gap = 0;
	/* xe's stream fds start blocking; uv_poll_init makes them
	 * non-blocking, as the loop needs. xe checks its buffer every 5 ms
	 * (DEFAULT_POLL_PERIOD_NS); a report comes at least every period. */
	uint64_t period = gpd_exponent_to_ns_at(unit_frequency(s, &c), cfg->exponent);
	return gpd_drm_oa_source_start(&s->oa, fd, &pump_ops, cfg, set_id,
				       4 * (period > 5000000 ? period : 5000000) / 1000000,
				       err);
}

static void free_source(struct gpd_source *src)
{
	struct xe_source *s = (struct xe_source *)src;
	free(s->framed);
	free(s);
}

static void xe_destroy(struct gpd_source *src)
{
	gpd_drm_oa_source_destroy((struct gpd_drm_oa_source *)src, free_source);
}

/* Switching sets (DRM_XE_OBSERVATION_IOCTL_CONFIG) is left to a new
 * stream: without the fences xe wants for it, reports of the old and the
 * new set could not be told apart. */
static const struct gpd_source_ops xe_ops = {
	.open = gpd_drm_oa_source_open,
	.close = gpd_drm_oa_source_close,
	.destroy = xe_destroy,
	.shape = xe_shape,
	.check_drm_fd = gpd_drm_oa_source_check_fd,
};

int gpd_xe_source_create(uv_loop_t *loop, const char *node,
			 const struct gpd_drm_roots *roots,
			 struct gpd_source **out, struct gpd_error *err)
{
	struct xe_source *s = calloc(1, sizeof(*s));
	if (!s)
		return gpd_fail(err, -ENOMEM, "out of memory");
	int ret = gpd_drm_oa_source_open_card(&s->oa, node, "xe", roots, err);
	if (ret) {
		free(s);
		return ret;
	}
	struct gpd_xe_description desc;
	ret = gpd_xe_describe(s->oa.card_fd, s->oa.base.name, s->oa.card_dir, &desc, err);
	if (!ret && gpm_oa_format_for_set(desc.info.graphics_version, NULL,
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
	s->oa_unit_id = desc.oa_unit_id;
	s->n_units = desc.n_oa_units;
	memcpy(s->units, desc.oa_units, sizeof(s->units));
	s->report_size = s->oa.base.format->size;
	gpd_drm_oa_source_ready(&s->oa, loop, &xe_ops, GPD_SOURCE_XE,
				&config_ops, open_stream);
	*out = &s->oa.base;
	return 0;
}
