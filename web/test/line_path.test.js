// line_path.js: a chart's line kept between drawings while it follows
// live data, drawn where uPlot would draw it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LinePath } from '../src/line_path.js';

// The canvas's Path2D, recording what is drawn.
class FakePath {
	constructor() {
		this.ops = [];
	}

	moveTo(x, y) {
		this.ops.push(['M', x, y]);
	}

	lineTo(x, y) {
		this.ops.push(['L', x, y]);
	}
}
globalThis.Path2D = FakePath;

// A context recording the stroke's state and where the path lands.
function fakeContext() {
	let state = { shift: [0, 0] };
	const saved = [];
	return {
		strokes: [],
		save() {
			saved.push({ ...state });
		},
		restore() {
			state = saved.pop();
		},
		beginPath() {},
		rect() {},
		clip() {},
		setLineDash(dash) {
			state.dash = dash;
		},
		translate(x, y) {
			state.shift = [state.shift[0] + x, state.shift[1] + y];
		},
		stroke(path) {
			this.strokes.push({ ...state, lineWidth: this.lineWidth, strokeStyle: this.strokeStyle,
				points: path.ops.map(([op, x, y]) => [op, x + state.shift[0], y + state.shift[1]]) });
		},
	};
}

// A chart 1000 px wide from x 50, 100 px high from y 10, its x scale
// [min, max] and values 0..10.
function chart(xs, ys, min, max) {
	return {
		data: [xs, ys],
		scales: { x: { min, max }, y: { min: 0, max: 10 } },
		series: [{}, { scale: 'y', width: 1, _stroke: '#0072b2', dash: [8, 4] }],
		bbox: { left: 50, top: 10, width: 1000, height: 100 },
		ctx: fakeContext(),
	};
}

// Where uPlot puts row i (before its half-pixel alignment).
function pixel(u, i) {
	const { min, max } = u.scales.x, y = u.scales.y;
	const { left, top, width, height } = u.bbox;
	return [left + (u.data[0][i] - min) / (max - min) * width,
		top + height - (u.data[1][i] - y.min) / (y.max - y.min) * height];
}

function drawn(line, u) {
	const returned = line.build(u, 1, 0, u.data[0].length - 1);
	line.draw(u, 1);
	return { returned, stroke: u.ctx.strokes.at(-1) };
}

function near(a, b) {
	return a.every((v, i) => Math.abs(v - b[i]) < 1e-6);
}

test('a live line lands on the rows\' pixels, with the series\' colour, width and dash', () => {
	const xs = [100, 101, 102, 103], ys = [1, 2, null, 4];
	const u = chart(xs, ys, 95, 105);
	let other = 0;
	const line = new LinePath(() => ++other);
	const { returned, stroke } = drawn(line, u);
	assert.equal(other, 0);
	assert.equal(returned.stroke, null, 'uPlot strokes nothing itself');
	assert.equal(stroke.strokeStyle, '#0072b2');
	assert.equal(stroke.lineWidth, 1);
	assert.deepEqual(stroke.dash, [8, 4]);
	assert.deepEqual(stroke.points.map(([op]) => op), ['M', 'L', 'M'], 'a null breaks the line');
	for (const [k, i] of [0, 1, 3].entries())
		assert.ok(near(stroke.points[k].slice(1), pixel(u, i).map((v) => v + 0.5)),
			`row ${i}: ${stroke.points[k]} against ${pixel(u, i)}`);
});

test('new rows are added to the kept path, and the view moving shifts it', () => {
	const xs = [100, 101, 102], ys = [1, 2, 3];
	const u = chart(xs, ys, 95, 105);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	const kept = line.path;
	xs.push(103, 104);
	ys.push(5, 6);
	u.scales.x = { min: 97, max: 107 };
	const { stroke } = drawn(line, u);
	assert.equal(line.path, kept, 'the same path, grown');
	assert.equal(kept.ops.length, 5, 'each row added once');
	for (let i = 0; i < 5; i++)
		assert.ok(near(stroke.points[i].slice(1), pixel(u, i).map((v) => v + 0.5)),
			`row ${i}: ${stroke.points[i]} against ${pixel(u, i)}`);
});

