/*
 * The embedded sim metric definitions (metrics/sim/oa-simgen12.xml and
 * oa-simamd.xml).
 */
#ifndef GPM_SIM_BUILTIN_H
#define GPM_SIM_BUILTIN_H

#include <stddef.h>

extern const char gpm_sim_metrics_xml[];
extern const char gpm_sim_metrics_xml_end[];

#define GPM_SIM_METRICS_NAME "oa-simgen12.xml"

static inline size_t gpm_sim_metrics_xml_size(void)
{
	return (size_t)(gpm_sim_metrics_xml_end - gpm_sim_metrics_xml);
}

extern const char gpm_simamd_metrics_xml[];
extern const char gpm_simamd_metrics_xml_end[];

#define GPM_SIMAMD_METRICS_NAME "oa-simamd.xml"

static inline size_t gpm_simamd_metrics_xml_size(void)
{
	return (size_t)(gpm_simamd_metrics_xml_end - gpm_simamd_metrics_xml);
}

#endif
