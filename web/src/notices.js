// What happens to the stream, as it happens: configuration changes by this
// page or another client, the unit busy elsewhere, the device lost and
// recovered, refused requests. Conditions that last (a lost device) stay
// until they end; the rest fade after a while.
import { byId, h } from './dom.js';

const FADE_MS = 12000;
const KEPT = 5;

export class Notices {
	constructor() {
		this.list = byId('notices');
		this.sticky = new Map();
	}

	// level: info, warning or error; key: a condition that stays until
	// end(key) is called.
	add(level, text, key = null) {
		if (key)
			this.end(key);
		const time = new Date().toLocaleTimeString();
		const item = h('li', { class: `notice ${level}`, dataset: { key: key ?? '' } },
			h('span', { class: 'time' }, time), h('span', { class: 'text' }, text),
			h('button', { type: 'button', class: 'quiet close', 'aria-label': 'Dismiss',
				onclick: () => item.remove() }, '×'));
		this.list.prepend(item);
		if (key)
			this.sticky.set(key, item);
		else
			setTimeout(() => item.remove(), FADE_MS);
		while (this.list.children.length > KEPT)
			this.list.lastElementChild.remove();
	}

	end(key) {
		this.sticky.get(key)?.remove();
		this.sticky.delete(key);
	}
}
