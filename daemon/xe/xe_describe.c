/*
 * Describing an xe card through DRM_IOCTL_XE_DEVICE_QUERY and sysfs.
 *
 * xe reports the dual-subslices (DSS) of a GT as one flat mask
 * (query_gt_topology()); it is described as i915 describes Xe_HP and
 * later, one slice of every DSS, and gpm_device_vars_init() counts them in
 * the metric files' slices of four, as Mesa does.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "daemon/error.h"
#include "daemon/drm/kernel_files.h"
#include "daemon/log.h"
#include "daemon/xe/xe_describe.h"
#include "daemon/xe/xe_uapi.h"

/* A query's answer in freshly allocated memory: a first call with size 0
 * asks for the size. */
static int query(int fd, uint32_t id, void **data, size_t *size)
{
	struct drm_xe_device_query q = { .query = id };
	if (drmIoctl(fd, DRM_IOCTL_XE_DEVICE_QUERY, &q))
		return -errno;
	void *buf = calloc(1, q.size ? q.size : 1);
	if (!buf)
		return -ENOMEM;
	q.data = (uintptr_t)buf;
	if (drmIoctl(fd, DRM_IOCTL_XE_DEVICE_QUERY, &q)) {
		int ret = -errno;
		free(buf);
		return ret;
	}
	*data = buf;
	*size = q.size;
	return 0;
}

static int read_ids(int fd, const char *card, struct gpm_device_info *info,
		    struct gpd_error *err)
{
	struct drm_xe_query_config *config;
	size_t size;
	int ret = query(fd, DRM_XE_DEVICE_QUERY_CONFIG, (void **)&config, &size);
	if (ret)
		return gpd_fail(err, ret, "%s: the xe CONFIG query failed: %s",
				    card, strerror(-ret));
	if (size < sizeof(*config) + sizeof(config->info[0]) || !config->num_params) {
		free(config);
		return gpd_fail(err, -EBADMSG, "%s: the xe CONFIG query "
				    "returned no device id", card);
	}
	uint64_t v = config->info[DRM_XE_QUERY_CONFIG_REV_AND_DEVICE_ID];
	info->pci_id = (uint32_t)(v & 0xffff);
	info->revision = (uint32_t)(v >> 16 & 0xff);
	free(config);
	return 0;
}

/* The main GT: its id, for the topology, and its reference clock, which
 * is the OA clock where no OA unit reports one. */
static int read_main_gt(int fd, const char *card, uint16_t *gt_id,
			uint64_t *clock, struct gpd_error *err)
{
	struct drm_xe_query_gt_list *list;
	size_t size;
	int ret = query(fd, DRM_XE_DEVICE_QUERY_GT_LIST, (void **)&list, &size);
	if (ret)
		return gpd_fail(err, ret, "%s: the xe GT_LIST query failed: %s",
				    card, strerror(-ret));
	ret = -ENOENT;
	for (uint32_t i = 0; i < list->num_gt &&
	     sizeof(*list) + (i + 1) * sizeof(list->gt_list[0]) <= size; i++) {
		if (list->gt_list[i].type == DRM_XE_QUERY_GT_TYPE_MAIN) {
			*gt_id = list->gt_list[i].gt_id;
			*clock = list->gt_list[i].reference_clock;
			ret = 0;
			break;
		}
	}
	free(list);
	if (ret)
		return gpd_fail(err, ret, "%s: xe reports no main GT", card);
	return 0;
}

