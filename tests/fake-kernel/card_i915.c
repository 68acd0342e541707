/*
 * The ioctls of a fake i915 card and of its perf streams, in the order
 * Linux 6.12 checks them (i915_perf.c; docs/oa-reference.md §1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/i915/i915_uapi.h"
#include "metrics/i915_topology.h"
#include "tests/fake-kernel/fake_kernel.h"

#define PROP_CTX_HANDLE DRM_I915_PERF_PROP_CTX_HANDLE
#define PROP_SAMPLE_OA DRM_I915_PERF_PROP_SAMPLE_OA
#define PROP_METRICS_SET DRM_I915_PERF_PROP_OA_METRICS_SET
#define PROP_FORMAT DRM_I915_PERF_PROP_OA_FORMAT
#define PROP_EXPONENT DRM_I915_PERF_PROP_OA_EXPONENT
#define PROP_HOLD_PREEMPTION DRM_I915_PERF_PROP_HOLD_PREEMPTION
#define PROP_GLOBAL_SSEU DRM_I915_PERF_PROP_GLOBAL_SSEU
#define PROP_POLL_PERIOD DRM_I915_PERF_PROP_POLL_OA_PERIOD
#define PROP_CLASS GPD_I915_PERF_PROP_OA_ENGINE_CLASS
#define PROP_INSTANCE GPD_I915_PERF_PROP_OA_ENGINE_INSTANCE
/* enum drm_i915_oa_format's I915_OA_FORMAT_MAX with the OAM formats. */
#define OA_FORMAT_MAX 15

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
		value = (int)fk_oa_frequency(card, &card->gts[0]);
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

static bool paranoid_refused(void)
{
	return fk_sysctl("dev/i915/perf_stream_paranoid", 1) &&
	       !fk_control()->capable;
}

/* oa_exponent_to_ns() and the sample-rate gate of
 * read_properties_unlocked(): 1e9 / ceil(2^(e+1) x 1e9 / f), f the OA
 * clock, against dev.i915.oa_max_sample_rate. */
static bool rate_refused(const struct fk_card *card, uint64_t exponent)
{
	uint64_t freq = fk_oa_frequency(card, &card->gts[0]);
	uint64_t period = ((2ull << exponent) * 1000000000ull + freq - 1) / freq;
	uint64_t hz = period <= 1000000000ull ? 1000000000ull / period : 0;
	return hz > fk_sysctl("dev/i915/oa_max_sample_rate", 100000) &&
	       !fk_control()->capable;
}

struct open_props {
	bool given[11];
	uint64_t value[11];
};

/* read_properties_unlocked(): each property on its own, in the order
 * given, then the engine and its format. */
static int read_properties(struct fk_card *card, const struct drm_i915_perf_open_param *p,
			   struct open_props *props, struct fk_unit **unit,
			   int *format, char *said, size_t said_size)
{
	unsigned max = max_property(fk.perf_revision);
	size_t at = strlen(said);
	if (!p->num_properties || p->num_properties > max)
		return -EINVAL;
	const uint64_t *pairs = (const void *)(uintptr_t)p->properties_ptr;
	for (uint32_t i = 0; i < p->num_properties; i++) {
		uint64_t id = pairs[2 * i], v = pairs[2 * i + 1];
		if (id == 0 || id > max)
			return -EINVAL;
		if (at < said_size)
			at += (size_t)snprintf(said + at, said_size - at, " %s=%llu",
					       prop_names[id], (unsigned long long)v);
		props->given[id] = true;
		props->value[id] = v;
		switch (id) {
		case PROP_METRICS_SET:
			if (!v)
				return -EINVAL;
			break;
		case PROP_FORMAT:
			if (!v || v >= OA_FORMAT_MAX || fk_format_by_i915(card, v) < 0)
				return -EINVAL;
			break;
		case PROP_EXPONENT:
			if (v > GPD_OA_MODEL_MAX_EXPONENT)
				return -EINVAL;
			if (rate_refused(card, v))
				return -EACCES;
			break;
		case PROP_GLOBAL_SSEU:
			if (card->info.graphics_version >= 1250)
				return -ENODEV;
			break;
		case PROP_POLL_PERIOD:
			if (v < 100000)
				return -EINVAL;
			break;
		default:
			break;
		}
	}
	if (props->given[PROP_CLASS] != props->given[PROP_INSTANCE])
		return -EINVAL;
	/* Render:0 unless told; an engine without an OA unit, or a format
	 * of another unit type, is EINVAL (engine_supports_oa_format()). */
	*unit = fk_unit_of_engine(card, props->given[PROP_CLASS] ?
				  (unsigned)props->value[PROP_CLASS] : FK_ENGINE_RENDER,
				  props->given[PROP_INSTANCE] ?
				  (unsigned)props->value[PROP_INSTANCE] : 0);
	if (!*unit)
		return -EINVAL;
	*format = fk_format_by_i915(card, props->value[PROP_FORMAT]);
	/* No format reads as format 0, an OAG one. */
	if (*format >= 0 ? !fk_format_fits_unit(*format, *unit)
			 : (*unit)->type != FK_UNIT_OAG)
		return -EINVAL;
	return 0;
}

