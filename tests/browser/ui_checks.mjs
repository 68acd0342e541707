// The browser UI in chromium against gpuperfd --device sim: it loads
// without console errors, streams what a picked metric set measures,
// plots clicked counters, exports CSV, marks a window by hand (listed
// apart, never plotted), narrows the stream to one clicked context and
// widens it again, follows another client's reconfiguration, locks a
// viewer's controls, records a file i915-perf-reader accepts, says when a
// replay ends, shows a device lost in a GPU reset and recovered, its OA
// unit busy in another process and a subscription refused for that, and
// another process's own context holding the unit (on gpuperfd with the
// fake i915 kernel of tests/fake-kernel), comes back
// by itself after the daemon restarts, asks for a token where one is
// needed, works over TLS and on a LAN address, narrow and dark, refuses
// the WebSockets of other sites' pages and of a name rebound to it, and
// plots 20 counters at 100 frames/s (how long the page works per frame is
// measured by tests/bench/bench_ui.mjs in `make bench`). Screenshots go to
// $GPM_BUILD_DIR/browser/.
//
// Prints "checks: N passed, F failed" (", S skipped" when a part could
// not run here, each skip said on a SKIP line).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
	chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve as absolutePath } from 'node:path';
import {
	CHROMIUM, Checks, buildDir, launchBrowser, outputDir, startDaemon, watchConsole,
} from './harness.mjs';

const WEB_ROOT = new URL('../../web/www/', import.meta.url).pathname;
const SHARED = process.env.GPM_SHARED_DIR ?? '../shared';
const I915_METRICS = join(SHARED, 'intel-metrics', 'i915');
const READER = '/usr/bin/i915-perf-reader';

const checks = new Checks();
const out = outputDir();
const tmp = mkdtempSync(join(tmpdir(), 'gpuperf-browser-'));
const consoleErrors = [];
const daemons = [];
let browser = null;

async function openPage(context, url, label) {
	const page = await context.newPage();
	watchConsole(page, label, consoleErrors);
	await page.goto(url);
	return page;
}

function connected(page, timeout = 8000) {
	return page.waitForSelector('#connection[data-state="open"]', { timeout });
}

// Waits until the page streams frames of `set` (a symbol) on its device:
// `frames` of them since the counters last changed.
function streaming(page, set, frames = 5) {
	return page.waitForFunction(([s, n]) => {
		const ui = window.gpuperfUi;
		return ui.stream.metricSet?.symbol === s && ui.store.sinceChange >= n;
	}, [set, frames], { timeout: 8000 });
}

function valuesText(page) {
	return page.$$eval('#counter-list .counter .value', (els) => els.map((e) => e.textContent).join('|'));
}

async function loadAndStream(page) {
	checks.check(await page.title() === 'gpuperf', 'the page has its title');
	checks.check(await connected(page).then(() => true, () => false),
		'the page connects to gpuperfd', await page.textContent('#connection'));
	await streaming(page, 'RenderBasic');
	checks.check(await page.isVisible('#banner[data-kind="sim"]'),
		'a banner says the device is simulated');
	const eus = await page.$$eval('#device-panel svg.topology rect.eu:not(.off)', (r) => r.length);
	checks.check(eus === 96, 'the topology picture shows the 96 EUs of sim0', `${eus} lit`);
	checks.check(consoleErrors.length === 0, 'the page loads with no console errors',
		consoleErrors.join('\n  | '));
}

// The Engines panel and the Processes table of the usage stream.
async function enginesAndProcesses(page) {
	await page.waitForFunction(() => document.querySelectorAll('#engine-list .engine').length >= 4 &&
		document.querySelectorAll('#process-rows tr').length >= 2, null, { timeout: 8000 });
	const engines = await page.$$eval('#engine-list .engine .name', (els) => els.map((e) => e.textContent));
	checks.check(engines.join() === 'rcs0 render,bcs0 copy,vcs0 video,ccs0 compute',
		'the Engines panel lists the sim\'s engines', engines.join(', '));
	const busy = await page.$$eval('#engine-list .engine .value', (els) => els.map((e) => e.textContent));
	checks.check(busy.every((b) => /^\d+\.\d %$/.test(b)), 'each engine shows its busy share', busy.join(', '));
	const summary = await page.textContent('#usage-summary');
	checks.check(/clock \d/.test(summary) && /RC6 \d/.test(summary) && / W/.test(summary),
		'the clock, RC6 and power are shown', summary);
	checks.check(await page.$('#usage-plot canvas') !== null, 'the engines are plotted');
	await page.click('#engine-toggle');
	const classes = await page.waitForFunction(() => {
		const names = [...document.querySelectorAll('#engine-list .engine .name')]
			.map((e) => e.textContent);
		return names.includes('render') && names.join();
	}, null, { timeout: 3000 }).then((h) => h.jsonValue(), () => '');
	checks.check(classes === 'render,copy,video,compute', 'the toggle shows the engine classes',
		classes);
	const commands = await page.$$eval('#process-rows tr td:nth-child(2)', (els) => els.map((e) => e.textContent));
	const sources = await page.$$eval('#process-rows tr td:last-child', (els) => els.map((e) => e.textContent));
	checks.check(sources.length > 0 && sources.every((s) => s === 'simulated'),
		'each process row says where its share came from', sources.join(', '));
	checks.check(commands.includes('gnome-shell'), 'the Processes table lists the sim\'s processes',
		commands.join(', '));
	// The table is drawn anew as usage frames come: each click is judged
	// once the rows are in some order, or after 5 s, by the rows then.
	const sortedPids = (ascending) => page.waitForFunction((up) => {
		const p = [...document.querySelectorAll('#process-rows tr td:first-child')]
			.map((e) => Number(e.textContent));
		return p.length > 1 && p.every((v, i) => !i || (up ? p[i - 1] < v : p[i - 1] > v));
	}, ascending, { timeout: 5000 }).catch(() => null).then(() =>
		page.$$eval('#process-rows tr td:first-child', (els) => els.map((e) => Number(e.textContent))));
	await page.click('#process-table th button[data-sort="pid"]');
	const pids = await sortedPids(true);
	checks.check(pids.length > 1 && pids.every((p, i) => !i || pids[i - 1] < p),
		'clicking PID sorts the processes by pid', pids.join(', '));
	await page.click('#process-table th button[data-sort="pid"]');
	const down = await sortedPids(false);
	checks.check(down.every((p, i) => !i || down[i - 1] > p), 'clicking it again sorts them the other way',
		down.join(', '));
	const end = await page.evaluate(() => Number(window.gpuperfUi.usage.frame.cpuEndNs));
	const moved = await page.waitForFunction((e) => Number(window.gpuperfUi.usage.frame.cpuEndNs) > e,
		end, { timeout: 4000 }).then(() => true, () => false);
	checks.check(moved, 'the table follows the usage stream, interval after interval');
}

async function pickMetricSet(page) {
	await page.click('[data-set="ComputeBasic"]');
	await streaming(page, 'ComputeBasic', 3);
	checks.check(await page.isVisible('.set.selected[data-set="ComputeBasic"]'),
		'the picked metric set is marked as the one streaming');
	const symbols = await page.$$eval('#counter-list .counter', (els) => els.map((e) => e.dataset.symbol));
	const expected = await page.evaluate(() => window.gpuperfUi.stream.device.metricSets
		.find((s) => s.symbol === 'ComputeBasic').counters.map((c) => c.symbol));
	checks.check(symbols.sort().join() === expected.sort().join(),
		'the counter list shows the set\'s counters',
		`${symbols.length} listed, ${expected.length} in the set`);
	await page.waitForFunction(() => [...document.querySelectorAll('#counter-list .counter .value')]
		.every((e) => e.textContent !== '–'), null, { timeout: 3000 });
	const before = await valuesText(page);
	const updated = await page.waitForFunction((shown) => [...document
		.querySelectorAll('#counter-list .counter .value')].map((e) => e.textContent).join('|') !== shown,
	before, { timeout: 8000 }).then(() => true, () => false);
	checks.check(updated, 'the counter values keep updating', before);
	const search = await page.$$eval('#set-list [data-set]', async (els) => els.length);
	await page.fill('#set-search', 'sampler busy');
	const matched = await page.$$eval('#set-list [data-set]', (els) => els.map((e) => e.dataset.set));
	// Words in any order, any case, plural or not.
	await page.fill('#set-search', 'BUSY samplers');
	const reordered = await page.$$eval('#set-list [data-set]', (els) => els.map((e) => e.dataset.set));
	await page.fill('#set-search', '');
	checks.check(matched.length > 0 && matched.length < search,
		'searching for a counter narrows the metric sets', matched.join());
	checks.check(reordered.join() === matched.join(),
		'a search matches words in any order, case or number',
		`'BUSY samplers' found ${reordered.join() || 'nothing'}, 'sampler busy' ${matched.join()}`);
	await page.fill('#counter-filter', 'occupancy THREADS');
	const rows = await page.$$eval('#counter-list .counter:not([hidden])', (els) => els.map((e) => e.dataset.symbol));
	await page.fill('#counter-filter', '');
	checks.check(rows.includes('EuThreadOccupancy'),
		'the counter filter finds EU Thread Occupancy by "occupancy THREADS"', rows.join());
}

