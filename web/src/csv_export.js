// The shown span as CSV, exactly as `gpuperf stream --format csv` writes
// it (README's "Units, times and contexts"): the platform and metric set,
// the window's start on the daemon's CLOCK_MONOTONIC and its GPU time in
// ns, whether it is partial, its losses, then every counter's value as
// the window gave it, in the metric file's unit. `gpuperf compare` reads
// it like any other result.
import { h } from './dom.js';
import { download, fileTimestamp } from './download.js';

function quote(text) {
	return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

// A value as the CLI writes it: the shortest digits that read back the
// same, nothing where there is none.
function cell(value) {
	return value === null || value === undefined || !Number.isFinite(value) ?
		'' : String(value);
}

export function visibleCsv(store, counters, platform, metricSet, min, max) {
	const header = ['platform', 'metric_set', 'timestamp_ns', 'duration_ns',
		'partial', 'reports', 'lost', 'buffers_lost', 'dropped',
		...counters.map((c) => quote(c.symbol))];
	const lines = [header.join(',')];
	const from = store.indexAt(min), to = store.indexAt(max + 1e-9);
	for (let row = from; row < to; row++) {
		const cells = [quote(platform), quote(metricSet), store.startNs[row],
			store.durationNs[row], store.partial[row], store.reports[row],
			store.lostReports[row], store.buffersLost[row], store.dropped[row]];
		for (const column of store.values)
			cells.push(cell(column[row]));
		lines.push(cells.join(','));
	}
	return { text: lines.join('\n') + '\n', rows: to - from };
}

export function csvButton(onExport) {
	return h('button', {
		type: 'button', id: 'export-csv', class: 'quiet',
		title: 'The shown span, every counter, as gpuperf stream --format csv writes it',
		onclick: onExport,
	}, 'Export CSV');
}

export function saveCsv(text, deviceName, setSymbol) {
	download(new Blob([text], { type: 'text/csv' }),
		`gpuperf-${deviceName}-${setSymbol}-${fileTimestamp()}.csv`);
}
