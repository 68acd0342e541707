/*
 * The ioctls of a fake xe card and of its OA streams
 * (docs/oa-reference.md §5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/xe/xe_uapi.h"
#include "tests/fake-kernel/fake_kernel.h"

#define XE_OA_CAPS 0xfull      /* BASE, SYNCS, OA_BUFFER_SIZE, WAIT_NUM_REPORTS */
#define XE_ENGINE_CLASS_RENDER 0

static const char *const prop_names[] = {
	[1] = "OA_UNIT_ID", "SAMPLE_OA", "OA_METRIC_SET", "OA_FORMAT",
	"OA_PERIOD_EXPONENT", "OA_DISABLED", "EXEC_QUEUE_ID",
	"OA_ENGINE_INSTANCE", "NO_PREEMPT", "NUM_SYNCS", "SYNCS",
	"OA_BUFFER_SIZE", "WAIT_NUM_REPORTS",
};

/* Answers with blob: a size query when q->size is 0, else a copy. */
static int answer(struct drm_xe_device_query *q, const void *blob, size_t size)
{
	if (q->size == 0) {
		q->size = (uint32_t)size;
		return 0;
	}
	if (q->size != size)
		return -EINVAL;
	memcpy((void *)(uintptr_t)q->data, blob, size);
	return 0;
}

static int query_config(const struct fk_card *card, struct drm_xe_device_query *q)
{
	struct {
		struct drm_xe_query_config head;
		uint64_t info[5];
	} c = {
		.head.num_params = 5,
		.info = {
			(uint64_t)card->info.revision << 16 | card->info.pci_id,
			0, 4096, 48, 2,
		},
	};
	return answer(q, &c, sizeof(c));
}

static int query_gt_list(const struct fk_card *card, struct drm_xe_device_query *q)
{
	struct {
		struct drm_xe_query_gt_list head;
		struct drm_xe_gt gt;
	} list = {
		.head.num_gt = 1,
		.gt = {
			.type = DRM_XE_QUERY_GT_TYPE_MAIN,
			.reference_clock = (uint32_t)card->info.cs_timestamp_frequency,
		},
	};
	return answer(q, &list, sizeof(list));
}

/* DSS flat over the slices, as xe numbers them. */
static int query_topology(const struct fk_card *card, struct drm_xe_device_query *q)
{
	const struct gpm_topology *t = &card->info.topology;
	struct mask {
		struct drm_xe_query_topology_mask head;
		uint8_t bits[8];
	} masks[3];
	memset(masks, 0, sizeof(masks));
	for (unsigned s = 0; s < t->max_slices; s++)
		for (unsigned ss = 0; ss < t->max_subslices; ss++)
			if (t->subslice_mask[s] >> ss & 1) {
				unsigned dss = s * t->max_subslices + ss;
				masks[0].bits[dss / 8] |= (uint8_t)(1u << dss % 8);
			}
	masks[1] = masks[0];
	masks[0].head.type = DRM_XE_TOPO_DSS_GEOMETRY;
	masks[1].head.type = DRM_XE_TOPO_DSS_COMPUTE;
	masks[2].head.type = DRM_XE_TOPO_EU_PER_DSS;
	uint16_t eus = t->eu_mask[0][0];
	masks[2].bits[0] = (uint8_t)eus;
	masks[2].bits[1] = (uint8_t)(eus >> 8);
	for (int i = 0; i < 3; i++)
		masks[i].head.num_bytes = sizeof(masks[i].bits);
	return answer(q, masks, sizeof(masks));
}

static int query_oa_units(const struct fk_card *card, struct drm_xe_device_query *q)
{
	struct {
		struct drm_xe_query_oa_units head;
		struct drm_xe_oa_unit unit;
		struct drm_xe_engine_class_instance engine;
	} units = {
		.head.num_oa_units = 1,
		.unit = {
			.oa_unit_type = DRM_XE_OA_UNIT_TYPE_OAG,
			.capabilities = XE_OA_CAPS,
			.oa_timestamp_freq = card->info.timestamp_frequency,
			.num_engines = 1,
		},
		.engine = { .engine_class = XE_ENGINE_CLASS_RENDER },
	};
	return answer(q, &units, sizeof(units));
}

static int device_query(const struct fk_card *card, struct drm_xe_device_query *q)
{
	int ret;
	switch (q->query) {
	case DRM_XE_DEVICE_QUERY_CONFIG:
		ret = query_config(card, q);
		break;
	case DRM_XE_DEVICE_QUERY_GT_LIST:
		ret = query_gt_list(card, q);
		break;
	case DRM_XE_DEVICE_QUERY_GT_TOPOLOGY:
		ret = query_topology(card, q);
		break;
	case DRM_XE_DEVICE_QUERY_OA_UNITS:
		ret = query_oa_units(card, q);
		break;
	default:
		ret = -EINVAL;
	}
	fk_log("card%u DEVICE_QUERY query=%u size=%u -> %s", card->index, q->query,
	       q->size, ret ? fk_errname(ret) : "0");
	return ret;
}

static bool privileged_refused(void)
{
	return fk_sysctl("dev/xe/observation_paranoid", 1) && !fk_control()->capable;
}

