/*
 * Which Kubernetes pod and container a process runs in, from the cgroup
 * the kubelet and the container runtime put it in: no kubelet API, only
 * /proc/PID/cgroup.
 *
 * The kernel writes one line a hierarchy, "ID:CONTROLLERS:PATH"
 * (proc_cgroup_show(), kernel/cgroup/cgroup.c, Linux 6.8); cgroup v2 is
 * the one line "0::PATH". The kubelet names a pod's cgroup "pod" and its
 * UID under kubepods[/QOS] (pod_container_manager_linux.go,
 * GetPodContainerName), and with the systemd driver turns that path into
 * nested slices whose names have each '-' of a part written '_'
 * (cgroup_manager_linux.go, ToSystemd, Kubernetes 1.30):
 *
 *   cgroupfs  /kubepods/burstable/pod1b4c...-.../0123...abcdef
 *   systemd   /kubepods.slice/kubepods-burstable.slice/
 *             kubepods-burstable-pod1b4c..._....slice/cri-containerd-0123...abcdef.scope
 *
 * The container's own cgroup below the pod's is the runtime's: its 64-hex
 * id alone (cgroupfs), or "<runtime>-<id>.scope" (containerd's
 * cri-containerd-, CRI-O's crio-, Docker's docker-) under systemd.
 */
#ifndef GPD_HOST_CGROUP_POD_H
#define GPD_HOST_CGROUP_POD_H

#include <stdint.h>

#define GPD_POD_CONTAINER_ID_MAX 65     /* 64 hex digits */
#define GPD_POD_UID_MAX 37              /* 8-4-4-4-12, as kube_pod_info{uid} */

struct gpd_pod {
	char container_id[GPD_POD_CONTAINER_ID_MAX];
	char pod_uid[GPD_POD_UID_MAX];
};

/* The pod (and container, when its cgroup is below the pod's) of a
 * /proc/PID/cgroup text; both "" outside a pod. Any hierarchy's line may
 * name it (cgroup v1 has several, v2 one). Pure. */
void gpd_cgroup_pod_parse(const char *text, struct gpd_pod *pod);

/* Reads proc_root/PID/cgroup into pod: 0, or -errno (-ENOENT: it exited;
 * pod is then empty). */
int gpd_cgroup_pod_read(const char *proc_root, int32_t pid, struct gpd_pod *pod);

#endif
