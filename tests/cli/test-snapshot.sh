#!/bin/sh
# gpuperf snapshot against gpuperfd's flight recorder on a simulated Tiger
# Lake GT2 kept streaming: a snapshot holds, report for report, what a
# recording of the same span holds; IGT's i915-perf-reader and gpuperf
# replay read it; a set change mid-ring gives one recording per set, each
# readable, and with --format perfetto one trace per set; a ring that
# overwrote the past says so; /metrics shows the ring; bad arguments and
# devices without a ring are refused with words.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
. "$(dirname "$0")/../perfetto/trace_checks.sh"
reader=/usr/bin/i915-perf-reader
M="--metrics-dir $shared/intel-metrics/i915"

# reports FILE OUT: every report pair of recording FILE as gpuperf replay
# computes it, less the CPU time column (the recorder's correlation points
# and the ring's place reports a few microseconds apart).
reports() {
	"$gpuperf" replay "$1" $M --per-report --raw --format csv 2>/dev/null |
		tail -n +2 | cut -d, -f1,2,4- >"$2"
}

# contains BIG SMALL: the lines of SMALL are lines of BIG, one after the
# other.
contains() {
	awk 'NR == FNR { small[n++] = $0; next }
	     { big[m++] = $0 }
	     END {
		for (i = 0; i < m; i++) if (big[i] == small[0]) break
		if (!n || i == m) exit 1
		for (j = 0; j < n; j++) if (big[i + j] != small[j]) exit 1
	     }' "$2" "$1"
}

start daemon -d sim:tglgt2 $M -l none --unix "$tmp/sock" --linger 0 \
	--flight-recorder 32Mi --keep-streaming RenderBasic@1ms
S="--unix $tmp/sock"

# ---- a snapshot of the span of a recording holds its reports
run 0 record $S -m RenderBasic -o "$tmp/rec.i915perf" --duration 1s
run 0 snapshot $S --last 60s -o "$tmp/snap.i915perf"
expect err "gpuperf snapshot: $tmp/snap.i915perf: RenderBasic of sim0 every"
reports "$tmp/rec.i915perf" "$tmp/rec.csv"
reports "$tmp/snap.i915perf" "$tmp/snap.csv"
rec_rows=$(wc -l <"$tmp/rec.csv")
snap_rows=$(wc -l <"$tmp/snap.csv")
check "the recording has $rec_rows report pairs" [ "$rec_rows" -gt 800 ]
check "the snapshot ($snap_rows pairs) has more than the recording" \
	[ "$snap_rows" -gt "$rec_rows" ]
check "the recording's reports are not, one after the other, in the snapshot" \
	contains "$tmp/snap.csv" "$tmp/rec.csv"
"$reader" -c GpuTime "$tmp/snap.i915perf" >"$tmp/reader" 2>&1
reader_status=$?
check "i915-perf-reader refused the snapshot: $(head -3 "$tmp/reader")" \
	[ "$reader_status" = 0 ]
expect reader "Metric used : RenderBasic"
run 0 replay "$tmp/snap.i915perf" $M --interval 100ms -c GpuBusy --format csv
check "gpuperf replay read too little of the snapshot" [ "$(wc -l <"$tmp/out")" -ge 10 ]

# ---- --last: that long, less what the daemon has yet to read (a poll)
run 0 snapshot $S --last 500ms -o "$tmp/last.i915perf"
run 0 replay "$tmp/last.i915perf" $M --interval 100ms -c GpuTime --format csv
span=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "duration_ns") c = i; next }
	{ s += $c } END { print s + 0 }' "$tmp/out")
# What the daemon has yet to read is a poll on a quiet machine; a loaded
# one reads later, so up to a fifth may still be unread.
check "the last 500 ms span $span ns" \
	eval '[ "$span" -ge 400000000 ] && [ "$span" -le 500000000 ]'

