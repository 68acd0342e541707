// The page: builds every part, connects them to the stream, and draws once
// per animation frame whatever changed since the previous one; the plots
// also as soon as a frame arrives with nothing queued behind it.
import 'uplot/dist/uPlot.min.css';
import { byId, h } from './dom.js';
import { Connection } from './connection.js';
import { ContextUsage } from './context_usage.js';
import { CounterList } from './counter_list.js';
import { CounterMax, deviceVariables } from './counter_max.js';
import { Credentials } from './credentials.js';
import { csvButton, saveCsv, visibleCsv } from './csv_export.js';
import { DevicePanel } from './device_panel.js';
import { DrawLatency } from './draw_latency.js';
import { FrameMeter } from './frame_meter.js';
import { HeaderBar } from './header_bar.js';
import { MarkControl } from './mark_control.js';
import { MetricSetPicker } from './metric_set_picker.js';
import { Notices } from './notices.js';
import { PlotPanel } from './plot_panel.js';
import { StreamEvent } from './protocol.js';
import { RecordingControl } from './recording_control.js';
import { SamplingControls } from './sampling_controls.js';
import { SeriesStore } from './series_store.js';
import { SnapshotControl } from './snapshot_control.js';
import { Stream } from './stream.js';
import { ThemeToggle } from './theme_toggle.js';
import { TimelineView } from './timeline_view.js';
import { UsagePanel } from './usage_panel.js';
import { counterDisplay, formatDuration, formatValue } from './units.js';

const LIST_REFRESH_MS = 100;
const CONTEXT_REFRESH_MS = 250;
const FOOTER_REFRESH_MS = 500;
const DEFAULT_SPAN_S = 30;

const credentials = new Credentials(location);
const connection = Connection.forPage(location, () => credentials.current());
const stream = new Stream(connection);
const store = new SeriesStore();
const view = new TimelineView(DEFAULT_SPAN_S);
const header = new HeaderBar();
const notices = new Notices();
const devicePanel = new DevicePanel(stream);
const setPicker = new MetricSetPicker((symbol) => stream.selectMetricSet(symbol));
const sampling = new SamplingControls(
	(periodNs) => stream.selectPeriod(periodNs),
	(windowNs) => stream.selectWindow(windowNs));
const roleNote = h('p', { class: 'role-note', id: 'role-note', hidden: true });
byId('config-panel').append(roleNote, setPicker.element, sampling.element);
const plots = new PlotPanel(byId('plots-panel'), store, view, () => store.lastTime());
const counterList = new CounterList(byId('counters-panel'), (symbol) => plots.toggle(symbol));
const marks = new MarkControl(byId('plots-panel'), connection, stream, notices,
	() => [...plots.selected.keys()]);
const contexts = new ContextUsage(byId('plots-panel'), (ctxId) => stream.selectContext(ctxId));
const recording = new RecordingControl(connection, stream, notices);
const snapshots = new SnapshotControl(connection, stream, notices);
const meter = new FrameMeter(byId('frame-meter'));
const drawLatency = new DrawLatency();
const streamRate = byId('stream-rate');
plots.toolbar.append(csvButton(exportCsv), recording.element, snapshots.element,
	marks.element);
plots.onSelection = (selected) => counterList.showPlotted(selected);
const usage = new UsagePanel(byId('engines-panel'), byId('processes-panel'), connection);
new ThemeToggle(byId('theme-toggle'), () => {
	plots.themeChanged();
	usage.dirty = true;
});

let displays = [];
let counterMax = new CounterMax([], {});

function describeConfig() {
	return `${stream.metricSet?.name ?? 'no metric set'} sampled every ` +
		formatDuration(stream.periodNs);
}

