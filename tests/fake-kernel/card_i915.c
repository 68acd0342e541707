/*
 * The ioctls of a fake i915 card and of its perf streams
 * (docs/oa-reference.md §1), in the order the kernel checks them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/i915/i915_uapi.h"
#include "metrics/i915_topology.h"
#include "tests/fake-kernel/fake_kernel.h"

static const char *const prop_names[] = {
	[1] = "CTX_HANDLE", "SAMPLE_OA", "OA_METRICS_SET", "OA_FORMAT",
	"OA_EXPONENT", "HOLD_PREEMPTION", "GLOBAL_SSEU", "POLL_OA_PERIOD",
	"OA_ENGINE_CLASS", "OA_ENGINE_INSTANCE",
};

/* The highest property id each perf revision knows (§1.2). */
static unsigned max_property(int revision)
{
	return revision >= 6 ? 10 : revision >= 5 ? 8 : revision >= 4 ? 7 :
	       revision >= 3 ? 6 : 5;
}

static int getparam(struct fk_card *card, struct drm_i915_getparam *gp)
{
	const struct gpm_device_info *info = &card->info;
	int value;
	switch (gp->param) {
	case I915_PARAM_CHIPSET_ID:
		value = (int)info->pci_id;
		break;
	case I915_PARAM_REVISION:
		value = (int)info->revision;
		break;
	case I915_PARAM_CS_TIMESTAMP_FREQUENCY:
		value = (int)info->cs_timestamp_frequency;
		break;
	case I915_PARAM_PERF_REVISION:
		if (fk.perf_revision < 1)
			return -EINVAL;
		value = fk.perf_revision;
		break;
	case I915_PARAM_OA_TIMESTAMP_FREQUENCY:
		/* i915_perf_oa_timestamp_frequency(): the CS clock <<
		 * (3 - CTC_SHIFT) on DG2 and MTL, which ignore CTC_SHIFT. */
		if (fk.perf_revision < 6)
			return -EINVAL;
		value = (int)info->timestamp_frequency;
		break;
	default:
		return -EINVAL;
	}
	*gp->value = value;
	return 0;
}

/* What DRM_I915_QUERY_TOPOLOGY_INFO reports: from Xe_HP on, one slice of
 * up to 32 dual-subslices of 16 EUs, whatever the hardware's slices
 * (xehp_sseu_info_init(), Linux 5.15 on; query_topology_info()). */
static void kernel_topology(const struct fk_card *card, struct gpm_topology *t)
{
	const struct gpm_topology *hw = &card->info.topology;
	*t = *hw;
	if (card->info.graphics_version < 1250)
		return;
	memset(t, 0, sizeof(*t));
	t->max_slices = 1;
	t->max_subslices = 32;
	t->max_eus_per_subslice = 16;
	t->slice_mask = 1;
	for (unsigned s = 0; s < hw->max_slices; s++)
		for (unsigned ss = 0; ss < hw->max_subslices; ss++) {
			unsigned dss = s * hw->max_subslices + ss;
			if (!gpm_topology_has_subslice(hw, s, ss) || dss >= 32)
				continue;
			t->subslice_mask[0] |= 1ull << dss;
			t->eu_mask[0][dss] = hw->eu_mask[s][ss];
		}
}

static int query_topology(struct fk_card *card, struct drm_i915_query_item *item)
{
	struct gpm_topology t;
	size_t len;
	kernel_topology(card, &t);
	if (gpm_i915_topology_encode(&t, NULL, 0, &len))
		return -EINVAL;
	if (item->length == 0) {
		item->length = (int32_t)len;
		return 0;
	}
	if (item->length < (int32_t)len || item->flags) {
		item->length = -EINVAL;
		return 0;
	}
	gpm_i915_topology_encode(&t, (void *)(uintptr_t)item->data_ptr, len, &len);
	item->length = (int32_t)len;
	return 0;
}