async function plotCounter(page) {
	const symbol = await page.$eval('#counter-list .counter:nth-child(3)', (e) => e.dataset.symbol);
	await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
	const chart = await page.waitForSelector(`.chart[data-counters~="${symbol}"] canvas`,
		{ timeout: 3000 }).catch(() => null);
	checks.check(!!chart, 'clicking a counter adds its chart');
	checks.check(await page.$eval(`#counter-list .counter[data-symbol="${symbol}"]`,
		(e) => e.classList.contains('plotted')), 'the plotted counter is marked in the list');
	const points = () => page.evaluate((s) => {
		const chart = window.gpuperfUi.plots.charts.find((c) => c.element.dataset.counters === s);
		const [x, y] = chart.u.data;
		const [i0, i1] = chart.u.series[0].idxs ?? [0, x.length - 1];
		return y.slice(i0, i1 + 1).filter((v) => v != null).length;
	}, symbol);
	const first = await points();
	const grew = await page.waitForFunction(([s, n]) => {
		const chart = window.gpuperfUi.plots.charts.find((c) => c.element.dataset.counters === s);
		return chart && chart.u.data[1].filter((v) => v != null).length > n;
	}, [symbol, first], { timeout: 8000 }).then(() => true, () => false);
	checks.check(grew && first > 0, 'the plot grows as frames arrive', `${first} points first`);
	// Hovering a window reads its time to the millisecond and its span.
	const over = await page.$(`.chart[data-counters~="${symbol}"] .u-over`);
	const box = await over.boundingBox();
	await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
	const readout = await page.waitForFunction((s) => {
		const value = document.querySelector(`.chart[data-counters~="${s}"] .u-legend .u-series:first-child .u-value`);
		return value && /^\d{2}:\d{2}:\d{2}\.\d{3} · a .+ window$/.test(value.textContent) &&
			value.textContent;
	}, symbol, { timeout: 3000 }).then((h) => h.jsonValue(), () => null);
	checks.check(readout !== null, 'the hover readout gives the window\'s time to the ms and its span',
		await page.$eval(`.chart[data-counters~="${symbol}"] .u-legend .u-series:first-child .u-value`,
			(e) => e.textContent).catch(() => 'no readout'));
	await page.mouse.move(0, 0);
	return symbol;
}

// Lines of one chart differ in colour, from a palette people with a
// colour vision deficiency tell apart, and in dash, so that one lying on
// another still shows.
async function linesApart(page) {
	await page.click('#clear-plots');
	for (const symbol of ['GpuBusy', 'EuActive', 'EuStall'])
		await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
	await page.waitForFunction(() => window.gpuperfUi.plots.charts.some((c) =>
		c.u.series.length === 4), null, { timeout: 3000 });
	const lines = await page.evaluate(() => window.gpuperfUi.plots.charts
		.find((c) => c.u.series.length === 4).u.series.slice(1)
		.map((s) => ({ stroke: s._stroke ?? s.stroke, dash: JSON.stringify(s.dash ?? []) })));
	const okabeIto = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00',
		'#000000', '#f0e442', '#ffffff'];
	const strokes = lines.map((l) => String(l.stroke).toLowerCase());
	checks.check(new Set(strokes).size === 3 && strokes.every((c) => okabeIto.includes(c)),
		'plotted lines take distinct colours of a colour-blind-safe palette', strokes.join(' '));
	checks.check(new Set(lines.map((l) => l.dash)).size === 3,
		'the lines of one chart differ in dash too', lines.map((l) => l.dash).join(' '));
	await page.click('#clear-plots');
}

// Another period, then another set: the plots go on, counters of both
// sets keep their lines, and the change is marked on the time axis.
async function changesKeepPlots(page) {
	await page.click('#counter-list .counter[data-symbol="GpuBusy"]');
	await page.waitForSelector('.chart[data-counters~="GpuBusy"] canvas', { timeout: 3000 });
	const points = () => page.evaluate(() => {
		const chart = window.gpuperfUi.plots.charts.find((c) =>
			c.element.dataset.counters.split(' ').includes('GpuBusy'));
		return chart ? chart.u.data[1].filter((v) => v != null).length : -1;
	});
	const before = await points();
	const changes = await page.evaluate(() => window.gpuperfUi.store.changes.length);
	const period = await page.evaluate(() => window.gpuperfUi.stream.periodNs);
	const other = await page.$$eval('#period-picker option', (els, p) =>
		els.map((e) => Number(e.value)).find((v) => v !== p && v > 1e5), period);
	await page.selectOption('#period-picker', String(other));
	const changed = await page.waitForFunction(([p, n]) => {
		const ui = window.gpuperfUi;
		return ui.stream.periodNs !== p && ui.store.changes.length > n && ui.store.sinceChange >= 3;
	}, [period, changes], { timeout: 8000 }).then(() => true, () => false);
	checks.check(changed, 'a new period is marked on the time axis');
	const after = await points();
	checks.check(after >= before && before > 0, 'changing the period keeps the plots',
		`${before} points before, ${after} after`);
	await page.click('[data-set="RenderBasic"]');
	await streaming(page, 'RenderBasic', 3);
	const kept = await page.evaluate(() => window.gpuperfUi.plots.selected.has('GpuBusy'));
	const afterSet = await points();
	checks.check(kept && afterSet >= after, 'a counter of both sets keeps its plot across a set change',
		`plotted ${kept}, ${after} points before, ${afterSet} after`);
	const text = await page.evaluate(() => window.gpuperfUi.store.changes.at(-1)?.text ?? '');
	checks.check(text.startsWith('RenderBasic'), 'the set change is marked on the time axis', text);
	await page.click('#clear-plots');
}

async function pauseAndResume(page) {
	await page.click('#live-toggle');
	// A frame already on its way may still be drawn: let two animation
	// frames pass before taking the span the pause holds.
	await page.evaluate(() => new Promise((resolve) =>
		requestAnimationFrame(() => requestAnimationFrame(resolve))));
	const range = () => page.evaluate(() => {
		const u = window.gpuperfUi.plots.charts[0].u;
		return [u.scales.x.min, u.scales.x.max];
	});
	const held = await range();
	const arrived = await moreFrames(page, 5);
	const later = await range();
	checks.check(arrived && held[1] === later[1], 'a paused chart holds its time span',
		`frames came: ${arrived}; ${held} then ${later}`);
	const box = await (await page.$('.chart[data-counters] .u-over')).boundingBox();
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await page.mouse.wheel(0, -200);
	let zoomed = held;
	await waitUntil(async () => {
		zoomed = await range();
		return zoomed[1] - zoomed[0] < held[1] - held[0];
	}, 5000);
	checks.check(zoomed[1] - zoomed[0] < held[1] - held[0], 'the wheel zooms in');
	await page.keyboard.down('Shift');
	await page.mouse.wheel(0, -200);
	await page.keyboard.up('Shift');
	let panned = zoomed;
	await waitUntil(async () => (panned = await range())[0] < zoomed[0], 5000);
	checks.check(panned[0] < zoomed[0], 'shift+wheel pans back in time');
	await page.click('#live-toggle');
	let live = panned;
	await waitUntil(async () => (live = await range())[1] > held[1], 8000);
	checks.check(live[1] > held[1], 'resuming follows live data again');
}

// Export CSV writes what `gpuperf stream --format csv` writes, and
// `gpuperf compare` takes it as a result.
async function exportCsv(page, daemonUrl) {
	const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
	const path = join(out, 'visible.csv');
	await download.saveAs(path);
	const lines = readFileSync(path, 'utf8').trim().split('\n');
	checks.check(lines.length > 10, 'Export CSV saves the shown span', `${lines.length} lines`);
	const port = new URL(daemonUrl).port;
	const cli = join(out, 'cli.csv');
	const gpuperf = join(buildDir(), 'gpuperf');
	const windowNs = await page.evaluate(() => window.gpuperfUi.stream.windowNs);
	const streamed = spawnSync(gpuperf, ['--port', port, '--viewer', 'stream', '--format', 'csv',
		'-i', `${windowNs}ns`, '--duration', '500ms', '-o', cli], { encoding: 'utf8' });
	checks.check(streamed.status === 0, 'gpuperf stream wrote a CSV to compare with', streamed.stderr);
	const cliHeader = existsSync(cli) ? readFileSync(cli, 'utf8').split('\n')[0] : '';
	checks.check(lines[0] === cliHeader, 'Export CSV has the columns of gpuperf stream --format csv',
		`UI:  ${lines[0]}\n  | CLI: ${cliHeader}`);
	const compared = spawnSync(gpuperf, ['compare', cli, path], { encoding: 'utf8' });
	checks.check((compared.status === 0 || compared.status === 1) &&
		/counters compared/.test(compared.stdout), 'gpuperf compare reads the exported CSV',
		`exit ${compared.status}: ${compared.stderr}${compared.stdout.split('\n').slice(-3).join(' ')}`);
}

