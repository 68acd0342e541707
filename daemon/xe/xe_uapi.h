/*
 * The part of the xe uAPI (the kernel's include/uapi/drm/xe_drm.h) this
 * daemon uses: device queries and the OA side of DRM_IOCTL_XE_OBSERVATION
 * (docs/oa-reference.md §5); and the VMs and exec queues of an
 * application's DRM file, whose queue ids a client passes with its file.
 * libdrm does not ship xe_drm.h, so the structures are spelled out here,
 * with the kernel's names and layout.
 */
#ifndef GPD_XE_UAPI_H
#define GPD_XE_UAPI_H

#include <drm.h>
#include <linux/types.h>

#define DRM_XE_DEVICE_QUERY 0x00
#define DRM_XE_VM_CREATE 0x03
#define DRM_XE_VM_DESTROY 0x04
#define DRM_XE_EXEC_QUEUE_CREATE 0x06
#define DRM_XE_EXEC_QUEUE_DESTROY 0x07
#define DRM_XE_OBSERVATION 0x0b

struct drm_xe_user_extension {
	__u64 next_extension;
	__u32 name;
	__u32 pad;
};

struct drm_xe_ext_set_property {
	struct drm_xe_user_extension base;
	__u32 property;
	__u32 pad;
	__u64 value;
	__u64 reserved[2];
};

struct drm_xe_engine_class_instance {
	__u16 engine_class;
	__u16 engine_instance;
	__u16 gt_id;
	__u16 pad;
};

#define DRM_XE_ENGINE_CLASS_RENDER 0
#define DRM_XE_ENGINE_CLASS_COPY 1
#define DRM_XE_ENGINE_CLASS_VIDEO_DECODE 2
#define DRM_XE_ENGINE_CLASS_VIDEO_ENHANCE 3
#define DRM_XE_ENGINE_CLASS_COMPUTE 4
#define DRM_XE_ENGINE_CLASS_VM_BIND 5

#define DRM_XE_QUERY_CONFIG_REV_AND_DEVICE_ID 0

struct drm_xe_query_config {
	__u32 num_params;
	__u32 pad;
	__u64 info[];
};

#define DRM_XE_QUERY_GT_TYPE_MAIN 0
#define DRM_XE_QUERY_GT_TYPE_MEDIA 1

struct drm_xe_gt {
	__u16 type;
	__u16 tile_id;
	__u16 gt_id;
	__u16 pad[3];
	__u32 reference_clock;
	__u64 near_mem_regions;
	__u64 far_mem_regions;
	__u16 ip_ver_major;
	__u16 ip_ver_minor;
	__u16 ip_ver_rev;
	__u16 pad2;
	__u64 reserved[7];
};

struct drm_xe_query_gt_list {
	__u32 num_gt;
	__u32 pad;
	struct drm_xe_gt gt_list[];
};

#define DRM_XE_TOPO_DSS_GEOMETRY 1
#define DRM_XE_TOPO_DSS_COMPUTE 2
#define DRM_XE_TOPO_L3_BANK 3
#define DRM_XE_TOPO_EU_PER_DSS 4
#define DRM_XE_TOPO_SIMD16_EU_PER_DSS 5

struct drm_xe_query_topology_mask {
	__u16 gt_id;
	__u16 type;
	__u32 num_bytes;
	__u8 mask[];
};

#define DRM_XE_DEVICE_QUERY_CONFIG 2
#define DRM_XE_DEVICE_QUERY_GT_LIST 3
#define DRM_XE_DEVICE_QUERY_GT_TOPOLOGY 5
#define DRM_XE_DEVICE_QUERY_OA_UNITS 8

struct drm_xe_device_query {
	__u64 extensions;
	__u32 query;
	__u32 size;
	__u64 data;
	__u64 reserved[2];
};

#define DRM_IOCTL_XE_DEVICE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_XE_DEVICE_QUERY, struct drm_xe_device_query)

#define DRM_XE_VM_CREATE_FLAG_SCRATCH_PAGE (1 << 0)
#define DRM_XE_VM_CREATE_FLAG_LR_MODE (1 << 1)
#define DRM_XE_VM_CREATE_FLAG_FAULT_MODE (1 << 2)

struct drm_xe_vm_create {
	__u64 extensions;
	__u32 flags;
	__u32 vm_id;
	__u64 reserved[2];
};

struct drm_xe_vm_destroy {
	__u32 vm_id;
	__u32 pad;
	__u64 reserved[2];
};

#define DRM_XE_EXEC_QUEUE_LOW_LATENCY_HINT (1 << 0)

struct drm_xe_exec_queue_create {
	__u64 extensions;
	__u16 width;
	__u16 num_placements;
	__u32 vm_id;
	__u32 flags;
	__u32 exec_queue_id;
	__u64 instances;                /* struct drm_xe_engine_class_instance[] */
	__u64 reserved[2];
};

