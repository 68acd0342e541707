/*
 * The calls the fake kernel takes over. Paths under the fixed roots that
 * libdrm walks (/dev/dri, /sys) and the sysctls (/proc/sys/dev/i915, xe)
 * go to the machine's tree; fds of its card nodes and streams get the fake
 * kernel's answers; everything else passes through to the next library.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

#define NEXT(name) \
	static __typeof__(name) *next_##name; \
	if (!next_##name) \
		next_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* glibc's fortified realpath, which libdrm calls; declared here since no
 * header does. */
char *__realpath_chk(const char *path, char *resolved, size_t resolved_len);

struct fk_fd *fk_fd(int fd)
{
	if (fd < 0 || fd >= FK_MAX_FDS || fk.fds[fd].kind == FK_FD_NONE)
		return NULL;
	return &fk.fds[fd];
}

ssize_t fk_real_read(int fd, void *buf, size_t len)
{
	NEXT(read);
	return next_read(fd, buf, len);
}

static int fail(int ret)
{
	errno = -ret;
	return -1;
}

/* A newly opened fd of a card node becomes the card's. */
static int opened(int fd)
{
	NEXT(fstat);
	struct stat st;
	if (fd < 0 || fd >= FK_MAX_FDS || !fk_active() || next_fstat(fd, &st))
		return fd;
	struct fk_card *card = fk_card_of_node(&st);
	struct fk_file *file = card ? fk_file_open(card, fd) : NULL;
	if (file) {
		fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_CARD, .card = card,
					     .file = file };
		fk_log("card%u open", card->index);
	} else {
		/* The number may have been ours once, closed behind our back
		 * (by libc's own close, which no interposer sees). */
		fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_NONE };
	}
	return fd;
}

/* fd is no fd of ours that we know of: one received from another process,
 * or a dup() of a DRM file, may be a DRM file all the same. */
static struct fk_fd *adopted(int fd)
{
	struct fk_fd *f = fk_fd(fd);
	if (f || fd < 0 || fd >= FK_MAX_FDS || !fk_active())
		return f;
	struct fk_file *file = fk_file_adopt(fd);
	if (!file)
		return NULL;
	fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_CARD, .card = file->card,
				     .file = file };
	fk_log("card%u file received", file->card->index);
	return &fk.fds[fd];
}