static int query(struct fk_card *card, struct drm_i915_query *q)
{
	if (q->flags)
		return -EINVAL;
	struct drm_i915_query_item *items = (void *)(uintptr_t)q->items_ptr;
	for (uint32_t i = 0; i < q->num_items; i++) {
		if (items[i].query_id == DRM_I915_QUERY_TOPOLOGY_INFO)
			query_topology(card, &items[i]);
		else
			items[i].length = -EINVAL;
		fk_log("card%u QUERY id=%llu -> length %d", card->index,
		       (unsigned long long)items[i].query_id, items[i].length);
	}
	return 0;
}

static bool privileged_refused(void)
{
	return fk_sysctl("dev/i915/perf_stream_paranoid", 1) &&
	       !fk_control()->capable;
}

static int perf_open(struct fk_card *card, const struct drm_i915_perf_open_param *p,
		     char *said, size_t said_size)
{
	const uint32_t known_flags = I915_PERF_FLAG_FD_CLOEXEC |
				     I915_PERF_FLAG_FD_NONBLOCK |
				     I915_PERF_FLAG_DISABLED;
	unsigned max = max_property(fk.perf_revision);
	size_t at = (size_t)snprintf(said, said_size, "flags=0x%x", p->flags);
	if ((p->flags & ~known_flags) || !p->num_properties ||
	    p->num_properties > max)
		return -EINVAL;
	const uint64_t *props = (const void *)(uintptr_t)p->properties_ptr;
	uint64_t value[11] = { 0 };
	bool given[11] = { false };
	for (uint32_t i = 0; i < p->num_properties; i++) {
		uint64_t id = props[2 * i], v = props[2 * i + 1];
		if (id == 0 || id > max)
			return -EINVAL;
		given[id] = true;
		value[id] = v;
		if (at < said_size)
			at += (size_t)snprintf(said + at, said_size - at, " %s=%llu",
					       prop_names[id], (unsigned long long)v);
	}
	/* Properties first (EINVAL, and the sample rate's EACCES). */
	char guid[37];
	if (!given[DRM_I915_PERF_PROP_SAMPLE_OA] || !value[DRM_I915_PERF_PROP_SAMPLE_OA] ||
	    !given[DRM_I915_PERF_PROP_OA_FORMAT] ||
	    value[DRM_I915_PERF_PROP_OA_FORMAT] != card->platform->i915_oa_format ||
	    !given[DRM_I915_PERF_PROP_OA_METRICS_SET] ||
	    fk_config_guid(card, value[DRM_I915_PERF_PROP_OA_METRICS_SET], guid))
		return -EINVAL;
	int exponent = GPD_OA_MODEL_NOT_PERIODIC;
	if (given[DRM_I915_PERF_PROP_OA_EXPONENT]) {
		uint64_t e = value[DRM_I915_PERF_PROP_OA_EXPONENT];
		if (e > GPD_OA_MODEL_MAX_EXPONENT)
			return -EINVAL;
		uint64_t hz = card->info.timestamp_frequency >> (e + 1);
		if (hz > fk_sysctl("dev/i915/oa_max_sample_rate", 100000) &&
		    !fk_control()->capable)
			return -EACCES;
		exponent = (int)e;
	}
	uint64_t poll = FK_DEFAULT_POLL_PERIOD_NS;
	if (given[DRM_I915_PERF_PROP_POLL_OA_PERIOD]) {
		poll = value[DRM_I915_PERF_PROP_POLL_OA_PERIOD];
		if (poll < 100000)
			return -EINVAL;
	}
	/* Then the context, the privilege, the unit. */
	uint64_t handle = value[DRM_I915_PERF_PROP_CTX_HANDLE];
	bool filter = given[DRM_I915_PERF_PROP_CTX_HANDLE];
	if (filter && (handle == 0 || handle > GPD_WORKLOAD_MAX_CONTEXTS))
		return -ENOENT;
	if (privileged_refused())
		return -EACCES;
	if (card->stream || fk_control()->busy)
		return -EBUSY;
	if (fk_inject_einval(card, value[DRM_I915_PERF_PROP_OA_METRICS_SET]))
		return -EINVAL;
	return fk_stream_open(card, value[DRM_I915_PERF_PROP_OA_METRICS_SET],
			      (uint32_t)value[DRM_I915_PERF_PROP_OA_FORMAT], exponent,
			      p->flags & I915_PERF_FLAG_DISABLED, poll, filter,
			      (uint32_t)(handle - 1));
}