static int perf_open(struct fk_card *card, struct fk_file *file,
		     const struct drm_i915_perf_open_param *p,
		     char *said, size_t said_size)
{
	const uint32_t known_flags = I915_PERF_FLAG_FD_CLOEXEC |
				     I915_PERF_FLAG_FD_NONBLOCK |
				     I915_PERF_FLAG_DISABLED;
	snprintf(said, said_size, "flags=0x%x", p->flags);
	if (p->flags & ~known_flags)
		return -EINVAL;
	struct open_props props = { 0 };
	struct fk_unit *unit;
	int format;
	int ret = read_properties(card, p, &props, &unit, &format, said, said_size);
	if (ret)
		return ret;

	/* i915_perf_open_ioctl_locked(): the context, then the privilege. */
	struct fk_context *ctx = NULL;
	if (props.given[PROP_CTX_HANDLE] &&
	    !(ctx = fk_context_lookup(file, (uint32_t)props.value[PROP_CTX_HANDLE])))
		return -ENOENT;
	unsigned version = card->info.graphics_version;
	bool sample = props.value[PROP_SAMPLE_OA] != 0;
	bool privileged = !((version < 800 && ctx) ||
			    (version >= 1200 && version < 1300 && ctx && !sample));
	if (props.value[PROP_HOLD_PREEMPTION]) {
		if (!ctx)
			return -EINVAL;
		privileged = true;
	}
	if (props.given[PROP_GLOBAL_SSEU])
		privileged = true;
	if (privileged && paranoid_refused())
		return -EACCES;

	/* i915_oa_stream_init(): sampling, the unit, the format, the
	 * context's engine, then the set. */
	if (!sample && (version < 1200 || !ctx))
		return -EINVAL;
	if (unit->stream || fk_control()->busy)
		return -EBUSY;
	if (format < 0)
		return -EINVAL;
	/* oa_pin_context(): the context must have the stream's engine. */
	unsigned engine_class = props.given[PROP_CLASS] ?
				(unsigned)props.value[PROP_CLASS] : FK_ENGINE_RENDER;
	if (ctx && !(ctx->engine_classes >> engine_class & 1))
		return -ENODEV;
	char guid[37];
	if (fk_config_guid(card, props.value[PROP_METRICS_SET], guid) ||
	    fk_inject_einval(card, props.value[PROP_METRICS_SET]))
		return -EINVAL;
	struct fk_stream_params sp = {
		.unit = unit,
		.set_id = props.value[PROP_METRICS_SET],
		.format = format,
		.exponent = props.given[PROP_EXPONENT] ?
			    (int)props.value[PROP_EXPONENT] : GPD_OA_MODEL_NOT_PERIODIC,
		.disabled = p->flags & I915_PERF_FLAG_DISABLED,
		.poll_period_ns = props.given[PROP_POLL_PERIOD] ?
				  props.value[PROP_POLL_PERIOD] : FK_DEFAULT_POLL_PERIOD_NS,
		.filter_context = ctx != NULL,
		.context_index = ctx ? ctx->workload_index : -1,
		/* Gen12's counters are saved and restored with the context:
		 * the stream's context gets its OAR counters
		 * (gen12_enable_metric_set()). */
		.context_counters = ctx && version >= 1200 ? "OAR" : NULL,
		.wait_num_reports = 1,
	};
	if (ctx)
		snprintf(sp.counted_context, sizeof(sp.counted_context),
			 "context %u", ctx->handle);
	return fk_stream_open(card, &sp);
}

