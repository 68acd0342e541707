// The browser UI at 100 frames/s, in Debian's chromium against gpuperfd
// --device sim: with 1 plotted counter as the reference, then with 20, in
// the same page and run, the plots drawn as frames arrive (in a 1440x1000
// window, which shows a few of the charts: those far out of view are not
// drawn; then in a window tall enough to show all 20) and then only on
// animation frames. Prints, from chromium's own accounting
// (Performance.getMetrics), the renderer's main-thread CPU per drawing of
// the plots (all the thread did, decoding included, over the drawings:
// the figure a loaded machine changes least, since it counts only the
// time the thread ran), how much of it was script (the rest: the
// canvases' raster, layout, paint, the commit to the compositor), and the
// thread's and the renderer's share of a core; the page's own work per
// drawing (decoding the messages since the last one and drawing; median
// and p95, wall time); and how long each frame waited from its arrival
// (the WebSocket message) to the plots that show it drawn (median and
// p99; the canvas commands issued, which the browser shows at its next
// refresh). The goals, with 20 plots: under 16 ms of CPU a drawing, and
// every frame drawn within 16 ms of its arrival at p99. Figures, never a
// pass or fail: a loaded machine only makes them larger, so the load
// average is printed beside them.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { CHROMIUM, launchBrowser, outputDir, startDaemon } from '../browser/harness.mjs';

const WEB_ROOT = new URL('../../web/www/', import.meta.url).pathname;
const MEASURED_MS = 3000;
const WINDOW = { width: 1440, height: 1000 };

if (!existsSync(CHROMIUM) || !existsSync(`${WEB_ROOT}app.js`)) {
	console.log(`bench_ui: needs ${CHROMIUM} and the built web UI (make deps, make); not measured`);
	process.exit(0);
}

