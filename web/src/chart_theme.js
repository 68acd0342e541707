// Colours for charts, taken from the page's CSS so that plots follow the
// light or dark scheme, and the palette plotted counters take in turn.
//
// The palette is Okabe and Ito's, which people with any common colour
// vision deficiency tell apart (the yellow, too pale on white, is left out
// of the light one, the dark blue, too dark on black, of the dark one).
// Lines are told apart by their dash as well as their colour, so that one
// lying on another still shows through: DASHES, in turn within a chart.
const PALETTE = {
	light: ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00',
		'#000000'],
	dark: ['#56b4e9', '#e69f00', '#009e73', '#cc79a7', '#f0e442', '#d55e00',
		'#ffffff'],
};

export const DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4]];

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
