// Searching counters and sets as people type: the words of the query in
// any order, each the start of a word of the text, ignoring case and
// plurals, so "sampler busy" finds "Samplers Busy".

// A word without a plural ending: samplers, sampler -> sampler; buses,
// bus -> bus (near enough: the same stem on both sides is what counts).
function stem(word) {
	if (word.length > 4 && word.endsWith('ies'))
		return `${word.slice(0, -3)}y`;
	if (word.length > 3 && word.endsWith('es') && /(s|x|ch|sh)es$/.test(word))
		return word.slice(0, -2);
	if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss'))
		return word.slice(0, -1);
	return word;
}

// Splits text into stems: words and the parts of CamelCase symbols.
function stems(text) {
	return (text ?? '')
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean)
		.map(stem);
}

// A query: its stems, ready for matches(). An empty query matches all.
export function parseQuery(text) {
	return stems(text);
}

// Whether every word of the query starts a word of one of the texts.
export function matches(query, ...texts) {
	if (!query.length)
		return true;
	const words = texts.flatMap(stems);
	return query.every((q) => words.some((w) => w.startsWith(q)));
}
