// The live counter list, grouped as the metric file groups them: each
// counter's latest value in human units and a bar against its maximum;
// the description on hover; a click adds or removes its plot.
import { matches, parseQuery } from './text_search.js';
import { clear, h } from './dom.js';
import { formatValue } from './units.js';

export class CounterList {
	constructor(panel, onToggle) {
		this.onToggle = onToggle;
		this.filter = h('input', {
			type: 'search',
			id: 'counter-filter',
			placeholder: 'Filter counters',
			'aria-label': 'Filter counters by name or description',
			oninput: () => this.applyFilter(),
		});
		this.body = h('div', { class: 'counter-groups', id: 'counter-list' });
		panel.append(this.filter, this.body);
		this.rows = [];
	}

	// counters: Counter objects; displays: their units.counterDisplay().
	show(counters, displays) {
		const groups = new Map();
		this.rows = counters.map((counter, i) => {
			const value = h('span', { class: 'value' }, '–');
			const fill = h('span', { class: 'fill' });
			const swatch = h('span', { class: 'swatch' });
			const maxText = counter.max === 'maxValue' ?
				`max ${displays[i].perSecond ? formatValue(counter.maxValue, '') + ' per window' :
					formatValue(counter.maxValue * displays[i].scale, displays[i].unit)}` :
				counter.max === 'maxEquation' ? `max ${counter.maxEquation}` :
				'no fixed max: the bar is against the highest value seen';
			const row = h('li', {
				class: 'counter',
				dataset: { symbol: counter.symbol },
				title: `${counter.name} (${counter.symbol})\n${counter.description || ''}\n` +
					`${counter.units || 'no unit'} · ${maxText}`,
				tabIndex: 0,
				role: 'button',
				'aria-pressed': 'false',
				onclick: () => this.onToggle(counter.symbol),
				onkeydown: (event) => {
					if (event.key === 'Enter' || event.key === ' ') {
						event.preventDefault();
						this.onToggle(counter.symbol);
					}
				},
			}, swatch, h('span', { class: 'name' }, counter.name), value,
			h('span', { class: 'bar' }, fill));
			const group = counter.group || 'Other';
			if (!groups.has(group))
				groups.set(group, []);
			groups.get(group).push(row);
			return { counter, row, value, fill, swatch, shown: '', width: -1 };
		});
		clear(this.body).append(...[...groups].map(([name, rows]) =>
			h('section', { class: 'counter-group' },
				h('h3', {}, name), h('ul', {}, rows))));
		this.applyFilter();
	}

	applyFilter() {
		const query = parseQuery(this.filter.value);
		for (const { counter, row } of this.rows)
			row.hidden = !matches(query, counter.name, counter.symbol) &&
				!matches(query, counter.description);
		for (const group of this.body.children)
			group.hidden = [...group.querySelectorAll('li.counter')].every((r) => r.hidden);
	}

	// colors: symbol -> the colour of its plot, for the plotted ones.
	showPlotted(colors) {
		for (const r of this.rows) {
			const color = colors.get(r.counter.symbol);
			r.row.classList.toggle('plotted', !!color);
			r.row.setAttribute('aria-pressed', String(!!color));
			r.swatch.style.background = color ?? '';
		}
	}

	// The latest frame's values: shown[i] in display units, fractions of max.
	update(store, counterMax, displays) {
		const last = store.length - 1;
		if (last < 0 || !store.latest)
			return;
		for (let i = 0; i < this.rows.length; i++) {
			const r = this.rows[i];
			if (r.row.hidden)
				continue;
			const text = formatValue(store.columns[i][last], displays[i].unit);
			if (text !== r.shown) {
				r.value.textContent = text;
				r.shown = text;
			}
			const width = Math.round(counterMax.fraction(i, store.latest[i]) * 1000) / 10;
			if (width !== r.width) {
				r.fill.style.width = `${width}%`;
				r.width = width;
			}
			r.fill.classList.toggle('observed', counterMax.observed[i]);
		}
	}
}
