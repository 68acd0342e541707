/*
 * DRM files and their GEM contexts (Linux 6.12 i915_gem_context.c).
 *
 * Each open() of a card node is a DRM file with contexts of its own:
 * i915_gem_context_open() gives it a default context at handle 0, and
 * i915_gem_context_create_ioctl() allocates handles from 1, the lowest
 * free one first (context_xa is XA_FLAGS_ALLOC1). A handle means nothing
 * outside its file: i915_gem_context_lookup() looks in the caller's file
 * only. A context created here submits as one of the OA model's workload
 * contexts, each new one of the card the next, whichever process creates
 * it (hardware IDs are the engine's: machine.c); a default context never
 * submits.
 *
 * The DRM file is the open file description, not the descriptor
 * (drm_open_helper() hangs struct drm_file on filp->private_data, Linux
 * 6.12): dup(), fork() and SCM_RIGHTS share it, and ioctls on any of its
 * descriptors find the same contexts. So the fd open() returns becomes an
 * unnamed file of the machine's (O_TMPFILE) whose shared memory holds the
 * contexts; a process that receives a descriptor of it finds the DRM file
 * by that memory's header (fk_file_adopt()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <i915_drm.h>

#include "tests/fake-kernel/fake_kernel.h"

/* Every engine class: a context without an engine map has them all. */
#define ALL_ENGINE_CLASSES 0x1fu
#define FK_FILE_MAGIC 0x656c69666d7264ull       /* "drmfile" */

static struct fk_file *map_file(int fd, struct fk_card *card)
{
	struct fk_file *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->state = mmap(NULL, sizeof(*f->state), PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, 0);
	if (f->state == MAP_FAILED) {
		free(f);
		return NULL;
	}
	f->card = card;
	return f;
}

struct fk_file *fk_file_open(struct fk_card *card, int fd)
{
	/* The raw syscall: the fake's own open() must not see this file. */
	int tmp = (int)syscall(SYS_openat, AT_FDCWD, fk.root,
			       O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (tmp < 0)
		return NULL;
	int flags = fcntl(fd, F_GETFD);
	struct fk_file *f = NULL;
	if (flags >= 0 && !ftruncate(tmp, sizeof(struct fk_file_state)))
		f = map_file(tmp, card);
	if (f && syscall(SYS_dup3, tmp, fd, flags & FD_CLOEXEC ? O_CLOEXEC : 0) < 0) {
		fk_file_close(f);
		f = NULL;
	}
	syscall(SYS_close, tmp);
	if (!f)
		return NULL;
	f->state->magic = FK_FILE_MAGIC;
	f->state->card_index = card->index;
	f->state->contexts[0] = (struct fk_context){
		.used = true, .handle = 0, .engine_classes = ALL_ENGINE_CLASSES,
		.workload_index = -1,
	};
	return f;
}

struct fk_file *fk_file_adopt(int fd)
{
	struct stat st;
	uint64_t magic;
	uint32_t index;
	if (syscall(SYS_fstat, fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)sizeof(struct fk_file_state) ||
	    pread(fd, &magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    magic != FK_FILE_MAGIC ||
	    pread(fd, &index, sizeof(index),
		  offsetof(struct fk_file_state, card_index)) != sizeof(index))
		return NULL;
	for (unsigned i = 0; i < fk.n_cards; i++)
		if (fk.cards[i].index == index)
			return map_file(fd, &fk.cards[i]);
	return NULL;
}

void fk_file_close(struct fk_file *file)
{
	munmap(file->state, sizeof(*file->state));
	free(file);
}

struct fk_context *fk_context_lookup(struct fk_file *file, uint32_t handle)
{
	for (unsigned i = 0; i < FK_MAX_CONTEXTS; i++)
		if (file->state->contexts[i].used && file->state->contexts[i].handle == handle)
			return &file->state->contexts[i];
	return NULL;
}

/* I915_CONTEXT_PARAM_ENGINES: the context runs on the listed engines only
 * (set_proto_ctx_engines()); a stream on an engine it lacks cannot pin it
 * (oa_pin_context(): ENODEV). */
static int engines_param(const struct drm_i915_gem_context_param *param,
			 uint32_t *classes)
{
	size_t head = sizeof(struct i915_context_param_engines);
	if (param->size < head ||
	    (param->size - head) % sizeof(struct i915_engine_class_instance))
		return -EINVAL;
	const struct i915_context_param_engines *e =
		(const void *)(uintptr_t)param->value;
	size_t n = (param->size - head) / sizeof(e->engines[0]);
	*classes = 0;
	for (size_t i = 0; i < n; i++)
		if (e->engines[i].engine_class < 32)
			*classes |= 1u << e->engines[i].engine_class;
	return 0;
}

/* The extensions of DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT that the fake
 * knows: SETPARAM of I915_CONTEXT_PARAM_ENGINES. */
static int create_extensions(uint64_t chain, uint32_t *classes)
{
	for (const struct i915_user_extension *ext = (const void *)(uintptr_t)chain;
	     ext; ext = (const void *)(uintptr_t)ext->next_extension) {
		if (ext->name != I915_CONTEXT_CREATE_EXT_SETPARAM)
			return -EINVAL;
		const struct drm_i915_gem_context_create_ext_setparam *sp =
			(const void *)ext;
		if (sp->param.ctx_id || sp->param.param != I915_CONTEXT_PARAM_ENGINES)
			return -EINVAL;
		int ret = engines_param(&sp->param, classes);
		if (ret)
			return ret;
	}
	return 0;
}

int fk_context_create(struct fk_file *file, void *arg, bool ext)
{
	struct drm_i915_gem_context_create_ext *args = arg;
	uint32_t classes = ALL_ENGINE_CLASSES;
	if (ext) {
		if (args->flags & ~(I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS |
				    I915_CONTEXT_CREATE_FLAGS_SINGLE_TIMELINE))
			return -EINVAL;
		if (args->flags & I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS) {
			int ret = create_extensions(args->extensions, &classes);
			if (ret)
				return ret;
		}
	}
	/* The lowest free handle from 1. */
	uint32_t handle = 1;
	while (fk_context_lookup(file, handle))
		handle++;
	for (unsigned i = 0; i < FK_MAX_CONTEXTS; i++) {
		struct fk_context *c = &file->state->contexts[i];
		if (c->used)
			continue;
		int index = fk_take_workload_context(file->card);
		if (index < 0)
			return index;
		*c = (struct fk_context){
			.used = true, .handle = handle, .engine_classes = classes,
			.workload_index = index,
		};
		args->ctx_id = handle;
		return 0;
	}
	return -ENOMEM;
}

int fk_take_workload_context(const struct fk_card *card)
{
	if (!card->shared)
		return -ENOMEM;
	uint32_t index = __atomic_fetch_add(&card->shared->next_workload_context,
					    1, __ATOMIC_RELAXED);
	return (int)(index & INT32_MAX);
}

int fk_context_destroy(struct fk_file *file, const void *arg)
{
	const struct drm_i915_gem_context_destroy *args = arg;
	if (args->pad)
		return -EINVAL;
	/* i915_gem_context_destroy_ioctl(): the default context stays. */
	if (!args->ctx_id)
		return -ENOENT;
	struct fk_context *c = fk_context_lookup(file, args->ctx_id);
	if (!c)
		return -ENOENT;
	c->used = false;
	return 0;
}
