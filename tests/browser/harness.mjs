// What the browser tests share: counting checks, running gpuperfd on a
// free loopback port, and Debian's chromium driven by playwright-core
// (from web/node_modules; the browser is the system's, never downloaded).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

export const CHROMIUM = '/usr/bin/chromium';
// No sandbox (the tests may run as root), and no traffic but the page's.
const CHROMIUM_FLAGS = [
	'--no-sandbox', '--disable-background-networking', '--disable-gpu',
	'--disable-dev-shm-usage', '--disable-extensions', '--no-first-run',
	'--disable-component-update',
];

export class Checks {
	constructor() {
		this.passed = 0;
		this.failed = 0;
		this.skipped = 0;
	}

	// A check that cannot run here: reported as skipped with what it
	// lacks, never as passed.
	skip(what, missing) {
		this.skipped++;
		console.log(`SKIP: ${what} (missing: ${missing})`);
	}

	check(ok, what, detail = '') {
		if (ok) {
			this.passed++;
		} else {
			this.failed++;
			console.log(`FAIL: ${what}${detail ? `\n  | ${detail}` : ''}`);
		}
		return ok;
	}

	// Runs an async step; an exception fails it instead of ending the run.
	async step(what, fn) {
		try {
			return await fn();
		} catch (error) {
			this.check(false, what, error.message.split('\n')[0]);
			return undefined;
		}
	}

	summary() {
		const skipped = this.skipped ? `, ${this.skipped} skipped` : '';
		console.log(`checks: ${this.passed} passed, ${this.failed} failed${skipped}`);
		return this.failed ? 1 : 0;
	}
}

export function buildDir() {
	return process.env.GPM_BUILD_DIR ?? 'build';
}

export function outputDir() {
	const dir = join(buildDir(), 'browser');
	mkdirSync(dir, { recursive: true });
	return dir;
}

// gpuperfd with args, logging to DIR/NAME.log, its environment this
// process's with env's variables added (a preloaded library and what it
// reads); resolves once it is ready with { urls: { host: url }, pid, log,
// stop() } where stop() resolves to the exit status after SIGTERM.
export function startDaemon(name, args, dir, env = {}) {
	const log = join(dir, `${name}.log`);
	// As root it serves as root.
	const daemon = spawn(join(buildDir(), 'gpuperfd'), ['--allow-root', ...args],
		{ stdio: ['ignore', 'ignore', openSync(log, 'w')], env: { ...process.env, ...env } });
	const exited = new Promise((resolve) => daemon.on('exit', (code, signal) =>
		resolve(signal ? 128 : code)));
	return new Promise((resolve, reject) => {
		const started = Date.now();
		daemon.on('error', (error) => {
			clearInterval(poll);
			reject(new Error(`gpuperfd ${name} could not run: ${error.message}`));
		});
		const poll = setInterval(() => {
			const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
			if (text.includes('ready with')) {
				clearInterval(poll);
				const urls = {};
				for (const [, url, host] of text.matchAll(/listening on (https?:\/\/([^:/]+):\d+\/)/g))
					urls[host] = url;
				resolve({
					urls,
					pid: daemon.pid,
					log,
					stop: () => {
						daemon.kill('SIGTERM');
						return exited;
					},
				});
			} else if (daemon.exitCode !== null || Date.now() - started > 60000) {
				clearInterval(poll);
				daemon.kill('SIGKILL');
				reject(new Error(`gpuperfd ${name} did not start:\n${text}`));
			}
		}, 50);
	});
}

// flags: more of chromium's command line (e.g. --host-resolver-rules).
export function launchBrowser(flags = []) {
	return chromium.launch({ executablePath: CHROMIUM, headless: true,
		args: [...CHROMIUM_FLAGS, ...flags] });
}

// Records the page's console errors and uncaught exceptions into errors.
export function watchConsole(page, label, errors) {
	page.on('console', (message) => {
		if (message.type() === 'error')
			errors.push(`${label}: ${message.text()}`);
	});
	page.on('pageerror', (error) => errors.push(`${label}: ${error.message}`));
}
