// Who the page says it is: a token from the address (?token=) or from the
// prompt (kept for this tab only), and whether it asks to be a viewer
// (?role=viewer, or the prompt's box).
import { byId } from './dom.js';

const STORAGE_KEY = 'gpuperf.token';

export class Credentials {
	constructor(location) {
		const params = new URLSearchParams(location.search);
		this.token = params.get('token') ?? sessionStorage.getItem(STORAGE_KEY);
		this.wantViewer = params.get('role') === 'viewer';
		this.dialog = byId('token-dialog');
		this.input = byId('token-input');
		this.viewerBox = byId('token-viewer');
		this.onEntered = () => {};
		this.dialog.addEventListener('close', () => {
			const token = this.input.value.trim();
			if (!token)
				return;
			this.token = token;
			this.wantViewer = this.viewerBox.checked;
			sessionStorage.setItem(STORAGE_KEY, token);
			this.input.value = '';
			this.onEntered();
		});
	}

	current() {
		return { token: this.token, wantViewer: this.wantViewer };
	}

	prompt(reason) {
		byId('token-reason').textContent = reason ||
			'gpuperfd asks clients on this address for a token (see its --token-file).';
		this.viewerBox.checked = this.wantViewer;
		if (!this.dialog.open)
			this.dialog.showModal();
	}
}
