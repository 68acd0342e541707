// Which device the page shows and what it is: the picker, its identity,
// its topology, and a banner when its counters do not come from a GPU
// right now (the simulated OA unit, the simulated AMD GPU's SPM, a
// replayed recording).
import { byId, clear, h } from './dom.js';
import { num } from './protocol.js';
import { formatValue } from './units.js';
import { topologyView } from './topology_view.js';

function hex(value, digits) {
	return '0x' + value.toString(16).padStart(digits, '0');
}

function bannerText(device) {
	// sim:amd: what a real AMD GPU cannot give a daemon, and what it can.
	if (device.source === 'sim' && device.platform === 'simamd')
		return ['Simulated device', `${device.name} is gpuperfd's software model of ` +
			'an AMD GPU\'s streaming performance monitor (SPM): no GPU is measured. ' +
			'Live SPM is simulated because the Linux kernel offers a daemon no SPM ' +
			'interface today: amdgpu lets only the user-mode driver program SPM, for ' +
			'RGP captures. On a real AMD GPU, gpuperfd shows the usage view (engines, ' +
			'clocks, power, processes) and replays the SPM counters of RGP captures ' +
			'(gpuperf replay FILE.rgp).'];
	if (device.source === 'sim')
		return ['Simulated device', `${device.name} is gpuperfd's software model of ` +
			'the OA unit running a modelled workload: no GPU is measured.'];
	if (device.source === 'replay')
		return ['Replay', `${device.name} plays back a recording` +
			(device.fixedMetricSet ? ` of ${device.fixedMetricSet}` : '') +
			': the values are not live.'];
	return null;
}

export class DevicePanel {
	constructor(stream) {
		this.stream = stream;
		this.panel = byId('device-panel');
		this.banner = byId('banner');
		this.picker = h('select', {
			id: 'device-picker',
			'aria-label': 'Device',
			onchange: () => stream.selectDevice(this.picker.value),
		});
		this.details = h('div');
		this.panel.append(this.picker, this.details);
	}

	show(devices, device) {
		clear(this.picker).append(...devices.map((d) => h('option', {
			value: d.name,
			selected: d === device,
		}, `${d.name} — ${d.description || d.platform}`)));
		this.picker.disabled = devices.length < 2;
		clear(this.details);
		this.showBanner(device);
		if (!device)
			return;
		const rows = [
			['Name', device.description || device.platform],
			['PCI id', `${hex(device.pciId, 4)} rev ${hex(device.revision, 2)}`],
			['Driver', device.driver],
			['Source', device.source],
			['Platform', device.platform],
		];
		if (device.graphicsVersion)
			rows.push(['Graphics', (device.graphicsVersion / 100).toFixed(2)]);
		if (num(device.maxFrequency))
			rows.push(['GPU clock', `${formatValue(num(device.minFrequency), 'Hz')} – ` +
				formatValue(num(device.maxFrequency), 'Hz')]);
		rows.push(['Timestamps', formatValue(num(device.timestampFrequency), 'Hz')]);
		this.details.append(
			h('dl', { class: 'facts' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
			h('h3', {}, 'Topology'),
			topologyView(device.topology));
	}

	showBanner(device) {
		const text = device && bannerText(device);
		this.banner.hidden = !text;
		if (!text)
			return;
		this.banner.dataset.kind = device.source;
		clear(this.banner).append(h('strong', {}, text[0]), ' ', text[1]);
	}
}
