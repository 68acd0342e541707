// "Save last N s": what the device's flight recorder (gpuperfd
// --flight-recorder) holds of the last N seconds, fetched with a Snapshot
// request and saved as IGT i915-perf recordings that i915-perf-reader and
// `gpuperf replay` read: one a segment (a metric set and period), the
// newest under the plain name and older ones with -1, -2, ... before the
// extension, as `gpuperf snapshot` names them.
import { h } from './dom.js';
import { download, fileTimestamp } from './download.js';
import { num } from './protocol.js';
import { formatBytes } from './units.js';

const DEFAULT_SECONDS = 10;

// The file of segment k (0: the oldest) of n.
export function snapshotFileName(stem, k, n) {
	return k + 1 === n ? `${stem}.i915perf` : `${stem}-${k + 1}.i915perf`;
}

export class SnapshotControl {
	constructor(connection, stream, notices) {
		this.connection = connection;
		this.stream = stream;
		this.notices = notices;
		this.maxSnapshots = 0;
		this.snapshot = null;
		this.seconds = h('input', { type: 'number', id: 'snapshot-seconds', min: '1',
			step: '1', value: String(DEFAULT_SECONDS), 'aria-label': 'Seconds to save' });
		this.button = h('button', { type: 'button', id: 'snapshot-save',
			onclick: () => this.save() });
		this.status = h('span', { class: 'muted', id: 'snapshot-status' });
		this.element = h('span', { class: 'snapshot' }, this.button, this.seconds,
			h('span', { class: 'muted' }, 's'), this.status);
		connection.on('hello', (hello) => {
			this.maxSnapshots = hello.limits?.maxSnapshots ?? 0;
			this.show();
		});
		connection.on('snapshotData', (data) => this.received(data));
		connection.on('snapshotDone', (done) => this.done(done));
		connection.on('state', (state) => {
			if (state !== 'open' && this.snapshot) {
				this.notices.add('error', 'The connection closed during the snapshot; ' +
					'nothing was saved.');
				this.snapshot = null;
			}
			this.show();
		});
		stream.on('subscribed', () => this.show());
		this.show();
	}

	// Why the button cannot be used now, or '' when it can.
	unavailable() {
		const device = this.stream.device;
		if (this.connection.state !== 'open' || !device)
			return 'Not connected to gpuperfd.';
		if (!num(device.flightRecorderBytes ?? 0))
			return `${device.name} keeps no flight recorder: start gpuperfd with --flight-recorder.`;
		if (!this.maxSnapshots)
			return 'This daemon lets only controllers take snapshots (--snapshot-role controller).';
		return '';
	}

	show() {
		const why = this.unavailable();
		this.button.textContent = this.snapshot ? 'Saving…' : 'Save last';
		this.button.disabled = !!why || !!this.snapshot;
		this.button.title = why || 'Save what the flight recorder holds of the last seconds ' +
			'as i915-perf recordings';
		this.seconds.disabled = !!this.snapshot;
	}

	async save() {
		const device = this.stream.device;
		const seconds = Number(this.seconds.value);
		if (!device || !(seconds > 0)) {
			this.status.textContent = 'give a number of seconds from 1';
			return;
		}
		this.snapshot = { id: 0, segments: [], chunks: [], bytes: [], broken: false,
			stem: `gpuperf-${device.name}-last${seconds}s-${fileTimestamp()}` };
		this.status.textContent = '';
		this.show();
		try {
			const started = await this.connection.request({
				snapshot: { device: device.name, lastNs: Math.round(seconds * 1e9) },
			});
			const s = this.snapshot;
			if (!s)
				return;
			s.id = started.snapshotId;
			s.segments = started.segments;
			s.chunks = started.segments.map(() => []);
			s.bytes = started.segments.map(() => 0);
			const truncated = started.segments.filter((seg) => seg.truncated).length;
			if (truncated)
				this.notices.add('warning', `The flight recorder had overwritten the start of ` +
					`${truncated} of the ${started.segments.length} recordings: each begins ` +
					`after an OA_BUFFER_LOST.`);
		} catch (error) {
			this.snapshot = null;
			this.notices.add('error', `No snapshot: ${error.message}`);
		}
		this.show();
	}

	received(data) {
		const s = this.snapshot;
		if (!s || data.snapshotId !== s.id || s.broken)
			return;
		const k = data.segment;
		if (k >= s.chunks.length || num(data.offset) !== s.bytes[k]) {
			this.notices.add('error', 'Snapshot bytes arrived out of order; the snapshot is discarded.');
			s.broken = true;
			return;
		}
		s.chunks[k].push(data.data);
		s.bytes[k] += data.data.length;
	}

	done(done) {
		const s = this.snapshot;
		if (!s || done.snapshotId !== s.id)
			return;
		this.snapshot = null;
		this.show();
		if (s.broken)
			return;
		const n = s.segments.length;
		const names = s.chunks.map((chunks, k) => {
			const name = snapshotFileName(s.stem, k, n);
			download(new Blob(chunks, { type: 'application/octet-stream' }), name);
			return name;
		});
		const total = s.bytes.reduce((a, b) => a + b, 0);
		this.status.textContent = `saved ${names.join(', ')}: ${formatBytes(total)}`;
	}
}
