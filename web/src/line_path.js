// A chart's line, kept from one drawing to the next. uPlot's own path
// builder goes through every shown row at each drawing, a call into the
// canvas per row: with 20 charts following live data that was nearly all
// of the page's script. While the chart's scales keep their pixel sizes
// (a live view: same span, same value range), the rows already drawn keep
// their places relative to each other, so the path is kept in pixels from
// its first row, grows by the rows that arrived, and is drawn shifted to
// where the time axis has moved: no work per row already drawn.
//
// A view with more rows than the chart has pixels to show them apart
// (more than 4 rows a pixel: zoomed out, or a narrow chart) is kept the way
// uPlot's builder merges it: the rows of each pixel column drawn as the
// column's first row, its lowest and highest, and its last, on one
// vertical line. The newest column is still filling, so it is drawn apart
// from the kept path at each drawing and joins it when a row lands in the
// next column. A view held in the past is drawn by uPlot's builder
// (`other`); so is any view once its value range changes (the path starts
// afresh at its new scale).
//
// uPlot calls paths() for the series; the chart's drawSeries hook calls
// draw(), which strokes the kept path the way uPlot strokes its own.

// Rows per pixel beyond which uPlot's builder merges them (its own
// threshold for doing so).
const MERGED_ROWS_PER_PIXEL = 4;
// Rows kept before the view, past which the path starts afresh.
const MIN_SLACK_ROWS = 256;
const NO_PATH = { stroke: null, fill: null, clip: null, band: null, gaps: null, flags: 0 };

export class LinePath {
	// other: the uPlot path builder for the views not kept.
	constructor(other) {
		this.other = other;
		this.path = null;
		this.shift = null;      // where draw() puts the kept path; null: uPlot drew
		this.column = null;     // the newest pixel column of a merged path
		this.build = (u, seriesIdx, idx0, idx1) => this.paths(u, seriesIdx, idx0, idx1);
	}

	// uPlot's `paths` for series seriesIdx, rows idx0..idx1 shown.
	paths(u, seriesIdx, idx0, idx1) {
		const xs = u.data[0], ys = u.data[seriesIdx];
		const x = u.scales.x, y = u.scales[u.series[seriesIdx].scale];
		const { left, top, width, height } = u.bbox;
		const geometry = {
			xs, ys, top, height, yMin: y.min,
			kx: width / (x.max - x.min), ky: height / (y.max - y.min),
		};
		if (idx1 !== xs.length - 1 ||
		    !(geometry.kx > 0 && geometry.ky > 0 && Number.isFinite(geometry.kx) &&
		      Number.isFinite(geometry.ky))) {
			this.path = null;
			this.shift = null;
			return this.other(u, seriesIdx, idx0, idx1);
		}
		geometry.merged = idx1 - idx0 > MERGED_ROWS_PER_PIXEL * width;
		this.follow(geometry, idx0);
		this.shift = left + (this.origin - x.min) * geometry.kx;
		return NO_PATH;
	}

	// Brings the kept path up to the newest row, starting it afresh at
	// row `from` when its geometry changed, or it starts after the view,
	// or holds many rows before it.
	follow(geometry, from) {
		const { xs, ys } = geometry;
		let fresh = this.path === null || !sameGeometry(this.geometry, geometry) ||
			!(xs[from] >= this.firstX);
		if (!fresh)
			fresh = from - indexAt(xs, this.firstX) > Math.max(xs.length - from, MIN_SLACK_ROWS);
		let next = xs.length;
		if (!fresh) {
			// Rows only arrive at the end (old ones leave at the start):
			// the new ones follow the last one kept, or the rows are not
			// those the path holds.
			while (next > 0 && xs[next - 1] > this.lastX)
				next--;
			fresh = !(next > 0 && xs[next - 1] === this.lastX);
		}
		if (fresh) {
			this.geometry = geometry;
			this.path = new Path2D();
			this.origin = xs[from];
			this.firstX = xs[from];
			this.penDown = false;
			this.column = null;
			next = from;
		}
		const { kx, ky, yMin, top, height, merged } = this.geometry;
		const bottom = top + height;
		for (let i = next; i < xs.length; i++) {
			const value = ys[i];
			if (value == null) {
				this.closeColumn();
				this.penDown = false;
				continue;
			}
			let px = (xs[i] - this.origin) * kx;
			const py = bottom - (value - yMin) * ky;
			if (merged) {
				px = Math.round(px);
				const column = this.column;
				if (column !== null && column.x === px) {
					column.low = Math.max(column.low, py);
					column.high = Math.min(column.high, py);
					column.last = py;
					continue;
				}
				this.closeColumn();
				this.column = { x: px, first: py, low: py, high: py, last: py };
			}
			if (this.penDown)
				this.path.lineTo(px, py);
			else
				this.path.moveTo(px, py);
			this.penDown = true;
		}
		this.lastX = xs[xs.length - 1];
	}

	// The newest pixel column, merged, joins the kept path.
	closeColumn() {
		if (this.column !== null)
			columnLine(this.path, this.column);
		this.column = null;
	}

	// Strokes the kept path, if paths() kept it, as uPlot strokes its
	// own: clipped to the plot, its colour, width and dash, on the pixel
	// grid.
	draw(u, seriesIdx) {
		if (this.shift === null)
			return;
		const series = u.series[seriesIdx];
		const ctx = u.ctx;
		const { left, top, width, height } = u.bbox;
		const lineWidth = series.width * (globalThis.devicePixelRatio ?? 1);
		const align = (lineWidth % 2) / 2;
		ctx.save();
		ctx.beginPath();
		ctx.rect(left - lineWidth / 2, top - lineWidth / 2, width + lineWidth, height + lineWidth);
		ctx.clip();
		ctx.strokeStyle = series._stroke;
		ctx.lineWidth = lineWidth;
		ctx.lineJoin = 'round';
		ctx.lineCap = series.cap ?? 'butt';
		ctx.setLineDash(series.dash ?? []);
		ctx.translate(this.shift + align, align);
		ctx.stroke(this.path);
		if (this.column !== null && this.column.low !== this.column.high) {
			const newest = new Path2D();
			newest.moveTo(this.column.x, this.column.first);
			columnLine(newest, this.column);
			ctx.stroke(newest);
		}
		ctx.restore();
	}
}

// A merged pixel column, from its first row (where the path already is):
// to its lowest and highest rows, unless the line starts or ends there,
// and to its last, as uPlot's builder draws it.
function columnLine(path, { x, first, low, high, last }) {
	if (low === high)
		return;
	if (low !== first && low !== last)
		path.lineTo(x, low);
	if (high !== first && high !== last)
		path.lineTo(x, high);
	path.lineTo(x, last);
}

// The kept path's pixels still mean the same rows and values, merged or
// not as before.
function sameGeometry(a, b) {
	return a.xs === b.xs && a.ys === b.ys && a.merged === b.merged &&
		a.top === b.top && a.height === b.height &&
		a.yMin === b.yMin && close(a.kx, b.kx) && close(a.ky, b.ky);
}

// The scales are computed afresh each drawing: a part in a million
// (0.003 px across a path 3000 px long) keeps their rounding from starting
// the path again.
function close(a, b) {
	return Math.abs(a - b) <= 1e-6 * Math.abs(a);
}

// Index of the first row at or after time t.
function indexAt(xs, t) {
	let lo = 0, hi = xs.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (xs[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