# ---- a set change mid-ring: one recording per set, each readable
run 0 stream $S -m ComputeBasic -p 500us -c GpuTime -i 100ms --duration 500ms \
	--format csv
# The kept set comes back once the controller left.
i=0
while :; do
	"$gpuperf" snapshot $S --last 60s -o "$tmp/change.i915perf" 2>"$tmp/change.err"
	[ -e "$tmp/change-2.i915perf" ] || [ $i -ge 50 ] && break
	i=$((i + 1))
	sleep 0.1
done
expect change.err "change-1.i915perf: RenderBasic of sim0"
expect change.err "change-2.i915perf: ComputeBasic of sim0"
expect change.err "change.i915perf: RenderBasic of sim0"
for f in change-1 change-2 change; do
	"$reader" "$tmp/$f.i915perf" >"$tmp/reader" 2>&1
	reader_status=$?
	check "i915-perf-reader refused $f.i915perf: $(head -3 "$tmp/reader")" \
		[ "$reader_status" = 0 ]
done
expect reader "Metric used : RenderBasic"
"$reader" "$tmp/change-2.i915perf" >"$tmp/reader2" 2>&1
expect reader2 "Metric used : ComputeBasic"
run 0 replay "$tmp/change-2.i915perf" $M -c GpuTime --format csv
expect out "ComputeBasic"

# ---- as Perfetto traces: one a recording, each what gpuperf replay makes
# of that recording, and no recording left behind
run 0 snapshot $S --last 60s --format perfetto $M -i 100ms \
	-o "$tmp/change.pftrace"
expect err "change-1.pftrace: the Perfetto trace of"
expect err "change-2.pftrace: the Perfetto trace of"
expect err "change.pftrace: the Perfetto trace of"
check "a recording fetched for the trace was left: $(ls "$tmp" | grep part)" \
	[ -z "$(ls "$tmp" | grep part)" ]
check_trace "$tmp/change-2.pftrace"
expect change-2.pftrace.summary "track Compute Metrics Basic set"
check_trace "$tmp/change.pftrace"
expect change.pftrace.summary "track Render Metrics Basic set"
run 2 snapshot $S --format pdf -o "$tmp/x.pftrace"
expect err "--format takes i915perf or perfetto, not 'pdf'"
run 2 snapshot $S -i 100ms -o "$tmp/x.i915perf"
expect err "--interval and --metrics-dir go with --format perfetto"

# ---- /metrics: the ring's size, fill and overwrites
curl -s --max-time 10 --unix-socket "$tmp/sock" http://localhost/metrics \
	>"$tmp/metrics" 2>&1
expect metrics 'gpuperf_flight_recorder_capacity_bytes{device="sim0",device_id="sim0-seed1",pci_id="0x9a49",model="Tiger Lake GT2",driver="sim"} 33554432'
expect metrics 'gpuperf_flight_recorder_used_bytes{device="sim0"'
expect metrics 'gpuperf_flight_recorder_overwritten_records_total{device="sim0",device_id="sim0-seed1",pci_id="0x9a49",model="Tiger Lake GT2",driver="sim"} 0'
expect metrics 'gpuperf_flight_recorder_segments_total{device="sim0",device_id="sim0-seed1",pci_id="0x9a49",model="Tiger Lake GT2",driver="sim"} 3'
expect metrics 'gpuperf_flight_recorder_held_seconds{device="sim0",device_id="sim0-seed1",pci_id="0x9a49",model="Tiger Lake GT2",driver="sim"} '
check "a ring given in bytes says a time it was asked to hold" \
	eval "! grep -q '^gpuperf_flight_recorder_asked_seconds' \"$tmp/metrics\""

