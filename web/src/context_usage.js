// Per-context usage: each context's share of the GPU time in the span the
// charts show, summed from the frames' per-context rows. A click on a
// context narrows the stream to its reports alone; while it is narrowed, a
// line says so and widens it again, and the list keeps every context as
// it was when the stream was narrowed, the others greyed: the narrowed
// stream holds one context's time only, which says nothing of theirs.
import { contextFilterText, singleContextText } from './context_policy.js';
import { h } from './dom.js';
import { formatDuration } from './units.js';

const MAX_ROWS = 12;

function contextName(ctx) {
	return `context 0x${ctx.toString(16)}`;
}

export class ContextUsage {
	// onSelect(ctxId): stream only that context; onSelect(null): all again.
	constructor(panel, onSelect) {
		this.onSelect = onSelect;
		this.filtered = null;
		this.totals = new Map();        // the last shown: ctx -> GPU ns
		this.before = null;             // the totals when narrowed
		// Rows stay the same elements from one refresh to the next, so a
		// click or the keyboard focus is not lost to a redraw.
		this.rows = new Map();          // ctx id or 'idle' -> { item, value, fill }
		this.summary = h('p', { class: 'muted hint' });
		this.filterText = h('span', {});
		this.filterLine = h('p', { class: 'context-filter', id: 'context-filter', hidden: true },
			this.filterText,
			h('button', { type: 'button', id: 'context-filter-clear',
				onclick: () => this.onSelect(null) }, 'Show all contexts'));
		this.list = h('ol', { class: 'context-list', id: 'context-list' });
		this.more = h('li', { class: 'muted' });
		// Which filter a pick gives on this device, and whether one
		// application's context holds the unit now.
		this.policy = h('p', { class: 'muted hint', id: 'context-policy' });
		this.singleContext = h('p', { class: 'context-filter', id: 'single-context',
			role: 'status', hidden: true });
		panel.append(h('section', { class: 'context-usage' },
			h('h3', {}, 'GPU time per context'), this.singleContext, this.filterLine,
			this.summary, this.list, this.policy));
	}

	// The device's context filters and configuration (Hello's Device).
	showPolicy(device) {
		this.policy.textContent = contextFilterText(device);
		const running = singleContextText(device);
		this.singleContext.textContent = running;
		this.singleContext.hidden = !running;
	}

	// The context the stream is narrowed to, or null.
	showFilter(ctxId) {
		if (ctxId !== null && this.filtered === null)
			this.before = new Map(this.totals);
		else if (ctxId === null)
			this.before = null;
		this.filtered = ctxId;
		this.filterLine.hidden = ctxId === null;
		if (ctxId !== null)
			this.filterText.textContent = `Only ${contextName(ctxId)}: the charts and ` +
				'counters show its reports alone.';
		for (const [ctx, row] of this.rows)
			this.showChosen(ctx, row);
	}

	showChosen(ctx, row) {
		if (ctx === 'idle')
			return;
		const chosen = ctx === this.filtered;
		row.item.classList.toggle('selected', chosen);
		row.item.setAttribute('aria-pressed', String(chosen));
		row.item.title = chosen ? 'Show all contexts again' : 'Show only this context\'s reports';
	}

	// A click on the context streamed alone widens the stream again.
	choose(ctx) {
		this.onSelect(ctx === this.filtered ? null : ctx);
	}

	row(ctx) {
		let row = this.rows.get(ctx);
		if (row)
			return row;
		const idle = ctx === 'idle';
		const value = h('span', { class: 'value' });
		const fill = h('span', { class: idle ? 'fill idle' : 'fill' });
		// Idle time belongs to no context, so there is nothing to narrow to.
		const item = h('li', idle ? { class: 'context', dataset: { ctx } } : {
			class: 'context pickable',
			dataset: { ctx },
			tabIndex: 0,
			role: 'button',
			onclick: () => this.choose(ctx),
			onkeydown: (event) => {
				if (event.key === 'Enter' || event.key === ' ') {
					event.preventDefault();
					this.choose(ctx);
				}
			},
		}, h('span', { class: 'name' }, idle ? 'idle' : contextName(ctx)), value,
		h('span', { class: 'bar' }, fill));
		row = { item, value, fill };
		this.showChosen(ctx, row);
		this.rows.set(ctx, row);
		return row;
	}

	update(store, min, max) {
		const from = store.indexAt(min), to = store.indexAt(max + 1e-9);
		let totals = new Map();
		let all = 0;
		for (let i = from; i < to; i++) {
			for (const [ctx, ns] of store.contexts[i]) {
				totals.set(ctx, (totals.get(ctx) ?? 0) + ns);
				all += ns;
			}
		}
		this.totals = totals;
		const narrowed = this.filtered !== null && this.before?.size;
		if (narrowed) {
			totals = this.before;
			all = [...totals.values()].reduce((a, b) => a + b, 0);
		}
		const rows = [...totals].sort((a, b) => b[1] - a[1]);
		this.summary.textContent = narrowed ?
			'Shares before the stream was narrowed; the others are greyed ' +
			'while it holds one context.' : all ?
				`${formatDuration(all)} of GPU time in ${to - from} windows` :
				'No per-context data in the shown span.';
		const shown = rows.slice(0, MAX_ROWS);
		const kept = new Set(shown.map(([ctx]) => ctx));
		for (const [ctx, row] of this.rows) {
			if (!kept.has(ctx)) {
				row.item.remove();
				this.rows.delete(ctx);
			}
		}
		shown.forEach(([ctx, ns], i) => {
			const row = this.row(ctx);
			row.item.classList.toggle('greyed', !!narrowed && ctx !== this.filtered);
			const share = ns / all * 100;
			row.value.textContent = `${share.toFixed(1)} %`;
			row.fill.style.width = `${share.toFixed(1)}%`;
			// Moves only what is out of place: moving a row takes its focus.
			if (this.list.children[i] !== row.item)
				this.list.insertBefore(row.item, this.list.children[i] ?? null);
		});
		if (rows.length > MAX_ROWS) {
			this.more.textContent = `${rows.length - MAX_ROWS} more contexts`;
			this.list.append(this.more);
		} else {
			this.more.remove();
		}
	}
}
