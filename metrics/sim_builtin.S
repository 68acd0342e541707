/*
 * The sim GPUs' metric definitions (the Intel-like one of `sim`, the AMD
 * one of `sim:amd`), embedded in the binaries so that the daemon and the
 * CLI work with no data files installed.
 */
	.section .rodata
	.balign 16
	.global gpm_sim_metrics_xml
	.type gpm_sim_metrics_xml, @object
gpm_sim_metrics_xml:
	.incbin "metrics/sim/oa-simgen12.xml"
	.global gpm_sim_metrics_xml_end
gpm_sim_metrics_xml_end:
	.byte 0
	.balign 16
	.global gpm_simamd_metrics_xml
	.type gpm_simamd_metrics_xml, @object
gpm_simamd_metrics_xml:
	.incbin "metrics/sim/oa-simamd.xml"
	.global gpm_simamd_metrics_xml_end
gpm_simamd_metrics_xml_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
