// Building elements without markup strings: the page's security policy
// forbids inline styles, and text set as textContent cannot inject HTML.
export function h(tag, props = {}, ...children) {
	const el = document.createElement(tag);
	for (const [key, value] of Object.entries(props)) {
		if (value == null || value === false)
			continue;
		if (key === 'class')
			el.className = value;
		else if (key === 'dataset')
			Object.assign(el.dataset, value);
		else if (key.startsWith('on'))
			el.addEventListener(key.slice(2), value);
		else if (key in el)
			el[key] = value;
		else
			el.setAttribute(key, value === true ? '' : value);
	}
	el.append(...children.flat().filter((c) => c != null && c !== false));
	return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
	const el = document.createElementNS(SVG_NS, tag);
	for (const [key, value] of Object.entries(attributes))
		el.setAttribute(key, value);
	el.append(...children);
	return el;
}

export function byId(id) {
	return document.getElementById(id);
}

export function clear(el) {
	el.replaceChildren();
	return el;
}
