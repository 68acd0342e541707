// Light, dark, or whatever the system prefers: the choice is the `scheme`
// attribute on <html>, which the stylesheet reads, and is remembered.
const CHOICES = ['auto', 'light', 'dark'];
const LABELS = { auto: 'Scheme: auto', light: 'Scheme: light', dark: 'Scheme: dark' };
const STORAGE_KEY = 'gpuperf.scheme';

export class ThemeToggle {
	constructor(button, onChange) {
		this.button = button;
		this.onChange = onChange;
		this.choice = localStorage.getItem(STORAGE_KEY) ?? 'auto';
		if (!CHOICES.includes(this.choice))
			this.choice = 'auto';
		button.addEventListener('click', () => {
			this.choice = CHOICES[(CHOICES.indexOf(this.choice) + 1) % CHOICES.length];
			localStorage.setItem(STORAGE_KEY, this.choice);
			this.apply();
			this.onChange();
		});
		matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
			if (this.choice === 'auto')
				this.onChange();
		});
		this.apply();
	}

	apply() {
		document.documentElement.dataset.scheme = this.choice;
		this.button.textContent = LABELS[this.choice];
	}
}
