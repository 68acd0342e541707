/*
 * DRM_IOCTL_VERSION of a fake card: the driver's name is how libdrm users
 * (drmGetVersion) tell i915 from xe.
 */
#include <string.h>

#include <drm.h>

#include "tests/fake-kernel/fake_kernel.h"

/* Copies what fits of text into the caller's buffer and reports the full
 * length, as the kernel does. */
static void fill(char *buf, __kernel_size_t *len, const char *text)
{
	size_t n = strlen(text);
	if (buf && *len)
		memcpy(buf, text, *len < n ? *len : n);
	*len = n;
}

int fk_drm_version(const struct fk_card *card, void *arg)
{
	struct drm_version *v = arg;
	v->version_major = 1;
	v->version_minor = card->driver == FK_I915 ? 6 : 1;
	v->version_patchlevel = 0;
	fill(v->name, &v->name_len, card->driver == FK_I915 ? "i915" : "xe");
	fill(v->date, &v->date_len, "20201103");
	fill(v->desc, &v->desc_len, card->driver == FK_I915 ?
	     "Intel Graphics" : "Intel Xe2 Graphics");
	return 0;
}
