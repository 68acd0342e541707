// The sampling period (with the report rate and memory bandwidth each one
// costs) and the window length (how much time one frame sums, so how many
// frames a second arrive).
import { h } from './dom.js';
import { num } from './protocol.js';
import { formatBytes, formatDuration, formatValue } from './units.js';
import { reportBytes } from './report_size.js';

const WINDOW_CHOICES_NS = [
	1e6, 2e6, 5e6, 10e6, 20e6, 50e6, 100e6, 200e6, 500e6, 1e9,
];

// Periods slower than this are of no use for a live view.
const SLOWEST_PERIOD_NS = 2e9;

export class SamplingControls {
	constructor(onPeriod, onWindow) {
		this.period = h('select', {
			id: 'period-picker',
			onchange: () => onPeriod(Number(this.period.value)),
		});
		this.window = h('select', {
			id: 'window-picker',
			onchange: () => onWindow(Number(this.window.value)),
		});
		this.periodCost = h('p', { class: 'muted hint', id: 'period-cost' });
		this.element = h('div', {},
			h('div', { class: 'field' },
				h('label', { for: 'period-picker' }, 'Sampling period'),
				this.period, this.periodCost),
			h('div', { class: 'field' },
				h('label', { for: 'window-picker' }, 'Window'),
				this.window));
	}

	show(device, metricSet, periodNs, windowNs, periodDisabled) {
		const bytes = device ? reportBytes(device, metricSet) : 0;
		const periods = (device?.samplingPeriods ?? [])
			.map((p) => num(p.periodNs))
			.filter((ns) => ns <= SLOWEST_PERIOD_NS);
		this.period.replaceChildren(...periods.map((ns) => {
			const rate = 1e9 / ns;
			return h('option', { value: ns, selected: ns === periodNs },
				`${formatDuration(ns)} · ${formatValue(rate, '/s')} · ` +
				`${formatBytes(rate * bytes)}/s`);
		}));
		this.period.disabled = periodDisabled || !periods.length;
		const rate = periodNs ? 1e9 / periodNs : 0;
		this.periodCost.textContent = periodNs ?
			`${formatValue(rate, 'reports/s')} of ${bytes} B each: ` +
			`${formatBytes(rate * bytes)}/s written by the OA unit` : '';
		this.window.replaceChildren(...WINDOW_CHOICES_NS.map((ns) => h('option', {
			value: ns, selected: ns === windowNs,
		}, `${formatDuration(ns)} · ${formatValue(1e9 / ns, 'frames/s')}`)));
	}
}