static int read_oa_units(int fd, const char *card,
			 struct gpd_xe_description *out, uint64_t *oa_freq,
			 struct gpd_error *err)
{
	struct drm_xe_query_oa_units *units;
	size_t size;
	int ret = query(fd, DRM_XE_DEVICE_QUERY_OA_UNITS, (void **)&units, &size);
	if (ret)
		return gpd_fail(err, ret, "%s: the kernel has no xe OA "
				    "support (the OA_UNITS query failed: %s); "
				    "Linux 6.11 or later is needed", card,
				    strerror(-ret));
	/* Units are variable-length: each is followed by its engines. */
	const unsigned char *p = (const unsigned char *)units->oa_units;
	const unsigned char *end = (const unsigned char *)units + size;
	bool found = false;
	out->n_oa_units = 0;
	for (uint32_t i = 0; i < units->num_oa_units; i++) {
		const struct drm_xe_oa_unit *u = (const void *)p;
		if (p + sizeof(*u) > end ||
		    u->num_engines > (size_t)(end - p - sizeof(*u)) / sizeof(u->eci[0]))
			break;
		if (!found && u->oa_unit_type == DRM_XE_OA_UNIT_TYPE_OAG) {
			found = true;
			out->oa_unit_id = u->oa_unit_id;
			*oa_freq = u->oa_timestamp_freq;
		}
		if (out->n_oa_units < GPD_XE_MAX_OA_UNITS)
			out->oa_units[out->n_oa_units++] = (struct gpd_xe_oa_unit){
				.id = u->oa_unit_id,
				.type = u->oa_unit_type,
				.timestamp_frequency = u->oa_timestamp_freq,
			};
		p += sizeof(*u) + u->num_engines * sizeof(u->eci[0]);
	}
	free(units);
	if (!found)
		return gpd_fail(err, -ENODEV, "%s: xe reports no OAG unit "
				    "(the one sampling render and compute)", card);
	return 0;
}

static unsigned popcount(const uint8_t *mask, uint32_t bytes)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < bytes; i++)
		n += (unsigned)__builtin_popcount(mask[i]);
	return n;
}

struct xe_masks {
	uint8_t dss[64];                /* geometry | compute */
	uint32_t dss_bytes;
	uint8_t eu[8];
	uint32_t eu_bytes;
	uint8_t l3[16];                 /* DRM_XE_TOPO_L3_BANK, Linux 6.10 on */
	uint32_t l3_bytes;
};

static int read_topology(int fd, const char *card, uint16_t gt_id,
			 struct xe_masks *m, struct gpd_error *err)
{
	unsigned char *blob;
	size_t size;
	int ret = query(fd, DRM_XE_DEVICE_QUERY_GT_TOPOLOGY, (void **)&blob, &size);
	if (ret)
		return gpd_fail(err, ret, "%s: the xe GT_TOPOLOGY query "
				    "failed: %s", card, strerror(-ret));
	memset(m, 0, sizeof(*m));
	/* Masks follow each other, each a header and num_bytes of mask. */
	for (size_t off = 0; off + sizeof(struct drm_xe_query_topology_mask) <= size;) {
		const struct drm_xe_query_topology_mask *t = (const void *)(blob + off);
		size_t next = off + sizeof(*t) + t->num_bytes;
		if (next > size)
			break;
		if (t->gt_id == gt_id) {
			uint32_t n = t->num_bytes;
			if (t->type == DRM_XE_TOPO_DSS_GEOMETRY ||
			    t->type == DRM_XE_TOPO_DSS_COMPUTE) {
				if (n > sizeof(m->dss))
					n = sizeof(m->dss);
				for (uint32_t i = 0; i < n; i++)
					m->dss[i] |= t->mask[i];
				if (n > m->dss_bytes)
					m->dss_bytes = n;
			} else if (t->type == DRM_XE_TOPO_EU_PER_DSS ||
				   t->type == DRM_XE_TOPO_SIMD16_EU_PER_DSS) {
				if (n > sizeof(m->eu))
					n = sizeof(m->eu);
				memcpy(m->eu, t->mask, n);
				m->eu_bytes = n;
			} else if (t->type == DRM_XE_TOPO_L3_BANK) {
				if (n > sizeof(m->l3))
					n = sizeof(m->l3);
				memcpy(m->l3, t->mask, n);
				m->l3_bytes = n;
			}
		}
		off = next;
	}
	free(blob);
	if (!popcount(m->dss, m->dss_bytes) || !popcount(m->eu, m->eu_bytes))
		return gpd_fail(err, -EBADMSG, "%s: xe reports no DSS or EU "
				    "of the main GT", card);
	return 0;
}

/* One slice of every DSS; max_subslices covers the platform's full part
 * (IGT takes it from the HWCONFIG table) and every DSS present. */
