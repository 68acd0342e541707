/*
 * libgpuperf-cuda-activity.so: CUDA loads the library named by
 * CUDA_INJECTION64_PATH when the process initializes the driver and calls
 * its InitializeInjection(). Here that loads CUPTI (the process's CUDA
 * is already loaded), asks for kernel records (activity.h) and starts a
 * thread that every 250 ms flushes them and reports the process's
 * kernel time per GPU to gpuperfd (report_socket.h).
 *
 * Environment: GPUPERF_ACTIVITY_SOCKET, the daemon's PATH.activity
 * (GCA_DEFAULT_SOCKET otherwise); GPUPERF_CUPTI, libcupti's path where
 * the loader does not find it (CUDA_HOME is also looked in).
 *
 * Nothing here may stop the process: what fails is said once on stderr
 * and the process runs on unmeasured.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_activity/activity.h"
#include "cuda_activity/report_socket.h"

#define FLUSH_PERIOD_NS (250ull * 1000000)

static struct gca_cuda_api api;
static struct gca_report_socket reports;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct symbol {
	const char *name;
	size_t offset;
};

#define SYM(name, field) { name, offsetof(struct gca_cuda_api, field) }

static const struct symbol cupti_symbols[] = {
	SYM("cuptiActivityEnable", activity_enable),
	SYM("cuptiActivityRegisterCallbacks", activity_register_callbacks),
	SYM("cuptiActivityFlushAll", activity_flush_all),
	SYM("cuptiActivityGetNextRecord", activity_get_next_record),
	SYM("cuptiActivityGetNumDroppedRecords", activity_get_num_dropped_records),
	SYM("cuptiGetTimestamp", get_timestamp),
};

static const struct symbol cuda_symbols[] = {
	SYM("cuDeviceGet", device_get),
	SYM("cuDeviceGetPCIBusId", device_get_pci_bus_id),
};

static bool resolve(void *handle, const char *lib, const struct symbol *syms,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(handle, syms[i].name);
		if (!sym) {
			fprintf(stderr, "gpuperf cuda activity: %s has no %s: "
				"this process's kernel time is not measured\n",
				lib, syms[i].name);
			return false;
		}
		memcpy((char *)&api + syms[i].offset, &sym, sizeof(sym));
	}
	return true;
}

static void *open_cupti(void)
{
	char in_home[2][512] = { "", "" };
	const char *home = getenv("CUDA_HOME");
	if (home) {
		snprintf(in_home[0], sizeof(in_home[0]), "%s/lib64/libcupti.so", home);
		snprintf(in_home[1], sizeof(in_home[1]),
			 "%s/extras/CUPTI/lib64/libcupti.so", home);
	}
	const char *names[] = {
		getenv("GPUPERF_CUPTI"), "libcupti.so", "libcupti.so.13",
		"libcupti.so.12", in_home[0], in_home[1],
		"/usr/local/cuda/lib64/libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *h = names[i] && names[i][0] ?
			  dlopen(names[i], RTLD_NOW | RTLD_LOCAL) : NULL;
		if (h)
			return h;
	}
	fprintf(stderr, "gpuperf cuda activity: libcupti.so not found (set "
		"GPUPERF_CUPTI to its path, or CUDA_HOME): this process's "
		"kernel time is not measured\n");
	return NULL;
}

static void *flush_loop(void *unused)
{
	struct gca_report r;
	bool said = false;
	for (;;) {
		struct timespec period = { 0, (long)FLUSH_PERIOD_NS };
		while (nanosleep(&period, &period))
			;
		int ret = gca_activity_flush(&r);
		if (ret) {
			if (!said)
				fprintf(stderr, "gpuperf cuda activity: CUPTI "
					"could not flush its records (CUPTI error "
					"%d): reports stop\n", ret);
			said = true;
			continue;
		}
		said = false;
		gca_report_socket_send(&reports, &r, monotonic_ns());
	}
	return NULL;
}

static bool start(void)
{
	/* The process's own libcuda, already loaded by whoever called
	 * cuInit: never a second copy. */
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!cuda) {
		fprintf(stderr, "gpuperf cuda activity: libcuda.so.1 is not "
			"loaded in this process: its kernel time is not "
			"measured\n");
		return false;
	}
	void *cupti = open_cupti();
	if (!cupti || !resolve(cuda, "libcuda.so.1", cuda_symbols,
			       sizeof(cuda_symbols) / sizeof(cuda_symbols[0])) ||
	    !resolve(cupti, "libcupti.so", cupti_symbols,
		     sizeof(cupti_symbols) / sizeof(cupti_symbols[0])))
		return false;
	const char *path = getenv("GPUPERF_ACTIVITY_SOCKET");
	gca_report_socket_init(&reports, path && path[0] ? path :
				GCA_DEFAULT_SOCKET);
	int ret = gca_activity_start(&api);
	if (ret) {
		fprintf(stderr, "gpuperf cuda activity: CUPTI refused kernel "
			"records (CUPTI error %d; another tool may hold CUPTI's "
			"activity API): this process's kernel time is not "
			"measured\n", ret);
		return false;
	}
	pthread_t thread;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&thread, &attr, flush_loop, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		fprintf(stderr, "gpuperf cuda activity: no thread to report "
			"from: %s\n", strerror(ret));
		return false;
	}
	return true;
}

static bool started;

static void start_once(void)
{
	started = start();
}

/* CUDA's entry point: 1 where the library took over, 0 where not (CUDA
 * runs on either way). */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, start_once);
	return started;
}
