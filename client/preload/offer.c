/*
 * Which ioctls create what gpuperf run can measure (offer.h).
 *
 * Requests are matched whole, direction and size included, as the uAPI
 * headers number them: another driver's command of the same number has
 * another argument size.
 */
#include <stddef.h>
#include <string.h>

#include <i915_drm.h>

#include "client/preload/offer.h"

/*
 * include/uapi/drm/xe_drm.h (Linux 6.8 on): DRM_XE_EXEC_QUEUE_CREATE is
 * driver command 0x06, read and written, with a struct
 * drm_xe_exec_queue_create of 48 bytes whose exec_queue_id, the queue's
 * id in its DRM file, is the u32 at byte 20 (after extensions, width,
 * num_placements, vm_id and flags).
 */
#define XE_EXEC_QUEUE_CREATE 0x06
#define XE_EXEC_QUEUE_CREATE_SIZE 48
#define XE_EXEC_QUEUE_ID_OFFSET 20
#define IOCTL_XE_EXEC_QUEUE_CREATE \
	_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, \
	     DRM_COMMAND_BASE + XE_EXEC_QUEUE_CREATE, XE_EXEC_QUEUE_CREATE_SIZE)

enum gpuperf_offer_kind gpuperf_offer_kind_of(unsigned long request)
{
	switch (request) {
	case DRM_IOCTL_I915_GEM_CONTEXT_CREATE:
	case DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT:
		return GPUPERF_OFFER_I915_CONTEXT;
	case IOCTL_XE_EXEC_QUEUE_CREATE:
		return GPUPERF_OFFER_XE_EXEC_QUEUE;
	default:
		return GPUPERF_OFFER_NONE;
	}
}

uint32_t gpuperf_offer_created_id(enum gpuperf_offer_kind kind, const void *arg)
{
	uint32_t id = 0;
	/* ctx_id leads both i915 create structs. */
	size_t offset = kind == GPUPERF_OFFER_XE_EXEC_QUEUE ? XE_EXEC_QUEUE_ID_OFFSET
		: offsetof(struct drm_i915_gem_context_create_ext, ctx_id);
	memcpy(&id, (const char *)arg + offset, sizeof(id));
	return id;
}

const char *gpuperf_offer_kind_name(enum gpuperf_offer_kind kind)
{
	return kind == GPUPERF_OFFER_XE_EXEC_QUEUE ? "exec queue" : "GEM context";
}