/* Forgets what an fd number was before the descriptor now there. */
static void forget(int fd)
{
	struct fk_fd *f = fk_fd(fd);
	if (f && f->kind == FK_FD_CARD) {
		fk_file_close(f->file);
		*f = (struct fk_fd){ .kind = FK_FD_NONE };
	}
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	       (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	NEXT(open);
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_of(flags, ap);
	va_end(ap);
	int denied = fk_proc_check(AT_FDCWD, path);
	if (denied)
		return fail(denied);
	char buf[PATH_MAX];
	return opened(next_open(fk_redirect(path, buf, sizeof(buf)), flags, mode));
}

int open64(const char *path, int flags, ...)
{
	NEXT(open64);
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_of(flags, ap);
	va_end(ap);
	int denied = fk_proc_check(AT_FDCWD, path);
	if (denied)
		return fail(denied);
	char buf[PATH_MAX];
	return opened(next_open64(fk_redirect(path, buf, sizeof(buf)), flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	NEXT(openat);
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_of(flags, ap);
	va_end(ap);
	int denied = fk_proc_check(dirfd, path);
	if (denied)
		return fail(denied);
	char buf[PATH_MAX];
	return opened(next_openat(dirfd, fk_redirect(path, buf, sizeof(buf)),
				  flags, mode));
}

int close(int fd)
{
	NEXT(close);
	struct fk_fd *f = fk_fd(fd);
	if (f) {
		if (f->kind == FK_FD_STREAM) {
			const struct gpd_oa_model *m = f->stream->model;
			fk_log("card%u stream close at OA tick %llu",
			       f->card->index,
			       (unsigned long long)(m ? gpd_oa_model_time(m) : 0));
			fk_stream_close(f->stream);
		} else if (f->kind == FK_FD_PMU) {
			fk_pmu_close(f->pmu);
		} else {
			fk_log("card%u close", f->card->index);
			fk_file_close(f->file);
		}
		*f = (struct fk_fd){ .kind = FK_FD_NONE };
	}
	return next_close(fd);
}

int ioctl(int fd, unsigned long request, ...)
{
	NEXT(ioctl);
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct fk_fd *f = adopted(fd);
	int ret;
	if (f && f->kind == FK_FD_CARD) {
		ret = f->card->driver == FK_I915 ?
		      fk_i915_card_ioctl(f->card, f->file, request, arg) :
		      fk_xe_card_ioctl(f->card, f->file, request, arg);
		return ret < 0 ? fail(ret) : ret;
	}
	if (f && f->kind == FK_FD_PMU)
		return fk_pmu_ioctl(f->pmu, request, arg);
	if (f && f->kind == FK_FD_STREAM) {
		bool ours = f->card->driver == FK_I915 ?
			    fk_i915_stream_ioctl(f->stream, request,
						 (unsigned long)arg, &ret) :
			    fk_xe_stream_ioctl(f->stream, request,
					       (unsigned long)arg, &ret);
		if (ours)
			return ret < 0 ? fail(ret) : ret;
	}
	return next_ioctl(fd, request, arg);
}

ssize_t read(int fd, void *buf, size_t len)
{
	NEXT(read);
	struct fk_fd *f = fk_fd(fd);
	if (f && f->kind == FK_FD_STREAM) {
		ssize_t ret = fk_stream_read(f->stream, buf, len);
		return ret < 0 ? fail((int)ret) : ret;
	}
	if (f && f->kind == FK_FD_PMU) {
		ssize_t ret = fk_pmu_read(f->pmu, buf, len);
		return ret < 0 ? fail((int)ret) : ret;
	}
	return next_read(fd, buf, len);
}

int fstat(int fd, struct stat *st)
{
	NEXT(fstat);
	int ret = next_fstat(fd, st);
	struct fk_fd *f = ret ? NULL : adopted(fd);
	if (!ret && f && f->kind == FK_FD_CARD)
		fk_card_stat(f->card, st);
	return ret;
}

int fstat64(int fd, struct stat64 *st)
{
	NEXT(fstat64);
	int ret = next_fstat64(fd, st);
	struct fk_fd *f = ret ? NULL : adopted(fd);
	/* struct stat64 is struct stat on 64-bit Linux. */
	if (!ret && f && f->kind == FK_FD_CARD)
		fk_card_stat(f->card, (struct stat *)st);
	return ret;
}

/* Descriptors passed in SCM_RIGHTS take numbers the fake may remember as
 * something else (closed by libc behind its back). */
ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	NEXT(recvmsg);
	ssize_t ret = next_recvmsg(fd, msg, flags);
	if (ret < 0 || !msg->msg_controllen)
		return ret;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int received;
			memcpy(&received, CMSG_DATA(c) + i * sizeof(int),
			       sizeof(int));
			forget(received);
		}
	}
	return ret;
}

/* dup2() and dup3() put another file at newfd and close the one there
 * (do_dup2(), fs/file.c, Linux 6.12): what the fake knew of newfd is gone.
 * The file now there, a DRM file or not, is found on its first use
 * (adopted()). */
int dup2(int oldfd, int newfd)
{
	NEXT(dup2);
	int ret = next_dup2(oldfd, newfd);
	if (ret >= 0 && oldfd != newfd)
		forget(newfd);
	return ret;
}

int dup3(int oldfd, int newfd, int flags)
{
	NEXT(dup3);
	int ret = next_dup3(oldfd, newfd, flags);
	if (ret >= 0)
		forget(newfd);
	return ret;
}

int stat(const char *path, struct stat *st)
{
	NEXT(stat);
	char buf[PATH_MAX];
	int ret = next_stat(fk_redirect(path, buf, sizeof(buf)), st);
	struct fk_card *card = !ret && fk_active() ? fk_card_of_node(st) : NULL;
	if (card)
		fk_card_stat(card, st);
	return ret;
}

int stat64(const char *path, struct stat64 *st)
{
	NEXT(stat64);
	char buf[PATH_MAX];
	int ret = next_stat64(fk_redirect(path, buf, sizeof(buf)), st);
	struct fk_card *card = !ret && fk_active() ?
			       fk_card_of_node((struct stat *)st) : NULL;
	if (card)
		fk_card_stat(card, (struct stat *)st);
	return ret;
}

DIR *opendir(const char *path)
{
	NEXT(opendir);
	char buf[PATH_MAX];
	return next_opendir(fk_redirect(path, buf, sizeof(buf)));
}

ssize_t readlink(const char *path, char *target, size_t size)
{
	NEXT(readlink);
	char buf[PATH_MAX];
	return next_readlink(fk_redirect(path, buf, sizeof(buf)), target, size);
}

char *realpath(const char *path, char *resolved)
{
	NEXT(realpath);
	char buf[PATH_MAX];
	return next_realpath(fk_redirect(path, buf, sizeof(buf)), resolved);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolved_len)
{
	NEXT(__realpath_chk);
	char buf[PATH_MAX];
	return next___realpath_chk(fk_redirect(path, buf, sizeof(buf)), resolved,
				   resolved_len);
}
