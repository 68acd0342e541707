// The device's topology as a picture: each slice a box of subslices, each
// subslice a grid of EUs, fused-off units drawn hollow. Built as SVG from
// the masks Hello carries (the layout of DRM_I915_QUERY_TOPOLOGY_INFO).
import { h, svg } from './dom.js';
import { num } from './protocol.js';

const EU = 9;            // an EU's square, with its gap
const PAD = 6;
const LABEL = 12;

function bit(mask, i) {
	return (BigInt(mask) >> BigInt(i)) & 1n ? true : false;
}

export function topologyView(topology) {
	const t = topology;
	if (!t || !t.maxSlices || !t.maxSubslices)
		return h('p', { class: 'muted' }, 'The device reports no topology.');
	const eusPerSubslice = t.maxEusPerSubslice || 1;
	const columns = Math.min(eusPerSubslice, 8);
	const rows = Math.ceil(eusPerSubslice / columns);
	const subsliceW = columns * EU + 2 * PAD;
	const subsliceH = rows * EU + 2 * PAD + LABEL;
	const perRow = Math.max(1, Math.min(t.maxSubslices, 3));
	const subsliceRows = Math.ceil(t.maxSubslices / perRow);
	const sliceW = perRow * (subsliceW + PAD) + PAD;
	const sliceH = subsliceRows * (subsliceH + PAD) + PAD + LABEL;

	const picture = svg('svg', {
		viewBox: `0 0 ${sliceW} ${t.maxSlices * (sliceH + PAD)}`,
		class: 'topology',
		role: 'img',
	});
	for (let s = 0; s < t.maxSlices; s++) {
		const sliceOn = bit(t.sliceMask, s);
		const y0 = s * (sliceH + PAD);
		picture.append(
			svg('rect', { x: 0, y: y0, width: sliceW, height: sliceH, rx: 4,
				class: sliceOn ? 'slice' : 'slice off' }),
			svg('text', { x: PAD, y: y0 + LABEL - 2, class: 'label' }, `slice ${s}`));
		for (let ss = 0; ss < t.maxSubslices; ss++) {
			const ssOn = sliceOn && bit(num(t.subsliceMasks[s] ?? 0), ss);
			const x = PAD + (ss % perRow) * (subsliceW + PAD);
			const y = y0 + LABEL + PAD + Math.floor(ss / perRow) * (subsliceH + PAD);
			picture.append(
				svg('rect', { x, y, width: subsliceW, height: subsliceH, rx: 3,
					class: ssOn ? 'subslice' : 'subslice off' }),
				svg('text', { x: x + PAD, y: y + LABEL - 2, class: 'label' }, `ss ${ss}`));
			const euMask = t.euMasks[s * t.maxSubslices + ss] ?? 0;
			for (let eu = 0; eu < eusPerSubslice; eu++) {
				const on = ssOn && bit(euMask, eu);
				picture.append(svg('rect', {
					x: x + PAD + (eu % columns) * EU,
					y: y + LABEL + PAD + Math.floor(eu / columns) * EU,
					width: EU - 2, height: EU - 2, rx: 1,
					class: on ? 'eu' : 'eu off',
				}));
			}
		}
	}
	const slices = [...Array(t.maxSlices).keys()].filter((s) => bit(t.sliceMask, s)).length;
	const caption = `${slices} slice${slices === 1 ? '' : 's'} · ` +
		`${t.subsliceCount} subslices · ${t.euCount} EUs · ` +
		`${t.euThreads} threads per EU`;
	picture.append(svg('title', {}, caption));
	return h('figure', { class: 'topology-figure' }, picture,
		h('figcaption', { class: 'muted' }, caption));
}