test('the old rows leaving the store keep the path', () => {
	const xs = [100, 101, 102, 103], ys = [1, 2, 3, 4];
	const u = chart(xs, ys, 99, 109);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	xs.splice(0, 2);
	ys.splice(0, 2);
	xs.push(104);
	ys.push(5);
	const { stroke } = drawn(line, u);
	assert.equal(line.path.ops.length, 5, 'only row 104 added');
	assert.ok(near(stroke.points.at(-1).slice(1), pixel(u, 2).map((v) => v + 0.5)));
});

test('another value range or span starts the path afresh at the new scale', () => {
	const xs = [100, 101, 102], ys = [1, 2, 3];
	const u = chart(xs, ys, 95, 105);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	const first = line.path;
	u.scales.y = { min: 0, max: 20 };
	let { stroke } = drawn(line, u);
	assert.notEqual(line.path, first);
	assert.ok(near(stroke.points[2].slice(1), [50 + 7 / 10 * 1000 + 0.5, 110 - 3 * 5 + 0.5]));
	const second = line.path;
	u.scales.x = { min: 90, max: 110 };
	({ stroke } = drawn(line, u));
	assert.notEqual(line.path, second);
	assert.ok(near(stroke.points[2].slice(1), [50 + 12 / 20 * 1000 + 0.5, 110 - 3 * 5 + 0.5]));
});

test('a view held before the newest row is uPlot\'s; a dense one is kept', () => {
	const xs = Array.from({ length: 10 }, (_, i) => 100 + i), ys = xs.map(() => 1);
	const u = chart(xs, ys, 95, 105);
	const built = [];
	const line = new LinePath((...args) => (built.push(args.slice(1)), { stroke: 'uplot' }));
	assert.deepEqual(line.build(u, 1, 0, 5), { stroke: 'uplot' });
	line.draw(u, 1);
	assert.equal(u.ctx.strokes.length, 0, 'drawn by uPlot, not again');
	u.bbox.width = 2;
	assert.equal(line.build(u, 1, 0, 9).stroke, null, '9 rows over 2 px are kept');
	assert.deepEqual(built, [[1, 0, 5]]);
});

// A chart 2 px wide showing x 0..2: rows 0.1 apart, so columns 0 and 1
// hold 5 rows each.
function denseChart(ys) {
	const xs = [0, 0.1, 0.2, 0.3, 0.4, 1, 1.1, 1.2, 1.3, 1.4].slice(0, ys.length);
	const u = chart(xs, ys, 0, 2);
	u.bbox.width = 2;
	u.series[1].dash = undefined;
	return u;
}

// Where a merged column's row lands: column x, value v.
function at(op, x, v) {
	return [op, 50 + x + 0.5, 110 - 10 * v + 0.5];
}

test('more than 4 rows a pixel are merged per column as uPlot merges them', () => {
	const u = denseChart([5, 9, 1, 4, 6, 2, 8, 3, 3, 7]);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	const [kept, newest] = u.ctx.strokes;
	assert.deepEqual(kept.points, [at('M', 0, 5), at('L', 0, 1), at('L', 0, 9), at('L', 0, 6),
		at('L', 1, 2)], 'column 0: first, lowest, highest, last; then column 1\'s first');
	assert.deepEqual(newest.points, [at('M', 1, 2), at('L', 1, 8), at('L', 1, 7)],
		'the newest column, still filling, drawn apart; its lowest is its first');
	const path = line.path;
	u.data[0].push(2);
	u.data[1].push(4);
	u.ctx.strokes = [];
	drawn(line, u);
	assert.equal(line.path, path, 'the same path, grown');
	assert.deepEqual(u.ctx.strokes.map((s) => s.points), [[at('M', 0, 5), at('L', 0, 1),
		at('L', 0, 9), at('L', 0, 6), at('L', 1, 2), at('L', 1, 8), at('L', 1, 7), at('L', 2, 4)]],
	'column 1 joined the path; a column of one row is not drawn apart');
});

