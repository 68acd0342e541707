// Colours for charts, taken from the page's CSS so that plots follow the
// light or dark scheme, and the palette plotted counters take in turn.
const PALETTE = {
	light: ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
		'#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#ad494a',
		'#637939', '#7b4173', '#e6550d', '#3182bd', '#843c39', '#31a354',
		'#756bb1', '#636363'],
	dark: ['#58a6ff', '#ff7b72', '#7ee787', '#d2a8ff', '#ffa657', '#39c5cf',
		'#e3b341', '#f778ba', '#a5d6ff', '#bdbd4a', '#8b949e', '#ffab70',
		'#56d364', '#bc8cff', '#ff9bce', '#79c0ff', '#f0883e', '#3fb950',
		'#a371f7', '#e6edf3'],
};

// The stylesheet's variables hold light-dark() pairs; a probe element
// resolves one to the colour the scheme in force picks.
function resolveColor(probe, variable) {
	probe.style.color = `var(${variable})`;
	return getComputedStyle(probe).color;
}

export function chartTheme() {
	const probe = document.createElement('span');
	probe.hidden = true;
	document.body.append(probe);
	const choice = document.documentElement.dataset.scheme;
	const dark = choice === 'dark' ||
		(choice !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);
	const scheme = dark ? 'dark' : 'light';
	const theme = {
		scheme,
		text: resolveColor(probe, '--text-muted'),
		grid: resolveColor(probe, '--grid'),
		loss: resolveColor(probe, '--loss'),
		reports: resolveColor(probe, '--text-muted'),
		palette: PALETTE[scheme],
	};
	probe.remove();
	return theme;
}
