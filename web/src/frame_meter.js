// How long the page works per animation frame (decoding messages since the
// previous frame plus drawing this one), shown in the footer so a slow
// page is visible, and kept for the browser tests to read.
const KEPT = 600;

export class FrameMeter {
	constructor(element) {
		this.element = element;
		this.samples = [];
		this.shownAt = 0;
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

	// Refreshes the footer at most twice a second.
	show(now) {
		if (now - this.shownAt < 500)
			return;
		this.shownAt = now;
		this.element.textContent = `page work ${this.median().toFixed(1)} ms per frame ` +
			`(p95 ${this.percentile(0.95).toFixed(1)} ms)`;
	}
}