# ---- /metrics: the time a ring holds against the time --flight-recorder
# asked of it; a controller's faster period makes it hold less.
# ring_value NAME: the value of gpuperf_flight_recorder_NAME of the ring.
ring_value() {
	curl -s --max-time 10 --unix-socket "$tmp/timed.sock" http://localhost/metrics |
		sed -n "s/^gpuperf_flight_recorder_$1{.*} //p"
}
# ring_until NAME AWK_TEST: waits (30 s at most) for the value to pass.
ring_until() {
	ring_tries=300
	while ! awk -v v="$(ring_value "$1")" "BEGIN { exit !(v != \"\" && $2) }"; do
		[ "$ring_tries" -gt 0 ] || return 1
		ring_tries=$((ring_tries - 1))
		sleep 0.1
	done
}
start timed -d sim:tglgt2 $M -l none --unix "$tmp/timed.sock" --linger 0 \
	--flight-recorder 2s --keep-streaming RenderBasic@1ms
check "the 2 s ring never overwrote" ring_until overwritten_bytes_total "v > 0"
check "the ring says it was asked to hold $(ring_value asked_seconds) s, not 2" \
	[ "$(ring_value asked_seconds)" = 2 ]
full=$(ring_value held_seconds)
# The sim writes a report at each context switch beside its timer's
# (about as many at 1 ms): a ring sized for the timer's alone held 1.1 s.
check "the full ring holds $full s: about the 2 s asked" \
	awk -v v="$full" 'BEGIN { exit !(v >= 1.9 && v <= 2.5) }'
"$gpuperf" --unix "$tmp/timed.sock" stream -p 100us -c GpuBusy -i 500ms \
	--format csv --duration 60s >"$tmp/fast.csv" 2>"$tmp/fast.err" &
fast_pid=$!
pids="$pids $fast_pid"
check "at a tenth of the period, the ring still holds $(ring_value held_seconds) s of $full" \
	ring_until held_seconds "v < $full / 2"
kill "$fast_pid"
stop timed

# ---- refusals
run 2 snapshot $S --last soon -o "$tmp/x.i915perf"
expect err "--last takes a duration such as 10s or 500ms, not 'soon'"
run 2 snapshot $S --last 1s
expect err "name the file to write with -o"
run 5 snapshot $S -d card7 -o "$tmp/x.i915perf"
expect err "no device 'card7'"
run 3 snapshot $S -o "$tmp/no/such/dir/x.i915perf"
expect err "cannot write $tmp/no/such/dir/x"
check "a refused snapshot left a file" [ ! -e "$tmp/x.i915perf" ]

# ---- a small ring at 100 us: it overwrites, and the snapshot says so;
# a daemon without a ring, or whose snapshots are for controllers
start small -d sim:tglgt2 $M -l none --unix "$tmp/small.sock" --linger 0 \
	--flight-recorder 256Ki --keep-streaming RenderBasic@100us \
	--snapshot-role controller
i=0
until curl -s --max-time 10 --unix-socket "$tmp/small.sock" http://localhost/metrics |
	grep -q 'overwritten_records_total{device="sim0",[^}]*} [1-9]' ||
	[ $i -ge 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
check "the small ring overwrote nothing in 10 s" [ $i -lt 100 ]
run 0 snapshot --unix "$tmp/small.sock" -o "$tmp/small.i915perf"
expect err "the flight recorder had overwritten the reports before its first"
expect err "begins after an OA_BUFFER_LOST"
"$reader" "$tmp/small.i915perf" >"$tmp/reader" 2>&1
reader_status=$?
check "i915-perf-reader refused the overwritten snapshot: $(head -3 "$tmp/reader")" \
	[ "$reader_status" = 0 ]
run 5 snapshot --unix "$tmp/small.sock" --viewer -o "$tmp/x.i915perf"
expect err "only controllers take snapshots"

start bare -d sim:tglgt2 $M -l none --unix "$tmp/bare.sock" --linger 0
run 5 snapshot --unix "$tmp/bare.sock" -o "$tmp/x.i915perf"
expect err "device sim0 keeps no flight recorder; start gpuperfd with --flight-recorder"
stop bare
stop small
stop daemon

finish