function showConfiguration() {
	const device = stream.device;
	const fixed = !!device?.fixedMetricSet;
	const locked = stream.isViewer || fixed;
	devicePanel.show(stream.devices, device);
	recording.showDevice(device);
	contexts.showPolicy(device);
	setPicker.show(device?.metricSets ?? [], stream.metricSet?.symbol ?? '', locked);
	sampling.show(device, stream.metricSet, stream.periodNs, stream.windowNs, locked);
	roleNote.hidden = !locked;
	roleNote.textContent = fixed ?
		`${device.name} replays a recording of ${device.fixedMetricSet}: its metric set ` +
		'and period are the recording\'s.' :
		'Viewer: you see what the device runs. Changing its metric set or sampling ' +
		'period needs a controller token (open the page with ?token=…).';
}

// What the store holds, to tell a new stream from the same one going on.
let shownDevice = null, shownSymbols = [];

// The stream's counters changed. On the same device the plots go on, a
// change marked on their time axis (text), counters of both sets keeping
// their lines; another device starts them afresh.
function newCounters(text) {
	displays = stream.counters.map(counterDisplay);
	counterMax = new CounterMax(stream.counters, deviceVariables(stream.device));
	const symbols = stream.counters.map((c) => c.symbol);
	if (stream.device === shownDevice && store.length)
		store.remap(displays, symbols, shownSymbols, text);
	else
		store.reset(displays);
	shownDevice = stream.device;
	shownSymbols = symbols;
	counterList.show(stream.counters, displays);
	plots.setCounters(stream.counters, displays);
	showConfiguration();
}

function exportCsv() {
	if (!stream.device)
		return;
	const [min, max] = view.range(store.lastTime());
	const set = stream.metricSet?.symbol ?? '';
	const { text, rows } = visibleCsv(store, stream.counters, stream.device.platform,
		set, min, max);
	saveCsv(text, stream.device.name, set || 'stream');
	notices.add('info', `Exported ${rows} windows of ${stream.counters.length} counters as CSV.`);
}

// The server's message says what happened and what to do; these stand in
// when it sends none.
const EVENT_TEXT = {
	[StreamEvent.Kind.BUSY_ELSEWHERE]: ['warning', 'the OA unit is busy in another process'],
	[StreamEvent.Kind.DEVICE_LOST]: ['error', 'the device was lost'],
	[StreamEvent.Kind.RECOVERED]: ['info', 'the device streams again'],
	[StreamEvent.Kind.ENDED]: ['info', 'the replay reached its end'],
	[StreamEvent.Kind.RESTARTED]: ['info', 'the replay started over'],
	[StreamEvent.Kind.TRIGGER_FIRED]: ['info', 'a trigger of the daemon fired'],
};

// News that leaves the device's state as it was.
const PASSING = new Set([StreamEvent.Kind.TRIGGER_FIRED]);

// Conditions that last (busy, lost, ended) stay shown until the device
// streams again.
const LASTING = new Set([StreamEvent.Kind.BUSY_ELSEWHERE, StreamEvent.Kind.DEVICE_LOST,
	StreamEvent.Kind.ENDED]);

function streamEvent(event) {
	const [level, fallback] = EVENT_TEXT[event.kind] ?? ['info', 'the stream changed'];
	const key = `unit-${event.device}`;
	if (!LASTING.has(event.kind) && !PASSING.has(event.kind))
		notices.end(key);
	// Some of the daemon's messages name the device first already
	// ("card0: the kernel stopped the OA stream ..."): it is said once.
	const text = event.message || fallback;
	notices.add(level, text.startsWith(`${event.device}: `) ? text : `${event.device}: ${text}`,
		LASTING.has(event.kind) ? key : null);
}

connection.on('state', (state, detail) => {
	header.showConnection(state, detail);
	if (state === 'open')
		notices.end('connection');
	else if (state === 'closed')
		notices.add('error', `Not connected to gpuperfd; ${detail}.`, 'connection');
});
connection.on('needToken', (reason) => credentials.prompt(reason));
credentials.onEntered = () => connection.reconnect();
connection.on('hello', (hello) => {
	header.showHello(hello);
	stream.start(hello);
});
connection.on('serverError', (error) => notices.add('error', error.message));

