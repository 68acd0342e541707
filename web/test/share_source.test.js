// share_source.js: a process row's share source, in every sink's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SHARE_SOURCE_TITLES, shareSourceName, shareSourceText } from '../src/share_source.js';

test('each source has the name the other sinks print', () => {
	assert.equal(shareSourceName({ shareSource: 0 }), '');
	assert.equal(shareSourceName({ shareSource: 1 }), 'kernel_counters');
	assert.equal(shareSourceName({ shareSource: 2 }), 'driver_sampled');
	assert.equal(shareSourceName({ shareSource: 3 }), 'measured_in_process');
	assert.equal(shareSourceName({ shareSource: 4 }), 'simulated');
	assert.equal(shareSourceName({ shareSource: 9 }), '');
	assert.equal(shareSourceName({}), '');
	for (const name of ['kernel_counters', 'driver_sampled', 'measured_in_process', 'simulated'])
		assert.ok(SHARE_SOURCE_TITLES[name].length > 0, name);
});

test('a measure that lost kernel records says how many', () => {
	assert.equal(shareSourceText({ shareSource: 3, recordsLost: 37 }),
		'measured_in_process (37 records lost)');
	assert.equal(shareSourceText({ shareSource: 3, recordsLost: '12' }),
		'measured_in_process (12 records lost)');
});

test('nothing lost, or a daemon that does not say, adds nothing', () => {
	assert.equal(shareSourceText({ shareSource: 3, recordsLost: 0 }), 'measured_in_process');
	assert.equal(shareSourceText({ shareSource: 3 }), 'measured_in_process');
	assert.equal(shareSourceText({ shareSource: 2 }), 'driver_sampled');
});
