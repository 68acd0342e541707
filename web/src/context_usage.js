// Per-context usage: each context's share of the GPU time in the span the
// charts show, summed from the frames' per-context rows.
import { clear, h } from './dom.js';
import { formatDuration } from './units.js';

const MAX_ROWS = 12;

export class ContextUsage {
	constructor(panel) {
		this.summary = h('p', { class: 'muted hint' });
		this.list = h('ol', { class: 'context-list', id: 'context-list' });
		panel.append(h('section', { class: 'context-usage' },
			h('h3', {}, 'GPU time per context'), this.summary, this.list));
	}

	update(store, min, max) {
		const from = store.indexAt(min), to = store.indexAt(max + 1e-9);
		const totals = new Map();
		let all = 0;
		for (let i = from; i < to; i++) {
			for (const [ctx, ns] of store.contexts[i]) {
				totals.set(ctx, (totals.get(ctx) ?? 0) + ns);
				all += ns;
			}
		}
		const rows = [...totals].sort((a, b) => b[1] - a[1]);
		this.summary.textContent = all ?
			`${formatDuration(all)} of GPU time in ${to - from} windows` :
			'No per-context data in the shown span.';
		clear(this.list).append(...rows.slice(0, MAX_ROWS).map(([ctx, ns]) => {
			const share = ns / all * 100;
			const fill = h('span', { class: ctx === 'idle' ? 'fill idle' : 'fill' });
			fill.style.width = `${share.toFixed(1)}%`;
			return h('li', { class: 'context', dataset: { ctx } },
				h('span', { class: 'name' }, ctx === 'idle' ? 'idle' :
					`context 0x${ctx.toString(16)}`),
				h('span', { class: 'value' }, `${share.toFixed(1)} %`),
				h('span', { class: 'bar' }, fill));
		}));
		if (rows.length > MAX_ROWS)
			this.list.append(h('li', { class: 'muted' }, `${rows.length - MAX_ROWS} more contexts`));
	}
}
