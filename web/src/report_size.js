// How many bytes one counter report takes, to tell what a sampling period
// costs. A metric set may name its format ("256B_GENERIC_NOA16"); otherwise
// the device's generation decides it, as in the daemon's format table.
const FORMAT_BYTES = {
	A45_B8_C8: 256,
	A32u40_A4u32_B8_C8: 256,
	OAR_A32u40_A4u32_B8_C8: 256,
	A24u40_A14u32_B8_C8: 256,
	MPEC8u64_B8_C8: 192,
	MPEC8u32_B8_C8: 128,
	PEC64u64: 576,
	NVPM32u64: 288,
};

// i915 frames every report with an 8-byte record header.
const RECORD_HEADER_BYTES = 8;

export function reportBytes(device, metricSet) {
	const format = metricSet?.oaFormat ?? '';
	const sized = /^(\d+)B_/.exec(format);
	let bytes;
	if (sized)
		bytes = Number(sized[1]);
	else if (FORMAT_BYTES[format])
		bytes = FORMAT_BYTES[format];
	else if (device.driver === 'nvidia')
		bytes = FORMAT_BYTES.NVPM32u64;
	else
		bytes = device.graphicsVersion >= 2000 ? FORMAT_BYTES.PEC64u64 : 256;
	const framed = device.driver === 'i915' || device.source === 'sim';
	return framed ? bytes + RECORD_HEADER_BYTES : bytes;
}
