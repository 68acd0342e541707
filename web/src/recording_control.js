// A server-side recording of the device's raw OA stream: started and
// stopped from the page, its bytes collected as they arrive (in order, none
// dropped), then saved as an i915-perf recording that IGT's
// i915-perf-reader and `gpuperf replay` read, or as a Perfetto trace the
// daemon makes of the same stream (every counter of the set, per window of
// the page's window length, and the device's engines, clocks, power and
// processes every second: what `gpuperf record --format perfetto` writes),
// for ui.perfetto.dev.
import { h } from './dom.js';
import { download, fileTimestamp } from './download.js';
import { num, RecordingFormat } from './protocol.js';
import { formatBytes } from './units.js';

export class RecordingControl {
	constructor(connection, stream, notices) {
		this.connection = connection;
		this.stream = stream;
		this.notices = notices;
		this.recording = null;
		this.button = h('button', { type: 'button', id: 'record-toggle',
			onclick: () => (this.recording ? this.stop() : this.start()) });
		this.format = h('select', { id: 'record-format', 'aria-label': 'What Record saves' },
			h('option', { value: 'i915perf' }, 'i915-perf recording'),
			h('option', { value: 'perfetto' }, 'Perfetto trace'));
		this.status = h('span', { class: 'muted', id: 'record-status' });
		this.element = h('span', { class: 'recording' }, this.button, this.format, this.status);
		connection.on('recordingData', (data) => this.received(data));
		connection.on('recordingStopped', (stopped) => this.stopped(stopped));
		connection.on('state', (state) => {
			if (state !== 'open' && this.recording) {
				this.notices.add('error', 'The connection closed during the recording; ' +
					'its bytes so far are lost.');
				this.recording = null;
			}
			this.show();
		});
		this.show();
	}

	// IGT's format holds only Intel OA reports of i915's formats: on
	// other devices only the Perfetto trace is offered, and the other
	// option says why.
	showDevice(device) {
		const refusal = device?.i915perfRefusal ?? '';
		const option = this.format.querySelector('option[value="i915perf"]');
		option.disabled = !!refusal;
		option.title = refusal ? `${device.name} ${refusal}` : '';
		if (refusal && this.format.value === 'i915perf')
			this.format.value = 'perfetto';
	}

	show() {
		const r = this.recording;
		this.button.textContent = r ? 'Stop recording' : 'Record';
		this.button.classList.toggle('recording-on', !!r);
		this.button.disabled = this.connection.state !== 'open' && !r;
		this.format.disabled = !!r;
		if (r)
			this.status.textContent = r.started ? `${formatBytes(r.bytes)} recorded` : 'starting…';
	}

	async start() {
		const device = this.stream.device;
		if (!device)
			return;
		const perfetto = this.format.value === 'perfetto';
		this.recording = { id: 0, chunks: [], bytes: 0, started: false,
			name: `gpuperf-${device.name}-${this.stream.metricSet?.symbol ?? 'stream'}-` +
				`${fileTimestamp()}.${perfetto ? 'perfetto-trace' : 'i915perf'}` };
		this.status.textContent = '';
		this.show();
		try {
			const started = await this.connection.request({
				startRecording: { device: device.name, metricSet: this.stream.metricSet?.symbol ?? '',
					format: perfetto ? RecordingFormat.RECORDING_FORMAT_PERFETTO :
						RecordingFormat.RECORDING_FORMAT_I915_PERF,
					windowNs: perfetto ? this.stream.windowNs : 0 },
			});
			this.recording.id = started.recordingId;
			this.recording.started = true;
			if (perfetto && started.usageNote)
				this.notices.add('info', `The trace has no usage tracks: ${started.usageNote}.`);
		} catch (error) {
			this.recording = null;
			this.notices.add('error', `Recording could not start: ${error.message}`);
		}
		this.show();
	}

	stop() {
		if (this.recording?.started)
			this.connection.send({ stopRecording: { recordingId: this.recording.id } });
	}

	received(data) {
		const r = this.recording;
		if (!r || data.recordingId !== r.id)
			return;
		if (num(data.offset) !== r.bytes) {
			this.notices.add('error', 'Recording bytes arrived out of order; the recording is discarded.');
			this.stop();
			r.broken = true;
		}
		r.chunks.push(data.data);
		r.bytes += data.data.length;
		this.show();
	}

	stopped(stopped) {
		const r = this.recording;
		if (!r || stopped.recordingId !== r.id)
			return;
		this.recording = null;
		this.show();
		if (r.broken)
			return;
		if (stopped.reason)
			this.notices.add('warning', `The recording stopped: ${stopped.reason}`);
		download(new Blob(r.chunks, { type: 'application/octet-stream' }), r.name);
		this.status.textContent = `saved ${r.name}: ${formatBytes(r.bytes)}, ` +
			`${num(stopped.reports)} reports`;
	}
}