static void flat_topology(const struct xe_masks *m, const struct gpm_platform *p,
			  struct gpm_topology *t)
{
	unsigned max = p->slices * p->subslices_per_slice;
	unsigned eus = p->eus_per_subslice;
	uint16_t eu_mask = 0;
	for (unsigned i = 0; i < m->eu_bytes * 8 && i < GPM_MAX_EUS_PER_SUBSLICE; i++) {
		if (m->eu[i / 8] >> (i % 8) & 1) {
			eu_mask |= (uint16_t)(1u << i);
			if (i + 1 > eus)
				eus = i + 1;
		}
	}
	memset(t, 0, sizeof(*t));
	t->max_slices = 1;
	t->slice_mask = 1;
	t->max_eus_per_subslice = (uint16_t)eus;
	for (unsigned i = 0; i < m->dss_bytes * 8 && i < GPM_MAX_SUBSLICES; i++) {
		if (!(m->dss[i / 8] >> (i % 8) & 1))
			continue;
		if (i + 1 > max)
			max = i + 1;
		t->subslice_mask[0] |= 1ull << i;
		t->eu_mask[0][i] = eu_mask;
	}
	t->max_subslices = (uint16_t)(max ? max : 1);
}

static void read_frequencies(const char *card_dir, const struct gpm_platform *p,
			     struct gpm_device_info *info)
{
	uint64_t min_mhz, max_mhz;
	if (gpd_kernel_file_read_u64(card_dir, "device/tile0/gt0/freq0/min_freq",
				     &min_mhz))
		min_mhz = p->min_freq_mhz;
	if (gpd_kernel_file_read_u64(card_dir, "device/tile0/gt0/freq0/max_freq",
				     &max_mhz))
		max_mhz = p->max_freq_mhz;
	info->gpu_min_freq = min_mhz * 1000000;
	info->gpu_max_freq = max_mhz * 1000000;
}

int gpd_xe_describe(int fd, const char *card, const char *card_dir,
		    struct gpd_xe_description *out, struct gpd_error *err)
{
	struct gpm_device_info *info = &out->info;
	memset(out, 0, sizeof(*out));
	uint16_t gt_id = 0;
	uint64_t gt_clock = 0, oa_freq = 0;
	struct xe_masks masks;
	int ret = read_ids(fd, card, info, err);
	if (!ret)
		ret = read_main_gt(fd, card, &gt_id, &gt_clock, err);
	if (!ret)
		ret = read_oa_units(fd, card, out, &oa_freq, err);
	if (!ret)
		ret = read_topology(fd, card, gt_id, &masks, err);
	if (ret)
		return ret;
	unsigned eu_count = popcount(masks.dss, masks.dss_bytes) *
			    popcount(masks.eu, masks.eu_bytes);
	ret = gpm_platform_by_pci_id(info->pci_id, eu_count, &out->platform);
	if (ret)
		return gpd_fail(err, ret, "%s: no metric definitions exist for "
				    "this GPU (PCI id 0x%04x); its platform is not "
				    "in gpuperfd's table", card, info->pci_id);
	if (!out->platform->xe_oa_format)
		return gpd_fail(err, -EOPNOTSUPP, "%s: gpuperfd knows no xe "
				    "OA report format for %s", card,
				    out->platform->description);
	/* The GT's reference clock is the command streamer's; the OAG unit's
	 * differs where it ignores CTC_SHIFT (xe_oa_timestamp_frequency()). */
	info->timestamp_frequency = oa_freq ? oa_freq : gt_clock;
	info->cs_timestamp_frequency = gt_clock;
	info->graphics_version = out->platform->graphics_version;
	info->eu_threads_count = out->platform->eu_threads_count;
	flat_topology(&masks, out->platform, &info->topology);
	/* $L3BankTotalCount: the main GT's L3 banks as xe counts them
	 * (query_gt_topology(), Linux 6.10 on); the table's figure before. */
	info->l3_bank_count = masks.l3_bytes ? popcount(masks.l3, masks.l3_bytes)
					     : out->platform->l3_bank_count;
	read_frequencies(card_dir, out->platform, info);
	gpd_info("%s: %s, PCI 0x%04x rev %u, xe with %u OA unit(s), %u EUs, "
		 "OA timestamp %llu Hz, GPU %llu-%llu MHz", card,
		 out->platform->description, info->pci_id, info->revision,
		 out->n_oa_units, gpm_topology_eu_count(&info->topology),
		 (unsigned long long)info->timestamp_frequency,
		 (unsigned long long)(info->gpu_min_freq / 1000000),
		 (unsigned long long)(info->gpu_max_freq / 1000000));
	return 0;
}
