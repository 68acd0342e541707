// The time span every chart and the context view show: live (the last
// `span` seconds, following new frames) or held (paused, zoomed or panned
// by the user). Charts read it; only user actions change it.
export class TimelineView {
	constructor(spanS) {
		this.spanS = spanS;
		this.live = true;
		this.min = 0;
		this.max = 0;
		this.version = 0;
		this.listeners = [];
	}

	onChange(listener) {
		this.listeners.push(listener);
	}

	changed() {
		this.version++;
		for (const listener of this.listeners)
			listener(this);
	}

	// The range to show when the newest data is at `now`.
	range(now) {
		return this.live ? [now - this.spanS, now] : [this.min, this.max];
	}

	setSpan(spanS) {
		this.spanS = spanS;
		if (!this.live)
			this.min = this.max - spanS;
		this.changed();
	}

	pause(now) {
		if (!this.live)
			return;
		[this.min, this.max] = this.range(now);
		this.live = false;
		this.changed();
	}

	resume() {
		this.live = true;
		this.changed();
	}

	show(min, max) {
		if (!(max > min))
			return;
		this.min = min;
		this.max = max;
		this.live = false;
		this.changed();
	}

	// factor < 1 zooms in around time t.
	zoom(now, t, factor) {
		const [min, max] = this.range(now);
		this.show(t - (t - min) * factor, t + (max - t) * factor);
	}

	// Moves by a fraction of the shown span (negative: back in time).
	pan(now, fraction) {
		const [min, max] = this.range(now);
		const shift = (max - min) * fraction;
		this.show(min + shift, max + shift);
	}
}
