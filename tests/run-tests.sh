#!/bin/sh
# Runs every test program given on the command line and sums their results
# into one closing line, "N passed, N failed", or "N passed, N failed,
# N skipped" when any check was skipped; each skip is listed above it
# with what it lacked.
#
# Check suites print "NN%: Checks: N, Failures: F, Errors: E"; a test in
# them that cannot run prints "SKIP: what (missing: why)" and returns, so
# Check counts it as passed: it is taken out of the passed count. Other
# test programs (scripts, the browser tests) print "checks: N passed, F
# failed" or "checks: N passed, F failed, S skipped" with a SKIP line for
# each skip. A program that exits non-zero without reporting a failure (a
# crash, or a leak ASan found at exit) counts as one failure.
# Check's timeouts only bound a hang: a test on a machine whose cores
# are all busy may take many times its usual time.
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-60}"
export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-4}"
passed=0
failed=0
skipped=0
skips=$(mktemp)
for t in "$@"; do
	out=$(mktemp)
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	grep '^SKIP: ' "$out" | sed "s|^SKIP: |$t: |" >>"$skips"
	counts=$(sed -n \
		-e 's/.*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/C \1 \2 \3/p' \
		-e 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed$/S \1 \2 0/p' \
		-e 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/S \1 \2 \3/p' \
		-e 's/^SKIP: .*/K/p' "$out" |
		awk '$1 == "C" { p += $2 - $3 - $4; f += $3 + $4; n++; c++ }
		     $1 == "S" { p += $2; f += $3; s += $4; n++ }
		     $1 == "K" { k++ }
		     END { if (c) { p -= k; s += k } print p + 0, f + 0, s + 0, n + 0 }')
	rm -f "$out"
	set -- $counts "$@"
	p=$1 f=$2 s=$3 n=$4
	shift 4
	if [ "$n" = 0 ] || { [ "$rc" != 0 ] && [ "$f" = 0 ]; }; then
		echo "$t: exited with status $rc without reporting its checks" >&2
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done
if [ "$skipped" != 0 ]; then
	echo "skipped:"
	sed 's/^/  /' "$skips"
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
rm -f "$skips"
[ "$failed" = 0 ]