// Mark, 700 ms once the daemon has begun it, End mark: one frame covering
// the two clicks lands in the list of marked windows and nowhere in the
// time series.
async function markWindow(page) {
	const MARKED_MS = 700;
	const button = () => page.textContent('#mark-toggle');
	checks.check(await button() === 'Mark', 'the mark button reads Mark', await button());
	// The counter with the longest name is plotted, so that the list
	// shows it.
	const longest = await page.$$eval('#counter-list .counter', (els) => els
		.sort((a, b) => b.querySelector('.name').textContent.length -
			a.querySelector('.name').textContent.length)[0].dataset.symbol);
	if (!await page.$(`#counter-list .counter[data-symbol="${longest}"].plotted`))
		await page.click(`#counter-list .counter[data-symbol="${longest}"]`);
	// Every regular frame of the subscription goes into the store; count
	// them, so that a store that grew by more has taken the marked one.
	await page.evaluate(() => {
		const ui = window.gpuperfUi;
		const watch = { counting: true, frames: 0, from: ui.store.length,
			subscription: ui.stream.subscriptionId };
		ui.stream.on('frame', () => {
			if (watch.counting)
				watch.frames++;
		});
		window.markWatch = watch;
	});
	const clicked = Date.now();
	await page.click('#mark-toggle');
	const open = await page.waitForFunction(() =>
		/^End mark · \d+\.\d s$/.test(document.querySelector('#mark-toggle').textContent),
	null, { timeout: 3000 }).then(() => true, () => false);
	checks.check(open, 'an open mark\'s button reads End mark with the seconds elapsed',
		await button());
	await page.waitForTimeout(MARKED_MS);
	await page.click('#mark-toggle');
	const listed = await page.waitForSelector('#mark-list li.mark', { timeout: 8000 })
		.then(() => true, () => false);
	const elapsedS = (Date.now() - clicked) / 1000;
	checks.check(listed, 'the marked window appears in the list');
	if (!listed)
		return;
	const seen = await page.evaluate(() => {
		const ui = window.gpuperfUi, watch = window.markWatch;
		watch.counting = false;
		const marked = ui.marks.windows[0];
		const item = document.querySelector('#mark-list li.mark');
		return {
			mark: marked.frame.mark,
			durationS: marked.durationNs / 1e9,
			reports: marked.reports,
			largestWindow: Math.max(...ui.store.reports.slice(watch.from)),
			facts: item.querySelector('.facts').textContent,
			values: [...item.querySelectorAll('.mark-values dd')].map((e) => e.textContent),
			valueSymbols: [...item.querySelectorAll('.mark-values [data-symbol]')]
				.map((e) => e.dataset.symbol),
			plotted: [...ui.plots.selected.keys()],
			grew: ui.store.length - watch.from,
			frames: watch.frames,
			sameSubscription: ui.stream.subscriptionId === watch.subscription,
			monotonic: ui.store.x.every((x, i, xs) => i === 0 || x >= xs[i - 1]),
			button: document.querySelector('#mark-toggle').textContent,
		};
	});
	checks.check(seen.mark, 'the listed frame is the daemon\'s marked frame');
	const cut = await page.$$eval('#mark-list li.mark .mark-values dt', (els) =>
		els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
	checks.check(cut.length === 0, 'marked windows show whole counter names', cut.join(', '));
	// The button reads End mark once the daemon has begun the mark, and
	// the window ends after the second click: at least MARKED_MS (less a
	// report period), at most the time from the first click to the list.
	checks.check(seen.durationS > MARKED_MS / 1000 - 0.05 && seen.durationS < elapsedS + 0.05,
		`the marked window lasts from the first click to the second`,
		`${seen.durationS} s, ${MARKED_MS} ms waited, ${elapsedS} s from the first click to the list`);
	const [, amount, unit] = seen.facts.match(/^([\d.]+) (ms|s) · /) ?? [];
	const shownS = Number(amount) * (unit === 'ms' ? 1e-3 : 1);
	checks.check(Math.abs(shownS - seen.durationS) < 0.01 &&
		seen.facts.includes(` · ${seen.reports} reports`),
		'the list shows the mark\'s GPU time and reports', seen.facts);
	checks.check(seen.reports > seen.largestWindow,
		'the marked frame sums more reports than any one window',
		`${seen.reports} against ${seen.largestWindow}`);
	checks.check(seen.valueSymbols.join() === seen.plotted.join() &&
		seen.values.every((v) => v !== '–' && v !== ''),
		'the list shows the plotted counters\' values in the marked window',
		`${seen.valueSymbols.join()} = ${seen.values.join(' | ')}; plotted ${seen.plotted.join()}`);
	checks.check(seen.sameSubscription && seen.grew === seen.frames && seen.monotonic,
		'the marked frame stays out of the time series',
		`store grew by ${seen.grew} for ${seen.frames} frames, monotonic ${seen.monotonic}`);
	checks.check(seen.button === 'Mark', 'the mark button reads Mark again', seen.button);
}

// The distinct contexts the stored frames name (ids, or 'idle').
// The contexts the frames since the last change named.
function storedContexts(page) {
	return page.evaluate(() => {
		const store = window.gpuperfUi.store;
		return [...new Set(store.contexts.slice(store.length - store.sinceChange).flat()
			.map(([ctx]) => ctx))];
	});
}

// A click on a context streams its reports alone; "Show all contexts"
// streams every context's again.
async function contextFilter(page) {
	const policy = await page.textContent('#context-policy');
	checks.check(policy.startsWith('Picking a context narrows this device\'s system-wide ' +
		'stream in gpuperfd') && !policy.includes('Unix socket'),
	'the context panel says a pick filters the sim device\'s system-wide stream', policy);
	const row = await page.waitForSelector('#context-list li.context[role="button"]',
		{ timeout: 5000 });
	const ctx = Number(await row.getAttribute('data-ctx'));
	await row.click();
	const narrowed = await page.waitForFunction((id) => {
		const ui = window.gpuperfUi;
		return ui.stream.contextId === id && ui.store.sinceChange >= 5;
	}, ctx, { timeout: 8000 }).then(() => true, () => false);
	checks.check(narrowed, 'clicking a context subscribes to its reports alone',
		`context ${ctx}`);
	const named = await storedContexts(page);
	checks.check(named.length > 0 && named.every((c) => c === ctx || c === 'idle'),
		'the narrowed stream\'s frames name only the chosen context', named.join());
	// The context list refreshes a few times a second.
	await page.waitForSelector('#context-filter:not([hidden])', { timeout: 5000 }).catch(() => null);
	const line = await page.isVisible('#context-filter') ?
		await page.textContent('#context-filter') : '';
	checks.check(line.startsWith(`Only context 0x${ctx.toString(16)}`),
		'a line says the stream shows one context', line);
	const rows = await page.waitForFunction((id) => {
		const items = [...document.querySelectorAll('#context-list li.context')];
		const others = items.filter((e) => e.dataset.ctx !== String(id) && e.dataset.ctx !== 'idle');
		return others.length && others.every((e) => e.classList.contains('greyed')) &&
			items.some((e) => e.dataset.ctx === String(id) && e.classList.contains('selected')) &&
			items.map((e) => `${e.dataset.ctx}${e.classList.contains('greyed') ? ' (greyed)' : ''}`);
	}, ctx, { timeout: 5000 }).then((h) => h.jsonValue(), () => null);
	checks.check(rows !== null, 'the context list keeps the other contexts, greyed',
		rows?.join() ?? await page.$$eval('#context-list li.context', (els) =>
			els.map((e) => `${e.dataset.ctx} ${e.className}`).join(', ')));
	await page.screenshot({ path: join(out, 'ui-context-filter.png') });
	await page.click('#context-filter-clear');
	const widened = await page.waitForFunction(() => {
		const ui = window.gpuperfUi, store = ui.store;
		return ui.stream.contextId === null && store.sinceChange > 0 &&
			new Set(store.contexts.slice(store.length - store.sinceChange).flat()
				.map(([c]) => c)).size > 1;
	}, null, { timeout: 8000 }).then(() => true, () => false);
	checks.check(widened, 'Show all contexts streams every context again',
		(await storedContexts(page)).join());
	checks.check(!await page.isVisible('#context-filter'), 'the filter line goes with the filter');
}

async function secondClient(context, url, page) {
	const other = await openPage(context, url, 'second client');
	await connected(other);
	await other.click('[data-set="MemoryL3"]');
	const seen = await page.waitForFunction(() =>
		window.gpuperfUi.stream.metricSet?.symbol === 'MemoryL3', null, { timeout: 5000 })
		.then(() => true, () => false);
	checks.check(seen, 'a metric set switched by a second client is reflected');
	checks.check(await page.isVisible('.set.selected[data-set="MemoryL3"]'),
		'the picker shows the set the other client chose');
	const notice = await page.textContent('#notices');
	checks.check(notice.includes('Another client reconfigured'),
		'a notice says another client changed the configuration', notice);
	await other.close();
}

// A daemon stopped for a second while sampling every 6.7 µs (38 MB/s)
// finds its simulated 16 MiB OA buffer overflowed, as a real one would:
// the loss must show in the top bar and on the timeline. A stop that
// found the buffer not yet full (the period not yet applied by the
// simulated unit) is made again, longer.
async function lossShown(page, daemon) {
	const normal = await page.evaluate(() => window.gpuperfUi.stream.periodNs);
	await page.selectOption('#period-picker', '6667');
	await page.waitForFunction(() => window.gpuperfUi.stream.periodNs === 6667, null, { timeout: 5000 });
	await moreFrames(page);
	let lost = false;
	for (let stopMs = 1200; !lost && stopMs <= 9600; stopMs *= 2) {
		process.kill(daemon.pid, 'SIGSTOP');
		await new Promise((resolve) => setTimeout(resolve, stopMs));
		process.kill(daemon.pid, 'SIGCONT');
		lost = await page.waitForFunction(() => window.gpuperfUi.store.totals.bufferLost > 0,
			null, { timeout: 5000 }).then(() => true, () => false);
	}
	checks.check(lost, 'an overflowing OA buffer is counted');
	checks.check(await page.waitForSelector('#loss-counts .alert', { state: 'visible', timeout: 5000 })
		.then(() => true, () => false), 'the top bar shows the loss');
	const marked = await page.waitForFunction(() =>
		window.gpuperfUi.plots.timeline.u.data[2].some((v) => v > 0), null, { timeout: 5000 })
		.then(() => true, () => false);
	checks.check(marked, 'the timeline marks the windows that lost data');
	await page.selectOption('#period-picker', String(normal));
	await page.waitForFunction((ns) => window.gpuperfUi.stream.periodNs === ns, normal, { timeout: 5000 });
}

// The recording made by recordOnTigerLake, replayed by a daemon of its own.
async function replay(context, recording) {
	if (!existsSync(recording)) {
		checks.skip('replaying the recording the page made', `${recording}, which the recording part makes`);
		return;
	}
	const daemon = await startDaemon('replay', ['--device', `replay:${recording}`,
		'--metrics-dir', I915_METRICS, '--linger', '0', '--listen', '127.0.0.1:0',
		'--web-root', WEB_ROOT], out);
	daemons.push(daemon);
	const page = await openPage(context, daemon.urls['127.0.0.1'], 'replay');
	await connected(page);
	checks.check(await page.isVisible('#banner[data-kind="replay"]'), 'a banner says the device replays a recording');
	checks.check(await page.isDisabled('#period-picker'), 'a replay\'s period cannot be changed');
	const saySo = await page.waitForFunction(() => {
		const button = document.querySelector('#snapshot-save');
		return button?.disabled && /replay0 keeps no flight recorder: start gpuperfd with --flight-recorder/
			.test(button.title);
	}, null, { timeout: 5000 }).then(() => true, () => false);
	checks.check(saySo, 'Save last says why a device without a flight recorder cannot save',
		await page.getAttribute('#snapshot-save', 'title'));
	const ended = await page.waitForSelector('#notices .notice[data-key="unit-replay0"]',
		{ timeout: 10000 }).then(() => true, () => false);
	checks.check(ended, 'the end of the replay is shown as it happens');
	await page.screenshot({ path: join(out, 'ui-replay.png') });
	await page.close();
}

// gpuperfd --device sim:amd: the banner says that live SPM is simulated,
// why, and what works on a real AMD GPU; the page streams the SPM
// counters of the simulated unit.
async function simulatedAmd(context) {
	const daemon = await startDaemon('amd', ['--device', 'sim:amd', '--linger', '0',
		'--listen', '127.0.0.1:0', '--web-root', WEB_ROOT], out);
	daemons.push(daemon);
	const page = await openPage(context, daemon.urls['127.0.0.1'], 'amd');
	await connected(page);
	const streams = await streaming(page, 'Overview').then(() => true, () => false);
	checks.check(streams, 'the page streams the simulated AMD GPU\'s Overview set');
	const banner = await page.isVisible('#banner[data-kind="sim"]') ?
		await page.textContent('#banner') : '';
	checks.check(/simulated/i.test(banner) && /SPM/.test(banner) &&
		/kernel offers a daemon no SPM interface/.test(banner) &&
		/usage view/.test(banner) && /RGP captures/.test(banner),
	'the banner of sim:amd says live SPM is simulated, why, and what a real AMD GPU gives',
	banner || 'no banner');
	const symbols = await page.$$eval('#counter-list .counter', (els) =>
		els.map((e) => e.dataset.symbol));
	checks.check(['GpuBusy', 'ValuInstructions', 'L2HitRate'].every((s) => symbols.includes(s)),
		'the counter list holds the SPM counters', symbols.join(', '));
	const format = await page.$eval('#record-format', (select) => {
		const igt = select.querySelector('option[value="i915perf"]');
		return { value: select.value, disabled: igt.disabled, title: igt.title };
	});
	checks.check(format.value === 'perfetto' && format.disabled &&
		/not an Intel GPU/.test(format.title),
	'Record offers only the Perfetto trace for the AMD GPU, and says why not IGT\'s format',
	JSON.stringify(format));
	await page.screenshot({ path: join(out, 'ui-sim-amd.png') });
	await page.close();
}

// gpuperfd on a fake Tiger Lake: tests/fake-kernel, preloaded, stands in
// for i915 and fails as its control file says, so that the page meets what
// the sim device never sends: the device lost in a GPU reset and
// recovered, the OA unit busy in another process, a subscription refused
// for that. The machine and the daemon's environment are those of
// tests/integration/test-fake-kernel.sh.
async function deviceNotices(context) {
	const fakeKernel = absolutePath(buildDir(), 'tests', 'libfake-kernel.so');
	const missing = [fakeKernel, join(I915_METRICS, 'oa-tglgt2.xml')].filter((f) => !existsSync(f));
	if (missing.length) {
		checks.skip('the device lost, recovered and busy notices', missing.join(', '));
		return;
	}
	const root = join(tmp, 'fake-machine');
	const node = join(root, 'dev', 'dri', 'card0');
	const controlFile = join(tmp, 'fake-kernel-control');
	const socket = join(tmp, 'fake-kernel.sock');
	writeFileSync(controlFile, '');
	// The fake kernel reads its control file again once it is another
	// file, so each change is written aside and renamed over it.
	const control = (...settings) => {
		writeFileSync(`${controlFile}.new`, settings.map((s) => `${s}\n`).join(''));
		renameSync(`${controlFile}.new`, controlFile);
	};
	// A daemon built with ASan needs its runtime first among preloaded
	// libraries.
	const asan = execFileSync('ldd', [join(buildDir(), 'gpuperfd')], { encoding: 'utf8' })
		.match(/\slibasan\S*\s+=>\s+(\S+)/)?.[1];
	const env = {
		LD_PRELOAD: asan ? `${asan} ${fakeKernel}` : fakeKernel,
		GPD_FAKE_KERNEL_ROOT: root,
		GPD_FAKE_KERNEL_CARDS: 'i915:tglgt2',
		GPD_FAKE_KERNEL_METRICS: I915_METRICS,
		GPD_FAKE_KERNEL_SETS: '',
		GPD_FAKE_KERNEL_LOG: `${root}.requests`,
		GPD_FAKE_KERNEL_CONTROL: controlFile,
	};
	const daemon = await startDaemon('fake-kernel', ['--dev-root', join(root, 'dev'),
		'--sysfs-root', join(root, 'sys'), '--metrics-dir', I915_METRICS,
		'--device', `i915:${node}`, '--linger', '0', '--listen', '127.0.0.1:0',
		'--unix', socket, '--web-root', WEB_ROOT, '--log-level', 'debug'], out, env);
	daemons.push(daemon);
	const url = daemon.urls['127.0.0.1'];
	const errors = [];
	const page = await context.newPage();
	watchConsole(page, 'fake kernel', errors);
	await page.goto(url);
	await connected(page);
	const frames = () => page.evaluate(() => window.gpuperfUi.store.length);
	const framesFlow = (more, timeout = 8000) => frames().then((from) =>
		page.waitForFunction((n) => window.gpuperfUi.store.length >= n, from + more,
			{ timeout }).then(() => true, () => false));
	checks.check(await framesFlow(5) &&
		await page.evaluate(() => window.gpuperfUi.stream.device?.name) === 'card0',
	'the page streams card0 of the fake kernel');
	const policy = await page.textContent('#context-policy');
	checks.check(policy.includes('the kernel then streams that context alone') &&
		!await page.isVisible('#single-context'),
	'on i915 the context panel tells of the kernel\'s filter an application can ask for', policy);
	// Every notice as it is added: a lost device may be back before a
	// look at the list would find its notice.
	await page.evaluate(() => {
		window.noticesAdded = [];
		new MutationObserver((changes) => {
			for (const added of changes.flatMap((c) => [...c.addedNodes]))
				window.noticesAdded.push({ level: added.classList[1], key: added.dataset.key,
					text: added.querySelector('.text').textContent });
		}).observe(document.querySelector('#notices'), { childList: true });
	});
	const noticesAdded = () => page.evaluate(() => window.noticesAdded);
	const unitNotices = () => page.$$eval('#notices .notice[data-key="unit-card0"]',
		(els) => els.map((e) => `${e.classList[1]}: ${e.querySelector('.text').textContent}`));
	// The daemon's words (daemon/drm/oa_reopen.c and oa_refusal.c), with
	// the device named once.
	// Neither kernel tells a stream of a GPU reset: the silence shows it.
	const LOST = new RegExp('^card0: the OA unit wrote no report for \\d+ ms while sampling: ' +
		'a GPU reset drops its programming and the kernel does not tell the stream ' +
		'\\(the kernel log says so\\); reopening$');
	const RECOVERED = /^card0: OA stream reopened after \d+ ms; the reports in between are lost$/;
	const BUSY_WORDS = 'the OA unit of card0 is in use by another process';
	const recovered = (count, timeout) => page.waitForFunction(([pattern, n]) =>
		window.noticesAdded.filter((a) => new RegExp(pattern).test(a.text)).length >= n,
	[RECOVERED.source, count], { timeout }).then(() => true, () => false);

	// A GPU reset: the OA unit stops writing reports, the daemon notices
	// the silence and reopens.
	const lostBefore = await page.evaluate(() => window.gpuperfUi.store.totals.bufferLost);
	control('gpu_reset=1');
	const lostShown = await page.waitForFunction((pattern) =>
		window.noticesAdded.some((a) => new RegExp(pattern).test(a.text)), LOST.source,
	{ timeout: 8000 }).then(() => true, () => false);
	control();
	const back = await recovered(1, 8000);
	let added = await noticesAdded();
	const lost = added.find((a) => LOST.test(a.text));
	checks.check(lostShown && lost.level === 'error' && lost.key === 'unit-card0',
		'a device lost in a GPU reset is shown as an error in the daemon\'s words',
		JSON.stringify(lost ?? added));
	const recoveredAt = added.findIndex((a) => RECOVERED.test(a.text));
	checks.check(back && lost && recoveredAt > added.indexOf(lost) && added[recoveredAt].level === 'info',
		'the recovery is shown after it, as information', JSON.stringify(added));
	checks.check((await unitNotices()).length === 0, 'the lost device\'s notice goes once it streams again',
		(await unitNotices()).join(' | '));
	checks.check(await framesFlow(5), 'frames flow again after the recovery');
	const lostAfter = await page.evaluate(() => window.gpuperfUi.store.totals.bufferLost);
	checks.check(lostAfter > lostBefore, 'the reports missed while it was lost are counted as lost',
		`${lostBefore} then ${lostAfter}`);

	// A GPU reset, and another process takes the OA unit before the
	// daemon has it back: each reopen meets EBUSY until that process ends.
	control('gpu_reset=1', 'busy=1');
	const busyShown = await page.waitForSelector('#notices .notice.warning[data-key="unit-card0"]',
		{ timeout: 8000 }).then(() => true, () => false);
	added = await noticesAdded();
	const busyAdded = added.findLastIndex((a) => a.text.startsWith(`card0: ${BUSY_WORDS}`));
	const busy = added[busyAdded];
	checks.check(busyShown && busy?.key === 'unit-card0' &&
		busy.text.includes(`'fuser -v ${node}' shows who holds the card`),
		'the OA unit busy in another process is shown as a warning in the daemon\'s words',
		JSON.stringify(busy ?? added));
	checks.check(LOST.test(added[busyAdded - 1]?.text ?? '') && (await unitNotices()).length === 1,
		'the busy notice takes the place of the lost device\'s', (await unitNotices()).join(' | '));
	const whileBusy = await frames();
	await page.waitForTimeout(1000);
	checks.check(await frames() === whileBusy && (await unitNotices()).length === 1,
		'the busy notice stays while no frames come', `${whileBusy} then ${await frames()} frames`);
	await page.screenshot({ path: join(out, 'ui-device-busy.png') });
	control();
	// The daemon retries with backoff: 100 ms, doubling up to 5 s.
	checks.check(await recovered(2, 10000), 'the device is back once the other process lets go');
	checks.check((await unitNotices()).length === 0, 'the busy notice goes once the device streams again',
		(await unitNotices()).join(' | '));
	checks.check(await framesFlow(5), 'frames flow again after the unit was busy');

	// With no subscriber left the daemon closes the stream (--linger 0);
	// a page that opens while another process holds the unit is refused.
	const closes = () => readFileSync(daemon.log, 'utf8').split('card0: stream closed').length;
	const closesBefore = closes();
	await page.close();
	checks.check(await waitUntil(() => closes() > closesBefore, 5000),
		'the daemon closes the stream once the page has gone');
	control('busy=1');
	const refused = await context.newPage();
	watchConsole(refused, 'fake kernel, busy', errors);
	await refused.goto(url);
	await connected(refused);
	const refusal = await refused.waitForFunction((start) => [...document
		.querySelectorAll('#notices .notice.error .text')].map((e) => e.textContent)
		.find((text) => text.startsWith(start)), `subscribing to card0: ${BUSY_WORDS}`,
	{ timeout: 8000 }).then((found) => found.jsonValue(), () => '');
	checks.check(refusal.includes(`'fuser -v ${node}'`) && refusal.includes('subscribe again'),
		'a subscription refused for a busy unit is an error notice in the daemon\'s words',
		refusal || (await refused.textContent('#notices')));
	checks.check(await refused.evaluate(() => window.gpuperfUi.store.length) === 0,
		'the refused page streams nothing');
	control();
	await refused.click('[data-set="RenderBasic"]');
	const resubscribed = await refused.waitForFunction(() => {
		const ui = window.gpuperfUi;
		return ui.stream.metricSet?.symbol === 'RenderBasic' && ui.store.length >= 3;
	}, null, { timeout: 8000 }).then(() => true, () => false);
	checks.check(resubscribed, 'picking a metric set subscribes again once the unit is free');
	const closesBeforeRefused = closes();
	await refused.close();

	// Another process's application context holds the unit: a shell opens
	// card0 as its fd 3 and execs `gpuperf stream --drm-fd 3 --context 0`
	// (the file's default context), as an application would hand its own.
	// A page opened meanwhile says so, and streams nothing.
	checks.check(await waitUntil(() => closes() > closesBeforeRefused, 5000),
		'the daemon closes the stream once the refused page has gone');
	const requestsBefore = readFileSync(`${root}.requests`, 'utf8').length;
	const contextStream = spawn('/bin/sh', ['-c', 'exec 3<"$1"; shift; exec "$@"', 'sh', node,
		absolutePath(buildDir(), 'gpuperf'), '--unix', socket, 'stream', '--drm-fd', '3',
		'--context', '0', '-m', 'RenderBasic', '-c', 'GpuTime', '-i', '100ms'],
	{ stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
	let contextStreamErr = '';
	contextStream.stderr.on('data', (d) => { contextStreamErr += d; });
	const contextStreamEnded = new Promise((resolve) =>
		contextStream.on('exit', (code, signal) => resolve(signal ? 128 : code)));
	const contextOpened = await waitUntil(() => /PERF_OPEN .*CTX_HANDLE=0 .*-> \d+$/m
		.test(readFileSync(`${root}.requests`, 'utf8').slice(requestsBefore)), 10000);
	checks.check(contextOpened, 'another process streams its own context through its DRM file',
		contextStreamErr);
	const onlooker = await context.newPage();
	watchConsole(onlooker, 'fake kernel, single context', errors);
	await onlooker.goto(url);
	await connected(onlooker);
	const singleContext = await onlooker.waitForSelector('#single-context:not([hidden])',
		{ timeout: 8000 }).then((e) => e.textContent(), () => '');
	checks.check(singleContext.startsWith('card0 streams one application\'s context') &&
		singleContext.includes('takes no other subscription'),
	'a page opened while another process\'s context stream holds the unit says so',
	singleContext || await onlooker.textContent('#context-policy'));
	await onlooker.screenshot({ path: join(out, 'ui-single-context.png') });
	checks.check(await onlooker.evaluate(() => window.gpuperfUi.store.length) === 0,
		'the page gets none of that context\'s frames');
	await onlooker.close();
	contextStream.kill('SIGINT');
	checks.check(await contextStreamEnded === 0, 'the context stream ends cleanly', contextStreamErr);
	checks.check(errors.length === 0, 'the device notices log no console error',
		errors.join('\n  | '));
	const status = await daemon.stop();
	daemons.splice(daemons.indexOf(daemon), 1);
	checks.check(status === 0, 'gpuperfd on the fake kernel stops cleanly', `status ${status}, see ${daemon.log}`);
}

// Polls condition() (which may return a promise) every 100 ms until it
// holds (true) or timeout ms pass (false).
async function waitUntil(condition, timeout) {
	for (const until = Date.now() + timeout; Date.now() < until;) {
		if (await condition())
			return true;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return !!await condition();
}

// Resolves once the page's store holds more frames than now.
async function moreFrames(page, more = 3, timeout = 8000) {
	const from = await page.evaluate(() => window.gpuperfUi.store.length);
	return page.waitForFunction((n) => window.gpuperfUi.store.length >= n, from + more,
		{ timeout }).then(() => true, () => false);
}

async function recordOnTigerLake(page) {
	rmSync(join(out, 'recording.i915perf'), { force: true });
	const missing = [READER, I915_METRICS].filter((f) => !existsSync(f));
	if (missing.length) {
		checks.skip('a recording i915-perf-reader accepts', `${missing.join(', ')} (make deps)`);
		return;
	}
	await page.selectOption('#device-picker', 'sim1');
	await page.waitForFunction(() => window.gpuperfUi.stream.device?.name === 'sim1' &&
		window.gpuperfUi.store.length > 2, null, { timeout: 8000 });
	await page.click('#record-toggle');
	await page.waitForFunction(() => /recorded/.test(document.querySelector('#record-status').textContent),
		null, { timeout: 5000 });
	// Some frames' worth of reports in the file before it stops.
	await moreFrames(page, 5);
	const [download] = await Promise.all([page.waitForEvent('download'), page.click('#record-toggle')]);
	const path = join(out, 'recording.i915perf');
	await download.saveAs(path);
	checks.check(download.suggestedFilename().endsWith('.i915perf'),
		'the recording downloads as an .i915perf file', download.suggestedFilename());
	const reader = spawnSync(READER, [path], { encoding: 'utf8' });
	checks.check(reader.status === 0 && /^Reports: [1-9]/m.test(reader.stdout),
		'i915-perf-reader accepts the downloaded recording',
		`${reader.status} ${(reader.stdout + reader.stderr).slice(0, 300)}`);
	await recordPerfettoTrace(page);
	await page.selectOption('#device-picker', 'sim0');
	await page.waitForFunction(() => window.gpuperfUi.stream.device?.name === 'sim0', null,
		{ timeout: 5000 });
}

// Save last N s fetches what the flight recorder holds of the last seconds
// as i915-perf recordings; a device without a recorder says why the
// button cannot be used.
async function saveLastSeconds(page) {
	const missing = [READER, I915_METRICS].filter((f) => !existsSync(f));
	if (missing.length) {
		checks.skip('a snapshot i915-perf-reader accepts', `${missing.join(', ')} (make deps)`);
		return;
	}
	await page.selectOption('#device-picker', 'sim1');
	await page.waitForFunction(() => window.gpuperfUi.stream.device?.name === 'sim1' &&
		window.gpuperfUi.store.length > 2, null, { timeout: 8000 });
	await page.fill('#snapshot-seconds', '2');
	const [download] = await Promise.all([page.waitForEvent('download'),
		page.click('#snapshot-save')]);
	const path = join(out, 'snapshot.i915perf');
	await download.saveAs(path);
	checks.check(/^gpuperf-sim1-last2s-.*\.i915perf$/.test(download.suggestedFilename()),
		'the snapshot downloads as an .i915perf file', download.suggestedFilename());
	const reader = spawnSync(READER, [path], { encoding: 'utf8' });
	checks.check(reader.status === 0 && /^Reports: [1-9]/m.test(reader.stdout),
		'i915-perf-reader accepts the downloaded snapshot',
		`${reader.status} ${(reader.stdout + reader.stderr).slice(0, 300)}`);
	checks.check(/^saved gpuperf-sim1-last2s-/.test(
		await page.textContent('#snapshot-status')), 'the page says what it saved',
		await page.textContent('#snapshot-status'));
	await page.selectOption('#device-picker', 'sim0');
	await page.waitForFunction(() => window.gpuperfUi.stream.device?.name === 'sim0', null,
		{ timeout: 5000 });
}

// Record, with the Perfetto format chosen, saves a trace that decodes with
// Perfetto's own schema and means what it should (tests/perfetto), with
// the device's usage (engines, clocks, power, processes) on tracks of
// their own beside the counters, as gpuperf record --format perfetto.
async function recordPerfettoTrace(page) {
	const traceCheck = join(buildDir(), 'tests', 'trace-check');
	const schema = join(SHARED, 'perfetto', 'perfetto_trace.proto');
	await page.selectOption('#record-format', 'perfetto');
	await page.click('#record-toggle');
	await page.waitForFunction(() => /recorded/.test(document.querySelector('#record-status').textContent),
		null, { timeout: 5000 });
	await page.waitForFunction(() => window.gpuperfUi.store.length > 8, null, { timeout: 5000 });
	const [download] = await Promise.all([page.waitForEvent('download'), page.click('#record-toggle')]);
	await page.selectOption('#record-format', 'i915perf');
	const path = join(out, 'recording.perfetto-trace');
	await download.saveAs(path);
	checks.check(download.suggestedFilename().endsWith('.perfetto-trace'),
		'the trace downloads as a .perfetto-trace file', download.suggestedFilename());
	const expand = spawnSync(traceCheck, ['expand', path, `${path}.plain`], { encoding: 'utf8' });
	const decode = expand.status === 0 && spawnSync('protoc', ['--decode=perfetto.protos.Trace',
		'-I', join(SHARED, 'perfetto'), schema], { input: readFileSync(`${path}.plain`),
		encoding: 'utf8', maxBuffer: 1 << 28 });
	checks.check(decode && decode.status === 0 && !decode.stderr,
		'the trace decodes with Perfetto\'s schema',
		`${expand.stderr}${decode ? decode.stderr.slice(0, 300) : ''}`);
	if (!decode || decode.status !== 0)
		return;
	writeFileSync(`${path}.txt`, decode.stdout);
	const verify = spawnSync(traceCheck, ['verify', `${path}.txt`], { encoding: 'utf8' });
	checks.check(verify.status === 0 && /[1-9][0-9]* windows/.test(verify.stdout) &&
		/\(with BOOTTIME\)/.test(verify.stdout) && /track GPU contexts/.test(verify.stdout),
		'the trace holds counter windows, contexts and BOOTTIME, and means what it should',
		`${verify.stdout.split('\n')[0]} ${verify.stderr.slice(0, 300)}`);
	const usageTracks = ['usage', 'interval', 'frequency', 'RC6', 'power', 'engines',
		'rcs0 busy', 'processes'];
	const missing = usageTracks.filter((t) => !verify.stdout.split('\n').includes(`track ${t}`));
	checks.check(verify.status === 0 && !missing.length && /, 2 sequences$/m.test(verify.stdout),
		'the trace has the device\'s usage tracks, on a sequence beside the counters\'',
		`missing: ${missing.join(', ')}; ${verify.stdout.split('\n')[0]}`);
}

async function smoothAt100Fps(page) {
	await page.click('[data-set="RenderBasic"]');
	await streaming(page, 'RenderBasic', 1);
	// The new window is a new subscription: the counter list is made anew
	// when it is granted, so the clicks wait for that, not for a time.
	// At 100 frames a second a loaded machine's page falls behind: the
	// deadlines here only bound a hang.
	const subscription = await page.evaluate(() => window.gpuperfUi.stream.subscriptionId);
	await page.selectOption('#window-picker', String(10e6));
	await page.waitForFunction((old) => {
		const ui = window.gpuperfUi;
		return ui.stream.windowNs === 10e6 && ui.stream.subscriptionId !== old &&
			ui.store.sinceChange > 20;
	}, subscription, { timeout: 30000 });
	await page.click('#clear-plots');
	const symbols = await page.$$eval('#counter-list .counter', (els) => els.slice(0, 20).map((e) => e.dataset.symbol));
	// Each click rebuilds every chart: the next waits until it has. The
	// click is the element's own: Playwright's waits for the list to hold
	// still, which a loaded machine's page, drawing 100 frames a second,
	// did not do within 30 s.
	for (const [k, symbol] of symbols.entries()) {
		await page.$eval(`#counter-list .counter[data-symbol="${symbol}"]`, (e) => e.click());
		await page.waitForFunction((n) => window.gpuperfUi.plots.selected.size === n &&
			document.querySelectorAll('#charts .chart').length > 0, k + 1, { timeout: 30000 });
	}
	const plotted = await page.evaluate(() => window.gpuperfUi.plots.selected.size);
	checks.check(plotted === 20, '20 counters are plotted', `${plotted}`);
	await page.selectOption('#group-picker', 'counter');
	const perCounter = await page.waitForFunction(() =>
		document.querySelectorAll('#charts .chart').length === 20 && 20, null,
	{ timeout: 30000 }).then((h) => h.jsonValue(),
		() => page.$$eval('#charts .chart', (els) => els.length));
	if (perCounter === 20)
		await chartsOutOfView(page);
	await page.selectOption('#group-picker', 'unit');
	const perUnit = await page.waitForFunction(() => {
		const n = document.querySelectorAll('#charts .chart').length;
		return n > 0 && n < 20 && n;
	}, null, { timeout: 30000 }).then((h) => h.jsonValue(),
		() => page.$$eval('#charts .chart', (els) => els.length));
	checks.check(perCounter === 20 && perUnit < 20,
		'charts go one per counter or one per unit', `${perCounter} and ${perUnit}`);
	await page.screenshot({ path: join(out, 'ui-100fps-20-plots.png'), fullPage: true });
}

// With 20 charts most are below the window: those far out of view are not
// drawn while frames arrive (each costs as much as one in view), and one
// scrolled into view shows the newest frames before the page has drawn
// three animation frames.
async function chartsOutOfView(page) {
	const animationFrames = (n) => page.evaluate((count) => new Promise((resolve) => {
		const next = (left) => (left ? requestAnimationFrame(() => next(left - 1)) : resolve());
		next(count);
	}), n);
	const shown = () => page.evaluate(() => {
		const charts = window.gpuperfUi.plots.charts;
		const last = charts[charts.length - 1];
		return { first: charts[0].u.scales.x.max, last: last.u.scales.x.max,
			below: last.element.getBoundingClientRect().top / innerHeight,
			newest: window.gpuperfUi.store.lastTime() };
	});
	await animationFrames(3);
	const before = await shown();
	await moreFrames(page, 20);
	await animationFrames(1);
	const after = await shown();
	checks.check(before.below > 1.5 && after.first > before.first && after.last === before.last,
		'a chart far below the window is not drawn while frames arrive',
		`last chart ${before.below.toFixed(1)} windows down; first chart to ` +
		`${before.first} then ${after.first}, last ${before.last} then ${after.last}`);
	await page.evaluate(() => {
		const charts = window.gpuperfUi.plots.charts;
		charts[charts.length - 1].element.scrollIntoView();
	});
	const scrolled = (await shown()).newest;
	await animationFrames(3);
	const seen = await shown();
	checks.check(seen.last >= scrolled,
		'a chart scrolled into view shows the newest frames at once',
		`drawn up to ${seen.last}, newest frame when scrolled ${scrolled}`);
	await page.evaluate(() => window.scrollTo(0, 0));
}

async function viewer(browserContext, url) {
	const page = await openPage(browserContext, `${url}?token=viewtok-0123456789abcdefghij`, 'viewer');
	await connected(page);
	await page.waitForFunction(() => window.gpuperfUi.store.length > 2, null, { timeout: 5000 });
	checks.check(await page.textContent('#role') === 'viewer', 'a viewer token connects as a viewer');
	checks.check(await page.isVisible('#role-note'), 'the viewer is told why it cannot reconfigure',
		await page.textContent('#role-note'));
	checks.check(await page.isDisabled('#period-picker'), 'the viewer\'s period picker is disabled');
	const sets = await page.$$eval('#set-list button.set:not(.selected)', (els) => ({
		listed: els.length, enabled: els.filter((e) => !e.disabled).length,
	}));
	checks.check(sets.listed > 0 && sets.enabled === 0, 'the viewer\'s metric set choices are disabled',
		`${sets.enabled} of ${sets.listed} other sets enabled`);
	checks.check(!await page.isDisabled('#window-picker'), 'the viewer may still pick its window');
	await page.waitForSelector('#process-rows tr', { timeout: 8000 });
	const hidden = await page.$$eval('#process-rows tr td:nth-child(2)', (els) => els.map((e) => e.textContent));
	checks.check(hidden.length > 0 && hidden.every((c) => c === '(hidden)'),
		'a viewer sees the processes without their pids and commands', hidden.join(', '));
	checks.check((await page.textContent('#process-note')).includes('controllers only'),
		'and is told why');
	await page.screenshot({ path: join(out, 'ui-viewer.png'), fullPage: true });
	await page.close();
}

async function tokenPrompt(context, url, local) {
	const refused = await openPage(context, `${local}?token=wrong`, 'wrong token');
	const reason = await refused.waitForSelector('#token-dialog[open]', { timeout: 5000 })
		.then(() => refused.textContent('#token-reason'), () => '');
	checks.check(/token/.test(reason), 'a refused token prompts again with the server\'s reason', reason);
	checks.check(await refused.textContent('#connection') === 'token refused',
		'the top bar says the token was refused');
	await refused.close();
	const page = await openPage(context, url, 'token prompt');
	const asked = await page.waitForSelector('#token-dialog[open]', { timeout: 5000 }).then(() => true, () => false);
	checks.check(asked, 'an address that needs a token prompts for one');
	if (asked) {
		await page.screenshot({ path: join(out, 'ui-token-prompt.png') });
		await page.fill('#token-input', 'ctltok-0123456789abcdefghijk');
		await page.press('#token-input', 'Enter');
		await connected(page);
		checks.check(await page.textContent('#role') === 'controller',
			'the token entered connects with its role');
	}
	await page.close();
}

async function darkAndNarrow(context, url) {
	const page = await openPage(context, url, 'dark narrow');
	await connected(page);
	await page.waitForFunction(() => window.gpuperfUi.store.length > 5, null, { timeout: 5000 });
	await page.click('#counter-list .counter:nth-child(1)');
	await page.waitForSelector('#charts .chart canvas', { timeout: 5000 });
	await moreFrames(page);
	const { overflow, background } = await page.evaluate(() => ({
		overflow: document.documentElement.scrollWidth - window.innerWidth,
		background: getComputedStyle(document.body).backgroundColor,
	}));
	checks.check(overflow <= 0, 'a narrow window needs no horizontal scrolling', `${overflow} px too wide`);
	checks.check(background === 'rgb(13, 17, 23)', 'a dark colour scheme gets the dark theme', background);
	await page.screenshot({ path: join(out, 'ui-dark-narrow.png'), fullPage: true });
	await page.click('#theme-toggle');
	const chosen = await page.evaluate(() => ({
		label: document.querySelector('#theme-toggle').textContent,
		background: getComputedStyle(document.body).backgroundColor,
	}));
	checks.check(chosen.label === 'Scheme: light' && chosen.background === 'rgb(246, 247, 249)',
		'the scheme toggle overrides the system\'s dark preference', JSON.stringify(chosen));
	await page.close();
}

// A port nobody listens on now, for a daemon that has to come back on it.
function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

// The daemon restarts under an open page: the page says it lost the
// daemon, keeps trying, and streams again on its own once it is back.
async function daemonRestart(context) {
	const port = await freePort();
	const args = ['--device', 'sim', '--linger', '0', '--listen', `127.0.0.1:${port}`,
		'--web-root', WEB_ROOT];
	let daemon = await startDaemon('restart', args, out);
	daemons.push(daemon);
	const page = await context.newPage();
	const errors = [];
	watchConsole(page, 'restart', errors);
	await page.goto(daemon.urls['127.0.0.1']);
	await connected(page);
	await page.waitForFunction(() => window.gpuperfUi.store.length > 2, null, { timeout: 5000 });
	const status = await daemon.stop();
	daemons.splice(daemons.indexOf(daemon), 1);
	checks.check(status === 0, 'the first daemon stops cleanly', `status ${status}`);
	const lost = await page.waitForSelector('#connection[data-state="closed"]', { timeout: 5000 })
		.then(() => true, () => false);
	checks.check(lost, 'the page notices the daemon is gone');
	const notice = await page.textContent('#notices');
	checks.check(notice.includes('Not connected to gpuperfd'),
		'a notice says the page is not connected and retries', notice);
	const before = await page.evaluate(() => window.gpuperfUi.store.length);
	daemon = await startDaemon('restart-again', args, out);
	daemons.push(daemon);
	const back = await page.waitForFunction((n) => {
		const ui = window.gpuperfUi;
		return ui.connection.state === 'open' && ui.store.length > 2 && ui.store.length !== n;
	}, before, { timeout: 15000 }).then(() => true, () => false);
	checks.check(back, 'the page reconnects and streams again by itself');
	checks.check(!(await page.textContent('#notices')).includes('Not connected'),
		'the connection notice goes once it is back');
	// Chromium logs each refused WebSocket connection; anything else counts.
	const unexpected = errors.filter((e) => !/WebSocket connection to .* failed/.test(e));
	checks.check(unexpected.length === 0, 'the restart logs no other console error',
		unexpected.join('\n  | '));
	await page.close();
}

async function overTls(context) {
	execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
		'-nodes', '-keyout', join(tmp, 'key.pem'), '-out', join(tmp, 'cert.pem'), '-days', '2',
		'-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
	{ stdio: 'ignore' });
	const tls = await startDaemon('tls', ['--device', 'sim', '--linger', '0',
		'--listen', '127.0.0.1:0', '--web-root', WEB_ROOT,
		'--tls-cert', join(tmp, 'cert.pem'), '--tls-key', join(tmp, 'key.pem')], out);
	daemons.push(tls);
	const page = await openPage(context, tls.urls['127.0.0.1'], 'tls');
	await connected(page);
	const streams = await page.waitForFunction(() => window.gpuperfUi.store.length > 2, null,
		{ timeout: 5000 }).then(() => true, () => false);
	checks.check(streams, 'the page streams over TLS', tls.urls['127.0.0.1']);
	await page.close();
}

// Another site's page, served by a second HTTP server on another loopback
// port, opens the daemon's WebSocket as any page a user visits could:
// the daemon refuses it.
async function foreignPage(context, local) {
	const daemon = new URL(local);
	const site = createHttpServer((request, response) => {
		response.writeHead(200, { 'content-type': 'text/html' });
		response.end(`<!DOCTYPE html><title>another site</title><script>
window.attempt = new Promise((resolve) => {
	const ws = new WebSocket('ws://${daemon.host}/ws', 'gpuperf.v1');
	ws.onmessage = () => resolve('the daemon sent a message');
	ws.onerror = () => resolve('refused');
	ws.onclose = (event) => resolve('closed ' + event.code);
});
</script>`);
	});
	await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
	try {
		const page = await context.newPage();
		await page.goto(`http://127.0.0.1:${site.address().port}/`);
		const attempt = await page.evaluate(() => window.attempt);
		checks.check(attempt === 'refused',
			'a page of another origin cannot open the daemon\'s WebSocket', attempt);
		await page.close();
	} finally {
		site.close();
	}
}

// A name the daemon does not answer to, resolved to it as an attacker's
// DNS would (rebinding): the daemon refuses its pages and WebSockets.
async function reboundName(local) {
	const daemon = new URL(local);
	const rebinding = await launchBrowser(['--host-resolver-rules=MAP rebound.test 127.0.0.1']);
	try {
		const page = await rebinding.newPage();
		const response = await page.goto(`http://rebound.test:${daemon.port}/`);
		checks.check(response.status() === 421,
			'a page loaded through a rebound name is refused', `status ${response.status()}`);
		const attempt = await page.evaluate((port) => new Promise((resolve) => {
			const ws = new WebSocket(`ws://rebound.test:${port}/ws`, 'gpuperf.v1');
			ws.onmessage = () => resolve('the daemon sent a message');
			ws.onerror = () => resolve('refused');
		}), daemon.port);
		checks.check(attempt === 'refused', 'a WebSocket through a rebound name is refused', attempt);
	} finally {
		await rebinding.close();
	}
}

// The UI through a LAN address of this machine, on the listener that needs
// a token: its own page is of its own origin and streams.
async function lanAddress(context, remotePort) {
	const lan = Object.values(networkInterfaces()).flat()
		.find((a) => a.family === 'IPv4' && !a.internal);
	if (!lan) {
		note('this machine has no LAN address; the UI is not tried on one');
		return;
	}
	const page = await openPage(context, `http://${lan.address}:${remotePort}/?token=ctltok-0123456789abcdefghijk`, 'lan');
	await connected(page);
	const streams = await page.waitForFunction(() => window.gpuperfUi.store.length > 2, null,
		{ timeout: 5000 }).then(() => true, () => false);
	checks.check(streams, 'the UI streams through a LAN address with a token', lan.address);
	await page.close();
}

async function main() {
	if (!existsSync(join(WEB_ROOT, 'app.js'))) {
		checks.check(false, 'the web UI is built', `${WEB_ROOT}app.js is missing: run make (needs npm)`);
		return;
	}
	if (!checks.check(existsSync(CHROMIUM), 'chromium is installed', `${CHROMIUM}: run make deps`))
		return;
	const tokens = join(tmp, 'tokens');
	writeFileSync(tokens, 'viewtok-0123456789abcdefghij viewer\nctltok-0123456789abcdefghijk controller\n');
	chmodSync(tokens, 0o600);
	const tigerLake = existsSync(I915_METRICS) ?
		['--device', 'sim:tglgt2', '--metrics-dir', I915_METRICS] : [];
	// --min-period 0: the loss step samples every 6.7 µs, below the
	// daemon's default floor.
	const daemon = await startDaemon('ui', ['--device', 'sim', ...tigerLake, '--linger', '0',
		'--listen', '127.0.0.1:0', '--listen', '0.0.0.0:0', '--token-file', tokens,
		'--flight-recorder', '16Mi', '--web-root', WEB_ROOT, '--min-period', '0'], out);
	daemons.push(daemon);
	const local = daemon.urls['127.0.0.1'];
	const remotePort = new URL(daemon.urls['0.0.0.0']).port;

	browser = await launchBrowser();
	const light = await browser.newContext({ viewport: { width: 1440, height: 1000 },
		colorScheme: 'light', acceptDownloads: true });
	const page = await openPage(light, local, 'main');
	await checks.step('the page loads and streams', () => loadAndStream(page));
	await checks.step('engines and processes', () => enginesAndProcesses(page));
	await checks.step('picking a metric set', () => pickMetricSet(page));
	await checks.step('plotting a counter', () => plotCounter(page));
	await checks.step('lines told apart', () => linesApart(page));
	await checks.step('changes keep the plots', () => changesKeepPlots(page));
	await checks.step('more plots for the screenshot', async () => {
		for (const symbol of ['EuActive', 'EuStall', 'GpuBusy'])
			if (await page.$(`#counter-list .counter[data-symbol="${symbol}"]:not(.plotted)`))
				await page.click(`#counter-list .counter[data-symbol="${symbol}"]`);
		// A span the data so far fills, as a person would look at it.
		await page.selectOption('#span-picker', '5');
		await page.waitForTimeout(2000);
		await page.screenshot({ path: join(out, 'ui-light.png') });
		await page.selectOption('#span-picker', '30');
	});
	await checks.step('pause, zoom, pan', () => pauseAndResume(page));
	await checks.step('export CSV', () => exportCsv(page, local));
	await checks.step('marks', () => markWindow(page));
	await checks.step('the context filter', () => contextFilter(page));
	await checks.step('a second client', () => secondClient(light, local, page));
	await checks.step('loss', () => lossShown(page, daemon));
	await checks.step('recording', () => recordOnTigerLake(page));
	await checks.step('save the last seconds', () => saveLastSeconds(page));
	await checks.step('replay', () => replay(light, join(out, 'recording.i915perf')));
	await checks.step('the simulated AMD GPU', () => simulatedAmd(light));
	await checks.step('device notices through the fake kernel', () => deviceNotices(light));
	await checks.step('100 frames/s with 20 plots', () => smoothAt100Fps(page));
	await page.close();

	await checks.step('the viewer role', () => viewer(light, local));
	await checks.step('a daemon restart', () => daemonRestart(light));
	await checks.step('the token prompt', () => tokenPrompt(light, `http://127.0.0.1:${remotePort}/`, local));
	await checks.step('another site\'s page', () => foreignPage(light, local));
	await checks.step('a rebound name', () => reboundName(local));
	await checks.step('a LAN address', () => lanAddress(light, remotePort));
	const dark = await browser.newContext({ viewport: { width: 420, height: 900 }, colorScheme: 'dark' });
	await checks.step('dark and narrow', () => darkAndNarrow(dark, local));
	const secure = await browser.newContext({ ignoreHTTPSErrors: true });
	await checks.step('TLS', () => overTls(secure));
	checks.check(consoleErrors.length === 0, 'no page logged a console error',
		consoleErrors.join('\n  | '));
}

try {
	await main();
} catch (error) {
	checks.check(false, 'the browser tests ran to the end', error.stack);
} finally {
	await browser?.close();
	for (const daemon of daemons) {
		const status = await daemon.stop();
		checks.check(status === 0, 'gpuperfd exits cleanly after the browser tests',
			`status ${status}, see ${daemon.log}`);
	}
	rmSync(tmp, { recursive: true, force: true });
}
process.exit(checks.summary());
