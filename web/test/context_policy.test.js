// context_policy.js: which context filter a device gives, in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextFilterText, singleContextText } from '../src/context_policy.js';

const SOFTWARE = /^Picking a context narrows this device's system-wide stream in gpuperfd/;

test('no device, no words', () => {
	assert.equal(contextFilterText(null), '');
	assert.equal(singleContextText(null), '');
	assert.equal(singleContextText({ name: 'card0' }), '');
});

test('a device of the software filter only says so', () => {
	const text = contextFilterText({ softwareContextFilter: true });
	assert.match(text, SOFTWARE);
	assert.doesNotMatch(text, /Unix socket/);
});

test('a device of neither filter says its counters are the whole unit\'s', () => {
	assert.equal(contextFilterText({}),
		'This device takes no context filter: its counters are the whole unit\'s.');
});

test('i915: both filters, the kernel\'s streaming one context alone', () => {
	const text = contextFilterText({ softwareContextFilter: true, kernelContextFilter: true,
		kernelFiltersReports: true });
	assert.match(text, SOFTWARE);
	assert.match(text, /the kernel then streams that context alone, and the stream takes the whole OA unit\.$/);
});

test('xe: an exec queue\'s stream still counts the whole unit', () => {
	const text = contextFilterText({ softwareContextFilter: true, kernelContextFilter: true,
		kernelFiltersReports: false });
	assert.match(text, SOFTWARE);
	assert.match(text, /exec queue .* still counts the whole unit, and takes it\.$/);
});

test('Haswell: no context can be picked, the kernel\'s filter can be asked for', () => {
	const text = contextFilterText({ kernelContextFilter: true, kernelFiltersReports: true });
	assert.match(text, /^This device's reports carry no context id, so no context can be picked here\. An application/);
});

test('a running single-context stream is said, with the device', () => {
	const device = { name: 'card0', configuration: { singleContext: true } };
	assert.equal(singleContextText(device), 'card0 streams one application\'s context, ' +
		'which that application passed with its DRM file: its counters go to that ' +
		'application only, and the OA unit takes no other subscription until it ends.');
	assert.equal(singleContextText({ name: 'card0', configuration: { singleContext: false } }), '');
});
