// The time-series plots: a timeline strip with the reports in each window
// and the windows that lost data, then the plotted counters, one chart per
// unit or one per counter. uPlot draws them; this module feeds it the
// store's columns and keeps every chart on the shared TimelineView, which
// the user pauses, zooms (drag or wheel) and pans (shift+wheel).
import uPlot from 'uplot';
import { clear, h } from './dom.js';
import { DASHES, chartTheme } from './chart_theme.js';
import { ClockText } from './clock_text.js';
import { LinePath } from './line_path.js';
import { formatDuration, formatValue, isSymbolUnit } from './units.js';
import { MAX_SPAN_S } from './series_store.js';

const CHART_HEIGHT = 170;
// One CSS pixel: the browser draws lines this thin as hairlines, several
// times faster than wider ones, which it outlines and fills (375 against
// 76 ms of drawing for 20 charts here, before the other changes).
const LINE_WIDTH = 1;
const TIMELINE_HEIGHT = 130;
const SPAN_CHOICES_S = [5, 10, 30, 60, 120, MAX_SPAN_S];
// Charts this far (a part of the window's height) above or below the
// window are drawn as if in view: the browser scrolls on its own thread,
// showing a canvas as it was last drawn, so a chart scrolled into view is
// already up to date unless the page jumps past the margin.
const DRAWN_MARGIN = '25% 0px';

const UNIT_TITLES = {
	'%': 'Percent', s: 'Time', Hz: 'Frequency', 'B/s': 'Bytes per second', B: 'Bytes',
};

function unitTitle(unit) {
	return UNIT_TITLES[unit] ?? (unit ? unit[0].toUpperCase() + unit.slice(1) : 'Value');
}

const clock = new ClockText();

// Wall-clock tick labels, 21:57:25 (21:57:25.5 when ticks are closer than
// a second), without the date uPlot adds.
function timeTicks(u, splits, axis, space, increment) {
	return splits.map((t) => (increment < 1 ? clock.tenths(t) : clock.time(t)));
}

// The hovered window: when it ended, to the millisecond, and how long it
// was ("21:57:25.512 · a 50 ms window").
function windowTime(t, durationNs) {
	const time = clock.millis(t);
	return durationNs > 0 ? `${time} · a ${formatDuration(durationNs)} window` : time;
}

// Vertical lines where the stream changed (metric set, period), with what
// changed, on every chart.
function changeMarks(store, theme) {
	return (u) => {
		const ctx = u.ctx;
		const { top, height } = u.bbox;
		ctx.save();
		ctx.strokeStyle = theme.text;
		ctx.fillStyle = theme.text;
		ctx.setLineDash([3, 3]);
		ctx.font = `${Math.round(10 * devicePixelRatio)}px sans-serif`;
		for (const change of store.changes) {
			const x = Math.round(u.valToPos(change.x, 'x', true));
			if (x < u.bbox.left || x > u.bbox.left + u.bbox.width)
				continue;
			ctx.beginPath();
			ctx.moveTo(x, top);
			ctx.lineTo(x, top + height);
			ctx.stroke();
			ctx.fillText(change.text, x + 4, top + 12 * devicePixelRatio);
		}
		ctx.restore();
	};
}

function valueTicks(unit) {
	if (unit === '%')
		return (u, splits) => splits.map((v) => `${Number(v.toFixed(1))} %`);
	// Words do not fit beside the axis; the chart's title names them.
	const shown = isSymbolUnit(unit) ? unit : '';
	return (u, splits) => splits.map((v) => formatValue(v, shown, 3));
}

function spanLabel(s) {
	return s < 60 ? `${s} s` : `${s / 60} min`;
}

// Ranges start at zero for counters that cannot go negative.
function yRange(percent) {
	return (u, min, max) => {
		if (percent)
			return [0, Math.max(100, max)];
		if (!(max > 0))
			return [Math.min(0, min || 0), 1];
		return uPlot.rangeNum(Math.min(0, min), max, 0.1, true);
	};
}

