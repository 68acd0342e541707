// The everyday view beside the counters, from the device's usage stream
// (SubscribeUsage): its engines as busy bars and a plot of the last
// minutes, its clock, RC6, power and temperature, and the processes using
// it in a table that sorts by the column clicked and updates every
// interval. It needs no OA unit, so it runs whatever the counters do.
import uPlot from 'uplot';
import { clear, h } from './dom.js';
import { chartTheme } from './chart_theme.js';
import { num } from './protocol.js';
import { formatValue } from './units.js';
import { SHARE_SOURCE_TITLES, shareSourceName, shareSourceText } from './share_source.js';

const INTERVAL_NS = 1e9;
const HISTORY = 180;                    // intervals the plot keeps
const PLOT_HEIGHT = 150;

function percent(share) {
	return share == null || Number.isNaN(share) ? '–' : `${(share * 100).toFixed(1)} %`;
}

function bytes(n) {
	return formatValue(Number(n), 'B', 3);
}

// A oneof of one field is absent where the device cannot measure it.
function optional(frame, oneof, field) {
	return frame[oneof] === field ? frame[field] : null;
}

const SORTS = {
	pid: (p) => p.pid,
	command: (p) => p.command,
	gpu: (p) => Number(p.gpuTimeNs),
	memory: (p) => Number(p.memoryBytes),
	resident: (p) => Number(p.residentBytes),
	source: shareSourceName,
};

export class UsagePanel {
	constructor(enginesPanel, processesPanel, connection) {
		this.connection = connection;
		this.device = null;
		this.subscriptionId = 0;
		this.frame = null;
		this.framesDropped = 0;         // usage frames, this connection
		this.dirty = false;
		this.perEngine = true;
		this.sort = { key: 'gpu', descending: true };
		this.history = { t: [], series: new Map() };   // engine -> busy %
		this.summary = h('p', { class: 'usage-summary', id: 'usage-summary' },
			'Waiting for the first interval…');
		this.note = h('p', { class: 'muted hint', id: 'usage-note', hidden: true });
		this.engineList = h('ol', { class: 'engine-list', id: 'engine-list' });
		this.toggle = h('button', { type: 'button', class: 'quiet', id: 'engine-toggle',
			onclick: () => { this.perEngine = !this.perEngine; this.dirty = true; } });
		this.plotBox = h('div', { class: 'usage-plot', id: 'usage-plot' });
		enginesPanel.append(this.summary, this.toggle, this.engineList, this.note,
			this.plotBox);
		this.head = h('tr', {});
		this.body = h('tbody', { id: 'process-rows' });
		this.processNote = h('p', { class: 'muted hint', id: 'process-note' });
		processesPanel.append(h('table', { class: 'process-table', id: 'process-table' },
			h('thead', {}, this.head), this.body), this.processNote);
		this.plot = null;
		this.plotEngines = '';
		connection.on('usageFrame', (frame) => this.received(frame));
		// A new connection knows none of the old one's subscriptions.
		connection.on('hello', () => {
			this.subscriptionId = 0;
			this.framesDropped = 0;
		});
	}

	// Streams device's usage; the previous device's stream ends.
	async start(device) {
		const previous = this.subscriptionId;
		this.device = device;
		this.subscriptionId = 0;
		this.frame = null;
		this.history = { t: [], series: new Map() };
		this.dirty = true;
		if (previous)
			this.connection.send({ unsubscribe: { subscriptionId: previous } });
		if (!device?.usage) {
			this.summary.textContent = device ? `${device.name} has no usage stream: ` +
				'a replay has no engines, clocks or processes.' : '';
			return;
		}
		this.summary.textContent = 'Waiting for the first interval…';
		try {
			const reply = await this.connection.request({
				subscribeUsage: { device: device.name, intervalNs: INTERVAL_NS,
					processes: true },
			});
			if (this.device !== device) {
				this.connection.send({ unsubscribe: { subscriptionId: reply.subscriptionId } });
				return;
			}
			this.subscriptionId = reply.subscriptionId;
			this.summary.title = reply.description;
		} catch (error) {
			this.summary.textContent = `No usage stream: ${error.message}`;
		}
	}

