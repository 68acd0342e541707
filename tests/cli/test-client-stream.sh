#!/bin/sh
# gpuperf stream, record, run and compare against gpuperfd on a simulated
# Tiger Lake GT2: every stream format (and NDJSON whole after a kill),
# recordings IGT's i915-perf-reader accepts (after --duration and after
# Ctrl-C), run's exit status and totals, --viewer, compare on a synthetic
# regression and on identical inputs.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
reader=/usr/bin/i915-perf-reader

# json_lines FILE: every line of FILE is a whole JSON object.
json_lines() {
	if command -v jq >/dev/null; then
		while IFS= read -r line; do
			printf '%s\n' "$line" | jq -e 'type == "object"' \
				>/dev/null 2>&1 || return 1
		done <"$1"
	else
		! grep -qv '^{.*}$' "$1"
	fi
}

# ends_with_newline FILE: the last byte of FILE is a newline.
ends_with_newline() {
	tail -c 1 "$1" | od -An -c | grep -q '\\n'
}

# column FILE NAME: the values of CSV column NAME, data rows only (a
# units row names no platform).
column() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		$1 != "" { print $c }' "$1"
}

start daemon -d sim:tglgt2 -m "$shared/intel-metrics/i915" -l none \
	--unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"

# ---- stream: csv with a units row, to a file
run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -i 100ms --duration 1s \
	--format csv --units -o "$tmp/s.csv"
header=$(sed -n 1p "$tmp/s.csv")
check "csv header: $header" [ "$header" = \
	"platform,metric_set,timestamp_ns,duration_ns,partial,reports,lost,buffers_lost,dropped,GpuTime,GpuBusy" ]
units=$(sed -n 2p "$tmp/s.csv")
check "csv units row: $units" [ "$units" = ",,ns,ns,,,,,,ns,percent" ]
rows=$(($(wc -l <"$tmp/s.csv") - 2))
check "1 s of 100 ms windows gave $rows rows" eval '[ "$rows" -ge 6 ] && [ "$rows" -le 11 ]'
check "csv rows hold numbers only, after the platform and set" \
	[ -z "$(tail -n +3 "$tmp/s.csv" | grep -v '^tglgt2,RenderBasic,[0-9][0-9,.e+-]*$')" ]
busy=$(column "$tmp/s.csv" GpuBusy | awk '$1 < 0 || $1 > 100 { bad = 1 } END { print bad + 0 }')
check "GpuBusy outside 0..100" [ "$busy" = 0 ]

# ---- stream: ndjson on standard output, every line whole
run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -i 100ms --duration 600ms --format ndjson
check "ndjson lines are not all JSON objects" json_lines "$tmp/out"
expect out '"lost":0,"buffers_lost":0,"dropped":0,"GpuTime":'
check "too few ndjson rows" [ "$(wc -l <"$tmp/out")" -ge 3 ]

# ---- stream: ndjson killed mid-stream still holds whole lines
# killable_stream: an NDJSON stream into k.ndjson that has written 20
# rows and runs on, its pid in $killme; fails saying how it ended if not.
killable_stream() {
	"$gpuperf" stream $S -m RenderBasic -i 5ms --format ndjson -o "$tmp/k.ndjson" \
		2>"$tmp/k.err" &
	killme=$!
	wait_lines "$tmp/k.ndjson" 20 && kill -0 "$killme" 2>/dev/null && return 0
	kill -KILL "$killme" 2>/dev/null
	wait "$killme"
	echo "the stream ended with status $? and $(wc -l <"$tmp/k.ndjson" 2>/dev/null || echo no) rows: $(cat "$tmp/k.err")"
	return 1
}
# A stream that ends by itself before its 20 rows is said, and started
# once more: what is checked is the file a kill leaves.
if killable_stream || killable_stream; then
	ok
else
	fail "no stream wrote 20 rows to kill it after"
fi
kill -KILL "$killme" 2>/dev/null
wait "$killme" 2>/dev/null
check "a killed ndjson stream left a partial line" json_lines "$tmp/k.ndjson"
check "a killed ndjson stream does not end with a newline" \
	ends_with_newline "$tmp/k.ndjson"

