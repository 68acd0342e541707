/*
 * xe's VMs and exec queues of a DRM file (Linux 7.0 xe_vm.c,
 * xe_exec_queue.c).
 *
 * Both belong to the file that created them: xe_file_open() gives each
 * file its own VM and exec-queue xarrays (XA_FLAGS_ALLOC1, so ids start
 * at 1, the lowest free one first), and xe_vm_lookup() and
 * xe_exec_queue_lookup() look in the caller's file only. An exec queue
 * created here submits as one of the OA model's workload contexts, each
 * new one the next, as a GEM context does (files.c). What the fake does
 * not model: VM_BIND queues, create extensions (priority, timeslice, PXP)
 * and a long-running VM's refusal to die while it has queues; it refuses
 * the first two with EINVAL.
 */
#include <errno.h>
#include <string.h>

#include "daemon/xe/xe_uapi.h"
#include "tests/fake-kernel/fake_kernel.h"

/* XE_HW_ENGINE_MAX_INSTANCE: placements of one exec queue at most. */
#define XE_HW_ENGINE_MAX_INSTANCE 9

static const uint32_t known_vm_flags = DRM_XE_VM_CREATE_FLAG_SCRATCH_PAGE |
				       DRM_XE_VM_CREATE_FLAG_LR_MODE |
				       DRM_XE_VM_CREATE_FLAG_FAULT_MODE;

static bool vm_exists(const struct fk_file *file, uint32_t id)
{
	for (unsigned i = 0; i < FK_MAX_VMS; i++)
		if (file->state->vms[i] == id)
			return id != 0;
	return false;
}

/* xe_vm_create_ioctl(): extensions, fault mode without the device's USM
 * (PVC and Xe2 on have it), reserved, unknown flags, and fault mode
 * without LR mode are EINVAL. */
int fk_xe_vm_create(struct fk_file *file, void *arg)
{
	struct drm_xe_vm_create *args = arg;
	unsigned version = file->card->info.graphics_version;
	bool has_usm = version == 1260 || version >= 2000;
	if (args->extensions ||
	    (args->flags & DRM_XE_VM_CREATE_FLAG_FAULT_MODE && !has_usm) ||
	    args->reserved[0] || args->reserved[1] ||
	    args->flags & ~known_vm_flags ||
	    (args->flags & DRM_XE_VM_CREATE_FLAG_FAULT_MODE &&
	     !(args->flags & DRM_XE_VM_CREATE_FLAG_LR_MODE)))
		return -EINVAL;
	uint32_t id = 1;
	while (vm_exists(file, id))
		id++;
	for (unsigned i = 0; i < FK_MAX_VMS; i++)
		if (!file->state->vms[i]) {
			file->state->vms[i] = id;
			args->vm_id = id;
			return 0;
		}
	return -ENOMEM;
}

/* xe_vm_destroy_ioctl(): pad and reserved, then an unknown id (ENOENT). */
int fk_xe_vm_destroy(struct fk_file *file, const void *arg)
{
	const struct drm_xe_vm_destroy *args = arg;
	if (args->pad || args->reserved[0] || args->reserved[1])
		return -EINVAL;
	for (unsigned i = 0; i < FK_MAX_VMS; i++)
		if (args->vm_id && file->state->vms[i] == args->vm_id) {
			file->state->vms[i] = 0;
			return 0;
		}
	return -ENOENT;
}

/* find_hw_engine(): a user engine class, a GT of the device, and an
 * engine of that GT. */
static bool hw_engine_exists(const struct fk_card *card,
			     const struct drm_xe_engine_class_instance *eci)
{
	return eci->engine_class <= DRM_XE_ENGINE_CLASS_COMPUTE &&
	       eci->gt_id < card->n_gts &&
	       fk_card_has_engine(card, eci->gt_id, eci->engine_class,
				  eci->engine_instance);
}

