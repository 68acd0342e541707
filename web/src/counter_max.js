// The upper bound a counter's bar is drawn against. The server gives it
// as a number, or as the counter's max equation when that depends on the
// window (`$GpuCoreClocks 64 UMUL`); such an equation is evaluated here on
// each window's values and the device's variables. A bound that cannot be
// known falls back to the highest value seen, and says so.
import { num } from './protocol.js';

const OPERATORS = {
	UADD: (a, b) => a + b, FADD: (a, b) => a + b,
	USUB: (a, b) => a - b, FSUB: (a, b) => a - b,
	UMUL: (a, b) => a * b, FMUL: (a, b) => a * b,
	UDIV: (a, b) => (b ? Math.trunc(a / b) : 0), FDIV: (a, b) => (b ? a / b : 0),
	UMIN: Math.min, FMAX: Math.max,
};

function popcount(mask) {
	let n = 0;
	for (let m = BigInt(mask); m; m >>= 1n)
		n += Number(m & 1n);
	return n;
}

// The metric XML's `$Variables` that a max equation may name, from what
// Hello says about the device (the daemon derives them the same way).
export function deviceVariables(device) {
	const t = device.topology ?? {};
	const subslices = t.subsliceCount ?? 0;
	const vars = {
		EuCoresTotalCount: t.euCount,
		VectorEngineTotalCount: t.euCount,
		EuSlicesTotalCount: popcount(t.sliceMask ?? 0),
		SliceTotalCount: popcount(t.sliceMask ?? 0),
		EuSubslicesTotalCount: subslices,
		EuDualSubslicesTotalCount: subslices,
		XeCoreTotalCount: subslices,
		EuThreadsCount: t.euThreads,
		VectorEngineThreadsCount: t.euThreads,
		GpuTimestampFrequency: num(device.timestampFrequency),
		GpuMinFrequency: num(device.minFrequency),
		GpuMaxFrequency: num(device.maxFrequency),
	};
	return Object.fromEntries(Object.entries(vars).filter(([, v]) => v != null));
}

// Compiles an equation to a function of (values by symbol), or null when
// it uses something this page cannot evaluate.
function compile(equation, variables) {
	const steps = [];
	for (const token of equation.trim().split(/\s+/)) {
		if (token in OPERATORS) {
			steps.push({ op: OPERATORS[token] });
		} else if (token.startsWith('$')) {
			const name = token.slice(1);
			if (name in variables)
				steps.push({ constant: variables[name] });
			else
				steps.push({ symbol: name });
		} else if (Number.isFinite(Number(token))) {
			steps.push({ constant: Number(token) });
		} else {
			return null;
		}
	}
	return (valueOf) => {
		const stack = [];
		for (const step of steps) {
			if (step.op) {
				const b = stack.pop(), a = stack.pop();
				stack.push(step.op(a, b));
			} else if (step.symbol) {
				stack.push(valueOf(step.symbol));
			} else {
				stack.push(step.constant);
			}
		}
		return stack.length === 1 ? stack[0] : NaN;
	};
}

// One subscription's bounds: bound(i) is the max of counter i in the last
// window given to update(), `observed(i)` whether it is only the highest
// value seen so far.
export class CounterMax {
	constructor(counters, variables) {
		this.index = new Map(counters.map((c, i) => [c.symbol, i]));
		this.bounds = new Float64Array(counters.length);
		this.observed = counters.map((c) => c.max !== 'maxValue');
		this.equations = counters.map((c) => {
			if (c.max !== 'maxEquation')
				return null;
			const fn = compile(c.maxEquation, variables);
			const ok = fn && [...c.maxEquation.matchAll(/\$(\w+)/g)]
				.every(([, name]) => name in variables || this.index.has(name));
			return ok ? fn : null;
		});
		counters.forEach((c, i) => {
			if (c.max === 'maxValue')
				this.bounds[i] = c.maxValue;
			if (this.equations[i])
				this.observed[i] = false;
		});
	}

	update(values) {
		const valueOf = (symbol) => values[this.index.get(symbol)];
		for (let i = 0; i < values.length; i++) {
			if (this.equations[i])
				this.bounds[i] = this.equations[i](valueOf);
			else if (this.observed[i] && values[i] > this.bounds[i])
				this.bounds[i] = values[i];
		}
	}

	// The value's share of its bound, 0..1.
	fraction(i, value) {
		const bound = this.bounds[i];
		return bound > 0 ? Math.min(Math.max(value / bound, 0), 1) : 0;
	}
}
