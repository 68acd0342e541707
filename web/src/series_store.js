// The frames of the current subscription, kept as columns so that charts
// take them without copying: x (seconds on the wall clock), one column per
// counter in display units, the loss columns, and each frame's per-context
// GPU time; and, for Export CSV, what the CLI's CSV rows hold (the frame's
// own values and times). Old rows go once they are older than the longest span a
// chart can show.
import { num } from './protocol.js';
import { displayValue } from './units.js';

export const MAX_SPAN_S = 300;

export class SeriesStore {
	constructor() {
		this.reset([]);
		// Counted since the page loaded, across subscriptions.
		this.totals = { lostReports: 0, bufferLost: 0, framesDropped: 0 };
		// Server CLOCK_MONOTONIC to wall clock, set by the first frame.
		this.clockOffset = null;
	}

	// displays: one units.counterDisplay() per counter, in frame order.
	reset(displays) {
		this.displays = displays;
		this.x = [];
		this.columns = displays.map(() => []);
		this.reports = [];
		this.lost = [];              // lost reports + buffer losses; null: none
		this.contexts = [];          // [[ctxId or 'idle', gpuTimeNs], ...]
		// The CLI's CSV columns: start (server CLOCK_MONOTONIC ns), GPU
		// duration, partial, losses, frames dropped, and the counters'
		// values as the frame carried them.
		this.startNs = [];
		this.durationNs = [];
		this.partial = [];
		this.lostReports = [];
		this.buffersLost = [];
		this.dropped = [];
		this.values = displays.map(() => []);
		// Where the stream changed (set, period, context): { x, text }.
		this.changes = [];
		this.latest = null;          // the last frame's raw values
		this.latestWindowS = 0;
		this.sinceChange = 0;        // frames since these counters
		this.version = (this.version ?? 0) + 1;     // bumps with every change
	}

	// The stream goes on with other counters (another metric set, a new
	// period, a context filter): the rows stay, counters in both keep
	// their columns, new ones start empty, and the change is marked at
	// the last row.
	remap(displays, symbols, previousSymbols, text) {
		const old = new Map(previousSymbols.map((s, i) => [s, i]));
		const n = this.x.length;
		const keep = (columns) => symbols.map((s) =>
			(old.has(s) ? columns[old.get(s)] : new Array(n).fill(null)));
		this.columns = keep(this.columns);
		this.values = keep(this.values);
		this.displays = displays;
		this.latest = null;
		this.sinceChange = 0;
		if (n && text)
			this.changes.push({ x: this.x[n - 1], text });
		this.version++;
	}

	get length() {
		return this.x.length;
	}

	push(frame) {
		const cpuEnd = num(frame.cpuEndNs) / 1e9;
		if (this.clockOffset === null)
			this.clockOffset = Date.now() / 1000 - cpuEnd;
		const windowS = (num(frame.gpuEndNs) - num(frame.gpuStartNs)) / 1e9;
		const values = frame.values;
		this.x.push(cpuEnd + this.clockOffset);
		for (let i = 0; i < this.columns.length; i++)
			this.columns[i].push(windowS > 0 ?
				displayValue(this.displays[i], values[i], windowS) : null);
		const loss = frame.lostReports + frame.bufferLost;
		this.reports.push(frame.reports);
		this.lost.push(loss ? loss : null);
		this.contexts.push(frame.contexts.map((row) =>
			[row.idle ? 'idle' : row.ctxId, num(row.gpuTimeNs)]));
		this.startNs.push(num(frame.cpuStartNs));
		this.durationNs.push(num(frame.gpuEndNs) - num(frame.gpuStartNs));
		this.partial.push(frame.partial ? 1 : 0);
		this.lostReports.push(frame.lostReports);
		this.buffersLost.push(frame.bufferLost);
		this.dropped.push(frame.framesDropped);
		for (let i = 0; i < this.values.length; i++)
			this.values[i].push(values[i]);
		this.latest = values;
		this.latestWindowS = windowS;
		this.sinceChange++;
		this.totals.lostReports += frame.lostReports;
		this.totals.bufferLost += frame.bufferLost;
		this.totals.framesDropped = num(frame.framesDroppedTotal);
		this.version++;
		this.trim();
	}

	// Drops rows in batches, so each costs little on average.
	trim() {
		const horizon = this.x[this.x.length - 1] - MAX_SPAN_S;
		if (this.x[0] >= horizon - MAX_SPAN_S / 4)
			return;
		let n = 0;
		while (n < this.x.length && this.x[n] < horizon)
			n++;
		for (const column of [this.x, this.reports, this.lost, this.contexts,
			this.startNs, this.durationNs, this.partial, this.lostReports,
			this.buffersLost, this.dropped, ...this.columns, ...this.values])
			column.splice(0, n);
		this.changes = this.changes.filter((c) => c.x >= this.x[0]);
	}

	// Index of the first row at or after time t.
	indexAt(t) {
		let lo = 0, hi = this.x.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (this.x[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}

	lastTime() {
		return this.x.length ? this.x[this.x.length - 1] : Date.now() / 1000;
	}
}
