// Wall-clock times as the charts write them: 21:57:25 in the page's
// locale on a 24-hour clock, what toLocaleTimeString([], { hour12: false })
// gives. That call builds a formatter each time, which cost more than
// drawing the lines once twenty charts label their time axes every frame;
// here one formatter serves every chart, and the labels of the last
// seconds shown are remembered, since the axes ask for the same ones frame
// after frame.
const KEPT_SECONDS = 1024;

export class ClockText {
	constructor(locales = []) {
		this.format = new Intl.DateTimeFormat(locales,
			{ hour12: false, hour: 'numeric', minute: 'numeric', second: 'numeric' });
		this.seconds = new Map();
	}

	// The time of day at t (seconds since the epoch), to the second: the
	// fraction is cut, as the clock shows it.
	time(t) {
		const second = Math.floor(t);
		let text = this.seconds.get(second);
		if (text === undefined) {
			if (this.seconds.size >= KEPT_SECONDS)
				this.seconds.clear();
			text = this.format.format(new Date(second * 1000));
			this.seconds.set(second, text);
		}
		return text;
	}

	// 21:57:25.5: to the tenth, for ticks closer than a second.
	tenths(t) {
		return `${this.time(t)}.${Math.floor((t % 1) * 10 + 1e-6)}`;
	}

	// 21:57:25.512: to the millisecond, for the hovered window.
	// The milliseconds are cut as a Date cuts them.
	millis(t) {
		const ms = Math.trunc(t * 1000);
		return `${this.time(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
	}
}
