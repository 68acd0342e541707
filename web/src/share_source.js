// Where a process's engine shares came from (ProcessUsage.share_source)
// and what a measure taken inside the process lost, in the words of every
// other sink (gpuperf top, CSV, NDJSON, /metrics).
const SHARE_SOURCES = ['', 'kernel_counters', 'driver_sampled',
	'measured_in_process', 'simulated'];
export const SHARE_SOURCE_TITLES = {
	kernel_counters: 'the kernel\'s per-client engine time (DRM fdinfo)',
	driver_sampled: 'the driver\'s sampled attribution (NVML): processes sharing ' +
		'the GPU can be given each other\'s time',
	measured_in_process: 'the process\'s own kernel time, measured inside it ' +
		'(gpuperf run --cuda-activity)',
	simulated: 'the simulated device\'s model',
};

export function shareSourceName(p) {
	return SHARE_SOURCES[p.shareSource] ?? '';
}

// The Share source cell: where the share came from, and what a measure
// taken in the process lost (its time is missing from the share).
export function shareSourceText(p) {
	const lost = Number(p.recordsLost ?? 0);
	return shareSourceName(p) + (lost ? ` (${lost} records lost)` : '');
}

