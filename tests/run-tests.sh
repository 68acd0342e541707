#!/bin/sh
# Runs every test program given on the command line and sums their results
# into one closing line, "N passed, N failed".
#
# Check suites print "NN%: Checks: N, Failures: F, Errors: E"; other test
# programs (integration scripts) print "checks: N passed, F failed".
# A program that exits non-zero without reporting a failure (a crash, or a
# leak ASan found at exit) counts as one failure.
passed=0
failed=0
for t in "$@"; do
	out=$(mktemp)
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	counts=$(sed -n \
		-e 's/.*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/C \1 \2 \3/p' \
		-e 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed$/S \1 \2/p' "$out" |
		awk '$1 == "C" { p += $2 - $3 - $4; f += $3 + $4 }
		     $1 == "S" { p += $2; f += $3 }
		     END { print p + 0, f + 0, NR }')
	rm -f "$out"
	set -- $counts "$@"
	p=$1 f=$2 n=$3
	shift 3
	if [ "$n" = 0 ] || { [ "$rc" != 0 ] && [ "$f" = 0 ]; }; then
		echo "$t: exited with status $rc without reporting its checks" >&2
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
