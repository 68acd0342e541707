// csv_export.js: the shown span as CSV, as `gpuperf stream --format csv`
// writes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleCsv } from '../src/csv_export.js';

// A store of rows starting at x (seconds), two counters' values given.
function store(x, values) {
	const n = x.length;
	return {
		x, values,
		startNs: x.map((t) => t * 1e9), durationNs: x.map(() => 1e8),
		partial: x.map((_, i) => (i === 0 ? 1 : 0)), reports: x.map((_, i) => 10 + i),
		lostReports: x.map((_, i) => (i === 1 ? 2 : 0)), buffersLost: x.map(() => 0),
		dropped: x.map(() => 0),
		indexAt(t) {
			const i = x.findIndex((v) => v >= t);
			return i < 0 ? n : i;
		},
	};
}

const counters = [{ symbol: 'GpuBusy' }, { symbol: 'Odd,"quoted"\nname' }];
const HEADER = 'platform,metric_set,timestamp_ns,duration_ns,partial,reports,lost,' +
	'buffers_lost,dropped,GpuBusy,"Odd,""quoted""\nname"';

test('the rows of the shown span, every counter as the window gave it', () => {
	const s = store([100, 101, 102, 103], [[1.5, 2, null, 4], [5, NaN, 7, 8]]);
	const { text, rows } = visibleCsv(s, counters, 'tglgt2', 'RenderBasic', 101, 102);
	assert.equal(rows, 2);
	assert.equal(text, `${HEADER}\n` +
		'tglgt2,RenderBasic,101000000000,100000000,0,11,2,0,0,2,\n' +
		'tglgt2,RenderBasic,102000000000,100000000,0,12,0,0,0,,7\n');
});

test('words with a comma, quote or line break stay one field', () => {
	const s = store([1], [[1], [2]]);
	const { text } = visibleCsv(s, counters, 'a,b', 'Set "x"', 0, 5);
	assert.ok(text.startsWith(`${HEADER}\n"a,b","Set ""x""",1000000000,100000000,1,10,`), text);
});

test('an empty span is a header alone', () => {
	const s = store([1, 2], [[1, 2], [3, 4]]);
	const { text, rows } = visibleCsv(s, counters, 'sim', 'RenderBasic', 5, 6);
	assert.equal(rows, 0);
	assert.equal(text, `${HEADER}\n`);
});
