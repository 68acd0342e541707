/*
 * xe's exec queue create as include/uapi/drm/xe_drm.h lays it out, for
 * the tests of libgpuperf-preload.so (no installed header has it yet):
 * DRM_XE_EXEC_QUEUE_CREATE is driver command 0x06, its argument 48 bytes
 * with the id created at byte 20.
 */
#ifndef GPM_TEST_XE_QUEUE_CREATE_H
#define GPM_TEST_XE_QUEUE_CREATE_H

#include <stdint.h>

#include <drm.h>

struct xe_exec_queue_create {
	uint64_t extensions;
	uint16_t width, num_placements;
	uint32_t vm_id, flags, exec_queue_id;
	uint64_t instances;
	uint64_t reserved[2];
};

#define IOCTL_XE_EXEC_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + 0x06, struct xe_exec_queue_create)

#endif