export class PlotPanel {
	constructor(panel, store, view, now) {
		this.store = store;
		this.view = view;
		this.now = now;
		this.counters = [];
		this.displays = [];
		this.selected = new Map();      // symbol -> colour, in plotting order
		this.grouping = 'unit';
		this.charts = [];
		this.timeline = null;
		this.rendered = { store: -1, view: -1 };
		// Charts out of view (and past the margin) are not drawn: each costs
		// as much to draw as one in view. One scrolled near is drawn at once.
		this.inView = new IntersectionObserver((entries) => this.viewChanged(entries),
			{ rootMargin: DRAWN_MARGIN });
		// Printing shows every chart.
		addEventListener('beforeprint', () => this.drawStale());

		this.liveButton = h('button', {
			type: 'button', id: 'live-toggle',
			onclick: () => (view.live ? view.pause(this.now()) : view.resume()),
		});
		this.spanPicker = h('select', {
			id: 'span-picker', 'aria-label': 'Time span shown',
			onchange: () => view.setSpan(Number(this.spanPicker.value)),
		}, SPAN_CHOICES_S.map((s) => h('option', { value: s, selected: s === view.spanS },
			`last ${spanLabel(s)}`)));
		this.groupPicker = h('select', {
			id: 'group-picker', 'aria-label': 'Charts',
			onchange: () => {
				this.grouping = this.groupPicker.value;
				this.rebuild();
			},
		}, h('option', { value: 'unit' }, 'chart per unit'),
		h('option', { value: 'counter' }, 'chart per counter'));
		this.clearButton = h('button', {
			type: 'button', id: 'clear-plots', class: 'quiet', disabled: true,
			onclick: () => this.clearSelection(),
		}, 'Clear plots');
		this.toolbar = h('div', { class: 'toolbar' }, this.liveButton, this.spanPicker,
			this.groupPicker, this.clearButton);
		this.hint = h('p', { class: 'muted hint' },
			'Click counters to plot them. Drag to zoom, wheel to zoom, shift+wheel to pan, ' +
			'double-click to follow live data again.');
		this.timelineBox = h('div', { class: 'chart timeline', id: 'timeline-chart' });
		this.chartBox = h('div', { class: 'charts', id: 'charts' });
		panel.append(this.toolbar, this.timelineBox, this.chartBox, this.hint);
		this.onSelection = () => {};

		view.onChange(() => this.showLiveState());
		this.showLiveState();
		new ResizeObserver(() => this.resize()).observe(this.chartBox);
	}

	showLiveState() {
		this.liveButton.textContent = this.view.live ? 'Pause' : 'Resume live';
		this.liveButton.classList.toggle('primary', !this.view.live);
	}

	setCounters(counters, displays) {
		this.counters = counters;
		this.displays = displays;
		const present = new Set(counters.map((c) => c.symbol));
		for (const symbol of [...this.selected.keys()])
			if (!present.has(symbol))
				this.selected.delete(symbol);
		this.rebuild();
	}

	toggle(symbol) {
		if (this.selected.has(symbol)) {
			this.selected.delete(symbol);
		} else {
			const palette = chartTheme().palette;
			const used = new Set(this.selected.values());
			const color = palette.find((c) => !used.has(c)) ??
				palette[this.selected.size % palette.length];
			this.selected.set(symbol, color);
		}
		this.rebuild();
	}

	// The colour scheme changed: each plot takes its place's colour in the
	// new palette.
	themeChanged() {
		const palette = chartTheme().palette;
		[...this.selected.keys()].forEach((symbol, i) =>
			this.selected.set(symbol, palette[i % palette.length]));
		this.rebuild();
	}

	clearSelection() {
		this.selected.clear();
		this.rebuild();
	}

	// Charts as plotted: groups of counter indexes sharing a unit.
	groups() {
		const index = new Map(this.counters.map((c, i) => [c.symbol, i]));
		const groups = new Map();
		for (const symbol of this.selected.keys()) {
			const i = index.get(symbol);
			const key = this.grouping === 'unit' ? this.displays[i].unit : symbol;
			if (!groups.has(key))
				groups.set(key, []);
			groups.get(key).push(i);
		}
		return [...groups.values()];
	}

	// lines: the LinePath of each series index whose line is kept.
	commonOptions(theme, height, lines) {
		const axis = {
			stroke: theme.text,
			grid: { stroke: theme.grid, width: 1 },
			ticks: { stroke: theme.grid, width: 1 },
		};
		return {
			width: Math.max(this.chartBox.clientWidth, 200),
			height,
			axes: [{ ...axis, values: timeTicks, space: 90 }, { ...axis, size: 72 }],
			cursor: {
				sync: { key: 'gpuperf' },
				drag: { x: true, y: false, setScale: false },
				bind: { dblclick: () => null },
			},
			hooks: {
				setSelect: [(u) => this.onDragSelect(u)],
				drawSeries: [(u, seriesIdx) => lines[seriesIdx]?.draw(u, seriesIdx)],
				draw: [changeMarks(this.store, theme)],
			},
		};
	}

	// The x series: its readout is the hovered window's time and span.
	timeSeries() {
		return {
			value: (u, t, series, i) => (t == null || i == null ? '–' :
				windowTime(t, this.store.durationNs[i])),
		};
	}

	// A drag selected a time range: every chart shows it, held.
	onDragSelect(u) {
		if (u.select.width > 3) {
			const min = u.posToVal(u.select.left, 'x');
			const max = u.posToVal(u.select.left + u.select.width, 'x');
			this.view.show(min, max);
		}
		u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
	}