test('a merged column whose first or last row is its lowest or highest draws it once', () => {
	const u = denseChart([1, 5, 3, 2, 9, 4, 4, 4, 4, 4]);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	assert.deepEqual(u.ctx.strokes.map((s) => s.points), [[at('M', 0, 1), at('L', 0, 9),
		at('L', 1, 4)]], 'from its lowest (first) to its highest (last); a flat column adds nothing');
	const v = denseChart([9, 5, 1, 3, 4, 4, 4, 4, 4, 4]);
	drawn(line, v);
	assert.deepEqual(v.ctx.strokes.map((s) => s.points), [[at('M', 0, 9), at('L', 0, 1),
		at('L', 0, 4), at('L', 1, 4)]], 'from its highest (first) to its lowest, then its last');
});

test('a missing value in a merged view breaks the line there', () => {
	const u = denseChart([5, 9, 1, null, 6, 2, 8, 3, 3, 7]);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	assert.deepEqual(u.ctx.strokes[0].points, [at('M', 0, 5), at('L', 0, 9), at('L', 0, 1),
		at('M', 0, 6), at('L', 1, 2)], 'its last row is its lowest: drawn once, last');
});

test('a view crossing 4 rows a pixel starts the path afresh, merged or not', () => {
	const u = denseChart([5, 9, 1, 4, 6, 2, 8, 3, 3]);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	const unmerged = line.path;
	assert.equal(unmerged.ops.length, 9, '9 rows over 2 px: each row drawn');
	u.data[0].push(1.4);
	u.data[1].push(7);
	drawn(line, u);
	assert.notEqual(line.path, unmerged);
	assert.equal(line.path.ops.length, 5, '10 rows: merged');
	const merged = line.path;
	line.build(u, 1, 1, 9);
	assert.notEqual(line.path, merged, '9 rows in view again');
	assert.equal(line.path.ops.length, 9);
});

test('a path holding more rows before the view than in it starts afresh', () => {
	const xs = Array.from({ length: 600 }, (_, i) => i), ys = xs.map(() => 1);
	const u = chart(xs, ys, 0, 600);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	line.build(u, 1, 0, 599);
	const first = line.path;
	u.scales.x = { min: 300, max: 900 };
	line.build(u, 1, 299, 599);
	assert.equal(line.path, first, '299 rows before, 301 in view');
	line.build(u, 1, 302, 599);
	assert.notEqual(line.path, first, '302 before, 298 in view');
	assert.equal(line.path.ops.length, 298);
});

test('rows that do not follow the last one kept (time went back) start the path afresh', () => {
	const xs = [100, 101, 102], ys = [1, 2, 3];
	const u = chart(xs, ys, 95, 105);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	xs.push(101.5);
	ys.push(9);
	const { stroke } = drawn(line, u);
	assert.equal(line.path.ops.length, 4, 'every row drawn');
	assert.ok(near(stroke.points[3].slice(1), pixel(u, 3).map((v) => v + 0.5)));
});

test('rows arriving later continue the line; a value range not from zero lands right', () => {
	const xs = [100, 101], ys = [6, 7];
	const u = chart(xs, ys, 95, 105);
	u.scales.y = { min: 5, max: 10 };
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	drawn(line, u);
	xs.push(102);
	ys.push(8);
	drawn(line, u);
	xs.push(103);
	ys.push(9);
	const { stroke } = drawn(line, u);
	assert.deepEqual(stroke.points.map(([op]) => op), ['M', 'L', 'L', 'L']);
	for (let i = 0; i < 4; i++)
		assert.ok(near(stroke.points[i].slice(1), [50 + (xs[i] - 95) * 100 + 0.5,
			110 - (ys[i] - 5) * 20 + 0.5]), `row ${i}: ${stroke.points[i]}`);
});

