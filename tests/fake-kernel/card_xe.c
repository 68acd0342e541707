/*
 * The ioctls of a fake xe card and of its OA streams, as Linux 7.0 answers
 * them (xe_query.c, xe_observation.c, xe_oa.c; docs/oa-reference.md §5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/xe/xe_uapi.h"
#include "tests/fake-kernel/fake_kernel.h"

/* xe_oa.c's DEFAULT_XE_OA_BUFFER_SIZE and the limits of
 * xe_oa_set_prop_oa_buffer_size(). */
#define XE_OA_BUFFER_MIN (128u << 10)
#define XE_OA_BUFFER_MAX (128u << 20)
#define XE_MAX_SYNCS 1024

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

/* query_gt_list(): every GT, a media GT typed so. */
static int query_gt_list(const struct fk_card *card, struct drm_xe_device_query *q)
{
	struct {
		struct drm_xe_query_gt_list head;
		struct drm_xe_gt gt[FK_MAX_GTS];
	} list;
	memset(&list, 0, sizeof(list));
	list.head.num_gt = card->n_gts;
	for (unsigned i = 0; i < card->n_gts; i++) {
		list.gt[i].type = card->gts[i].media ? DRM_XE_QUERY_GT_TYPE_MEDIA
						     : DRM_XE_QUERY_GT_TYPE_MAIN;
		list.gt[i].gt_id = (uint16_t)card->gts[i].id;
		list.gt[i].reference_clock = card->gts[i].reference_clock;
	}
	return answer(q, &list, sizeof(list.head) + card->n_gts * sizeof(list.gt[0]));
}

/* query_gt_topology(), per GT: the geometry and compute DSS masks (flat,
 * as xe numbers them), the L3 bank mask (not for a media GT, whose L3 the
 * kernel cannot tell: no_media_l3), and the EUs per DSS, typed SIMD16 on
 * Xe2. The masks are as wide as the kernel's fuse_topo fields. */
#define DSS_MASK_BYTES 16
#define MASK_BYTES 8

struct topology_blob {
	unsigned char bytes[FK_MAX_GTS * 4 *
			    (sizeof(struct drm_xe_query_topology_mask) + DSS_MASK_BYTES)];
	size_t len;
};

static void put_mask(struct topology_blob *b, uint16_t gt, uint16_t type,
		     const uint8_t *mask, uint32_t n)
{
	struct drm_xe_query_topology_mask head = {
		.gt_id = gt, .type = type, .num_bytes = n,
	};
	memcpy(b->bytes + b->len, &head, sizeof(head));
	b->len += sizeof(head);
	memcpy(b->bytes + b->len, mask, n);
	b->len += n;
}

static int query_topology(const struct fk_card *card, struct drm_xe_device_query *q)
{
	const struct gpm_topology *t = &card->info.topology;
	struct topology_blob b = { .len = 0 };
	for (unsigned g = 0; g < card->n_gts; g++) {
		const struct fk_gt *gt = &card->gts[g];
		uint8_t dss[DSS_MASK_BYTES] = { 0 }, l3[MASK_BYTES] = { 0 };
		uint8_t eus[MASK_BYTES] = { 0 };
		if (!gt->media) {
			for (unsigned s = 0; s < t->max_slices; s++)
				for (unsigned ss = 0; ss < t->max_subslices; ss++) {
					unsigned i = s * t->max_subslices + ss;
					if (gpm_topology_has_subslice(t, s, ss) &&
					    i < DSS_MASK_BYTES * 8)
						dss[i / 8] |= (uint8_t)(1u << i % 8);
				}
			/* Four L3 banks per slice of the part. */
			for (unsigned i = 0; i < 4u * t->max_slices && i < MASK_BYTES * 8; i++)
				l3[i / 8] |= (uint8_t)(1u << i % 8);
			eus[0] = (uint8_t)t->eu_mask[0][0];
			eus[1] = (uint8_t)(t->eu_mask[0][0] >> 8);
		}
		put_mask(&b, (uint16_t)gt->id, DRM_XE_TOPO_DSS_GEOMETRY, dss, sizeof(dss));
		put_mask(&b, (uint16_t)gt->id, DRM_XE_TOPO_DSS_COMPUTE, dss, sizeof(dss));
		if (!gt->media)
			put_mask(&b, (uint16_t)gt->id, DRM_XE_TOPO_L3_BANK, l3, sizeof(l3));
		put_mask(&b, (uint16_t)gt->id,
			 card->info.graphics_version >= 2000 ?
			 DRM_XE_TOPO_SIMD16_EU_PER_DSS : DRM_XE_TOPO_EU_PER_DSS,
			 eus, sizeof(eus));
	}
	return answer(q, b.bytes, b.len);
}