	attachGestures(u) {
		u.over.addEventListener('dblclick', () => this.view.resume());
		u.over.addEventListener('wheel', (event) => {
			event.preventDefault();
			const horizontal = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY);
			const delta = horizontal ? event.deltaX || event.deltaY : event.deltaY;
			if (horizontal)
				this.view.pan(this.now(), Math.sign(delta) * 0.1);
			else
				this.view.zoom(this.now(), u.posToVal(event.offsetX, 'x'), delta > 0 ? 1.25 : 0.8);
		}, { passive: false });
	}

	rebuild() {
		this.inView.disconnect();
		for (const chart of this.charts)
			chart.u.destroy();
		this.timeline?.u.destroy();
		this.charts = [];
		clear(this.chartBox);
		clear(this.timelineBox);
		const theme = chartTheme();
		const store = this.store;

		const timelineData = [store.x, store.reports, store.lost];
		const reportsLine = new LinePath(uPlot.paths.linear());
		const timeline = new uPlot({
			...this.commonOptions(theme, TIMELINE_HEIGHT, [null, reportsLine]),
			title: 'Reports per window · lost data',
			scales: { x: { time: true }, y: { range: yRange(false) }, loss: { range: (u, min, max) => [0, Math.max(1, max) * 1.2] } },
			series: [this.timeSeries(), {
				label: 'reports', stroke: theme.reports, width: LINE_WIDTH, paths: reportsLine.build,
				value: (u, v) => (v == null ? '–' : String(v)),
			}, {
				label: 'lost', scale: 'loss', stroke: theme.loss, fill: theme.loss,
				paths: () => null,
				points: { show: true, size: 9, stroke: theme.loss, fill: theme.loss },
				value: (u, v) => (v == null ? 'none' : `${v} lost`),
			}],
		}, timelineData, this.timelineBox);
		this.attachGestures(timeline);
		this.timeline = this.drawnWhenNear({ u: timeline, data: timelineData,
			element: this.timelineBox });

		for (const indexes of this.groups()) {
			const display = this.displays[indexes[0]];
			const unit = display.unit;
			const title = this.grouping === 'unit' ? unitTitle(unit) :
				this.counters[indexes[0]].name;
			const element = h('div', { class: 'chart', dataset: {
				counters: indexes.map((i) => this.counters[i].symbol).join(' ') } });
			this.chartBox.append(element);
			const data = [store.x, ...indexes.map((i) => store.columns[i])];
			const lines = [null, ...indexes.map(() => new LinePath(uPlot.paths.linear()))];
			const base = this.commonOptions(theme, CHART_HEIGHT, lines);
			const u = new uPlot({
				...base,
				title,
				scales: { x: { time: true }, y: { range: yRange(display.percent) } },
				series: [this.timeSeries(), ...indexes.map((i, k) => ({
					label: this.counters[i].name,
					stroke: this.selected.get(this.counters[i].symbol),
					dash: DASHES[k % DASHES.length],
					width: LINE_WIDTH,
					paths: lines[k + 1].build,
					value: (self, v) => formatValue(v, unit),
				}))],
				axes: [base.axes[0], {
					...base.axes[1],
					values: valueTicks(unit),
				}],
			}, data, element);
			this.attachGestures(u);
			this.charts.push(this.drawnWhenNear({ u, data, element }));
		}
		this.clearButton.disabled = !this.selected.size;
		this.hint.hidden = this.selected.size > 0;
		this.rendered = { store: -1, view: -1 };
		this.onSelection(this.selected);
	}

	resize() {
		const width = Math.max(this.chartBox.clientWidth, 200);
		for (const { u } of [this.timeline, ...this.charts].filter(Boolean))
			if (u.width !== width)
				u.setSize({ width, height: u.height });
	}

	// A chart is drawn from now on only while it is in view or near it;
	// until the browser first says where it is, it is taken as in view.
	drawnWhenNear(chart) {
		chart.near = true;
		chart.stale = false;
		this.inView.observe(chart.element);
		return chart;
	}

	viewChanged(entries) {
		const charts = [this.timeline, ...this.charts].filter(Boolean);
		for (const entry of entries) {
			const chart = charts.find((c) => c.element === entry.target);
			if (!chart)
				continue;
			chart.near = entry.isIntersecting;
			if (chart.near && chart.stale)
				this.draw(chart, this.view.range(this.store.lastTime()));
		}
	}

	drawStale() {
		const range = this.view.range(this.store.lastTime());
		for (const chart of [this.timeline, ...this.charts])
			if (chart?.stale)
				this.draw(chart, range);
	}

	draw(chart, [min, max]) {
		const { u, data } = chart;
		chart.stale = false;
		u.batch(() => {
			u.setData(data, false);
			u.setScale('x', { min, max });
		});
	}

	// Called every animation frame and as frames arrive: redraws the charts
	// in view when there is something new to show; the others are drawn
	// when they come near. Returns whether there was.
	render() {
		const store = this.store, view = this.view;
		if (!this.timeline)
			return false;
		const newData = view.live && this.rendered.store !== store.version;
		if (!newData && this.rendered.view === view.version)
			return false;
		this.rendered = { store: store.version, view: view.version };
		const range = view.range(store.lastTime());
		for (const chart of [this.timeline, ...this.charts]) {
			if (chart.near)
				this.draw(chart, range);
			else
				chart.stale = true;
		}
		return true;
	}
}