test('any change of what the pixels mean starts the path afresh; none keeps it', () => {
	const changes = {
		'the same': () => {},
		'other rows': (u) => { u.data[0] = [...u.data[0]]; },
		'other values': (u) => { u.data[1] = [...u.data[1]]; },
		'the plot moved down': (u) => { u.bbox = { ...u.bbox, top: 20 }; },
		'the plot is taller': (u) => { u.bbox = { ...u.bbox, height: 120 }; },
		'the plot is wider': (u) => { u.bbox = { ...u.bbox, width: 1200 }; },
		'values from 1': (u) => { u.scales.y = { min: 1, max: 11 }; },
		'values up to 20': (u) => { u.scales.y = { min: 0, max: 20 }; },
		'a longer span': (u) => { u.scales.x = { min: 95, max: 105.01 }; },
		'a span a part in ten million longer': (u) => { u.scales.x = { min: 95, max: 105.000001 }; },
	};
	for (const [what, change] of Object.entries(changes)) {
		const u = chart([100, 101, 102], [1, 2, 3], 95, 105);
		const line = new LinePath(() => assert.fail('uPlot\'s builder'));
		drawn(line, u);
		const first = line.path;
		change(u);
		const { stroke } = drawn(line, u);
		const kept = what === 'the same' || what.startsWith('a span a part');
		assert.equal(line.path === first, kept, what);
		assert.ok(near(stroke.points[2].slice(1), pixel(u, 2).map((v) => v + 0.5)) ||
			what.startsWith('a span a part'), `${what}: ${stroke.points[2]}`);
	}
});

test('scales with no size, or none, are uPlot\'s', () => {
	for (const [x, y] of [[[100, 100], [0, 10]], [[100, 101], [5, 5]], [[101, 100], [0, 10]],
		[[100, 101], [10, 0]], [[100, Infinity], [0, 10]], [[100, 101], [0, NaN]]]) {
		const u = chart([100, 101], [1, 2], ...x);
		u.scales.y = { min: y[0], max: y[1] };
		const line = new LinePath(() => 'uplot');
		assert.equal(line.build(u, 1, 0, 1), 'uplot', `x ${x}, y ${y}`);
	}
});

test('up to 4 rows a pixel are kept row by row, wherever the view starts', () => {
	const xs = Array.from({ length: 30 }, (_, i) => 100 + i), ys = xs.map(() => 1);
	const u = chart(xs, ys, 100, 130);
	u.bbox.width = 4;
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	line.build(u, 1, 13, 29);
	assert.equal(line.path.ops.length, 17, '16 rows over 4 px: 17 rows drawn');
	line.build(u, 1, 12, 29);
	assert.equal(line.path.ops.length, 3, '17 rows over 4 px: a point for each of 3 columns');
});

test('a view starting before the path, or far after its start, starts it there', () => {
	const xs = Array.from({ length: 700 }, (_, i) => i), ys = xs.map(() => 1);
	const u = chart(xs, ys, 0, 700);
	const line = new LinePath(() => assert.fail('uPlot\'s builder'));
	line.build(u, 1, 100, 699);
	const first = line.path;
	line.build(u, 1, 50, 699);
	assert.notEqual(line.path, first, 'the view starts before the path');
	assert.equal(line.path.ops.length, 650);
	const second = line.path;
	line.build(u, 1, 50 + 300, 699);
	assert.equal(line.path, second, '300 rows before the view, 350 in it');
	line.build(u, 1, 50 + 326, 699);
	assert.notEqual(line.path, second, '326 rows before the view, 324 in it');
	const third = line.path;
	line.build(u, 1, 376 + 256, 699);
	assert.equal(line.path, third, '256 rows before the view: kept');
	line.build(u, 1, 376 + 257, 699);
	assert.notEqual(line.path, third, '257 rows before the view');
});

test('the stroke is clipped to the plot and drawn as uPlot draws, at any pixel ratio', () => {
	for (const [ratio, align] of [[1, 0.5], [2, 0]]) {
		globalThis.devicePixelRatio = ratio;
		const u = chart([100, 101], [1, 2], 95, 105);
		const rects = [];
		u.ctx.rect = (...r) => rects.push(r);
		u.series[1].dash = undefined;
		const line = new LinePath(() => assert.fail('uPlot\'s builder'));
		const { stroke } = drawn(line, u);
		assert.deepEqual(rects, [[50 - ratio / 2, 10 - ratio / 2, 1000 + ratio, 100 + ratio]]);
		assert.equal(stroke.lineWidth, ratio);
		assert.deepEqual(stroke.dash, []);
		assert.equal(u.ctx.lineJoin, 'round');
		assert.equal(u.ctx.lineCap, 'butt');
		assert.ok(near(stroke.points[0].slice(1), pixel(u, 0).map((v) => v + align)));
		u.series[1].cap = 'square';
		drawn(line, u);
		assert.equal(u.ctx.lineCap, 'square');
	}
	delete globalThis.devicePixelRatio;
});