static int add_config(struct fk_card *card, const struct drm_i915_perf_oa_config *c,
		      char *said, size_t said_size)
{
	char uuid[37];
	memcpy(uuid, c->uuid, 36);
	uuid[36] = '\0';
	snprintf(said, said_size, "uuid=%s mux=%u boolean=%u flex=%u", uuid,
		 c->n_mux_regs, c->n_boolean_regs, c->n_flex_regs);
	if (privileged_refused())
		return -EACCES;
	if (!c->n_mux_regs && !c->n_boolean_regs && !c->n_flex_regs)
		return -EINVAL;
	if (!fk_uuid_valid(uuid))
		return -EINVAL;
	uint64_t id;
	if (fk_take_add_config_race()) {
		/* Another process gets there first. */
		fk_config_add(card, uuid, &id);
		return -EADDRINUSE;
	}
	int ret = fk_config_add(card, uuid, &id);
	return ret ? ret : (int)id;
}

static int remove_config(struct fk_card *card, const uint64_t *id)
{
	if (privileged_refused())
		return -EACCES;
	return fk_config_remove(card, *id);
}

int fk_i915_card_ioctl(struct fk_card *card, unsigned long request, void *arg)
{
	char said[512] = "";
	int ret;
	switch (request) {
	case DRM_IOCTL_VERSION:
		return fk_drm_version(card, arg);
	case DRM_IOCTL_I915_GETPARAM: {
		struct drm_i915_getparam *gp = arg;
		ret = getparam(card, gp);
		fk_log("card%u GETPARAM param=%d -> %s%d", card->index, gp->param,
		       ret ? fk_errname(ret) : "", ret ? 0 : *gp->value);
		return ret;
	}
	case DRM_IOCTL_I915_QUERY:
		return query(card, arg);
	case DRM_IOCTL_I915_PERF_OPEN:
		ret = perf_open(card, arg, said, sizeof(said));
		break;
	case DRM_IOCTL_I915_PERF_ADD_CONFIG:
		ret = add_config(card, arg, said, sizeof(said));
		break;
	case DRM_IOCTL_I915_PERF_REMOVE_CONFIG:
		snprintf(said, sizeof(said), "id=%llu",
			 (unsigned long long)*(const uint64_t *)arg);
		ret = remove_config(card, arg);
		break;
	default:
		fk_log("card%u ioctl 0x%lx -> ENOTTY", card->index, request);
		return -ENOTTY;
	}
	const char *name = request == DRM_IOCTL_I915_PERF_OPEN ? "PERF_OPEN" :
			   request == DRM_IOCTL_I915_PERF_ADD_CONFIG ? "ADD_CONFIG" :
			   "REMOVE_CONFIG";
	if (ret < 0)
		fk_log("card%u %s %s -> %s", card->index, name, said, fk_errname(ret));
	else
		fk_log("card%u %s %s -> %d", card->index, name, said, ret);
	return ret;
}

bool fk_i915_stream_ioctl(struct fk_stream *s, unsigned long request,
			  unsigned long arg, int *ret)
{
	unsigned index = s->card->index;
	uint64_t prev;
	switch (request) {
	case I915_PERF_IOCTL_ENABLE:
		fk_stream_enable(s);
		fk_log("card%u stream ENABLE", index);
		*ret = 0;
		return true;
	case I915_PERF_IOCTL_DISABLE:
		gpd_oa_model_disable(s->model);
		fk_log("card%u stream DISABLE", index);
		*ret = 0;
		return true;
	case I915_PERF_IOCTL_CONFIG:
		*ret = fk.perf_revision < 2 ? -EINVAL :
		       fk_stream_set_config(s, arg, &prev);
		if (*ret) {
			fk_log("card%u stream CONFIG id=%lu -> %s", index, arg,
			       fk_errname(*ret));
		} else {
			fk_log("card%u stream CONFIG id=%lu -> %llu", index, arg,
			       (unsigned long long)prev);
			*ret = (int)prev;
		}
		return true;
	default:
		return false;
	}
}
