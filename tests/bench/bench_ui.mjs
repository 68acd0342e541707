// The browser UI at 100 frames/s, in Debian's chromium against gpuperfd
// --device sim: with 1 plotted counter as the reference, then with 20, in
// the same page and run. Prints the page's work per animation frame
// (decoding the messages since the last frame and drawing; median and
// p95) and how long each frame waited from its arrival (the WebSocket
// message) to the plots that show it drawn (median and p99; the canvas
// commands issued, which the browser paints with that animation frame).
// The goals, with 20 plots: a median under 16 ms of work a frame, and
// every frame drawn within 16 ms of its arrival at p99. Figures, never a
// pass or fail: a loaded machine only makes them larger, so the load
// average is printed beside them.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { CHROMIUM, launchBrowser, outputDir, startDaemon } from '../browser/harness.mjs';

const WEB_ROOT = new URL('../../web/www/', import.meta.url).pathname;
const MEASURED_MS = 3000;

if (!existsSync(CHROMIUM) || !existsSync(`${WEB_ROOT}app.js`)) {
	console.log(`bench_ui: needs ${CHROMIUM} and the built web UI (make deps, make); not measured`);
	process.exit(0);
}

// Plots the first `count` counters of RenderBasic and measures.
async function measure(page, count) {
	// The button is off while nothing is plotted.
	if (await page.isEnabled('#clear-plots'))
		await page.click('#clear-plots');
	const symbols = await page.$$eval('#counter-list .counter',
		(els, n) => els.slice(0, n).map((e) => e.dataset.symbol), count);
	for (const symbol of symbols)
		await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
	await page.waitForFunction((n) => window.gpuperfUi.plots.selected.size === n, symbols.length);
	await page.evaluate(() => {
		window.gpuperfUi.meter.reset();
		window.gpuperfUi.drawLatency.reset();
	});
	const before = await page.evaluate(() => window.gpuperfUi.store.length);
	await page.waitForTimeout(MEASURED_MS);
	return page.evaluate((from) => {
		const ui = window.gpuperfUi;
		return {
			median: ui.meter.median(),
			p95: ui.meter.percentile(0.95),
			drawn: ui.meter.samples.length,
			frames: ui.store.length - from,
			waitMedian: ui.drawLatency.median(),
			waitP99: ui.drawLatency.percentile(0.99),
			waited: ui.drawLatency.samples.length,
		};
	}, before);
}

function line(what, m) {
	return `${what}: work median ${m.median.toFixed(2)} ms, p95 ${m.p95.toFixed(2)} ms per animation ` +
		`frame (${m.drawn} drawn); arrival to drawn median ${m.waitMedian.toFixed(2)} ms, ` +
		`p99 ${m.waitP99.toFixed(2)} ms (${m.waited} frames); ` +
		`${Math.round(m.frames * 1000 / MEASURED_MS)} frames/s received`;
}

const daemon = await startDaemon('bench-ui', ['--device', 'sim', '--linger', '0',
	'--listen', '127.0.0.1:0', '--web-root', WEB_ROOT], outputDir());
const browser = await launchBrowser();
try {
	const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
	await page.goto(daemon.urls['127.0.0.1']);
	await page.waitForFunction(() => window.gpuperfUi.stream.metricSet?.symbol === 'RenderBasic');
	await page.selectOption('#window-picker', String(10e6));
	await page.waitForFunction(() => window.gpuperfUi.stream.windowNs === 10e6 &&
		window.gpuperfUi.store.length > 20);
	await page.selectOption('#group-picker', 'counter');
	const one = await measure(page, 1);
	const twenty = await measure(page, 20);
	const load = loadavg()[0].toFixed(1);
	console.log(`bench_ui: ${line('1 plot', one)}`);
	console.log(`bench_ui: ${line('20 plots', twenty)}`);
	const verdict = (met) => (met ? 'met' : 'NOT MET');
	console.log(`bench_ui: 20 plots take ${(twenty.median / Math.max(one.median, 0.01)).toFixed(1)}x ` +
		`the work of 1 per frame (goal: median under 16 ms: ${verdict(twenty.median < 16)}); ` +
		`arrival to drawn p99 ${twenty.waitP99.toFixed(2)} ms with 20 plots (goal under 16 ms: ` +
		`${verdict(twenty.waited > 0 && twenty.waitP99 < 16)}); load average ${load}`);
} finally {
	await browser.close();
	await daemon.stop();
}
