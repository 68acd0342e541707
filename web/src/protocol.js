// The wire schema as JavaScript: the gpuperf.* classes pbjs generates from
// proto/gpuperf.proto at build time, and the few conversions every module
// needs around them.
import { gpuperf } from '../gen/gpuperf.js';

export const {
	Envelope, Role, CounterType, StreamEvent, ErrorCode, Mark, RecordingFormat,
} = gpuperf;

export const WS_PATH = '/ws';
export const WS_SUBPROTOCOL = 'gpuperf.v1';

// uint64 fields decode as Long objects; every quantity the UI shows fits a
// double (nanosecond times up to 104 days of uptime stay exact).
export function num(value) {
	return typeof value === 'number' ? value : Number(value);
}

export function decodeEnvelope(bytes) {
	return Envelope.decode(bytes);
}

export function encodeEnvelope(fields) {
	return Envelope.encode(Envelope.create(fields)).finish();
}

export function errorCodeName(code) {
	return ErrorCode[code] ?? `error ${code}`;
}
