#!/bin/sh
# make coverage's report: from the gcov counters a COV=1 build left in
# BUILD (build/coverage) after the suite ran, lines and branches covered
# per folder (metrics/, daemon/ and client/ with everything under them, then
# each folder of its own files), and
# the files under their goal: 90% of lines in metrics/, 80% in daemon/ and
# client/. gcovr writes the per-file table to BUILD/coverage.csv and an
# HTML page per file to BUILD/html/.
#
#   tests/coverage/summary.sh [BUILD]
build=${1:-build/coverage}
if ! command -v gcovr >/dev/null; then
	echo "gcovr is missing: run make deps (Debian package gcovr)"
	exit 1
fi
mkdir -p "$build/html"
# Generated protocol code and the tests' own code are not the project's to
# cover.
gcovr -r . "$build" --filter 'metrics/' --filter 'daemon/' --filter 'client/' \
	--exclude-unreachable-branches --csv -o "$build/coverage.csv" \
	--html-details "$build/html/index.html" || exit 1
awk -F, '
	NR == 1 { next }
	{
		file = $1; lines = $2; lines_hit = $3; branches = $5; branches_hit = $6
		top = substr(file, 1, index(file, "/"))
		folder = file
		sub(/\/[^\/]*$/, "/", folder)
		l[folder] += lines; lh[folder] += lines_hit
		b[folder] += branches; bh[folder] += branches_hit
		if (folder != top) {
			l[top] += lines; lh[top] += lines_hit
			b[top] += branches; bh[top] += branches_hit
		}
		L += lines; LH += lines_hit; B += branches; BH += branches_hit
		goal = top == "metrics/" ? 90 : 80
		if (lines && lines_hit * 100 < goal * lines)
			under[++n] = sprintf("  %-40s %5.1f%% of %d lines (goal %d%%)", file,
				100 * lines_hit / lines, lines, goal)
	}
	function pct(a, b) { return b ? sprintf("%5.1f%%", 100 * a / b) : "    -" }
	END {
		printf "%-16s %6s %12s %6s %12s\n", "folder", "lines", "", "branches", ""
		for (f in l)
			printf "%-16s %s %12s %s %12s\n", f, pct(lh[f], l[f]),
				lh[f] "/" l[f], pct(bh[f], b[f]), bh[f] "/" b[f] | "sort"
		close("sort")
		printf "%-16s %s %12s %s %12s\n", "all", pct(LH, L), LH "/" L, pct(BH, B), BH "/" B
		if (n) {
			print "files under their goal:"
			for (i = 1; i <= n; i++)
				print under[i]
		}
	}' "$build/coverage.csv"
echo "per file: $build/coverage.csv and $build/html/index.html"
