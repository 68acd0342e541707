// What a device says of context filters (Hello's Device and its
// Configuration), in words for the panel where a context is picked:
// which filter picking one gives here, what an application can ask of
// the kernel instead, and whether one application's context holds the
// OA unit now.

// The filter a click on a context gives on this device, and the kernel's
// that an application can ask for with its DRM file.
export function contextFilterText(device) {
	if (!device)
		return '';
	const software = 'Picking a context narrows this device\'s system-wide stream in ' +
		'gpuperfd, by hardware context id; the OA unit still counts every context.';
	if (!device.kernelContextFilter)
		return device.softwareContextFilter ? software :
			'This device takes no context filter: its counters are the whole unit\'s.';
	const kernel = device.kernelFiltersReports ?
		'An application can instead pass its DRM file and a context of it over ' +
		'gpuperfd\'s Unix socket: the kernel then streams that context alone, ' +
		'and the stream takes the whole OA unit.' :
		'An application can pass its DRM file and an exec queue of it over ' +
		'gpuperfd\'s Unix socket: the kernel then turns on that queue\'s own ' +
		'counters, but its stream still counts the whole unit, and takes it.';
	if (device.softwareContextFilter)
		return `${software} ${kernel}`;
	return 'This device\'s reports carry no context id, so no context can be picked ' +
		`here. ${kernel}`;
}

// Said while one application's context holds the unit; '' otherwise.
export function singleContextText(device) {
	if (!device?.configuration?.singleContext)
		return '';
	return `${device.name} streams one application's context, which that ` +
		'application passed with its DRM file: its counters go to that application ' +
		'only, and the OA unit takes no other subscription until it ends.';
}