struct reg_list {
	uint32_t n;
	uint64_t ptr;
	enum fk_register_list kind;
};

/* alloc_oa_regs(): every address must be of the list's kind. */
static int check_registers(const struct fk_card *card, const struct reg_list *l)
{
	const uint32_t *regs = (const void *)(uintptr_t)l->ptr;
	for (uint32_t i = 0; i < l->n; i++)
		if (!fk_register_allowed(card, l->kind, regs[2 * i])) {
			fk_log("card%u ADD_CONFIG register 0x%x is not one the "
			       "kernel takes", card->index, regs[2 * i]);
			return -EINVAL;
		}
	return 0;
}

static int add_config(struct fk_card *card, const struct drm_i915_perf_oa_config *c,
		      char *said, size_t said_size)
{
	char uuid[37];
	memcpy(uuid, c->uuid, 36);
	uuid[36] = '\0';
	snprintf(said, said_size, "uuid=%s mux=%u boolean=%u flex=%u", uuid,
		 c->n_mux_regs, c->n_boolean_regs, c->n_flex_regs);
	/* i915_perf_add_config_ioctl(). */
	if (paranoid_refused())
		return -EACCES;
	if ((!c->mux_regs_ptr || !c->n_mux_regs) &&
	    (!c->boolean_regs_ptr || !c->n_boolean_regs) &&
	    (!c->flex_regs_ptr || !c->n_flex_regs))
		return -EINVAL;
	if (!fk_uuid_valid(uuid))
		return -EINVAL;
	const struct reg_list lists[] = {
		{ c->n_mux_regs, c->mux_regs_ptr, FK_REGS_MUX },
		{ c->n_boolean_regs, c->boolean_regs_ptr, FK_REGS_BOOLEAN },
		{ c->n_flex_regs, c->flex_regs_ptr, FK_REGS_FLEX },
	};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		int ret = check_registers(card, &lists[i]);
		if (ret)
			return ret;
	}
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
	if (paranoid_refused())
		return -EACCES;
	return fk_config_remove(card, *id);
}

int fk_i915_card_ioctl(struct fk_card *card, struct fk_file *file,
		       unsigned long request, void *arg)
{
	char said[512] = "";
	const char *name;
	uint32_t handle;
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
	case DRM_IOCTL_I915_GEM_CONTEXT_CREATE:
	case DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT:
		ret = fk_context_create(file, arg,
					request == DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT);
		if (ret) {
			fk_log("card%u GEM_CONTEXT_CREATE -> %s", card->index,
			       fk_errname(ret));
			return ret;
		}
		handle = ((struct drm_i915_gem_context_create *)arg)->ctx_id;
		fk_log("card%u GEM_CONTEXT_CREATE -> %u, hardware context 0x%x",
		       card->index, handle, fk_workload_context_id(card,
		       (unsigned)fk_context_lookup(file, handle)->workload_index));
		return 0;
	case DRM_IOCTL_I915_GEM_CONTEXT_DESTROY:
		ret = fk_context_destroy(file, arg);
		fk_log("card%u GEM_CONTEXT_DESTROY id=%u -> %s", card->index,
		       ((const struct drm_i915_gem_context_destroy *)arg)->ctx_id,
		       ret ? fk_errname(ret) : "0");
		return ret;
	case DRM_IOCTL_I915_PERF_OPEN:
		name = "PERF_OPEN";
		ret = perf_open(card, file, arg, said, sizeof(said));
		break;
	case DRM_IOCTL_I915_PERF_ADD_CONFIG:
		name = "ADD_CONFIG";
		ret = add_config(card, arg, said, sizeof(said));
		break;
	case DRM_IOCTL_I915_PERF_REMOVE_CONFIG:
		name = "REMOVE_CONFIG";
		snprintf(said, sizeof(said), "id=%llu",
			 (unsigned long long)*(const uint64_t *)arg);
		ret = remove_config(card, arg);
		break;
	default:
		fk_log("card%u ioctl 0x%lx -> ENOTTY", card->index, request);
		return -ENOTTY;
	}
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
	/* i915_perf_ioctl_locked(). */
	switch (request) {
	case I915_PERF_IOCTL_ENABLE:
		fk_stream_enable(s);
		fk_log("card%u stream ENABLE", index);
		*ret = 0;
		return true;
	case I915_PERF_IOCTL_DISABLE:
		fk_stream_disable(s);
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