# ---- stream: table, plain rows when not on a terminal
run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -i 200ms --duration 700ms
expect out "    time_s    duration     partial     reports        lost  buffers_lost     dropped     GpuTime     GpuBusy"
expect out " ms "
expect out " %"
# Counts over the window are rates per second of it; machine rows carry
# the window's bytes, in the unit --units names.
run 0 stream $S -m RenderBasic -c GtiReadThroughput -i 200ms --duration 500ms
check "GtiReadThroughput is not shown in bytes per second" \
	grep -Eq ' [0-9.]+ [kMG]B/s$' "$tmp/out"
run 0 stream $S -m RenderBasic -c GtiReadThroughput -i 200ms --duration 500ms \
	--format csv --units
expect out ",,ns,ns,,,,,,bytes"

# ---- stream: table redrawn in place on a terminal
if command -v script >/dev/null; then
	script -qec "$gpuperf stream $S -m RenderBasic -c GpuTime,GpuBusy,EuActive -i 200ms --duration 900ms" \
		/dev/null >"$tmp/tty" 2>&1
	check "the terminal view did not redraw in place" \
		[ "$(grep -c "$(printf '\033\\[H\033\\[2J')" "$tmp/tty")" -ge 3 ]
	expect tty "COUNTER"
	expect tty "frames dropped"
	expect tty "EuActive"
else
	fail "script(1) is missing: the terminal view goes untested"
fi

# ---- stream: per-context rows and raw deltas
run 0 stream $S -m RenderBasic -c GpuTime -i 200ms --duration 700ms --per-context \
	--raw --format csv
expect out "platform,metric_set,timestamp_ns,duration_ns,partial,context_id,reports,lost,buffers_lost,dropped,GpuTime,raw_gpu_time,raw_gpu_clock,raw_a0"
whole=$(column "$tmp/out" context_id | grep -c '^$')
contexts=$(column "$tmp/out" context_id | grep -c .)
check "contexts are not written in hex, or idle" \
	[ -z "$(column "$tmp/out" context_id | grep -v '^0x[0-9a-f]*$' | grep -v '^idle$' | grep .)" ]
check "per-context: $whole window rows, $contexts context rows" \
	eval '[ "$whole" -ge 2 ] && [ "$contexts" -gt "$whole" ]'

# ---- record: --duration, then IGT's reader
run 0 record $S -m RenderBasic -o "$tmp/a.i915perf" --duration 1s
expect err "recording RenderBasic of sim0"
expect err "reports in $tmp/a.i915perf"
"$reader" -c GpuTime "$tmp/a.i915perf" >"$tmp/reader" 2>&1
reader_status=$?
check "i915-perf-reader refused the recording: $(head -3 "$tmp/reader")" \
	[ "$reader_status" = 0 ]
expect reader "Metric used : RenderBasic"
expect reader "Timestamp correlation points:"

# ---- record: Ctrl-C ends it with a whole file
"$gpuperf" record $S -m RenderBasic -o "$tmp/b.i915perf" 2>"$tmp/rec.err" &
recpid=$!
# 600 reports of 264 bytes on their way to the file, then Ctrl-C.
tenths=300
while [ "$(stat -c %s "$tmp/b.i915perf" 2>/dev/null || echo 0)" -lt 160000 ] &&
	[ "$tenths" -gt 0 ]; do
	tenths=$((tenths - 1))
	sleep 0.1
done
kill -INT "$recpid"
wait "$recpid"
record_status=$?
check "record exited $record_status after SIGINT" [ "$record_status" = 0 ]
"$reader" "$tmp/b.i915perf" >"$tmp/reader" 2>&1
reader_status=$?
check "i915-perf-reader refused the interrupted recording: $(head -3 "$tmp/reader")" \
	[ "$reader_status" = 0 ]
reports=$(sed -n 's/^Reports: //p' "$tmp/reader")
check "the interrupted recording has ${reports:-no} reports" [ "${reports:-0}" -gt 500 ]
run 0 replay "$tmp/b.i915perf" --metrics-dir "$shared/intel-metrics/i915" \
	--interval 100ms -c GpuTime --format csv
