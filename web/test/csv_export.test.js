// csv_export.js: the shown span of the charts as CSV.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleCsv } from '../src/csv_export.js';

// A store of rows at x, the columns given.
function store(x, columns, lost = x.map(() => null)) {
	return {
		x, columns, lost, reports: x.map((_, i) => 10 + i),
		indexAt(t) {
			const i = x.findIndex((v) => v >= t);
			return i < 0 ? x.length : i;
		},
	};
}

const counters = [
	{ name: 'GPU Busy' }, { name: 'Odd, "quoted"\nname' }, { name: 'Reads' },
];
const displays = [{ unit: '%' }, { unit: '' }, { unit: 'B/s' }];

test('the rows of the shown span, the chosen counters in their units', () => {
	const s = store([100, 101, 102, 103], [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, null, 12]],
		[null, 3, null, null]);
	const { text, rows } = visibleCsv(s, counters, displays, [0, 2], 101, 102);
	assert.equal(rows, 2);
	assert.equal(text,
		'time,reports,lost_reports_and_buffer_losses,GPU Busy (%),Reads (B/s)\n' +
		`${new Date(101000).toISOString()},11,3,2,10\n` +
		`${new Date(102000).toISOString()},12,0,3,\n`);
});

test('a name with a comma, quote or line break stays one field', () => {
	const s = store([1], [[1], [2], [3]]);
	const { text } = visibleCsv(s, counters, displays, [1], 0, 5);
	assert.equal(text.split('\n')[0],
		'time,reports,lost_reports_and_buffer_losses,"Odd, ""quoted""');
	assert.ok(text.startsWith('time,reports,lost_reports_and_buffer_losses,' +
		'"Odd, ""quoted""\nname (count)"\n'), text);
});

test('an empty span is a header alone', () => {
	const s = store([1, 2], [[1, 2], [3, 4], [5, 6]]);
	const { text, rows } = visibleCsv(s, counters, displays, [0], 5, 6);
	assert.equal(rows, 0);
	assert.equal(text, 'time,reports,lost_reports_and_buffer_losses,GPU Busy (%)\n');
});
