// Marks: a stretch of the stream chosen by hand, from one click to the
// next. The daemon sums the reports between Mark BEGIN and END into one
// frame, exact to the report rather than to a window's edges; the list
// under the charts keeps the newest of those with their GPU time, reports
// and counter values. A mark lives in its subscription: when that is
// replaced or rebound, the daemon forgets the mark, and so does the page.
import { h } from './dom.js';
import { Mark, num } from './protocol.js';
import {
	counterDisplay, displayValue, formatDuration, formatValue,
} from './units.js';

const KEPT = 10;
// Counters listed for a mark when none are plotted.
const UNPLOTTED_SHOWN = 4;
const ELAPSED_TICK_MS = 100;
// The marked frame follows END within a report period; a device that
// stopped delivering reports never sends it.
const FRAME_WAIT_MS = 5000;

export class MarkControl {
	// plottedSymbols(): the symbols of the plotted counters, in order.
	constructor(panel, connection, stream, notices, plottedSymbols) {
		this.connection = connection;
		this.stream = stream;
		this.notices = notices;
		this.plottedSymbols = plottedSymbols;
		// { subscriptionId, phase, startedAt, elapsedS }; phase: beginning
		// (BEGIN sent), open, ending (END sent), closing (its frame awaited).
		this.mark = null;
		this.windows = [];              // the marked windows, newest first
		this.taken = 0;
		this.ticker = 0;
		this.frameTimer = 0;
		this.button = h('button', { type: 'button', id: 'mark-toggle',
			title: 'Sum the stream from this click to the next into one row below the charts',
			onclick: () => (this.mark ? this.end() : this.begin()) });
		this.element = this.button;
		this.hint = h('p', { class: 'muted hint' },
			'Mark, then End mark: the reports between the two clicks are summed into one row here.');
		this.list = h('ol', { class: 'mark-list', id: 'mark-list' });
		panel.append(h('section', { class: 'marks' },
			h('h3', {}, 'Marked windows'), this.hint, this.list));
		stream.on('markFrame', (frame) => this.received(frame));
		stream.on('subscribed', () => this.drop('the stream was subscribed anew'));
		stream.on('configured', () => this.drop('the stream was reconfigured'));
		connection.on('state', (state) => {
			// The requests in flight fail with the connection; nothing to say.
			if (state !== 'open')
				this.reset();
			this.show();
		});
		this.show();
	}

	show() {
		const mark = this.mark;
		const open = mark?.phase === 'open';
		const ending = mark?.phase === 'ending' || mark?.phase === 'closing';
		this.button.textContent = open || ending ?
			`End mark · ${mark.elapsedS.toFixed(1)} s` : 'Mark';
		this.button.classList.toggle('mark-on', open || ending);
		this.button.disabled = mark ? !open :
			this.connection.state !== 'open' || !this.stream.subscriptionId;
		if (open && !this.ticker)
			this.ticker = setInterval(() => this.tick(), ELAPSED_TICK_MS);
		else if (!open && this.ticker) {
			clearInterval(this.ticker);
			this.ticker = 0;
		}
	}

	tick() {
		if (this.mark?.phase !== 'open')
			return;
		this.mark.elapsedS = (performance.now() - this.mark.startedAt) / 1000;
		this.show();
	}

	async begin() {
		const subscriptionId = this.stream.subscriptionId;
		if (this.mark || !subscriptionId)
			return;
		const mark = { subscriptionId, phase: 'beginning', startedAt: 0, elapsedS: 0 };
		this.mark = mark;
		this.show();
		try {
			await this.connection.request({ mark: { subscriptionId, kind: Mark.Kind.BEGIN } });
		} catch (error) {
			this.refused(mark, `The mark could not begin: ${error.message}`);
			return;
		}
		if (this.mark !== mark)
			return;
		mark.phase = 'open';
		mark.startedAt = performance.now();
		this.show();
	}

