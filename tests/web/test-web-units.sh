#!/bin/sh
# The browser UI's pure modules (web/src: units, the series store, counter
# bounds, CSV export, the context filter's words, share sources) under node's own test
# runner, tests in web/test.
# Stryker mutates the same modules against these tests (make mutate-web).
#
# Environment: none. Prints "checks: N passed, F failed".
if ! command -v node >/dev/null; then
	echo "FAIL: node is missing: the web UI's modules cannot be tested (install nodejs and npm)"
	echo "checks: 0 passed, 1 failed"
	exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
(cd "$(dirname "$0")/../../web" && node --test --test-reporter=tap test/) >"$out" 2>&1
status=$?
grep -E '^not ok|^# (pass|fail)' "$out"
grep -A12 '^not ok' "$out" | grep -E 'error:|expected|actual|location' | sed 's/^/  | /'
passed=$(sed -n 's/^# pass //p' "$out")
failed=$(sed -n 's/^# fail //p' "$out")
if [ -z "$passed" ]; then
	sed 's/^/  | /' "$out" | tail -20
	echo "checks: 0 passed, 1 failed"
	exit 1
fi
echo "checks: $passed passed, $failed failed"
[ "$status" = 0 ] && [ "$failed" = 0 ]
