// Choosing the metric set: a list of the device's sets, narrowed by a
// search that matches set names and the names and descriptions of their
// counters (so "sampler" finds every set that measures the sampler), its
// words in any order, whatever their case or number.
import { clear, h } from './dom.js';
import { matches, parseQuery } from './text_search.js';

export class MetricSetPicker {
	constructor(onPick) {
		this.onPick = onPick;
		this.sets = [];
		this.current = '';
		this.disabled = false;
		this.search = h('input', {
			type: 'search',
			id: 'set-search',
			placeholder: 'Search sets and counters',
			'aria-label': 'Search metric sets by name, counter name or description',
			oninput: () => this.render(),
		});
		this.list = h('ul', { class: 'set-list', role: 'listbox', id: 'set-list',
			'aria-label': 'Metric sets' });
		this.element = h('div', { class: 'field' },
			h('label', { for: 'set-search' }, 'Metric set'), this.search, this.list);
	}

	show(sets, current, disabled) {
		this.sets = sets;
		this.current = current;
		this.disabled = disabled;
		this.render();
	}

	render() {
		const query = parseQuery(this.search.value);
		const items = [];
		for (const set of this.sets) {
			const byName = matches(query, set.name, set.symbol);
			const counters = query.length ? set.counters.filter((c) =>
				matches(query, c.name, c.symbol) || matches(query, c.description)) : [];
			if (!byName && !counters.length)
				continue;
			const selected = set.symbol === this.current;
			items.push(h('li', { role: 'option', 'aria-selected': String(selected) },
				h('button', {
					type: 'button',
					class: selected ? 'set selected' : 'set',
					dataset: { set: set.symbol },
					disabled: this.disabled && !selected,
					onclick: () => {
						if (!selected)
							this.onPick(set.symbol);
					},
				},
				h('span', { class: 'set-name' }, set.name),
				h('span', { class: 'muted set-meta' },
					`${set.symbol} · ${set.counters.length} counters`),
				counters.length ? h('span', { class: 'set-matches' },
					counters.slice(0, 4).map((c) => c.name).join(', ') +
					(counters.length > 4 ? ` and ${counters.length - 4} more` : '')) : null)));
		}
		if (!items.length)
			items.push(h('li', { class: 'muted empty' }, 'No set or counter matches.'));
		clear(this.list).append(...items);
	}
}