	async end() {
		const mark = this.mark;
		if (mark?.phase !== 'open')
			return;
		this.tick();
		mark.phase = 'ending';
		this.show();
		try {
			await this.connection.request({
				mark: { subscriptionId: mark.subscriptionId, kind: Mark.Kind.END },
			});
		} catch (error) {
			this.refused(mark, `The mark could not end: ${error.message}`);
			return;
		}
		if (this.mark !== mark)
			return;
		mark.phase = 'closing';
		this.frameTimer = setTimeout(() => {
			if (this.mark === mark) {
				this.notices.add('warning', 'The marked window did not arrive: the device ' +
					'delivered no report after the mark ended.');
				this.reset();
				this.show();
			}
		}, FRAME_WAIT_MS);
	}

	// A refusal of this page's mark, unless it was dropped meanwhile.
	refused(mark, text) {
		if (this.mark !== mark)
			return;
		this.notices.add('error', text);
		this.reset();
		this.show();
	}

	reset() {
		this.mark = null;
		clearTimeout(this.frameTimer);
		this.frameTimer = 0;
	}

	// The subscription the mark lives in was replaced or rebound.
	drop(why) {
		const mark = this.mark;
		// A BEGIN still on its way reaches the rebound subscription: it holds.
		const holds = mark?.phase === 'beginning' &&
			mark.subscriptionId === this.stream.subscriptionId;
		if (mark && !holds) {
			if (mark.phase !== 'beginning')
				this.notices.add('warning', `The open mark was dropped: ${why}.`);
			this.reset();
		}
		this.show();
	}

	received(frame) {
		if (this.mark?.subscriptionId === frame.subscriptionId) {
			this.reset();
			this.show();
		}
		this.taken++;
		const durationNs = num(frame.gpuEndNs) - num(frame.gpuStartNs);
		const marked = {
			number: this.taken,
			frame,
			durationNs,
			reports: frame.reports,
			lost: frame.lostReports + frame.bufferLost,
			source: `${this.stream.device?.name ?? ''} ${this.stream.metricSet?.symbol ?? ''}`.trim(),
			contextId: this.stream.contextId,
			time: new Date(),
			values: this.values(frame, durationNs / 1e9),
		};
		this.windows.unshift(marked);
		this.windows.length = Math.min(this.windows.length, KEPT);
		this.list.prepend(this.item(marked));
		while (this.list.children.length > KEPT)
			this.list.lastElementChild.remove();
		this.hint.hidden = true;
	}

	// The plotted counters' values in the window, or the first few
	// counters' when none are plotted; formatted as the counter list does.
	values(frame, windowS) {
		const counters = this.stream.counters;
		const index = new Map(counters.map((c, i) => [c.symbol, i]));
		let indexes = this.plottedSymbols().map((symbol) => index.get(symbol))
			.filter((i) => i !== undefined);
		if (!indexes.length)
			indexes = counters.slice(0, UNPLOTTED_SHOWN).map((c, i) => i);
		return indexes.map((i) => {
			const display = counterDisplay(counters[i]);
			const value = windowS > 0 ? displayValue(display, frame.values[i], windowS) : NaN;
			return { symbol: counters[i].symbol, name: counters[i].name,
				text: formatValue(value, display.unit) };
		});
	}

	item(marked) {
		const facts = [formatDuration(marked.durationNs), `${marked.reports} reports`];
		if (marked.lost)
			facts.push(`${marked.lost} lost`);
		const where = marked.contextId === null ? marked.source :
			`${marked.source}, context 0x${marked.contextId.toString(16)} only`;
		return h('li', { class: 'mark', dataset: { number: marked.number } },
			h('div', { class: 'mark-head' },
				h('span', { class: 'name' }, `Mark ${marked.number}`),
				h('span', { class: 'muted' }, `${marked.time.toLocaleTimeString()} · ${where}`),
				h('span', { class: 'facts' }, facts.join(' · '))),
			h('dl', { class: 'mark-values' }, marked.values.map(({ symbol, name, text }) =>
				h('div', { dataset: { symbol } }, h('dt', { title: name }, name), h('dd', {}, text)))));
	}
}
