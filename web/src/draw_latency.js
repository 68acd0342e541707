// How long each frame waits from its arrival (the WebSocket message) until
// the plots that show it are drawn: a frame that arrives just after an
// animation frame waits for the next. Frames nobody draws (no plot, the
// view held at a past time) are not waiting for the page, and are
// forgotten.
import { Samples } from './samples.js';

export class DrawLatency extends Samples {
	constructor() {
		super();
		this.waiting = [];
		this.drawings = 0;      // drawings that showed new frames
	}

	// A frame arrived at time t (performance.now()).
	arrived(t) {
		this.waiting.push(t);
	}

	// The plots were drawn at time t with every frame that arrived so far.
	drawn(t) {
		if (this.waiting.length)
			this.drawings++;
		for (const arrival of this.waiting)
			this.add(t - arrival);
		this.waiting = [];
	}

	forget() {
		this.waiting = [];
	}

	reset() {
		super.reset();
		this.forget();
		this.drawings = 0;
	}
}