/* calc_validate_logical_mask(): every placement an engine, all of the
 * first's GT and class, and the engines of a parallel queue's batches
 * logically contiguous; false for a mask of 0. */
static bool placements_valid(const struct fk_card *card,
			     const struct drm_xe_engine_class_instance *eci,
			     unsigned width, unsigned num_placements)
{
	uint32_t prev_mask = 0;
	for (unsigned i = 0; i < width; i++) {
		uint32_t mask = 0;
		for (unsigned j = 0; j < num_placements; j++) {
			const struct drm_xe_engine_class_instance *e =
				&eci[j * width + i];
			if (!hw_engine_exists(card, e) || e->gt_id != eci[0].gt_id ||
			    e->engine_class != eci[0].engine_class ||
			    e->engine_instance >= 32)
				return false;
			mask |= 1u << e->engine_instance;
		}
		if (i && mask != prev_mask << 1)
			return false;
		prev_mask = mask;
	}
	return true;
}

struct fk_exec_queue *fk_xe_exec_queue_lookup(struct fk_file *file, uint32_t id)
{
	for (unsigned i = 0; i < FK_MAX_EXEC_QUEUES; i++)
		if (file->state->exec_queues[i].used &&
		    file->state->exec_queues[i].id == id)
			return &file->state->exec_queues[i];
	return NULL;
}

/* xe_exec_queue_create_ioctl(), in its order: flags but the low-latency
 * hint and reserved (EINVAL); no placement or more than the engines'
 * most (EINVAL); the first placement's GT (EINVAL); the placements
 * (EINVAL); the VM, looked up in this file (ENOENT). */
int fk_xe_exec_queue_create(struct fk_file *file, void *arg)
{
	struct drm_xe_exec_queue_create *args = arg;
	const struct fk_card *card = file->card;
	if (args->flags & ~(uint32_t)DRM_XE_EXEC_QUEUE_LOW_LATENCY_HINT ||
	    args->reserved[0] || args->reserved[1])
		return -EINVAL;
	unsigned len = (unsigned)args->width * args->num_placements;
	if (!len || len > XE_HW_ENGINE_MAX_INSTANCE)
		return -EINVAL;
	const struct drm_xe_engine_class_instance *eci =
		(const void *)(uintptr_t)args->instances;
	if (eci[0].gt_id >= card->n_gts)
		return -EINVAL;
	if (eci[0].engine_class == DRM_XE_ENGINE_CLASS_VM_BIND || args->extensions)
		return -EINVAL;         /* not modelled */
	if (!placements_valid(card, eci, args->width, args->num_placements))
		return -EINVAL;
	if (!vm_exists(file, args->vm_id))
		return -ENOENT;
	uint32_t id = 1;
	while (fk_xe_exec_queue_lookup(file, id))
		id++;
	for (unsigned i = 0; i < FK_MAX_EXEC_QUEUES; i++) {
		struct fk_exec_queue *q = &file->state->exec_queues[i];
		if (q->used)
			continue;
		int index = fk_take_workload_context(card);
		if (index < 0)
			return index;
		*q = (struct fk_exec_queue){
			.used = true, .id = id, .vm_id = args->vm_id,
			.engine_class = eci[0].engine_class,
			.engine_instance = eci[0].engine_instance,
			.gt_id = eci[0].gt_id,
			.width = args->width,
			.workload_index = index,
		};
		args->exec_queue_id = id;
		return 0;
	}
	return -ENOMEM;
}

/* xe_exec_queue_destroy_ioctl(): pad and reserved, then an unknown id
 * (ENOENT). */
int fk_xe_exec_queue_destroy(struct fk_file *file, const void *arg)
{
	const struct drm_xe_exec_queue_destroy *args = arg;
	if (args->pad || args->reserved[0] || args->reserved[1])
		return -EINVAL;
	struct fk_exec_queue *q = fk_xe_exec_queue_lookup(file, args->exec_queue_id);
	if (!q)
		return -ENOENT;
	q->used = false;
	return 0;
}
