// draw_latency.js: from a frame's arrival to the plots that show it drawn.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DrawLatency } from '../src/draw_latency.js';

test('each frame counts from its own arrival to the drawing that showed it', () => {
	const d = new DrawLatency();
	d.arrived(100);
	d.arrived(104);
	d.drawn(110);
	d.arrived(112);
	d.drawn(126);
	assert.deepEqual(d.samples, [10, 6, 14]);
	assert.equal(d.drawings, 2);
	assert.equal(d.median(), 10);
	assert.equal(d.percentile(0.99), 14);
});

test('a drawing with nothing new adds nothing', () => {
	const d = new DrawLatency();
	d.arrived(5);
	d.drawn(7);
	d.drawn(20);
	assert.deepEqual(d.samples, [2]);
	assert.equal(d.drawings, 1, 'only drawings that showed new frames count');
});

test('frames nobody draws are forgotten, not counted when drawing resumes', () => {
	const d = new DrawLatency();
	d.arrived(0);
	d.forget();
	d.arrived(1000);
	d.drawn(1003);
	assert.deepEqual(d.samples, [3]);
	d.arrived(1004);
	d.reset();
	d.drawn(2000);
	assert.deepEqual(d.samples, []);
	assert.equal(d.drawings, 0);
});