	received(frame) {
		if (!this.subscriptionId || frame.subscriptionId !== this.subscriptionId)
			return;
		this.frame = frame;
		// Usage frames count their own drops, apart from the counters'.
		this.framesDropped = num(frame.framesDroppedTotal);
		const t = Number(frame.cpuEndNs) / 1e9;
		this.history.t.push(t);
		for (const e of frame.engines) {
			if (!this.history.series.has(e.name))
				this.history.series.set(e.name,
					new Array(this.history.t.length - 1).fill(null));
		}
		for (const [name, values] of this.history.series) {
			const e = frame.engines.find((x) => x.name === name);
			const busy = e ? optional(e, 'busyShare', 'busy') : null;
			values.push(busy == null ? null : busy * 100);
		}
		if (this.history.t.length > HISTORY) {
			this.history.t.shift();
			for (const values of this.history.series.values())
				values.shift();
		}
		this.dirty = true;
	}

	// Draws what changed; true when it drew.
	render() {
		if (!this.dirty)
			return false;
		this.dirty = false;
		this.toggle.textContent = this.perEngine ? 'Show engine classes' :
			'Show physical engines';
		if (!this.frame) {
			clear(this.engineList);
			clear(this.body);
			return true;
		}
		this.renderSummary(this.frame);
		this.renderEngines(this.frame);
		this.renderProcesses(this.frame);
		this.renderPlot();
		return true;
	}

	renderSummary(f) {
		const actual = optional(f, 'actualFrequency', 'actualFrequencyHz');
		const requested = optional(f, 'requestedFrequency', 'requestedFrequencyHz');
		const min = optional(f, 'minFrequency', 'minFrequencyHz');
		const max = optional(f, 'maxFrequency', 'maxFrequencyHz');
		const parts = [];
		let clock = actual == null ? 'clock –' : `clock ${formatValue(actual, 'Hz', 3)}`;
		if (requested != null)
			clock += ` (asked ${formatValue(requested, 'Hz', 3)})`;
		if (min != null && max != null)
			clock += `, range ${formatValue(min, 'Hz', 3)}–${formatValue(max, 'Hz', 3)}`;
		else if (max != null)
			clock += `, up to ${formatValue(max, 'Hz', 3)}`;
		parts.push(clock);
		parts.push(`RC6 ${percent(optional(f, 'rc6Share', 'rc6'))}`);
		const power = optional(f, 'power', 'powerWatts');
		parts.push(power == null ? 'power –' : `${power.toFixed(2)} W`);
		const temperature = optional(f, 'temperature', 'temperatureCelsius');
		if (temperature != null)
			parts.push(`${temperature.toFixed(0)} °C`);
		for (const g of f.gauges)
			parts.push(`${g.name} ${formatValue(g.value, g.unit === 'bytes_per_second' ?
				'B/s' : g.unit, 3)}`);
		this.summary.textContent = parts.join(' · ');
		this.note.hidden = !f.note;
		this.note.textContent = f.note;
	}

	engineRows(f) {
		if (this.perEngine)
			return f.engines.map((e) => ({ label: `${e.name} ${e.engineClass}`,
				busy: optional(e, 'busyShare', 'busy'),
				wait: optional(e, 'waitShare', 'wait'),
				sema: optional(e, 'semaShare', 'sema') }));
		return f.engineClasses.map((c) => {
			const engines = f.engines.filter((e) => e.engineClass === c);
			const mean = (oneof, field) => {
				const v = engines.map((e) => optional(e, oneof, field)).filter((x) => x != null);
				return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
			};
			return { label: engines.length > 1 ? `${c} ×${engines.length}` : c,
				busy: mean('busyShare', 'busy'), wait: mean('waitShare', 'wait'),
				sema: mean('semaShare', 'sema'), count: engines.length };
		}).filter((r) => r.count);
	}

	renderEngines(f) {
		const rows = this.engineRows(f).map((r) => {
			const fill = h('span', { class: 'fill' });
			fill.style.width = `${((r.busy ?? 0) * 100).toFixed(1)}%`;
			const detail = [r.wait != null ? `wait ${percent(r.wait)}` : '',
				r.sema != null ? `sema ${percent(r.sema)}` : ''].filter(Boolean).join(', ');
			return h('li', { class: 'engine', title: detail },
				h('span', { class: 'name' }, r.label),
				h('span', { class: 'value' }, percent(r.busy)),
				h('span', { class: 'bar' }, fill));
		});
		this.engineList.replaceChildren(...rows);
	}

