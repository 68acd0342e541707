// The top bar: whether the page is connected, to which server, with which
// role, and how much data was lost on the way (reports the OA unit could
// not write, OA buffer overflows, frames the server dropped for this page).
import { byId, h } from './dom.js';
import { Role } from './protocol.js';

const STATE_TEXT = {
	connecting: 'connecting…',
	open: 'connected',
	closed: 'disconnected',
	unauthorized: 'token refused',
};

export class HeaderBar {
	constructor() {
		this.connection = byId('connection');
		this.serverInfo = byId('server-info');
		this.role = byId('role');
		this.counts = {
			lostReports: h('strong'),
			bufferLost: h('strong'),
			framesDropped: h('strong'),
		};
		byId('loss-counts').append(
			h('span', { title: 'Reports the OA unit could not write (OA_REPORT_LOST)' },
				'lost reports ', this.counts.lostReports),
			h('span', { title: 'Times the OA buffer overflowed (OA_BUFFER_LOST)' },
				'buffer lost ', this.counts.bufferLost),
			h('span', { title: 'Frames the server dropped because this page read too slowly' },
				'frames dropped ', this.counts.framesDropped));
		this.showTotals({ lostReports: 0, bufferLost: 0, framesDropped: 0 });
	}

	showConnection(state, detail) {
		this.connection.dataset.state = state;
		this.connection.textContent = STATE_TEXT[state] ?? state;
		this.connection.title = detail || '';
		if (state !== 'open')
			this.role.hidden = true;
	}

	showHello(hello) {
		this.serverInfo.textContent = `gpuperfd ${hello.serverVersion} · ${location.host}`;
		const viewer = hello.role !== Role.ROLE_CONTROLLER;
		this.role.hidden = false;
		this.role.textContent = viewer ? 'viewer' : 'controller';
		this.role.dataset.role = viewer ? 'viewer' : 'controller';
		this.role.title = viewer ?
			'A viewer watches what the devices run; it cannot change their configuration.' :
			'A controller may change metric sets and sampling periods.';
	}

	showTotals(totals) {
		for (const [key, el] of Object.entries(this.counts)) {
			const value = totals[key];
			if (el.textContent !== String(value))
				el.textContent = value;
			el.parentElement.classList.toggle('alert', value > 0);
		}
	}
}