check "gpuperf replay read too little of the recording" [ "$(wc -l <"$tmp/out")" -ge 5 ]
run 2 record $S -o "$tmp/c.i915perf"
expect err "name the metric set with -m"

# ---- run: the command's exit status, the totals of its window
run_began=$(date +%s%N)
run 7 run $S -m RenderBasic -c GpuTime,GpuBusy --format ndjson -o "$tmp/run.ndjson" \
	-- sh -c 'sleep 0.5; exit 7'
run_took=$(($(date +%s%N) - run_began))
check "run without -i writes one totals row" [ "$(wc -l <"$tmp/run.ndjson")" = 1 ]
check "run's ndjson is not JSON" json_lines "$tmp/run.ndjson"
expect run.ndjson '"mark":1'
duration=$(sed 's/.*"duration_ns":\([0-9]*\).*/\1/' "$tmp/run.ndjson")
gputime=$(sed 's/.*"GpuTime":\([0-9]*\).*/\1/' "$tmp/run.ndjson")
check "the window of a 0.5 s command lasted $duration ns ($run_took ns for all of gpuperf run)" \
	eval '[ "$duration" -gt 450000000 ] && [ "$duration" -lt "$run_took" ]'
check "GpuTime $gputime is not the window's $duration ns" awk -v a="$duration" \
	-v b="$gputime" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= a / 100) }'

run 0 run $S -m RenderBasic -c GpuTime -i 100ms --format csv -o "$tmp/run.csv" -- sleep 0.6
intervals=$(column "$tmp/run.csv" mark | grep -c '^0$')
totals=$(column "$tmp/run.csv" mark | grep -c '^1$')
check "run -i: $intervals interval rows, $totals totals rows" \
	eval '[ "$intervals" -ge 4 ] && [ "$totals" = 1 ]'
check "the totals row is not last" [ "$(column "$tmp/run.csv" mark | tail -1)" = 1 ]

run 0 run $S -m RenderBasic -c GpuTime -- true
expect out "mark"
run 143 run $S -m RenderBasic -- sh -c 'kill -TERM $$'
expect err "signal 15"
run 127 run $S -m RenderBasic -- "$tmp/no-such-command"
expect err "cannot run $tmp/no-such-command"
run 4 run --unix "$tmp/no.sock" -m RenderBasic -- touch "$tmp/ran"
check "run started the command without a daemon" [ ! -e "$tmp/ran" ]
run 2 run $S -m RenderBasic
expect err "name the command to run"

# ---- --viewer: joins what runs, and cannot change it even where the
# connection could (the Unix socket grants a controller)
"$gpuperf" stream $S -m RenderBasic -c GpuTime -i 100ms --format csv \
	-o "$tmp/holder.csv" 2>"$tmp/holder.err" &
holder=$!
pids="$pids $holder"
check "the holding stream wrote no row" wait_lines "$tmp/holder.csv" 2
run 5 --viewer stream $S -m ComputeBasic -c GpuTime --duration 0.3s
expect err "a viewer cannot change it"
run 0 stream $S --viewer -m RenderBasic -c GpuTime -i 100ms --duration 0.3s --format csv
check "the viewer got no rows of what runs" [ "$(wc -l <"$tmp/out")" -ge 2 ]
run 0 stream $S -m ComputeBasic -c GpuTime -i 100ms --duration 0.3s --format csv
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
expect holder.err "ComputeBasic"

