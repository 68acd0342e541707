// What a counter's number means to a person: the quantity shown (a count
// per window becomes a rate per second) and its value with SI prefixes.
import { CounterType } from './protocol.js';

const SI_PREFIXES = [
	[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''],
	[1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n'],
];

// Units of the metric XML whose values are rates or shares already.
const INTENSIVE_UNITS = new Set(['percent', 'hz', 'mhz', 'ghz', 'ratio']);

const UNIT_SYMBOLS = {
	ns: 's', us: 's', ms: 's', s: 's',
	hz: 'Hz', mhz: 'Hz', ghz: 'Hz',
	bytes: 'B', byte: 'B',
	percent: '%',
};

// Factors that bring a unit to its base (µs to s, MHz to Hz).
const UNIT_SCALE = { ns: 1e-9, us: 1e-6, ms: 1e-3, mhz: 1e6, ghz: 1e9 };

// A counter's display: `perSecond` values are divided by the window's
// length, then multiplied by `scale`; `unit` is what follows the number.
export function counterDisplay(counter) {
	const units = (counter.units || '').toLowerCase();
	// Counts summed over the window; ratios (instructions per cycle)
	// are event-typed too, but say so in their semantic type.
	const summed = (counter.type === CounterType.COUNTER_TYPE_EVENT ||
		counter.type === CounterType.COUNTER_TYPE_THROUGHPUT) &&
		counter.semanticType !== 'ratio';
	const perSecond = summed && !INTENSIVE_UNITS.has(units);
	// "number" is the XML's word for no unit at all.
	const symbol = units === 'number' ? '' : UNIT_SYMBOLS[units] ?? units;
	return {
		perSecond,
		scale: UNIT_SCALE[units] ?? 1,
		unit: perSecond ? `${symbol}/s` : symbol,
		percent: units === 'percent',
	};
}

// The number shown for a window's value.
export function displayValue(display, value, windowSeconds) {
	const v = display.perSecond ? value / windowSeconds : value;
	return v * display.scale;
}

function trimmed(value, digits) {
	return Number(value.toPrecision(digits)).toString();
}

// Symbols take their prefix directly (ms, MB/s); words get a space
// (1.2 G cycles/s), and never a fractional prefix.
const SYMBOL_UNITS = new Set(['s', 'Hz', 'B', 'B/s', '/s', '']);

// Whether a unit is a symbol (short enough for axis labels).
export function isSymbolUnit(unit) {
	return SYMBOL_UNITS.has(unit);
}

// "1.34 ms", "53.4 MB/s", "55.9 %", "1.21 G cycles/s".
export function formatValue(value, unit, digits = 3) {
	if (!Number.isFinite(value))
		return '–';
	if (unit === '%')
		return `${value.toFixed(1)} %`;
	const magnitude = Math.abs(value);
	const symbol = SYMBOL_UNITS.has(unit);
	const plain = value === 0 || (magnitude >= 1 && magnitude < 1000) ||
		(!symbol && magnitude < 1);
	if (plain)
		return `${trimmed(value, digits)}${unit ? ' ' + unit : ''}`;
	const [factor, prefix] = SI_PREFIXES.find(([f]) => magnitude >= f) ??
		SI_PREFIXES[SI_PREFIXES.length - 1];
	const text = trimmed(value / factor, digits);
	const suffix = symbol ? `${prefix}${unit}` : `${prefix} ${unit}`;
	return `${text} ${suffix}`.trimEnd();
}

export function formatDuration(ns) {
	return formatValue(ns * 1e-9, 's');
}

export function formatBytes(bytes) {
	return formatValue(bytes, 'B');
}