struct drm_xe_exec_queue_destroy {
	__u32 exec_queue_id;
	__u32 pad;
	__u64 reserved[2];
};

#define DRM_IOCTL_XE_VM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_XE_VM_CREATE, struct drm_xe_vm_create)
#define DRM_IOCTL_XE_VM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_XE_VM_DESTROY, struct drm_xe_vm_destroy)
#define DRM_IOCTL_XE_EXEC_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_XE_EXEC_QUEUE_CREATE, \
		 struct drm_xe_exec_queue_create)
#define DRM_IOCTL_XE_EXEC_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_XE_EXEC_QUEUE_DESTROY, \
		struct drm_xe_exec_queue_destroy)

#define DRM_XE_OBSERVATION_TYPE_OA 0
#define DRM_XE_OBSERVATION_OP_STREAM_OPEN 0
#define DRM_XE_OBSERVATION_OP_ADD_CONFIG 1
#define DRM_XE_OBSERVATION_OP_REMOVE_CONFIG 2

struct drm_xe_observation_param {
	__u64 extensions;
	__u64 observation_type;
	__u64 observation_op;
	__u64 param;
};

#define DRM_IOCTL_XE_OBSERVATION \
	DRM_IOW(DRM_COMMAND_BASE + DRM_XE_OBSERVATION, struct drm_xe_observation_param)

/* Stream fd ioctls. */
#define DRM_XE_OBSERVATION_IOCTL_ENABLE _IO('i', 0x0)
#define DRM_XE_OBSERVATION_IOCTL_DISABLE _IO('i', 0x1)
#define DRM_XE_OBSERVATION_IOCTL_CONFIG _IO('i', 0x2)
#define DRM_XE_OBSERVATION_IOCTL_STATUS _IO('i', 0x3)
#define DRM_XE_OBSERVATION_IOCTL_INFO _IO('i', 0x4)

#define DRM_XE_OA_UNIT_TYPE_OAG 0
#define DRM_XE_OA_UNIT_TYPE_OAM 1
#define DRM_XE_OA_UNIT_TYPE_OAM_SAG 2

/* drm_xe_oa_unit capabilities. */
#define DRM_XE_OA_CAPS_BASE (1 << 0)
#define DRM_XE_OA_CAPS_SYNCS (1 << 1)
#define DRM_XE_OA_CAPS_OA_BUFFER_SIZE (1 << 2)
#define DRM_XE_OA_CAPS_WAIT_NUM_REPORTS (1 << 3)

/* enum drm_xe_oa_format_type, OA_FORMAT's bits 7:0. */
#define DRM_XE_OA_FMT_TYPE_OAG 0
#define DRM_XE_OA_FMT_TYPE_OAM_MPEC 4

struct drm_xe_oa_unit {
	__u64 extensions;
	__u32 oa_unit_id;
	__u32 oa_unit_type;
	__u64 capabilities;
	__u64 oa_timestamp_freq;
	__u64 reserved[4];
	__u64 num_engines;
	struct drm_xe_engine_class_instance eci[];
};

struct drm_xe_query_oa_units {
	__u64 extensions;
	__u32 num_oa_units;
	__u32 pad;
	__u64 oa_units[];
};

#define DRM_XE_OA_EXTENSION_SET_PROPERTY 0

enum drm_xe_oa_property_id {
	DRM_XE_OA_PROPERTY_OA_UNIT_ID = 1,
	DRM_XE_OA_PROPERTY_SAMPLE_OA,
	DRM_XE_OA_PROPERTY_OA_METRIC_SET,
	DRM_XE_OA_PROPERTY_OA_FORMAT,
	DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT,
	DRM_XE_OA_PROPERTY_OA_DISABLED,
	DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID,
	DRM_XE_OA_PROPERTY_OA_ENGINE_INSTANCE,
	DRM_XE_OA_PROPERTY_NO_PREEMPT,
	DRM_XE_OA_PROPERTY_NUM_SYNCS,
	DRM_XE_OA_PROPERTY_SYNCS,
	DRM_XE_OA_PROPERTY_OA_BUFFER_SIZE,
	DRM_XE_OA_PROPERTY_WAIT_NUM_REPORTS,
};

/* The kernel takes at most this many properties in one chain. */
#define GPD_XE_MAX_PROPERTIES 16

struct drm_xe_oa_config {
	__u64 extensions;
	char uuid[36];
	__u32 n_regs;
	__u64 regs_ptr;
};

struct drm_xe_oa_stream_status {
	__u64 extensions;
	__u64 oa_status;
	__u64 reserved[3];
};

struct drm_xe_oa_stream_info {
	__u64 extensions;
	__u64 oa_buf_size;
	__u64 reserved[3];
};

#endif
