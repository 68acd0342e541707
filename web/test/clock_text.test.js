// clock_text.js: the charts' wall-clock labels, as toLocaleTimeString
// writes them, from one formatter and remembered seconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClockText } from '../src/clock_text.js';

const TIMES = [0, 1764660000, 1764660000.999, 1764703599.5, 1764714245.25, 1e9 + 0.0421];

test('a time reads as toLocaleTimeString on a 24-hour clock', () => {
	const clock = new ClockText();
	for (const t of TIMES)
		assert.equal(clock.time(t), new Date(Math.floor(t) * 1000).toLocaleTimeString([],
			{ hour12: false }), `t = ${t}`);
	assert.equal(new ClockText('en-GB').time(new Date(2026, 11, 2, 21, 57, 25, 900) / 1000),
		'21:57:25');
});

test('the fraction of a second is cut, never rounded up', () => {
	const clock = new ClockText('en-GB');
	const t = 1764660000;
	assert.equal(clock.time(t + 0.999), clock.time(t));
	assert.notEqual(clock.time(t + 1), clock.time(t));
	assert.equal(clock.tenths(t + 0.5), `${clock.time(t)}.5`);
	assert.equal(clock.tenths(t + 0.3), `${clock.time(t)}.3`);
	assert.equal(clock.tenths(t + 0.99), `${clock.time(t)}.9`);
	assert.equal(clock.tenths(t), `${clock.time(t)}.0`);
});

test('milliseconds are those a Date of the same time holds', () => {
	const clock = new ClockText();
	for (const t of [...TIMES, 1764660000.0005, 1764660000.9999, 1764660000.012]) {
		const date = new Date(t * 1000);
		const expected = `${date.toLocaleTimeString([], { hour12: false })}.` +
			String(date.getMilliseconds()).padStart(3, '0');
		assert.equal(clock.millis(t), expected, `t = ${t}`);
	}
});

test('a remembered label is the one formatted, and memory stays bounded', () => {
	const clock = new ClockText('en-GB');
	let formatted = 0;
	const format = clock.format.format.bind(clock.format);
	clock.format = { format: (date) => (formatted++, format(date)) };
	const t = 1764660000;
	const first = clock.time(t);
	assert.equal(clock.time(t + 0.25), first);
	assert.equal(formatted, 1);
	clock.time(t + 1);
	clock.time(t);
	assert.equal(formatted, 2, 'the seconds shown are remembered side by side');
	let most = 0;
	for (let i = 0; i < 5000; i++) {
		clock.time(t + i);
		most = Math.max(most, clock.seconds.size);
	}
	assert.equal(most, 1024, 'at most 1024 seconds kept');
	assert.equal(clock.time(t + 4999), new Date((t + 4999) * 1000).toLocaleTimeString('en-GB',
		{ hour12: false }));
});
