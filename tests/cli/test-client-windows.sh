#!/bin/sh
# What gpuperf stream and run measure, window by window: a sampling period
# faster than the simulated unit can keep up with streams with its loss
# counted, never silence; a stream with no window, or whose --ctx matched
# nothing, says so and fails; --duration covers that much GPU time, its
# first and last windows flushed and marked partial; run's interval rows
# add up to its totals; and the daemon's replay of a recording gives, with
# --raw, exactly what gpuperf replay computes from the file.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# column FILE NAME: the values of CSV column NAME, data rows only (a
# units row names no platform).
column() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		$1 != "" { print $c }' "$1"
}

# sum FILE NAME: the sum of CSV column NAME.
sum() {
	column "$1" "$2" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# --min-period 0: the fastest period the unit has.
start daemon -d sim -l none --unix "$tmp/sock" --linger 0 --min-period 0
S="--unix $tmp/sock"

# ---- the fastest period: windows come, and say what was lost
run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -p 105ns -i 200ms \
	--duration 1s --format csv -o "$tmp/fast.csv"
rows=$(column "$tmp/fast.csv" reports | grep -c .)
check "a 105 ns period gave $rows windows in 1 s" [ "$rows" -ge 3 ]
reports=$(sum "$tmp/fast.csv" reports)
check "a 105 ns period gave $reports reports" [ "$reports" -gt 1000 ]
lost=$(sum "$tmp/fast.csv" buffers_lost)
check "a 105 ns period the sim cannot keep up with lost no buffer" \
	[ "$lost" -gt 0 ]
expect err "OA buffer overflows"

# ---- --duration: that much GPU time, partial ends flushed and marked
for d in 1 3; do
	run 0 stream $S -m RenderBasic -c GpuTime -p 100us -i 1s --duration ${d}s \
		--format csv -o "$tmp/d$d.csv"
	covered=$(sum "$tmp/d$d.csv" duration_ns)
	# Within one sampling period (53.3 us here) of what was asked.
	check "--duration ${d}s covered $covered ns of GPU time" awk \
		-v c="$covered" -v d="$d" 'BEGIN { e = c - d * 1e9; exit !(e <= 0 && e > -53334) }'
	check "--duration ${d}s: the first window is not marked partial" \
		[ "$(column "$tmp/d$d.csv" partial | head -1)" = 1 ]
	check "--duration ${d}s: the last window is not marked partial" \
		[ "$(column "$tmp/d$d.csv" partial | tail -1)" = 1 ]
done
run 0 stream $S -m RenderBasic -c GpuTime -p 100us -i 100ms --duration 1s \
	--format csv -o "$tmp/tiles.csv"
full=$(column "$tmp/tiles.csv" partial | grep -c '^0$')
check "--duration 1s -i 100ms: $full whole windows" eval '[ "$full" -ge 9 ]'

# ---- run: the interval rows add up to the totals row exactly
run 0 run $S -m RenderBasic -c GpuTime -p 100us -i 250ms --format csv \
	-o "$tmp/run.csv" -- sleep 1
intervals=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "mark") m = i; if ($i == "reports") r = i }; next }
	$m == 0 { s += $r } END { print s + 0 }' "$tmp/run.csv")
totals=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "mark") m = i; if ($i == "reports") r = i }; next }
	$m == 1 { print $r }' "$tmp/run.csv")
check "run -i: the intervals hold $intervals reports, the totals $totals" \
	[ "$intervals" = "$totals" ]
ntotals=$(column "$tmp/run.csv" mark | grep -c '^1$')
check "run -i wrote $ntotals totals rows" [ "$ntotals" = 1 ]
check "run -i: the last row is not the totals" \
	[ "$(column "$tmp/run.csv" mark | tail -1)" = 1 ]

# ---- --ctx that matches nothing: said, and a failure
run 1 stream $S -m RenderBasic -c GpuTime -i 100ms --duration 300ms --ctx 0x999
expect err "no report of context 0x999"
expect err "--per-context"

# ---- the daemon's replay gives what gpuperf replay computes, --raw too
run 0 record $S -m RenderBasic -p 100us --duration 1s -o "$tmp/rec.i915perf"
start replayer -d "replay:$tmp/rec.i915perf,speed=max" -l none \
	--unix "$tmp/replay.sock" --linger 0
run 0 stream --unix "$tmp/replay.sock" -c GpuTime,GpuBusy,EuActive -i 100ms \
	--raw --format csv -o "$tmp/streamed.csv"
expect err "reached the end of its recording"
run 0 replay "$tmp/rec.i915perf" -c GpuTime,GpuBusy,EuActive --interval 100ms \
	--raw --format csv -o "$tmp/replayed.csv"
# The columns both have, in the stream's order, window by window.
awk -F, 'FNR == 1 { f++; for (i = 1; i <= NF; i++) col[f, $i] = i; if (f == 1) { n = NF; for (i = 1; i <= NF; i++) name[i] = $i }; next }
	{ row[f, FNR] = $0; rows[f] = FNR }
	END {
		if (rows[1] != rows[2]) { print "rows: " rows[1] - 1 " streamed, " rows[2] - 1 " replayed"; exit 1 }
		for (r = 2; r <= rows[1]; r++) {
			split(row[1, r], a, ","); split(row[2, r], b, ",")
			for (i = 1; i <= n; i++) {
				k = name[i]
				if (k == "timestamp_ns" || !((2, k) in col)) continue
				if (a[i] != b[col[2, k]]) { print "row " r - 1 " " k ": " a[i] " streamed, " b[col[2, k]] " replayed"; bad++ }
			}
		}
		exit bad > 0
	}' "$tmp/streamed.csv" "$tmp/replayed.csv" >"$tmp/diff" 2>&1
status=$?
check "the replay source's windows differ from gpuperf replay's: $(head -3 "$tmp/diff")" \
	[ "$status" = 0 ]
check "the replay source gave no raw column" grep -q raw_a7 "$tmp/streamed.csv"
stop replayer
# Durations are read alike by every command: minutes too.
run 0 replay "$tmp/rec.i915perf" -c GpuTime --interval 1m --format csv
check "a 1 minute window of a 1 s recording is not one row: $(cat "$tmp/out")" \
	[ "$(wc -l <"$tmp/out")" = 2 ]
run 2 replay "$tmp/rec.i915perf" --interval 10parsecs
expect err "--interval takes a duration such as 10ms, not '10parsecs'"

# ---- a stream with no window: said, and a failure. The recording cut
# before its first report replays no window.
off=0
size=$(wc -c <"$tmp/rec.i915perf")
while [ "$off" -lt "$size" ]; do
	set -- $(od -An -tu4 -j "$off" -N 8 "$tmp/rec.i915perf")
	[ "$1" = 1 ] && break
	off=$((off + ($2 >> 16)))
done
head -c "$off" "$tmp/rec.i915perf" >"$tmp/empty.i915perf"
start empty -d "replay:$tmp/empty.i915perf,speed=max" -l none \
	--unix "$tmp/empty.sock" --linger 0
run 1 stream --unix "$tmp/empty.sock" -c GpuTime -i 100ms --format csv
expect err "no window came"
stop empty

finish
