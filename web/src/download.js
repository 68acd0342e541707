// Hands data to the browser as a file download.
export function download(blob, filename) {
	const url = URL.createObjectURL(blob);
	const link = document.createElement('a');
	link.href = url;
	link.download = filename;
	document.body.append(link);
	link.click();
	link.remove();
	// The browser has taken the blob once the click's task is over.
	setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// "2026-11-29T21-50-08": a file name part that sorts by time.
export function fileTimestamp(date = new Date()) {
	return date.toISOString().slice(0, 19).replace(/:/g, '-');
}
