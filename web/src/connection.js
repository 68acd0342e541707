// The WebSocket to gpuperfd: one Envelope per binary message, request ids,
// replies matched to their requests, and reconnecting when the daemon goes
// away. What the server sends unasked (Hello, frames, stream events,
// recording bytes) goes to the listeners registered with on().
import {
	WS_PATH, WS_SUBPROTOCOL, ErrorCode, Role, decodeEnvelope, encodeEnvelope,
	errorCodeName,
} from './protocol.js';

// The server sends its Hello at once unless this address needs a token.
const HELLO_WAIT_MS = 1500;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 8000;

// Replies are the kinds that answer one request; everything else is pushed.
const REPLY_KINDS = new Set([
	'subscribed', 'unsubscribed', 'reconfigured', 'markAccepted',
	'recordingStarted', 'pong', 'error', 'usageSubscribed', 'snapshotStarted',
]);

class RequestError extends Error {
	constructor(error) {
		super(error.message || errorCodeName(error.code));
		this.code = error.code;
		this.codeName = errorCodeName(error.code);
	}
}

export class Connection {
	// credentials() returns { token, wantViewer } each time a socket opens,
	// so a token typed into the prompt is used on the next attempt.
	constructor(url, credentials) {
		this.url = url;
		this.credentials = credentials;
		this.listeners = new Map();
		this.pending = new Map();
		this.nextRequestId = 1;
		this.socket = null;
		this.state = 'connecting';
		this.retryMs = RETRY_MIN_MS;
		this.authRequestId = 0;
		this.tokenRefused = '';         // the server's words, when it did
		this.helloTimer = 0;
		this.handleTime = 0;
		this.receivedAt = 0;    // when the message at hand arrived
	}

	static forPage(location, credentials) {
		const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
		return new Connection(`${scheme}//${location.host}${WS_PATH}`, credentials);
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

	setState(state, detail = '') {
		this.state = state;
		this.emit('state', state, detail);
	}

	open() {
		this.setState('connecting');
		const socket = new WebSocket(this.url, WS_SUBPROTOCOL);
		socket.binaryType = 'arraybuffer';
		this.socket = socket;
		socket.onopen = () => this.opened();
		socket.onmessage = (event) => this.received(event.data);
		socket.onclose = (event) => this.closed(socket, event);
	}

	opened() {
		const { token, wantViewer } = this.credentials();
		if (token || wantViewer) {
			this.authRequestId = this.nextRequestId++;
			this.sendEnvelope({
				requestId: this.authRequestId,
				auth: {
					token: token ?? '',
					role: wantViewer ? Role.ROLE_VIEWER : Role.ROLE_UNSPECIFIED,
				},
			});
		}
		this.helloTimer = setTimeout(() => this.emit('needToken', ''), HELLO_WAIT_MS);
	}

	received(data) {
		const started = performance.now();
		this.receivedAt = started;
		const envelope = decodeEnvelope(new Uint8Array(data));
		const kind = envelope.kind;
		const requestId = Number(envelope.requestId);
		if (kind === 'hello')
			this.helloReceived(envelope.hello, requestId);
		else if (REPLY_KINDS.has(kind) && this.pending.has(requestId))
			this.settle(requestId, envelope);
		else if (kind === 'error')
			this.serverError(new RequestError(envelope.error));
		else
			this.emit(kind, envelope[kind], requestId);
		this.handleTime += performance.now() - started;
	}

	helloReceived(hello, requestId) {
		// A loopback connection gets an unasked Hello before the reply to
		// its Auth; only the reply carries the role the page asked for.
		if (this.authRequestId && requestId !== this.authRequestId)
			return;
		clearTimeout(this.helloTimer);
		this.retryMs = RETRY_MIN_MS;
		this.setState('open');
		this.emit('hello', hello);
	}

	serverError(error) {
		if (error.code === ErrorCode.UNAUTHENTICATED)
			this.tokenRefused = error.message;
		else
			this.emit('serverError', error);
	}

	settle(requestId, envelope) {
		const { resolve, reject } = this.pending.get(requestId);
		this.pending.delete(requestId);
		if (envelope.kind === 'error')
			reject(new RequestError(envelope.error));
		else
			resolve(envelope[envelope.kind]);
	}

	closed(socket, event) {
		if (socket !== this.socket)
			return;
		clearTimeout(this.helloTimer);
		this.socket = null;
		this.authRequestId = 0;
		for (const { reject } of this.pending.values())
			reject(new Error('the connection closed'));
		this.pending.clear();
		// The server refuses a token with an Error, then closes.
		if (this.tokenRefused) {
			this.setState('unauthorized', this.tokenRefused);
			this.emit('needToken', this.tokenRefused);
			this.tokenRefused = '';
			return;
		}
		const seconds = Math.round(this.retryMs / 100) / 10;
		this.setState('closed', `reconnecting in ${seconds} s`);
		setTimeout(() => this.open(), this.retryMs);
		this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
	}

	// A fresh socket, as after a token was entered.
	reconnect() {
		const socket = this.socket;
		this.socket = null;
		socket?.close();
		this.open();
	}

	sendEnvelope(fields) {
		this.socket.send(encodeEnvelope(fields));
	}

	// Sends one request ({ subscribe: {...} }) and resolves with its reply.
	request(body) {
		if (!this.socket || this.state !== 'open')
			return Promise.reject(new Error('not connected to gpuperfd'));
		const requestId = this.nextRequestId++;
		this.sendEnvelope({ requestId, ...body });
		return new Promise((resolve, reject) => {
			this.pending.set(requestId, { resolve, reject });
		});
	}

	// Sends a request whose answer arrives as pushed messages (StopRecording).
	send(body) {
		if (this.socket && this.state === 'open')
			this.sendEnvelope({ requestId: this.nextRequestId++, ...body });
	}

	// Milliseconds spent decoding and dispatching since the last call.
	takeHandleTime() {
		const time = this.handleTime;
		this.handleTime = 0;
		return time;
	}
}