/* query_oa_units(): every unit of every GT, each followed by its engines. */
static int query_oa_units(const struct fk_card *card, struct drm_xe_device_query *q)
{
	unsigned char blob[sizeof(struct drm_xe_query_oa_units) +
			   FK_MAX_OA_UNITS * (sizeof(struct drm_xe_oa_unit) +
			   FK_MAX_UNIT_ENGINES * sizeof(struct drm_xe_engine_class_instance))];
	memset(blob, 0, sizeof(blob));
	struct drm_xe_query_oa_units *head = (void *)blob;
	size_t len = sizeof(*head);
	head->num_oa_units = card->n_units;
	for (unsigned i = 0; i < card->n_units; i++) {
		const struct fk_unit *u = &card->units[i];
		struct drm_xe_oa_unit du = {
			.oa_unit_id = u->id,
			.oa_unit_type = u->type,
			.capabilities = DRM_XE_OA_CAPS_BASE | DRM_XE_OA_CAPS_SYNCS |
					DRM_XE_OA_CAPS_OA_BUFFER_SIZE |
					DRM_XE_OA_CAPS_WAIT_NUM_REPORTS,
			.oa_timestamp_freq = u->timestamp_frequency,
			.num_engines = u->n_engines,
		};
		memcpy(blob + len, &du, sizeof(du));
		len += sizeof(du);
		for (unsigned e = 0; e < u->n_engines; e++) {
			struct drm_xe_engine_class_instance eci = {
				.engine_class = u->engines[e].engine_class,
				.engine_instance = u->engines[e].instance,
				.gt_id = (uint16_t)card->gts[u->gt].id,
			};
			memcpy(blob + len, &eci, sizeof(eci));
			len += sizeof(eci);
		}
	}
	return answer(q, blob, len);
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

/* xe_observation_paranoid_check(): paranoid && !perfmon_capable() (Linux
 * 7.0; later kernels defer to perf_allow_cpu(), which also lets
 * kernel.perf_event_paranoid <= 0 through). */
static bool paranoid_refused(void)
{
	return fk_sysctl("dev/xe/observation_paranoid", 1) && !fk_control()->capable;
}

struct open_props {
	bool given[14];
	uint64_t value[14];
	struct fk_unit *unit;
	int format;
};

/* xe_oa_user_extensions() and the xe_oa_set_prop_*() of each property, in
 * the order of the chain. */
static int read_properties(struct fk_card *card, uint64_t chain,
			   struct open_props *props, char *said, size_t said_size)
{
	size_t at = 0;
	unsigned n = 0;
	said[0] = '\0';
	for (const struct drm_xe_ext_set_property *p = (const void *)(uintptr_t)chain;
	     p; p = (const void *)(uintptr_t)p->base.next_extension) {
		if (n++ >= GPD_XE_MAX_PROPERTIES)
			return -E2BIG;
		if (p->base.pad || p->base.name != DRM_XE_OA_EXTENSION_SET_PROPERTY ||
		    p->property == 0 || p->property > 13 || p->pad)
			return -EINVAL;
		uint64_t v = p->value;
		if (at < said_size)
			at += (size_t)snprintf(said + at, said_size - at, "%s%s=%llu",
					       at ? " " : "", prop_names[p->property],
					       (unsigned long long)v);
		props->given[p->property] = true;
		props->value[p->property] = v;
		switch (p->property) {
		case DRM_XE_OA_PROPERTY_OA_UNIT_ID:
			props->unit = v < card->n_units ? &card->units[v] : NULL;
			if (!props->unit)
				return -EINVAL;
			break;
		case DRM_XE_OA_PROPERTY_OA_FORMAT:
			props->format = fk_format_by_xe(card, v);
			if (props->format < 0)
				return -EINVAL;
			break;
		case DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT:
			if (v > GPD_OA_MODEL_MAX_EXPONENT)
				return -EINVAL;
			break;
		case DRM_XE_OA_PROPERTY_NUM_SYNCS:
			if (v > XE_MAX_SYNCS)
				return -EINVAL;
			break;
		case DRM_XE_OA_PROPERTY_OA_BUFFER_SIZE:
			if (v < XE_OA_BUFFER_MIN || v > XE_OA_BUFFER_MAX || (v & (v - 1)))
				return -EINVAL;
			break;
		case DRM_XE_OA_PROPERTY_WAIT_NUM_REPORTS:
			if (!v)
				return -EINVAL;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* The per-context counters xe_oa_configure_oa_context() programs into
 * an exec queue's context for a stream of it: OAR for a render queue,
 * OAC for a compute one, none for the video engines (they have no
 * MI_REPORT_PERF_COUNT). */
static const char *context_counters(unsigned engine_class)
{
	return engine_class == FK_ENGINE_RENDER ? "OAR" :
	       engine_class == FK_ENGINE_COMPUTE ? "OAC" : NULL;
}

/* xe_oa_stream_open_ioctl() with an EXEC_QUEUE_ID: only for OAG (EINVAL),
 * the queue looked up in the file the ioctl came on (ENOENT), not a
 * parallel one (EOPNOTSUPP). */
static int exec_queue_of(struct fk_file *file, const struct open_props *props,
			 const struct fk_unit *unit, const struct fk_exec_queue **out)
{
	uint64_t id = props->value[DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID];
	*out = NULL;
	if (!id || id > UINT32_MAX)
		return 0;
	if (unit->type != FK_UNIT_OAG)
		return -EINVAL;
	*out = fk_xe_exec_queue_lookup(file, (uint32_t)id);
	if (!*out)
		return -ENOENT;
	return (*out)->width > 1 ? -EOPNOTSUPP : 0;
}

static int stream_open(struct fk_card *card, struct fk_file *file, uint64_t chain,
		       char *said, size_t said_size)
{
	struct open_props props = { .format = -1 };
	int ret = read_properties(card, chain, &props, said, said_size);
	if (ret)
		return ret;
	/* xe_oa_stream_open_ioctl(): unit 0 unless told. */
	struct fk_unit *unit = props.unit ? props.unit : &card->units[0];
	bool sample = props.value[DRM_XE_OA_PROPERTY_SAMPLE_OA] != 0;
	const struct fk_exec_queue *q;
	ret = exec_queue_of(file, &props, unit, &q);
	if (ret)
		return ret;
	/* Query sampling of a queue's own OAR/OAC counters, without the OA
	 * buffer, is unprivileged; NO_PREEMPT needs a queue and privilege. */
	bool privileged = !(q && !sample);
	if (props.value[DRM_XE_OA_PROPERTY_NO_PREEMPT]) {
		if (!q)
			return -EINVAL;
		privileged = true;
	}
	if (privileged && paranoid_refused())
		return -EACCES;
	if (!q && !sample)
		return -EINVAL;
	/* xe_oa_assign_hwe(): a queue's engine is its class on its GT, of
	 * instance OA_ENGINE_INSTANCE, and must be the unit's. */
	if (q) {
		unsigned instance = (unsigned)props.value[DRM_XE_OA_PROPERTY_OA_ENGINE_INSTANCE];
		if (!fk_card_has_engine(card, q->gt_id, q->engine_class, instance) ||
		    fk_unit_of_engine(card, q->engine_class, instance) != unit)
			return -EINVAL;
	}
	/* No format given is format 0, which xe takes for none. */
	if (props.format < 0 || !fk_format_fits_unit(props.format, unit))
		return -EINVAL;
	uint64_t buffer = props.given[DRM_XE_OA_PROPERTY_OA_BUFFER_SIZE] ?
			  props.value[DRM_XE_OA_PROPERTY_OA_BUFFER_SIZE] :
			  FK_OA_BUFFER_SIZE;
	uint64_t wait = props.given[DRM_XE_OA_PROPERTY_WAIT_NUM_REPORTS] ?
			props.value[DRM_XE_OA_PROPERTY_WAIT_NUM_REPORTS] : 1;
	/* Periodic sampling reads the OA buffer: SAMPLE_OA. */
	if (props.given[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT] && !sample)
		return -EINVAL;
	const struct gpm_oa_format *layout = fk_format_layout(props.format);
	if (layout && wait > buffer / layout->size)
		return -EINVAL;
	/* xe_oa_stream_open_ioctl_locked(): the unit, then the set
	 * (xe_oa_stream_init()). */
	if (unit->stream || fk_control()->busy)
		return -EBUSY;
	char guid[37];
	uint64_t set_id = props.value[DRM_XE_OA_PROPERTY_OA_METRIC_SET];
	if (fk_config_guid(card, set_id, guid) || fk_inject_einval(card, set_id))
		return -EINVAL;
	struct fk_stream_params sp = {
		.unit = unit,
		.set_id = set_id,
		.format = props.format,
		.exponent = props.given[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT] ?
			    (int)props.value[DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT] :
			    GPD_OA_MODEL_NOT_PERIODIC,
		.disabled = props.value[DRM_XE_OA_PROPERTY_OA_DISABLED] != 0,
		/* xe's poll period is fixed (DEFAULT_POLL_PERIOD_NS). */
		.poll_period_ns = FK_DEFAULT_POLL_PERIOD_NS,
		/* xe never filters or squashes the OA buffer
		 * (xe_oa_append_reports()): a queue's stream holds every
		 * context's reports; the queue's own counters are its
		 * context image's. */
		.context_index = -1,
		.context_counters = q ? context_counters(q->engine_class) : NULL,
		.no_sample = !sample,
		.wait_num_reports = (unsigned)wait,
		.buffer_size = buffer,
	};
	if (q)
		snprintf(sp.counted_context, sizeof(sp.counted_context),
			 "exec queue %u", q->id);
	return fk_stream_open(card, &sp);
}

static int add_config(struct fk_card *card, const struct drm_xe_oa_config *c,
		      char *said, size_t said_size)
{
	char uuid[37];
	memcpy(uuid, c->uuid, 36);
	uuid[36] = '\0';
	snprintf(said, said_size, "uuid=%s n_regs=%u", uuid, c->n_regs);
	/* xe_oa_add_config_ioctl(): the privilege first. */
	if (paranoid_refused())
		return -EACCES;
	if (c->extensions || !c->regs_ptr || !c->n_regs || !fk_uuid_valid(uuid))
		return -EINVAL;
	const uint32_t *regs = (const void *)(uintptr_t)c->regs_ptr;
	for (uint32_t i = 0; i < c->n_regs; i++)
		if (!fk_register_allowed(card, FK_REGS_XE, regs[2 * i])) {
			fk_log("card%u OA_ADD_CONFIG register 0x%x is not one the "
			       "kernel takes", card->index, regs[2 * i]);
			return -EINVAL;
		}
	uint64_t id;
	if (fk_take_add_config_race()) {
		fk_config_add(card, uuid, &id);
		return -EADDRINUSE;
	}
	int ret = fk_config_add(card, uuid, &id);
	return ret ? ret : (int)id;
}

static int observation(struct fk_card *card, struct fk_file *file,
		       const struct drm_xe_observation_param *p)
{
	char said[512] = "";
	const char *op = "OA_?";
	int ret;
	if (p->extensions || p->observation_type != DRM_XE_OBSERVATION_TYPE_OA) {
		ret = -EINVAL;
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_STREAM_OPEN) {
		op = "OA_STREAM_OPEN";
		ret = stream_open(card, file, p->param, said, sizeof(said));
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_ADD_CONFIG) {
		op = "OA_ADD_CONFIG";
		ret = add_config(card, (const void *)(uintptr_t)p->param, said,
				 sizeof(said));
	} else if (p->observation_op == DRM_XE_OBSERVATION_OP_REMOVE_CONFIG) {
		op = "OA_REMOVE_CONFIG";
		uint64_t id = *(const uint64_t *)(uintptr_t)p->param;
		snprintf(said, sizeof(said), "id=%llu", (unsigned long long)id);
		ret = paranoid_refused() ? -EACCES : fk_config_remove(card, id);
	} else {
		ret = -EINVAL;
	}
	if (ret < 0)
		fk_log("card%u %s %s -> %s", card->index, op, said, fk_errname(ret));
	else
		fk_log("card%u %s %s -> %d", card->index, op, said, ret);
	return ret;
}

/* The VM and exec-queue ioctls, logged with what they made. */
static int vm_and_queue_ioctl(struct fk_card *card, struct fk_file *file,
			      unsigned long request, void *arg)
{
	int ret;
	switch (request) {
	case DRM_IOCTL_XE_VM_CREATE:
		ret = fk_xe_vm_create(file, arg);
		fk_log("card%u VM_CREATE -> %s%u", card->index,
		       ret ? fk_errname(ret) : "", ret ? 0 :
		       ((struct drm_xe_vm_create *)arg)->vm_id);
		return ret;
	case DRM_IOCTL_XE_VM_DESTROY:
		ret = fk_xe_vm_destroy(file, arg);
		fk_log("card%u VM_DESTROY %u -> %s", card->index,
		       ((const struct drm_xe_vm_destroy *)arg)->vm_id,
		       ret ? fk_errname(ret) : "0");
		return ret;
	case DRM_IOCTL_XE_EXEC_QUEUE_CREATE:
		ret = fk_xe_exec_queue_create(file, arg);
		fk_log("card%u EXEC_QUEUE_CREATE -> %s%u", card->index,
		       ret ? fk_errname(ret) : "", ret ? 0 :
		       ((struct drm_xe_exec_queue_create *)arg)->exec_queue_id);
		return ret;
	default:
		ret = fk_xe_exec_queue_destroy(file, arg);
		fk_log("card%u EXEC_QUEUE_DESTROY %u -> %s", card->index,
		       ((const struct drm_xe_exec_queue_destroy *)arg)->exec_queue_id,
		       ret ? fk_errname(ret) : "0");
		return ret;
	}
}

int fk_xe_card_ioctl(struct fk_card *card, struct fk_file *file,
		     unsigned long request, void *arg)
{
	switch (request) {
	case DRM_IOCTL_VERSION:
		return fk_drm_version(card, arg);
	case DRM_IOCTL_XE_DEVICE_QUERY:
		return device_query(card, arg);
	case DRM_IOCTL_XE_OBSERVATION:
		return observation(card, file, arg);
	case DRM_IOCTL_XE_VM_CREATE:
	case DRM_IOCTL_XE_VM_DESTROY:
	case DRM_IOCTL_XE_EXEC_QUEUE_CREATE:
	case DRM_IOCTL_XE_EXEC_QUEUE_DESTROY:
		return vm_and_queue_ioctl(card, file, request, arg);
	default:
		fk_log("card%u ioctl 0x%lx -> ENOTTY", card->index, request);
		return -ENOTTY;
	}
}

/* DRM_XE_OBSERVATION_IOCTL_CONFIG: only the metric set and the syncs may
 * change (xe_oa_set_property_funcs_config); an unknown set is ENODEV
 * (xe_oa_config_locked()). */
static int stream_config(struct fk_stream *s, uint64_t chain, uint64_t *prev)
{
	uint64_t set_id = 0;
	for (const struct drm_xe_ext_set_property *p = (const void *)(uintptr_t)chain;
	     p; p = (const void *)(uintptr_t)p->base.next_extension) {
		if (p->property == DRM_XE_OA_PROPERTY_OA_METRIC_SET)
			set_id = p->value;
		else if (p->property != DRM_XE_OA_PROPERTY_NUM_SYNCS &&
			 p->property != DRM_XE_OA_PROPERTY_SYNCS)
			return -EINVAL;
	}
	char guid[37];
	if (fk_config_guid(s->card, set_id, guid))
		return -ENODEV;
	return fk_stream_set_config(s, set_id, prev);
}

bool fk_xe_stream_ioctl(struct fk_stream *s, unsigned long request,
			unsigned long arg, int *ret)
{
	unsigned index = s->card->index;
	uint64_t prev;
	/* xe_oa_ioctl_locked(). */
	switch (request) {
	case DRM_XE_OBSERVATION_IOCTL_ENABLE:
		fk_stream_enable(s);
		fk_log("card%u stream ENABLE", index);
		*ret = 0;
		return true;
	case DRM_XE_OBSERVATION_IOCTL_DISABLE:
		fk_stream_disable(s);
		fk_log("card%u stream DISABLE", index);
		*ret = 0;
		return true;
	case DRM_XE_OBSERVATION_IOCTL_CONFIG:
		*ret = stream_config(s, arg, &prev);
		if (!*ret)
			*ret = (int)prev;
		fk_log("card%u stream CONFIG -> %s%d", index,
		       *ret < 0 ? fk_errname(*ret) : "", *ret < 0 ? 0 : *ret);
		return true;
	case DRM_XE_OBSERVATION_IOCTL_STATUS: {
		/* xe_oa_status_locked(): what the last read captured. */
		struct drm_xe_oa_stream_status *st = (void *)arg;
		memset(st, 0, sizeof(*st));
		st->oa_status = fk_stream_status(s);
		fk_log("card%u stream STATUS -> 0x%llx", index,
		       (unsigned long long)st->oa_status);
		*ret = 0;
		return true;
	}
	case DRM_XE_OBSERVATION_IOCTL_INFO: {
		struct drm_xe_oa_stream_info *info = (void *)arg;
		memset(info, 0, sizeof(*info));
		info->oa_buf_size = fk_stream_buffer_size(s);
		fk_log("card%u stream INFO -> %llu", index,
		       (unsigned long long)info->oa_buf_size);
		*ret = 0;
		return true;
	}
	default:
		return false;
	}
}