// Plots the first `count` counters of RenderBasic, drawn on arrival or
// only on animation frames, and measures; allInView: the window made tall
// enough to show every chart (charts far out of view are not drawn).
async function measure(page, cdp, count, onArrival, allInView = false) {
	// The button is off while nothing is plotted.
	if (await page.isEnabled('#clear-plots'))
		await page.click('#clear-plots');
	const symbols = await page.$$eval('#counter-list .counter',
		(els, n) => els.slice(0, n).map((e) => e.dataset.symbol), count);
	for (const symbol of symbols)
		await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
	await page.waitForFunction((n) => window.gpuperfUi.plots.selected.size === n, symbols.length);
	const height = allInView ?
		await page.evaluate(() => document.documentElement.scrollHeight) : WINDOW.height;
	await page.setViewportSize({ width: WINDOW.width, height });
	const inView = await page.evaluate(() => window.gpuperfUi.plots.charts.filter((c) => {
		const r = c.element.getBoundingClientRect();
		return r.bottom > 0 && r.top < innerHeight;
	}).length);
	const reset = () => page.evaluate((on) => {
		window.gpuperfUi.drawing.onArrival = on;
		window.gpuperfUi.meter.reset();
		window.gpuperfUi.drawLatency.reset();
	}, onArrival);
	// The charts were made anew with each click: measured once they have
	// drawn a few times since the last (a loaded page catches up first).
	await reset();
	await page.waitForFunction(() => window.gpuperfUi.drawLatency.drawings >= 10, null,
		{ timeout: 60000 });
	await reset();
	const metrics = async () => Object.fromEntries(
		(await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
	const was = await metrics();
	const before = await page.evaluate(() => window.gpuperfUi.store.length);
	await page.waitForTimeout(MEASURED_MS);
	const now = await metrics();
	const m = await page.evaluate((from) => {
		const ui = window.gpuperfUi;
		return {
			median: ui.meter.median(),
			p95: ui.meter.percentile(0.95),
			frames: ui.store.length - from,
			drawings: ui.drawLatency.drawings,
			waitMedian: ui.drawLatency.median(),
			waitP99: ui.drawLatency.percentile(0.99),
			waited: ui.drawLatency.samples.length,
		};
	}, before);
	const seconds = now.Timestamp - was.Timestamp;
	m.inView = inView;
	m.height = height;
	m.threadMs = (now.ThreadTime - was.ThreadTime) * 1000 / Math.max(m.drawings, 1);
	m.scriptMs = (now.ScriptDuration - was.ScriptDuration) * 1000 / Math.max(m.drawings, 1);
	m.threadCore = (now.ThreadTime - was.ThreadTime) / seconds;
	m.processCore = (now.ProcessTime - was.ProcessTime) / seconds;
	m.perSecond = m.frames * 1000 / MEASURED_MS;
	return m;
}

function line(what, m) {
	return `${what}: ${m.threadMs.toFixed(2)} ms of main-thread CPU a drawing, ` +
		`${m.scriptMs.toFixed(2)} ms of it script (${m.drawings} drawings; the thread ` +
		`${(100 * m.threadCore).toFixed(0)}% of a core, the renderer ` +
		`${(100 * m.processCore).toFixed(0)}%); page work median ${m.median.toFixed(2)} ms, p95 ` +
		`${m.p95.toFixed(2)} ms a drawing; arrival to drawn median ${m.waitMedian.toFixed(2)} ms, ` +
		`p99 ${m.waitP99.toFixed(2)} ms (${m.waited} frames); ${Math.round(m.perSecond)} frames/s received`;
}

const daemon = await startDaemon('bench-ui', ['--device', 'sim', '--linger', '0',
	'--listen', '127.0.0.1:0', '--web-root', WEB_ROOT], outputDir());
const browser = await launchBrowser();
try {
	const page = await browser.newPage({ viewport: WINDOW });
	await page.goto(daemon.urls['127.0.0.1']);
	await page.waitForFunction(() => window.gpuperfUi.stream.metricSet?.symbol === 'RenderBasic');
	await page.selectOption('#window-picker', String(10e6));
	await page.waitForFunction(() => window.gpuperfUi.stream.windowNs === 10e6 &&
		window.gpuperfUi.store.length > 20);
	await page.selectOption('#group-picker', 'counter');
	// Measured once the store holds the whole span shown (30 s, 3000 rows
	// a line), as a page that has been open a while does.
	await page.waitForFunction(() => {
		const { store, view } = window.gpuperfUi;
		return store.length && store.x[store.length - 1] - store.x[0] >= view.spanS;
	}, null, { timeout: 120000 });
	const cdp = await page.context().newCDPSession(page);
	// Durations in the thread's own CPU time, as ThreadTime is.
	await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
	const one = await measure(page, cdp, 1, true);
	const twenty = await measure(page, cdp, 20, true);
	const all = await measure(page, cdp, 20, true, true);
	const paced = await measure(page, cdp, 20, false);
	const load = loadavg()[0].toFixed(1);
	const shown = (m) => `${m.inView} charts in a ${WINDOW.width}x${m.height} window`;
	console.log(`bench_ui: ${line('1 plot, drawn on arrival', one)}`);
	console.log(`bench_ui: ${line(`20 plots (${shown(twenty)}), drawn on arrival`, twenty)}`);
	console.log(`bench_ui: ${line(`20 plots (${shown(all)}), drawn on arrival`, all)}`);
	console.log(`bench_ui: ${line(`20 plots (${shown(paced)}), drawn on animation frames only`, paced)}`);
	const verdict = (met) => (met ? 'met' : 'NOT MET');
	const goals = (m) => `${m.threadMs.toFixed(2)} ms of CPU a drawing ` +
		`(${verdict(m.threadMs < 16)}), arrival to drawn p99 ${m.waitP99.toFixed(2)} ms ` +
		`(${verdict(m.waited > 0 && m.waitP99 < 16)})`;
	console.log(`bench_ui: 20 plots take ${(twenty.threadMs / Math.max(one.threadMs, 0.01)).toFixed(1)}x ` +
		`the CPU of 1 a drawing; goals under 16 ms: with ${twenty.inView} charts in view ` +
		`${goals(twenty)}; with all ${all.inView} in view ${goals(all)}; ` +
		`${paced.waitP99.toFixed(2)} ms waiting for animation frames; load average ${load}`);
} finally {
	await browser.close();
	await daemon.stop();
}
