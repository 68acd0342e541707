/*
 * The GH100 metric definitions, embedded in the binaries so that
 * `--device nvidia:N` works with no data files installed.
 */
	.section .rodata
	.balign 16
	.global gpm_nvidia_metrics_xml
	.type gpm_nvidia_metrics_xml, @object
gpm_nvidia_metrics_xml:
	.incbin "metrics/nvidia/oa-gh100.xml"
	.global gpm_nvidia_metrics_xml_end
gpm_nvidia_metrics_xml_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
