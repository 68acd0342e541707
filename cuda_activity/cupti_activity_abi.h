/*
 * The few types of CUPTI's activity API and the CUDA driver API that
 * libgpuperf-cuda-activity.so calls, declared here so that the build
 * needs no NVIDIA headers (as daemon/nvidia/cuda_abi.h does for the
 * daemon); the names are ours.
 *
 * Kernel records: CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL records are
 * CUpti_ActivityKernelN, N growing with CUPTI (4 in CUDA 9, 9 in 12.x,
 * 10 in 13.0, 11 in 13.2, 13 in 13.4); each version appends fields, and
 * all begin alike: kind, the cache and shared-memory configuration
 * bytes, registers per thread, the partitioned global cache requested
 * and executed, then start, end and completed (ns) and the device,
 * context and stream ids. Records are 8-byte aligned and packed
 * (cupti_activity.h's PACKED_ALIGNMENT), which gives these offsets.
 */
#ifndef GCA_CUPTI_ACTIVITY_ABI_H
#define GCA_CUPTI_ACTIVITY_ABI_H

#include <stddef.h>
#include <stdint.h>

/* CUpti_ActivityKind values. */
enum {
	GCA_CUPTI_ACTIVITY_KIND_INVALID = 0,
	GCA_CUPTI_ACTIVITY_KIND_KERNEL = 3,
	GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
};

/* cuptiActivityFlushAll's flag: also buffers with records not complete. */
#define GCA_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED 1u

/* The head every kernel record version shares. */
struct gca_kernel_record {
	uint32_t kind;
	uint8_t cache_config;
	uint8_t shared_memory_config;
	uint16_t registers_per_thread;
	uint32_t partitioned_global_cache_requested;
	uint32_t partitioned_global_cache_executed;
	uint64_t start, end, completed;         /* ns, CUPTI's clock */
	uint32_t device_id, context_id, stream_id;
};

_Static_assert(offsetof(struct gca_kernel_record, start) == 16, "start");
_Static_assert(offsetof(struct gca_kernel_record, end) == 24, "end");
_Static_assert(offsetof(struct gca_kernel_record, device_id) == 40, "deviceId");

/* cuptiActivityRegisterCallbacks' two callbacks. */
typedef void (*gca_buffer_requested_fn)(uint8_t **buffer, size_t *size,
					size_t *max_records);
typedef void (*gca_buffer_completed_fn)(void *context, uint32_t stream_id,
					uint8_t *buffer, size_t size,
					size_t valid_size);

/* The calls, loaded at run time (injection.c) or faked (tests). Each
 * returns CUptiResult or CUresult: 0 is success. */
struct gca_cuda_api {
	int (*activity_enable)(uint32_t kind);
	int (*activity_register_callbacks)(gca_buffer_requested_fn requested,
					   gca_buffer_completed_fn completed);
	int (*activity_flush_all)(uint32_t flag);
	/* CUPTI_ERROR_MAX_LIMIT_REACHED past the last record. */
	int (*activity_get_next_record)(uint8_t *buffer, size_t valid_size,
					void **record);
	int (*activity_get_num_dropped_records)(void *context, uint32_t stream_id,
						size_t *dropped);
	int (*get_timestamp)(uint64_t *ns);
	/* cuDeviceGet, cuDeviceGetPCIBusId. */
	int (*device_get)(int *device, int ordinal);
	int (*device_get_pci_bus_id)(char *bus_id, int len, int device);
};

#endif
