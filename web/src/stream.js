// This page's one subscription: which device, metric set, sampling period
// and window it streams, and every change to them, whether this page asked
// for it or another client did, and the one hardware context it may be
// narrowed to. Frames of the current subscription are passed on; those of
// one being replaced are not. A Mark's frame covers BEGIN..END, across the
// regular windows, so it goes to its own listeners, never into the series.
import { Role, StreamEvent, num } from './protocol.js';

const DEFAULT_WINDOW_NS = 50e6;

export class Stream {
	constructor(connection) {
		this.connection = connection;
		this.listeners = new Map();
		this.hello = null;
		this.device = null;
		this.subscriptionId = 0;
		this.metricSet = null;          // the MetricSet object from Hello
		this.counters = [];             // Counter objects, in frame order
		this.periodNs = 0;
		this.windowNs = DEFAULT_WINDOW_NS;
		this.contextId = null;          // the hardware context streamed; null: all
		this.subscribers = 0;
		// Set while this page's own Reconfigure is on its way, so the
		// CONFIG_CHANGED it causes is not taken for another client's.
		this.reconfiguring = false;
		this.announced = false;
		this.subscribing = 0;           // Subscribe requests on their way
		connection.on('frame', (frame) => {
			if (frame.subscriptionId === this.subscriptionId)
				this.emit(frame.mark ? 'markFrame' : 'frame', frame);
		});
		connection.on('event', (event) => this.streamEvent(event));
	}

	on(kind, listener) {
		if (!this.listeners.has(kind))
			this.listeners.set(kind, []);
		this.listeners.get(kind).push(listener);
	}

	emit(kind, ...args) {
		for (const listener of this.listeners.get(kind) ?? [])
			listener(...args);
	}

	get isViewer() {
		return this.hello?.role !== Role.ROLE_CONTROLLER;
	}

	get devices() {
		return this.hello?.devices ?? [];
	}

	// A (new) connection's Hello: streams what the chosen device runs.
	start(hello) {
		this.hello = hello;
		const previous = this.device?.name;
		this.device = hello.devices.find((d) => d.name === previous) ??
			hello.devices[0] ?? null;
		if (this.device?.name !== previous)
			this.contextId = null;
		this.subscriptionId = 0;
		this.emit('hello', hello);
		if (this.device)
			this.subscribe(this.device, '', 0);
		else
			this.emit('problem', 'the server has no devices');
	}

	// Subscribes anew, then lets the old subscription go, so the device's
	// stream stays open in between. contextId: the one hardware context
	// to stream, or null for all; it holds once the server agreed.
	async subscribe(device, metricSet, periodNs, contextId = this.contextId) {
		const old = this.subscriptionId;
		const request = {
			device: device.name,
			metricSet,
			samplingPeriodNs: periodNs,
			windowNs: this.windowNs,
			perContext: true,
		};
		// ctx_id sits in a oneof: set, even to 0, it filters.
		if (contextId !== null)
			request.ctxId = contextId;
		let reply;
		this.subscribing++;
		try {
			reply = await this.connection.request({ subscribe: request });
		} catch (error) {
			this.emit('problem', `subscribing to ${device.name}: ${error.message}`);
			this.emit('refused');
			return;
		} finally {
			this.subscribing--;
		}
		this.device = device;
		this.contextId = contextId;
		this.subscriptionId = reply.subscriptionId;
		this.apply(reply.metricSet, num(reply.samplingPeriodNs), reply.counters);
		this.emit('subscribed');
		// A refusal only means the old subscription is gone already.
		if (old)
			this.connection.request({ unsubscribe: { subscriptionId: old } })
				.catch(() => {});
	}

	apply(setSymbol, periodNs, counterSymbols) {
		this.metricSet = this.device.metricSets.find((s) => s.symbol === setSymbol) ??
			null;
		const bySymbol = new Map((this.metricSet?.counters ?? [])
			.map((c) => [c.symbol, c]));
		this.counters = counterSymbols.map((symbol) =>
			bySymbol.get(symbol) ?? { symbol, name: symbol, units: '', group: '' });
		this.periodNs = periodNs;
	}

	selectDevice(name) {
		const device = this.devices.find((d) => d.name === name);
		// Context ids belong to the device they ran on.
		if (device && device !== this.device)
			this.subscribe(device, '', 0, null);
	}

	// Streams only the reports of one hardware context (ctxId), or of all
	// of them again (null).
	selectContext(ctxId) {
		if (this.device && ctxId !== this.contextId)
			this.subscribe(this.device, this.metricSet?.symbol ?? '', 0, ctxId);
	}

	selectWindow(windowNs) {
		this.windowNs = windowNs;
		if (this.device)
			this.subscribe(this.device, this.metricSet?.symbol ?? '', 0);
	}

	selectMetricSet(symbol) {
		this.reconfigure({ metricSet: symbol });
	}

	selectPeriod(periodNs) {
		this.reconfigure({ samplingPeriodNs: periodNs });
	}

	async reconfigure(change) {
		// The daemon refused this page's subscription (the unit was busy
		// in another process, say) and asks to subscribe again: a pick
		// does, with what was picked. One on its way decides by itself.
		if (!this.subscriptionId) {
			if (this.device && !this.subscribing)
				this.subscribe(this.device, change.metricSet ?? this.metricSet?.symbol ?? '',
					change.samplingPeriodNs ?? 0);
			return;
		}
		this.reconfiguring = true;
		this.announced = false;
		try {
			const reply = await this.connection.request({
				reconfigure: { subscriptionId: this.subscriptionId, ...change },
			});
			// The CONFIG_CHANGED the change causes usually arrives first.
			if (reply.subscriptionId === this.subscriptionId && !this.announced) {
				this.apply(reply.metricSet, num(reply.samplingPeriodNs), reply.counters);
				this.emit('configured', { byThisPage: true });
			}
		} catch (error) {
			this.emit('problem', `changing the configuration: ${error.message}`);
			this.emit('refused');
		} finally {
			this.reconfiguring = false;
		}
	}

	streamEvent(event) {
		if (event.subscriptionId !== this.subscriptionId)
			return;
		const config = event.configuration;
		if (config)
			this.subscribers = config.subscribers;
		if (event.kind === StreamEvent.Kind.CONFIG_CHANGED) {
			const byThisPage = this.reconfiguring;
			this.announced = byThisPage;
			this.apply(config.metricSet, num(config.samplingPeriodNs), event.counters);
			this.emit('configured', { byThisPage, message: event.message });
			return;
		}
		this.emit('streamEvent', event);
	}
}
