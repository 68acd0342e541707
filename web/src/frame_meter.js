// How long the page works per animation frame (decoding messages since the
// previous frame plus drawing this one), shown in the footer so a slow
// page is visible, and kept for the browser tests to read.
import { Samples } from './samples.js';

export class FrameMeter extends Samples {
	constructor(element) {
		super();
		this.element = element;
		this.shownAt = 0;
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