static int stream_open(struct fk_card *card, uint64_t chain, char *said,
		       size_t said_size)
{
	uint64_t value[14] = { 0 };
	bool given[14] = { false };
	size_t at = 0;
	unsigned n = 0;
	said[0] = '\0';
	for (const struct drm_xe_ext_set_property *p = (const void *)(uintptr_t)chain;
	     p; p = (const void *)(uintptr_t)p->base.next_extension) {
		if (++n > GPD_XE_MAX_PROPERTIES)
			return -E2BIG;
		if (p->base.name != DRM_XE_OA_EXTENSION_SET_PROPERTY || p->base.pad ||
		    p->pad || p->property == 0 || p->property > 13)
			return -EINVAL;
		given[p->property] = true;
		value[p->property] = p->value;
		if (at < said_size)
			at += (size_t)snprintf(said + at, said_size - at, "%s%s=%llu",
					       at ? " " : "", prop_names[p->property],
					       (unsigned long long)p->value);
	}
	char guid[37];
	if (value[DRM_XE_OA_PROPERTY_OA_UNIT_ID] != 0 ||
	    !value[DRM_XE_OA_PROPERTY_SAMPLE_OA] ||
	    value[DRM_XE_OA_PROPERTY_OA_FORMAT] != card->platform->xe_oa_format ||
	    fk_config_guid(card, value[DRM_XE_OA_PROPERTY_OA_METRIC_SET], guid) ||
	    !given[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT] ||
	    value[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT] > GPD_OA_MODEL_MAX_EXPONENT)
		return -EINVAL;
	/* The fake has no exec queues. */
	if (given[DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID])
		return -ENOENT;
	if (privileged_refused())
		return -EACCES;
	if (card->stream || fk_control()->busy)
		return -EBUSY;
	if (fk_inject_einval(card, value[DRM_XE_OA_PROPERTY_OA_METRIC_SET]))
		return -EINVAL;
	return fk_stream_open(card, value[DRM_XE_OA_PROPERTY_OA_METRIC_SET], 0,
			      (int)value[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT],
			      value[DRM_XE_OA_PROPERTY_OA_DISABLED] != 0,
			      FK_DEFAULT_POLL_PERIOD_NS, false, 0);
}

static int add_config(struct fk_card *card, const struct drm_xe_oa_config *c,
		      char *said, size_t said_size)
{
	char uuid[37];
	memcpy(uuid, c->uuid, 36);
	uuid[36] = '\0';
	snprintf(said, said_size, "uuid=%s n_regs=%u", uuid, c->n_regs);
	if (c->extensions || !c->n_regs || !fk_uuid_valid(uuid))
		return -EINVAL;
	if (privileged_refused())
		return -EACCES;
	uint64_t id;
	if (fk_take_add_config_race()) {
		fk_config_add(card, uuid, &id);
		return -EADDRINUSE;
	}
	int ret = fk_config_add(card, uuid, &id);
	return ret ? ret : (int)id;
}

static int observation(struct fk_card *card, const struct drm_xe_observation_param *p)
{
	char said[512] = "";
	const char *op = "OA_?";
	int ret;
	if (p->extensions || p->observation_type != DRM_XE_OBSERVATION_TYPE_OA) {
		ret = -EINVAL;
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_STREAM_OPEN) {
		op = "OA_STREAM_OPEN";
		ret = stream_open(card, p->param, said, sizeof(said));
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_ADD_CONFIG) {
		op = "OA_ADD_CONFIG";
		ret = add_config(card, (const void *)(uintptr_t)p->param, said,
				 sizeof(said));
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_REMOVE_CONFIG) {
		op = "OA_REMOVE_CONFIG";
		uint64_t id = *(const uint64_t *)(uintptr_t)p->param;
		snprintf(said, sizeof(said), "id=%llu", (unsigned long long)id);
		ret = privileged_refused() ? -EACCES : fk_config_remove(card, id);
	} else {
		ret = -EINVAL;
	}
	if (ret < 0)
		fk_log("card%u %s %s -> %s", card->index, op, said, fk_errname(ret));
	else
		fk_log("card%u %s %s -> %d", card->index, op, said, ret);
	return ret;
}

int fk_xe_card_ioctl(struct fk_card *card, unsigned long request, void *arg)
{
	switch (request) {
	case DRM_IOCTL_VERSION:
		return fk_drm_version(card, arg);
	case DRM_IOCTL_XE_DEVICE_QUERY:
		return device_query(card, arg);
	case DRM_IOCTL_XE_OBSERVATION:
		return observation(card, arg);
	default:
		fk_log("card%u ioctl 0x%lx -> ENOTTY", card->index, request);
		return -ENOTTY;
	}
}

bool fk_xe_stream_ioctl(struct fk_stream *s, unsigned long request,
			unsigned long arg, int *ret)
{
	unsigned index = s->card->index;
	if (request != DRM_XE_OBSERVATION_IOCTL_STATUS)
		return false;
	struct drm_xe_oa_stream_status *st = (void *)arg;
	memset(st, 0, sizeof(*st));
	st->oa_status = s->xe_status;
	fk_log("card%u stream STATUS -> 0x%llx", index,
	       (unsigned long long)s->xe_status);
	s->xe_status = 0;
	*ret = 0;
	return true;
}