# ---- compare: identical inputs pass, a synthetic regression fails
run 0 compare "$tmp/run.ndjson" "$tmp/run.ndjson"
expect out "GpuBusy"
expect out "+0.0%"
expect out "the noise is unknown"
run 0 compare "$tmp/s.csv" "$tmp/s.csv" --metrics-dir "$shared/intel-metrics/i915"
expect out "2 counters compared: 0 worse"
cat >"$tmp/base.ndjson" <<EOF
{"platform":"simgen12","metric_set":"RenderBasic","timestamp_ns":1,"duration_ns":100,"mark":0,"reports":10,"lost":0,"buffers_lost":0,"dropped":0,"GpuTime":100,"GpuBusy":40,"GtiReadThroughput":1000}
{"platform":"simgen12","metric_set":"RenderBasic","timestamp_ns":2,"duration_ns":1000,"mark":1,"reports":100,"lost":0,"buffers_lost":0,"dropped":0,"GpuTime":1000,"GpuBusy":50,"GtiReadThroughput":2000}
EOF
cat >"$tmp/slower.csv" <<EOF
platform,metric_set,timestamp_ns,duration_ns,mark,reports,lost,buffers_lost,dropped,GpuTime,GpuBusy,GtiReadThroughput
,,ns,ns,,,,,,ns,percent,bytes
simgen12,RenderBasic,5,2000,1,100,0,0,0,1200,51,1500
EOF
run 1 compare "$tmp/base.ndjson" "$tmp/slower.csv"
expect out "+20.0%"
expect out "WORSE"
expect out "-25.0%"
expect out "better"
expect out "+2.0%"
expect out "reported"
expect out "3 counters compared: 1 worse, 1 better"
run 0 compare "$tmp/base.ndjson" "$tmp/slower.csv" --threshold 25
# A change of exactly the threshold is allowed, a rise as a fall.
run 0 compare "$tmp/base.ndjson" "$tmp/slower.csv" --threshold 20
expect out "3 counters compared: 0 worse, 1 better"
run 0 compare "$tmp/base.ndjson" "$tmp/slower.csv" --threshold 25 \
	--higher-is-better GtiReadThroughput
expect out "3 counters compared: 0 worse, 0 better"
run 1 compare "$tmp/base.ndjson" "$tmp/slower.csv" --threshold 24 \
	--higher-is-better GpuTime,GtiReadThroughput
run 1 compare "$tmp/base.ndjson" "$tmp/slower.csv" -c GpuBusy --any-direction GpuBusy \
	--threshold 1
expect out "CHANGED"
run 0 compare "$tmp/base.ndjson" "$tmp/slower.csv" -c GpuBusy
run 2 compare "$tmp/base.ndjson" "$tmp/slower.csv" -c NoSuchCounter
expect err "counter 'NoSuchCounter' is not in"
printf 'not a result\n{\n' >"$tmp/junk"
run 3 compare "$tmp/base.ndjson" "$tmp/junk"
run 3 compare "$tmp/base.ndjson" "$tmp/missing.ndjson"
expect err "$tmp/missing.ndjson: No such file or directory"

# ---- Haswell's reports carry no context ID: no per-context rows, live or
# replayed, in words; its windows still stream
start hsw -d sim:hsw -m "$shared/intel-metrics/i915" -l none \
	--unix "$tmp/hsw.sock" --linger 0
H="--unix $tmp/hsw.sock"
run 5 stream $H -m RenderBasic -c GpuTime -i 100ms --duration 300ms --per-context
expect err "device sim0's reports (Haswell) carry no context ID"
expect err "stream without --per-context"
run 0 stream $H -m RenderBasic -c GpuTime -i 100ms --duration 300ms --format csv
check "Haswell streamed no window" [ "$(wc -l <"$tmp/out")" -ge 3 ]
run 0 record $H -m RenderBasic --duration 300ms -o "$tmp/hsw.i915perf"
stop hsw
run 3 replay "$tmp/hsw.i915perf" --metrics-dir "$shared/intel-metrics/i915" \
	--per-context
expect err "recorded on Haswell, whose OA reports carry no context ID"
expect err "replay it --per-report or --interval DURATION"
run 0 replay "$tmp/hsw.i915perf" --metrics-dir "$shared/intel-metrics/i915" \
	-c GpuTime --format csv -o "$tmp/hsw.csv"
hsw_rows=$(tail -n +2 "$tmp/hsw.csv" | wc -l)
check "Haswell's replay gave $hsw_rows rows" [ "$hsw_rows" -ge 100 ]
check "Haswell's replay rows are report pairs without a context" \
	[ -z "$(tail -n +2 "$tmp/hsw.csv" | awk -F, '$6 != "" || $7 != 1')" ]

finish
