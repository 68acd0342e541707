// The newest measurements of one kind (ms), and their percentiles.
const KEPT = 600;

export class Samples {
	constructor() {
		this.samples = [];
	}

	add(ms) {
		this.samples.push(ms);
		if (this.samples.length > KEPT)
			this.samples.splice(0, this.samples.length - KEPT);
	}

	reset() {
		this.samples = [];
	}

	percentile(p) {
		if (!this.samples.length)
			return 0;
		const sorted = [...this.samples].sort((a, b) => a - b);
		return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
	}

	median() {
		return this.percentile(0.5);
	}
}
