// counter_max.js: the bound a counter's bar is drawn against.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CounterMax, deviceVariables } from '../src/counter_max.js';

const device = {
	topology: { euCount: 96, sliceMask: 0b101, subsliceCount: 6, euThreads: 7 },
	timestampFrequency: 12000000, minFrequency: 300000000, maxFrequency: 1300000000,
};

test('the device variables come from what Hello says', () => {
	assert.deepEqual(deviceVariables(device), {
		EuCoresTotalCount: 96, VectorEngineTotalCount: 96,
		EuSlicesTotalCount: 2, SliceTotalCount: 2,
		EuSubslicesTotalCount: 6, EuDualSubslicesTotalCount: 6, XeCoreTotalCount: 6,
		EuThreadsCount: 7, VectorEngineThreadsCount: 7,
		GpuTimestampFrequency: 12000000, GpuMinFrequency: 300000000, GpuMaxFrequency: 1300000000,
	});
	const bare = deviceVariables({});
	assert.equal(bare.EuCoresTotalCount, undefined);
	assert.equal(bare.SliceTotalCount, 0);
});

test('a fixed max, an equation of the window, and the highest value seen', () => {
	const counters = [
		{ symbol: 'GpuBusy', max: 'maxValue', maxValue: 100 },
		{ symbol: 'GpuCoreClocks', max: 'none' },
		{ symbol: 'EuActive', max: 'maxEquation', maxEquation: '$GpuCoreClocks $EuCoresTotalCount UMUL' },
		{ symbol: 'Threads', max: 'maxEquation', maxEquation: '$GpuCoreClocks 10 UDIV 3 UDIV' },
		{ symbol: 'Half', max: 'maxEquation', maxEquation: '$GpuCoreClocks 2 FDIV 1 FADD' },
	];
	const max = new CounterMax(counters, deviceVariables(device));
	assert.deepEqual(max.observed, [false, true, false, false, false]);
	max.update([50, 1000, 20000, 0, 0]);
	assert.deepEqual([...max.bounds], [100, 1000, 96000, 33, 501]);
	max.update([60, 800, 20000, 0, 0]);
	assert.equal(max.bounds[1], 1000, 'the highest seen stays');
	assert.equal(max.bounds[2], 76800, 'an equation follows the window');
	assert.equal(max.bounds[3], 26, 'UDIV truncates');
	max.update([60, 1200, 0, 0, 0]);
	assert.equal(max.bounds[1], 1200);
	assert.equal(max.fraction(0, 50), 0.5);
	assert.equal(max.fraction(0, 150), 1);
	assert.equal(max.fraction(0, -5), 0);
});

test('an equation this page cannot evaluate falls back to the values seen', () => {
	const counters = [
		{ symbol: 'A', max: 'maxEquation', maxEquation: '$NoSuchVariable 2 UMUL' },
		{ symbol: 'B', max: 'maxEquation', maxEquation: '$A 2 UNKNOWN_OP' },
		{ symbol: 'C', max: 'maxEquation', maxEquation: '$A 1 UDIV 2' },
		{ symbol: 'D', max: 'maxEquation', maxEquation: '$A 0 UDIV $A 0 FDIV FADD' },
		{ symbol: 'E', max: 'maxEquation', maxEquation: '$A $D UMIN $A $D FMAX USUB' },
	];
	const max = new CounterMax(counters, {});
	assert.deepEqual(max.observed, [true, true, false, false, false]);
	max.update([7, 3, 1, 1, 1]);
	assert.equal(max.bounds[0], 7);
	assert.equal(max.bounds[1], 3);
	assert.ok(Number.isNaN(max.bounds[2]), 'two values left on the stack are no bound');
	assert.equal(max.bounds[3], 0, 'division by zero gives 0');
	assert.equal(max.bounds[4], -6);
	assert.equal(max.fraction(2, 1), 0);
	assert.equal(max.fraction(3, 1), 0);
});

test('every operator of a max equation computes what its name says', () => {
	const cases = [
		['7 2 UADD', 9], ['7 2 FADD', 9], ['7 2 USUB', 5], ['7 2 FSUB', 5],
		['7 2 UMUL', 14], ['7 2 FMUL', 14], ['7 2 UDIV', 3], ['7 2 FDIV', 3.5],
		['7 2 UMIN', 2], ['2 7 UMIN', 2], ['7 2 FMAX', 7], ['2 7 FMAX', 7],
	];
	const counters = cases.map(([equation], i) =>
		({ symbol: `C${i}`, max: 'maxEquation', maxEquation: equation }));
	const max = new CounterMax(counters, {});
	max.update(cases.map(() => 0));
	assert.deepEqual([...max.bounds], cases.map(([, bound]) => bound));
});

test('a counter with neither a value nor an equation starts at 0', () => {
	const max = new CounterMax([{ symbol: 'A', max: 'none' }], {});
	assert.equal(max.bounds[0], 0);
	assert.equal(max.fraction(0, 5), 0);
	max.update([-3]);
	assert.equal(max.bounds[0], 0, 'a negative value is no bound');
});