stream.on('hello', showConfiguration);
stream.on('subscribed', () => {
	const filter = stream.contextId === null ? 'all contexts' :
		`context 0x${stream.contextId.toString(16)}`;
	newCounters(filter);
	contexts.showFilter(stream.contextId);
	// The usage stream follows the device the counters come from.
	if (usage.device?.name !== stream.device?.name || !usage.subscriptionId)
		usage.start(stream.device);
});
stream.on('refused', showConfiguration);
stream.on('problem', (message) => notices.add('error', message));
stream.on('streamEvent', streamEvent);
stream.on('configured', ({ byThisPage }) => {
	newCounters(`${stream.metricSet?.symbol ?? ''} · ${formatDuration(stream.periodNs)}`);
	notices.add(byThisPage ? 'info' : 'warning', byThisPage ?
		`${stream.device.name} now streams ${describeConfig()}.` :
		`Another client reconfigured ${stream.device.name}: now ${describeConfig()}.`);
});

// Draws the plots if they have something new to show; returns whether
// they drew.
function drawPlots() {
	const drew = plots.render();
	if (drew)
		drawLatency.drawn(performance.now());
	else if (!view.live || !plots.selected.size)
		drawLatency.forget();
	return drew;
}

// A frame that waited for the next animation frame would wait up to a
// whole refresh (16.7 ms at 60 Hz) before being drawn. So a frame is
// drawn when it arrives, by a task posted behind its message: messages
// already queued are taken first, and a burst is drawn once. The screen
// still shows it at its next refresh, but with the drawing done by then.
// onArrival off: plots wait for the animation frame (bench_ui measures
// both).
const drawing = { onArrival: true, pending: false };
const arrivals = new MessageChannel();
arrivals.port1.onmessage = () => {
	drawing.pending = false;
	const started = performance.now();
	if (drawPlots())
		meter.add(performance.now() - started + connection.takeHandleTime());
};

stream.on('frame', (frame) => {
	drawLatency.arrived(connection.receivedAt);
	store.push(frame);
	counterMax.update(frame.values);
	if (drawing.onArrival && !drawing.pending) {
		drawing.pending = true;
		arrivals.port2.postMessage(null);
	}
});

let listShown = 0, contextsShown = 0, footerShown = 0, contextView = -1;

function frameRate() {
	const n = store.length;
	if (n < 2)
		return 0;
	const from = store.indexAt(store.x[n - 1] - 1);
	return (n - 1 - from) / (store.x[n - 1] - store.x[from] || 1);
}

function animate(now) {
	const started = performance.now();
	let worked = drawPlots();
	worked = usage.render() || worked;
	if (now - listShown >= LIST_REFRESH_MS) {
		worked = true;
		counterList.update(store, counterMax, displays);
		// The counters' frames and the usage frames count their drops
		// apart; the page lost both.
		header.showTotals({ ...store.totals,
			framesDropped: store.totals.framesDropped + usage.framesDropped });
		listShown = now;
	}
	if (now - contextsShown >= CONTEXT_REFRESH_MS &&
	    (view.live || contextView !== view.version)) {
		const [min, max] = view.range(store.lastTime());
		contexts.update(store, min, max);
		contextsShown = now;
		contextView = view.version;
	}
	if (now - footerShown >= FOOTER_REFRESH_MS) {
		streamRate.textContent = stream.device && stream.metricSet ?
			`${stream.device.name} · ${stream.metricSet.symbol} · ` +
			`${formatValue(frameRate(), 'frames/s')}` : '';
		footerShown = now;
	}
	// Frames with nothing to do would hide the cost of those that draw.
	const handled = connection.takeHandleTime();
	if (worked || handled)
		meter.add(performance.now() - started + handled);
	meter.show(now);
	requestAnimationFrame(animate);
}

// For the browser tests and anyone poking at the page from the console.
window.gpuperfUi = { connection, stream, store, view, plots, meter, drawLatency, drawing, marks,
	usage };

connection.open();
requestAnimationFrame(animate);
