/*
 * The service unit's system-call filter, installed by the daemon itself
 * (see syscall_filter.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>

#include "daemon/syscall_filter.h"

/*
 * systemd 252's (Debian 12's) expansion of the unit's SystemCallFilter=
 * lines: @system-service and perf_event_open, less @privileged and
 * @resources, and capset. tests/integration/test-service.sh checks that
 * it equals what systemd-analyze says of the installed unit.
 */
const char *const gpd_syscall_filter_allowed[] = {
	"_llseek", "_newselect", "accept", "accept4", "access", "add_key",
	"alarm", "arch_prctl", "arm_fadvise64_64", "bind", "brk",
	"cacheflush", "capget", "capset", "chdir", "chmod", "clock_getres",
	"clock_getres_time64", "clock_gettime", "clock_gettime64",
	"clock_nanosleep", "clock_nanosleep_time64", "clone", "clone3",
	"close", "close_range", "connect", "copy_file_range", "creat", "dup",
	"dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl",
	"epoll_ctl_old", "epoll_pwait", "epoll_pwait2", "epoll_wait",
	"epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat",
	"exit", "exit_group", "faccessat", "faccessat2", "fadvise64",
	"fadvise64_64", "fallocate", "fchdir", "fchmod", "fchmodat",
	"fchmodat2", "fcntl", "fcntl64", "fdatasync", "fgetxattr",
	"flistxattr", "flock", "fork", "fremovexattr", "fsetxattr", "fstat",
	"fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate",
	"ftruncate64", "futex", "futex_time64", "futex_waitv", "futimesat",
	"get_mempolicy", "get_robust_list", "get_thread_area", "getcpu",
	"getcwd", "getdents", "getdents64", "getegid", "getegid32",
	"geteuid", "geteuid32", "getgid", "getgid32", "getgroups",
	"getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp",
	"getpid", "getppid", "getpriority", "getrandom", "getresgid",
	"getresgid32", "getresuid", "getresuid32", "getrlimit", "getrusage",
	"getsid", "getsockname", "getsockopt", "gettid", "gettimeofday",
	"getuid", "getuid32", "getxattr", "inotify_add_watch",
	"inotify_init", "inotify_init1", "inotify_rm_watch", "io_cancel",
	"io_destroy", "io_getevents", "io_pgetevents",
	"io_pgetevents_time64", "io_setup", "io_submit", "io_uring_enter",
	"io_uring_register", "io_uring_setup", "ioctl", "ioprio_get", "ipc",
	"kcmp", "keyctl", "kill", "lgetxattr", "link", "linkat", "listen",
	"listxattr", "llistxattr", "lremovexattr", "lseek", "lsetxattr",
	"lstat", "lstat64", "madvise", "membarrier", "memfd_create", "mkdir",
	"mkdirat", "mknod", "mknodat", "mlock", "mlock2", "mlockall", "mmap",
	"mmap2", "mprotect", "mq_getsetattr", "mq_notify", "mq_open",
	"mq_timedreceive", "mq_timedreceive_time64", "mq_timedsend",
	"mq_timedsend_time64", "mq_unlink", "mremap", "msgctl", "msgget",
	"msgrcv", "msgsnd", "msync", "munlock", "munlockall", "munmap",
	"name_to_handle_at", "nanosleep", "newfstatat", "oldfstat",
	"oldlstat", "oldolduname", "oldstat", "olduname", "open", "openat",
	"openat2", "pause", "perf_event_open", "personality", "pidfd_open",
	"pidfd_send_signal", "pipe", "pipe2", "poll", "ppoll",
	"ppoll_time64", "prctl", "pread64", "preadv", "preadv2", "prlimit64",
	"process_madvise", "process_vm_readv", "process_vm_writev",
	"pselect6", "pselect6_time64", "pwrite64", "pwritev", "pwritev2",
	"read", "readahead", "readdir", "readlink", "readlinkat", "readv",
	"recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg",
	"remap_file_pages", "removexattr", "rename", "renameat", "renameat2",
	"request_key", "restart_syscall", "riscv_flush_icache",
	"riscv_hwprobe", "rmdir", "rseq", "rt_sigaction", "rt_sigpending",
	"rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend",
	"rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_tgsigqueueinfo",
	"sched_get_priority_max", "sched_get_priority_min",
	"sched_getaffinity", "sched_getattr", "sched_getparam",
	"sched_getscheduler", "sched_rr_get_interval",
	"sched_rr_get_interval_time64", "sched_yield", "select", "semctl",
	"semget", "semop", "semtimedop", "semtimedop_time64", "send",
	"sendfile", "sendfile64", "sendmmsg", "sendmsg", "sendto",
	"set_robust_list", "set_thread_area", "set_tid_address", "set_tls",
	"setfsgid", "setfsgid32", "setgid", "setgid32", "setitimer", "setns",
	"setpgid", "setregid", "setregid32", "setresgid", "setresgid32",
	"setsid", "setsockopt", "setxattr", "shmat", "shmctl", "shmdt",
	"shmget", "shutdown", "sigaction", "sigaltstack", "signal",
	"signalfd", "signalfd4", "sigpending", "sigprocmask", "sigreturn",
	"sigsuspend", "socket", "socketcall", "socketpair", "splice", "stat",
	"stat64", "statfs", "statfs64", "statx", "swapcontext", "symlink",
	"symlinkat", "sync", "sync_file_range", "sync_file_range2", "syncfs",
	"sysinfo", "tee", "tgkill", "time", "timer_create", "timer_delete",
	"timer_getoverrun", "timer_gettime", "timer_gettime64",
	"timer_settime", "timer_settime64", "timerfd_create",
	"timerfd_gettime", "timerfd_gettime64", "timerfd_settime",
	"timerfd_settime64", "times", "tkill", "truncate", "truncate64",
	"ugetrlimit", "umask", "uname", "unlink", "unlinkat", "unshare",
	"uretprobe", "userfaultfd", "utime", "utimensat", "utimensat_time64",
	"utimes", "vfork", "vmsplice", "wait4", "waitid", "waitpid", "write",
	"writev",
	/* LeakSanitizer stops the threads with ptrace to look for leaks at
	 * exit: a sanitizer build only. */
#if defined(__SANITIZE_ADDRESS__)
	"ptrace",
#endif
};

const size_t gpd_syscall_filter_n_allowed =
	sizeof(gpd_syscall_filter_allowed) / sizeof(gpd_syscall_filter_allowed[0]);

bool gpd_syscall_filter_from_systemd(void)
{
	char line[256];
	bool active = false;

	/* systemd gives every process of a unit its invocation id. */
	if (!getenv("INVOCATION_ID"))
		return false;
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8)) {
			active = strtol(line + 8, NULL, 10) == 2;
			break;
		}
	fclose(f);
	return active;
}

int gpd_syscall_filter_install(size_t *n_allowed, struct gpd_error *err)
{
	/* SystemCallErrorNumber=EPERM. */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int ret = 0;

	*n_allowed = 0;
	if (!ctx)
		return gpd_fail(err, -ENOMEM, "system-call filter: out of memory");
	/* Every thread, libwebsockets' and the drivers' too. */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	for (size_t i = 0; !ret && i < gpd_syscall_filter_n_allowed; i++) {
		int nr = seccomp_syscall_resolve_name(gpd_syscall_filter_allowed[i]);
		/* Another architecture's call. */
		if (nr == __NR_SCMP_ERROR)
			continue;
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (!ret)
			(*n_allowed)++;
	}
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	if (ret)
		return gpd_fail(err, ret, "installing the system-call filter: %s",
			    strerror(-ret));
	return 0;
}