	renderProcesses(f) {
		const columns = [['pid', 'PID'], ['command', 'Command'], ['gpu', 'GPU'],
			...f.engineClasses.map((c, i) => [`class:${i}`, c]),
			['memory', 'Memory'], ['resident', 'Resident'], ['source', 'Share source']];
		this.head.replaceChildren(...columns.map(([key, label]) => {
			const sorted = this.sort.key === key;
			return h('th', { scope: 'col', 'aria-sort': sorted ?
				(this.sort.descending ? 'descending' : 'ascending') : 'none' },
			h('button', { type: 'button', class: 'quiet', dataset: { sort: key },
				onclick: () => this.sortBy(key) },
			label + (sorted ? (this.sort.descending ? ' ▼' : ' ▲') : '')));
		}));
		const seconds = (Number(f.cpuEndNs) - Number(f.cpuStartNs)) / 1e9 || 1;
		const key = this.sort.key;
		const value = key.startsWith('class:') ?
			((p) => p.classBusy[Number(key.slice(6))] ?? 0) : SORTS[key];
		const processes = f.processesIncluded ? [...f.processes] : [];
		processes.sort((a, b) => {
			const x = value(a), y = value(b);
			const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
			return (this.sort.descending ? -c : c) || a.pid - b.pid;
		});
		this.body.replaceChildren(...processes.map((p) => h('tr', {},
			h('td', { class: 'num' }, p.pid ? String(p.pid) : '–'),
			h('td', {}, p.pid ? p.command : '(hidden)'),
			h('td', { class: 'num' }, percent(Number(p.gpuTimeNs) / 1e9 / seconds)),
			...f.engineClasses.map((c, i) => h('td', { class: 'num' },
				percent(p.classBusy[i] ?? 0))),
			h('td', { class: 'num' }, bytes(p.memoryBytes)),
			h('td', { class: 'num' }, bytes(p.residentBytes)),
			h('td', { title: SHARE_SOURCE_TITLES[shareSourceName(p)] ?? '' },
				shareSourceText(p)))));
		const notes = [];
		if (!f.processesIncluded)
			notes.push('Process rows are not shown to anyone here (the daemon runs with ' +
				'--process-details none).');
		else if (!processes.length)
			notes.push('No process uses the GPU.');
		if (f.processVisibility === 2)
			notes.push('Process ids and commands are shown to controllers only.');
		if (f.processesUnreadable)
			notes.push(`Partial list: ${f.processesNote}`);
		else if (f.processesNote)
			notes.push(f.processesNote);
		this.processNote.textContent = notes.join(' ');
	}

	sortBy(key) {
		if (this.sort.key === key)
			this.sort.descending = !this.sort.descending;
		else
			this.sort = { key, descending: !['pid', 'command'].includes(key) };
		this.dirty = true;
	}

	renderPlot() {
		const names = [...this.history.series.keys()];
		const theme = chartTheme();
		const signature = `${names.join(',')}|${theme.scheme}`;
		if (!this.plot || this.plotEngines !== signature) {
			this.plot?.destroy();
			clear(this.plotBox);
			const width = Math.max(240, this.plotBox.clientWidth || 300);
			this.plot = new uPlot({
				width, height: PLOT_HEIGHT,
				legend: { show: true },
				scales: { x: { time: true }, y: { range: [0, 100] } },
				axes: [
					{ stroke: theme.text, grid: { stroke: theme.grid } },
					{ stroke: theme.text, grid: { stroke: theme.grid },
						values: (u, splits) => splits.map((v) => `${v} %`) },
				],
				series: [{}, ...names.map((name, i) => ({
					label: name, stroke: theme.palette[i % theme.palette.length],
					width: 1.5, spanGaps: false,
				}))],
			}, [[], ...names.map(() => [])], this.plotBox);
			this.plotEngines = signature;
		}
		this.plot.setData([this.history.t, ...names.map((n) => this.history.series.get(n))]);
	}
}
