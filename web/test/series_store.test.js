// series_store.js: frames kept as columns, losses counted, old rows let go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CounterType } from '../src/protocol.js';
import { MAX_SPAN_S, SeriesStore } from '../src/series_store.js';
import { counterDisplay } from '../src/units.js';

const BYTES = counterDisplay({ type: CounterType.COUNTER_TYPE_EVENT, units: 'bytes' });
const BUSY = counterDisplay({ type: CounterType.COUNTER_TYPE_RAW, units: 'percent' });

// A frame ending at cpuEndS (server seconds) after windowS of GPU time.
function frame(cpuEndS, windowS, values, extra = {}) {
	return {
		cpuEndNs: cpuEndS * 1e9, gpuStartNs: 1e9, gpuEndNs: 1e9 + windowS * 1e9,
		values, reports: 10, lostReports: 0, bufferLost: 0, framesDroppedTotal: 0,
		contexts: [], ...extra,
	};
}

test('a frame becomes a row of display values on the wall clock', () => {
	const store = new SeriesStore();
	store.reset([BYTES, BUSY]);
	const before = Date.now() / 1000;
	store.push(frame(100, 0.5, [1000, 42]));
	store.push(frame(100.5, 0.5, [500, 40], {
		contexts: [{ idle: false, ctxId: 7, gpuTimeNs: 3e8 }, { idle: true, ctxId: 0, gpuTimeNs: 2e8 }],
	}));
	assert.equal(store.length, 2);
	assert.deepEqual(store.columns, [[2000, 1000], [42, 40]]);
	assert.ok(store.x[0] >= before - 1 && store.x[0] <= Date.now() / 1000 + 1);
	assert.equal(store.x[1] - store.x[0], 0.5);
	assert.deepEqual(store.contexts[1], [[7, 3e8], ['idle', 2e8]]);
	assert.deepEqual(store.latest, [500, 40]);
	assert.equal(store.latestWindowS, 0.5);
	assert.equal(store.lastTime(), store.x[1]);
});

test('a window without GPU time has no value, and losses are counted', () => {
	const store = new SeriesStore();
	store.reset([BYTES]);
	store.push(frame(10, 0, [5], { lostReports: 2, bufferLost: 1, framesDroppedTotal: 4 }));
	store.push(frame(11, 1, [5]));
	assert.deepEqual(store.columns[0], [null, 5]);
	assert.deepEqual(store.lost, [3, null]);
	assert.deepEqual(store.totals, { lostReports: 2, bufferLost: 1, framesDropped: 0 });
	store.push(frame(12, 1, [5], { bufferLost: 2, framesDroppedTotal: 9 }));
	assert.deepEqual(store.totals, { lostReports: 2, bufferLost: 3, framesDropped: 9 });
});

test('a new subscription starts empty, but the totals stay', () => {
	const store = new SeriesStore();
	store.reset([BYTES]);
	store.push(frame(10, 1, [5], { lostReports: 1 }));
	const version = store.version;
	store.reset([BYTES, BUSY]);
	assert.equal(store.length, 0);
	assert.equal(store.columns.length, 2);
	assert.equal(store.latest, null);
	assert.ok(store.version > version);
	assert.equal(store.totals.lostReports, 1);
});

test('rows older than the longest span go, in batches', () => {
	const store = new SeriesStore();
	store.reset([BUSY]);
	for (let t = 0; t <= MAX_SPAN_S; t++)
		store.push(frame(t, 1, [t]));
	// Nothing is old enough to be worth a batch yet.
	assert.equal(store.length, MAX_SPAN_S + 1);
	const last = MAX_SPAN_S + MAX_SPAN_S / 4 + 1;
	for (let t = MAX_SPAN_S + 1; t <= last; t++)
		store.push(frame(t, 1, [t]));
	const first = store.x[store.length - 1] - MAX_SPAN_S;
	assert.ok(store.x[0] >= first, `${store.x[0]} kept before ${first}`);
	assert.ok(store.x[0] - first < 1);
	assert.equal(store.columns[0][0], last - MAX_SPAN_S);
	assert.equal(store.reports.length, store.length);
	assert.equal(store.lost.length, store.length);
	assert.equal(store.contexts.length, store.length);
});

test('indexAt finds the first row at or after a time', () => {
	const store = new SeriesStore();
	store.reset([BUSY]);
	for (const t of [1, 2, 3, 4])
		store.push(frame(t, 1, [t]));
	const x0 = store.x[0];
	assert.equal(store.indexAt(x0 - 1), 0);
	assert.equal(store.indexAt(x0), 0);
	assert.equal(store.indexAt(x0 + 0.5), 1);
	assert.equal(store.indexAt(x0 + 1), 1);
	assert.equal(store.indexAt(x0 + 3), 3);
	assert.equal(store.indexAt(x0 + 3.5), 4);
	assert.equal(new SeriesStore().indexAt(5), 0);
});

test('an empty store says now as its last time', () => {
	const before = Date.now() / 1000;
	const t = new SeriesStore().lastTime();
	assert.ok(t >= before && t <= Date.now() / 1000);
});
