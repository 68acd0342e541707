/*
 * The embedded GH100 metric definitions (metrics/nvidia/oa-gh100.xml).
 */
#ifndef GPM_NVIDIA_BUILTIN_H
#define GPM_NVIDIA_BUILTIN_H

#include <stddef.h>

extern const char gpm_nvidia_metrics_xml[];
extern const char gpm_nvidia_metrics_xml_end[];

#define GPM_NVIDIA_METRICS_NAME "oa-gh100.xml"
#define GPM_NVIDIA_METRICS_PLATFORM "gh100"

static inline size_t gpm_nvidia_metrics_xml_size(void)
{
	return (size_t)(gpm_nvidia_metrics_xml_end - gpm_nvidia_metrics_xml);
}

#endif
