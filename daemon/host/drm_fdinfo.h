/*
 * A DRM file's /proc/PID/fdinfo/FD text, as the kernel's drm-usage-stats
 * document (Documentation/gpu/drm-usage-stats.rst, Linux 6.15) specifies
 * it and drm_show_fdinfo() and the drivers print it:
 *
 *   drm-driver:        i915
 *   drm-pdev:          0000:00:02.0
 *   drm-client-id:     7
 *   drm-engine-render: 9288864723 ns            (i915: time busy)
 *   drm-engine-capacity-video: 2                (engines of the class)
 *   drm-cycles-rcs:    28257900                 (xe: busy GPU ticks ...)
 *   drm-total-cycles-rcs: 7655183225            (... of this many)
 *   drm-total-system0: 4 KiB                    (memory: B, KiB or MiB)
 *   drm-resident-system0: 4 KiB
 *
 * Keys of other drivers (drm-maxfreq-*, drm-shared-*, driver-prefixed
 * ones) are skipped. Pure: the text in, the values out.
 */
#ifndef GPD_HOST_DRM_FDINFO_H
#define GPD_HOST_DRM_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPD_FDINFO_MAX_ENGINES 16

struct gpd_fdinfo_engine {
	char key[24];                   /* "render", "rcs" */
	bool has_ns, has_cycles, has_total;
	uint64_t ns;                    /* drm-engine-KEY */
	uint64_t cycles;                /* drm-cycles-KEY */
	uint64_t total_cycles;          /* drm-total-cycles-KEY */
	unsigned capacity;              /* drm-engine-capacity-KEY; 1 */
};

struct gpd_fdinfo {
	char driver[32];                /* "" when not a DRM file */
	char pdev[32];
	bool has_client_id;
	uint64_t client_id;
	unsigned n_engines;
	struct gpd_fdinfo_engine engines[GPD_FDINFO_MAX_ENGINES];
	uint64_t memory_total;          /* drm-total-REGION, summed */
	uint64_t memory_resident;       /* drm-resident- (drm-memory-) */
};

/* Parses len bytes of text. Lines it does not know, or cannot read, are
 * skipped: a later kernel may add keys. */
void gpd_fdinfo_parse(const char *text, size_t len, struct gpd_fdinfo *out);

#endif
