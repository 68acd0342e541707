// units.js: what a counter's number means to a person.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CounterType } from '../src/protocol.js';
import {
	counterDisplay, displayValue, formatBytes, formatDuration, formatValue, isSymbolUnit,
} from '../src/units.js';

const EVENT = CounterType.COUNTER_TYPE_EVENT;
const THROUGHPUT = CounterType.COUNTER_TYPE_THROUGHPUT;
const RAW = CounterType.COUNTER_TYPE_RAW;

test('counts summed over a window are shown per second, in their symbol', () => {
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'bytes' }),
		{ perSecond: true, scale: 1, unit: 'B/s', percent: false });
	assert.deepEqual(counterDisplay({ type: THROUGHPUT, units: 'Bytes' }),
		{ perSecond: true, scale: 1, unit: 'B/s', percent: false });
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'number' }),
		{ perSecond: true, scale: 1, unit: '/s', percent: false });
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'cycles' }),
		{ perSecond: true, scale: 1, unit: 'cycles/s', percent: false });
});

test('ratios, rates and shares are shown as they are', () => {
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'number', semanticType: 'ratio' }),
		{ perSecond: false, scale: 1, unit: '', percent: false });
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'percent' }),
		{ perSecond: false, scale: 1, unit: '%', percent: true });
	assert.deepEqual(counterDisplay({ type: EVENT, units: 'MHz' }),
		{ perSecond: false, scale: 1e6, unit: 'Hz', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW, units: 'ns' }),
		{ perSecond: false, scale: 1e-9, unit: 's', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW, units: 'us' }),
		{ perSecond: false, scale: 1e-6, unit: 's', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW, units: 'ms' }),
		{ perSecond: false, scale: 1e-3, unit: 's', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW, units: 'GHz' }),
		{ perSecond: false, scale: 1e9, unit: 'Hz', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW }),
		{ perSecond: false, scale: 1, unit: '', percent: false });
	assert.deepEqual(counterDisplay({ type: RAW, units: 'furlongs' }),
		{ perSecond: false, scale: 1, unit: 'furlongs', percent: false });
});

test('a window value becomes what is shown', () => {
	const perSecond = counterDisplay({ type: EVENT, units: 'bytes' });
	assert.equal(displayValue(perSecond, 500, 0.5), 1000);
	const ns = counterDisplay({ type: RAW, units: 'ns' });
	assert.equal(displayValue(ns, 2e9, 0.5), 2);
});

test('numbers take SI prefixes, symbols directly and words after a space', () => {
	assert.equal(formatValue(0.00134, 's'), '1.34 ms');
	assert.equal(formatValue(53.4e6, 'B/s'), '53.4 MB/s');
	assert.equal(formatValue(1.21e9, 'cycles/s'), '1.21 G cycles/s');
	assert.equal(formatValue(1.21e12, 'B'), '1.21 TB');
	assert.equal(formatValue(55.94, '%'), '55.9 %');
	assert.equal(formatValue(999, 'B'), '999 B');
	assert.equal(formatValue(1000, 'B'), '1 kB');
	assert.equal(formatValue(1, 's'), '1 s');
	assert.equal(formatValue(0, 's'), '0 s');
	assert.equal(formatValue(-2500, 'B'), '-2.5 kB');
	assert.equal(formatValue(2.5e-9, 's'), '2.5 ns');
	assert.equal(formatValue(2.5e-12, 's'), '0.0025 ns');
	assert.equal(formatValue(0.5, 'cycles'), '0.5 cycles');
	assert.equal(formatValue(12345, ''), '12.3 k');
	assert.equal(formatValue(12, ''), '12');
	assert.equal(formatValue(1.23456, 's', 5), '1.2346 s');
	assert.equal(formatValue(NaN, 's'), '–');
	assert.equal(formatValue(Infinity, 's'), '–');
	assert.equal(formatDuration(2.5e6), '2.5 ms');
	assert.equal(formatBytes(3 * 1024 * 1024), '3.15 MB');
});

test('symbol units are told from words', () => {
	for (const unit of ['s', 'Hz', 'B', 'B/s', '/s', ''])
		assert.ok(isSymbolUnit(unit), unit);
	for (const unit of ['cycles', 'cycles/s', '%', 'furlongs'])
		assert.ok(!isSymbolUnit(unit), unit);
});
