#!/bin/sh
# The browser UI, driven in Debian's chromium by tests/browser/ui_checks.mjs
# against gpuperfd --device sim; screenshots land in $GPM_BUILD_DIR/browser.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
if ! command -v node >/dev/null; then
	echo "FAIL: node is missing: the browser UI cannot be built or tested (install nodejs and npm)"
	echo "checks: 0 passed, 1 failed"
	exit 1
fi
exec node "$(dirname "$0")/../browser/ui_checks.mjs"
