// The browser UI's work per animation frame (decoding the messages since
// the last frame and drawing), in Debian's chromium against gpuperfd
// --device sim at 100 frames/s: with 1 plotted counter as the reference,
// then with 20, in the same page and run. Prints the medians, the p95s,
// the frame rates and the ratio; the page is meant to stay under 16 ms a
// frame with 20 plots. Figures, never a pass or fail: a loaded machine
// only makes them larger.
import { existsSync } from 'node:fs';
import { CHROMIUM, launchBrowser, outputDir, startDaemon } from '../browser/harness.mjs';

const WEB_ROOT = new URL('../../web/www/', import.meta.url).pathname;
const MEASURED_MS = 3000;

if (!existsSync(CHROMIUM) || !existsSync(`${WEB_ROOT}app.js`)) {
	console.log(`bench_ui: needs ${CHROMIUM} and the built web UI (make deps, make); not measured`);
	process.exit(0);
}

// Plots the first `count` counters of RenderBasic and measures.
async function measure(page, count) {
	await page.click('#clear-plots');
	const symbols = await page.$$eval('#counter-list .counter',
		(els, n) => els.slice(0, n).map((e) => e.dataset.symbol), count);
	for (const symbol of symbols)
		await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
	await page.waitForFunction((n) => window.gpuperfUi.plots.selected.size === n, symbols.length);
	await page.evaluate(() => window.gpuperfUi.meter.reset());
	const before = await page.evaluate(() => window.gpuperfUi.store.length);
	await page.waitForTimeout(MEASURED_MS);
	return page.evaluate((from) => ({
		median: window.gpuperfUi.meter.median(),
		p95: window.gpuperfUi.meter.percentile(0.95),
		drawn: window.gpuperfUi.meter.samples.length,
		frames: window.gpuperfUi.store.length - from,
	}), before);
}

function line(what, m) {
	return `${what}: median ${m.median.toFixed(2)} ms, p95 ${m.p95.toFixed(2)} ms per animation ` +
		`frame, ${m.drawn} drawn, ${Math.round(m.frames * 1000 / MEASURED_MS)} frames/s received`;
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
	console.log(`bench_ui: ${line('1 plot', one)}`);
	console.log(`bench_ui: ${line('20 plots', twenty)}`);
	console.log(`bench_ui: 20 plots take ${(twenty.median / Math.max(one.median, 0.01)).toFixed(1)}x ` +
		'the work of 1 per frame (the page aims at a median under 16 ms with 20)');
} finally {
	await browser.close();
	await daemon.stop();
}
