// The data the charts show, as CSV: one row per window in the shown span,
// the plotted counters (every counter when none is plotted) in the units
// the page shows them in.
import { h } from './dom.js';
import { download, fileTimestamp } from './download.js';

function quote(text) {
	return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function visibleCsv(store, counters, displays, indexes, min, max) {
	const header = ['time', 'reports', 'lost_reports_and_buffer_losses',
		...indexes.map((i) => quote(`${counters[i].name} (${displays[i].unit || 'count'})`))];
	const lines = [header.join(',')];
	const from = store.indexAt(min), to = store.indexAt(max + 1e-9);
	for (let row = from; row < to; row++) {
		const cells = [new Date(store.x[row] * 1000).toISOString(), store.reports[row],
			store.lost[row] ?? 0];
		for (const i of indexes)
			cells.push(store.columns[i][row] ?? '');
		lines.push(cells.join(','));
	}
	return { text: lines.join('\n') + '\n', rows: to - from };
}

export function csvButton(onExport) {
	return h('button', {
		type: 'button', id: 'export-csv', class: 'quiet',
		title: 'The shown span of the plotted counters (all counters when none is plotted)',
		onclick: onExport,
	}, 'Export CSV');
}

export function saveCsv(text, deviceName, setSymbol) {
	download(new Blob([text], { type: 'text/csv' }),
		`gpuperf-${deviceName}-${setSymbol}-${fileTimestamp()}.csv`);
}
