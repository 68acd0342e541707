#!/bin/sh
# Perfetto traces: gpuperf replay --format perfetto of a recording the
# daemon made on a simulated Tiger Lake GT2, gpuperf record --format
# perfetto live from the daemon, gpuperf stream and run --format
# perfetto, decoded with protoc against Perfetto's own schema and checked
# for what they mean, the counters equal to replay's NDJSON of the same
# windows, the usage tracks of record's and stream's traces equal to
# gpuperf top's NDJSON of the same intervals; a live trace of a recording
# the daemon replays is the replay's trace but for the clock snapshots of
# the capture and the usage sequence a live trace adds (a replay device
# has no usage stream: it says so there); a field numbered wrongly or a
# track used before it is described is caught.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
. "$(dirname "$0")/../perfetto/trace_checks.sh"
M="--metrics-dir $shared/intel-metrics/i915"

start daemon -d sim:tglgt2 -m "$shared/intel-metrics/i915" -l none \
	--unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"
run 0 record $S -m RenderBasic -o "$tmp/r.i915perf" --duration 1500ms

# ---- replay: the trace, and the NDJSON of the same windows
run 0 replay "$tmp/r.i915perf" $M --format perfetto -o "$tmp/r.pftrace"
run 0 replay "$tmp/r.i915perf" $M --format ndjson --interval 10ms -o "$tmp/r.ndjson"
check_trace "$tmp/r.pftrace" "$tmp/r.ndjson"
expect r.pftrace.summary "track Tiger Lake GT2 (PCI 0x9a49)"
expect r.pftrace.summary "track Render Metrics Basic set"
expect r.pftrace.summary "track GPU Busy"
expect r.pftrace.summary "track GPU contexts"
expect r.pftrace.summary "track context 0x"
windows=$(sed -n 's/.* \([0-9]*\) windows,.*/\1/p' "$tmp/r.pftrace.summary")
# A window in the trace for each of the NDJSON's, over the recording's
# 1.5 s and what the daemon held when it began (a loaded machine reads
# late, so a few windows more).
ndjson_windows=$(wc -l <"$tmp/r.ndjson")
check "1.5 s at 10 ms gave ${windows:-no} windows, NDJSON $ndjson_windows" \
	eval '[ "${windows:-0}" -ge 100 ] && [ "${windows:-0}" -le 300 ] &&
	      [ "${windows:-0}" = "$ndjson_windows" ]'
slices=$(sed -n 's/.* \([0-9]*\) slices,.*/\1/p' "$tmp/r.pftrace.summary")
check "no context slices" [ "${slices:-0}" -gt 100 ]
expect r.pftrace.txt 'unit_name: "percent"'
expect r.pftrace.txt 'unit: UNIT_TIME_NS'

# Chosen counters and another window, to standard output.
"$gpuperf" replay "$tmp/r.i915perf" $M --format perfetto --interval 100ms \
	-c GpuTime,GpuBusy,EuActive >"$tmp/c.pftrace" 2>"$tmp/err"
check "replay to a pipe failed" [ -s "$tmp/c.pftrace" ]
run 0 replay "$tmp/r.i915perf" $M --format ndjson --interval 100ms \
	-c GpuTime,GpuBusy,EuActive -o "$tmp/c.ndjson"
check_trace "$tmp/c.pftrace" "$tmp/c.ndjson"
check "-c left other counters in the trace" [ -z "$(grep 'track GPU Core Clocks' "$tmp/c.pftrace.summary")" ]

# ---- record: live from the daemon, on BOOTTIME
run 0 record $S -m RenderBasic -o "$tmp/l.pftrace" --format perfetto --duration 1s \
	-c GpuTime,GpuBusy,EuActive,VsThreads -i 20ms
expect err "as a Perfetto trace"
check_trace "$tmp/l.pftrace"
expect l.pftrace.summary "(with BOOTTIME)"
expect l.pftrace.summary "track VS Threads Dispatched"
expect l.pftrace.summary "track rcs0 busy"
expect l.pftrace.summary ", 2 sequences"
# Shorter than the recorder fills its 64 KiB buffer in, joining a stream
# already running (as in the UI, beside its own): the usage comes all the
# same, from the first report to the end.
"$gpuperf" stream $S -m RenderBasic -p 1ms -i 100ms --format ndjson -o "$tmp/running.ndjson" \
	2>"$tmp/running.err" &
running_pid=$!
pids="$pids $running_pid"
check "the running stream wrote no row" wait_for running.ndjson '"reports"' 15 "$running_pid"
run 0 record $S -m RenderBasic -p 1ms -o "$tmp/short.pftrace" --format perfetto --duration 50ms \
	-c GpuTime
kill "$running_pid"
check_trace "$tmp/short.pftrace"
expect short.pftrace.summary "track rcs0 busy"
run 5 record $S -m RenderBasic -o "$tmp/x" --format perfetto -c NoSuchCounter
run 2 record $S -m RenderBasic -o "$tmp/x" -c GpuTime
expect err "add --format perfetto"
run 2 record $S -m RenderBasic -o "$tmp/x" --usage-interval 1s
expect err "add --format perfetto"
# A usage interval the usage stream would refuse refuses the recording.
run 5 record $S -m RenderBasic -o "$tmp/x" --format perfetto --usage-interval 10ms
expect err "a usage interval is from 100 ms"
run 0 record $S -m RenderBasic -o "$tmp/nu.pftrace" --format perfetto --duration 300ms \
	-c GpuTime --no-usage
check_trace "$tmp/nu.pftrace"
check "record --no-usage left usage tracks" \
	eval '! grep -q "^track usage" "$tmp/nu.pftrace.summary"'

# ---- a live trace of a recording is the trace its replay gives
start replayer -d "replay:$tmp/r.i915perf,speed=max" -m "$shared/intel-metrics/i915" \
	-l none --unix "$tmp/rsock" --linger 0
run 0 record --unix "$tmp/rsock" -m RenderBasic -o "$tmp/live.pftrace" --format perfetto
expect err "the replay reached the end of its recording"
# A replay has no usage stream: the CLI and the trace say so.
expect err "the trace has no usage tracks: device replay0 has no usage stream"
check_trace "$tmp/live.pftrace"
expect live.pftrace.summary "track usage"
if decode_trace "$tmp/live.pftrace" && decode_trace "$tmp/r.pftrace"; then
	"$trace_check" list "$tmp/live.pftrace.txt" >"$tmp/live.list"
	expect live.list "usage TYPE_INSTANT no usage"
	"$trace_check" oa-part "$tmp/live.pftrace.txt" >"$tmp/live.events"
	"$trace_check" oa-part "$tmp/r.pftrace.txt" >"$tmp/r.events"
	check "the live trace differs from the replay's but for its clocks and usage" \
		cmp -s "$tmp/live.events" "$tmp/r.events"
	check "the live trace's counters and contexts are missing" \
		grep -q "track_descriptor" "$tmp/live.events"
fi

# ---- stream: the frames' windows, the values of stream's NDJSON
run 0 stream --unix "$tmp/rsock" -m RenderBasic -c GpuTime,GpuBusy,EuActive,GpuCoreClocks \
	-i 20ms --format ndjson -o "$tmp/s.ndjson"
run 0 stream --unix "$tmp/rsock" -m RenderBasic -c GpuTime,GpuBusy,EuActive,GpuCoreClocks \
	-i 20ms --format perfetto -o "$tmp/s.pftrace"
check_trace "$tmp/s.pftrace" "$tmp/s.ndjson"
stop replayer

run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -i 50ms --duration 1s \
	--format perfetto -o "$tmp/st.pftrace"
check_trace "$tmp/st.pftrace"
expect st.pftrace.summary "(with BOOTTIME)"
run 2 stream $S -m RenderBasic --format perfetto --per-context -o "$tmp/x"
expect err "a trace's contexts come with"

# ---- usage: the device's engines, clocks, power and processes on tracks
# of their own, each value the one gpuperf top's NDJSON gives for the same
# interval (subscribers of one interval share the daemon's readings)
"$gpuperf" top $S -i 200ms --format ndjson -o "$tmp/top.ndjson" 2>"$tmp/top.err" &
top_pid=$!
pids="$pids $top_pid"
check "gpuperf top wrote no row" wait_for top.ndjson '"timestamp_ns"' 15 "$top_pid"
run 0 stream $S -m RenderBasic -c GpuTime,GpuBusy -i 50ms --duration 2s \
	--usage-interval 200ms --format perfetto -o "$tmp/u.pftrace"
# record's trace has the same tracks, beside the recording's counters.
run 0 record $S -m RenderBasic -c GpuTime,GpuBusy -i 50ms --duration 2s \
	--usage-interval 200ms --format perfetto -o "$tmp/ru.pftrace"
expect err "the device's usage every 200 ms"
# top's next row: it has written every interval the stream's usage had.
rows=$(wc -l <"$tmp/top.ndjson")
tenths=50
while [ "$(wc -l <"$tmp/top.ndjson")" -le "$rows" ] && [ $tenths -gt 0 ]; do
	sleep 0.1
	tenths=$((tenths - 1))
done
kill "$top_pid"
for trace in u ru; do
	check_trace "$tmp/$trace.pftrace"
	for track in "track usage" "track frequency" "track RC6" "track power" \
		"track engines" "track rcs0 busy" "track processes" "track GPU time" \
		"track render busy" "track memory"; do
		expect $trace.pftrace.summary "$track"
	done
	if decode_trace "$tmp/$trace.pftrace"; then
		if "$trace_check" usage-values "$tmp/$trace.pftrace.txt" "$tmp/top.ndjson" \
			>"$tmp/$trace.values" 2>"$tmp/$trace.err"; then
			ok
		else
			fail "$trace.pftrace's usage values differ from gpuperf top's"
			sed 's/^/  | /' "$tmp/$trace.err" "$tmp/$trace.values" | head -10
		fi
	fi
done
# Without them, and only for traces.
run 0 stream $S -m RenderBasic -c GpuTime -i 50ms --duration 300ms --no-usage \
	--format perfetto -o "$tmp/nu.pftrace"
check_trace "$tmp/nu.pftrace"
check "--no-usage left usage tracks" \
	eval '! grep -q "^track usage" "$tmp/nu.pftrace.summary"'
run 2 stream $S -m RenderBasic --usage-interval 1s -o "$tmp/x"
expect err "go with --format perfetto"
run 5 stream $S -m RenderBasic -i 50ms --duration 1s --usage-interval 10ms \
	--format perfetto -o "$tmp/x"
expect err "refused the usage stream: a usage interval is from 100 ms"

# ---- clocks: a trace of a daemon elsewhere is on that daemon's BOOTTIME.
# The daemon runs in a time namespace whose BOOTTIME is 5000 s ahead of
# this machine's, as another machine's would be, and is reached over TCP.
ahead=5000
if unshare --user --map-current-user --time --boottime $ahead true 2>/dev/null; then
	start_command faraway unshare --user --map-current-user --time \
		--boottime $ahead "$gpuperfd" --allow-root -d sim:tglgt2 -m "$shared/intel-metrics/i915" \
		-l 127.0.0.1:0 --linger 0
	far_port=$(port faraway)
	run 0 stream --port "$far_port" -m RenderBasic -c GpuTime,GpuBusy -i 50ms \
		--duration 1500ms --format perfetto -o "$tmp/far.pftrace"
	check_trace "$tmp/far.pftrace"
	expect far.pftrace.summary "(with BOOTTIME)"
	if decode_trace "$tmp/far.pftrace"; then
		here=$("$trace_check" boottime-offset)
		"$trace_check" clocks "$tmp/far.pftrace.txt" >"$tmp/far.clocks"
		# Each snapshot's BOOTTIME - MONOTONIC is the daemon's: ours plus
		# $ahead s, to within the 1 s a suspend of the test could add.
		check "the trace's BOOTTIME is not the daemon's" awk -v here="$here" \
			-v ahead="$ahead" '$3 == "-" { bad = 1 }
			{ d = $3 - $2 - here - ahead * 1e9; if (d < -1e9 || d > 1e9) bad = 1 }
			END { exit bad || NR < 2 }' "$tmp/far.clocks"
	fi
	stop faraway
else
	skip "a trace of a daemon on another machine's BOOTTIME" \
		"user and time namespaces (unshare --time)"
fi

# ---- run: the command's window as a slice named after it
run 0 run $S -m RenderBasic -c GpuTime,GpuBusy -i 100ms --format perfetto \
	-o "$tmp/run.pftrace" -- sleep 0.3
check_trace "$tmp/run.pftrace"
if decode_trace "$tmp/run.pftrace"; then
	"$trace_check" list "$tmp/run.pftrace.txt" >"$tmp/run.events"
	expect run.events "marks TYPE_SLICE_BEGIN sleep 0.3"
	expect run.events "marks TYPE_SLICE_END"
fi
# Without an interval the command's window is the only frame, at the end;
# the usage tracks cover the run all the same.
run 0 run $S -m RenderBasic -c GpuTime --usage-interval 100ms --format perfetto \
	-o "$tmp/runu.pftrace" -- sleep 0.5
check_trace "$tmp/runu.pftrace"
expect runu.pftrace.summary "track rcs0 busy"

run 2 replay "$tmp/r.i915perf" $M --format perfetto --raw -o "$tmp/x"
expect err "a trace has no raw deltas"
run 2 replay "$tmp/r.i915perf" $M --format perfetto --per-report -o "$tmp/x"

# ---- the checks can fail: a field renumbered in our own schema shows as
# unknown to Perfetto's, and an event on a track never described is found
if decode_trace "$tmp/c.pftrace"; then
	sed 's/track_uuid = 11;/track_uuid = 111;/' proto/perfetto_trace.proto \
		>"$tmp/renumbered.proto"
	protoc --encode=gpuperf.perfetto.Trace -I "$tmp" "$tmp/renumbered.proto" \
		<"$tmp/c.pftrace.txt" >"$tmp/bad.bin"
	protoc --decode=perfetto.protos.Trace -I "$(dirname "$perfetto_schema")" \
		"$perfetto_schema" <"$tmp/bad.bin" >"$tmp/bad.txt"
	check "a renumbered field passed the check" \
		eval '! "$trace_check" verify "$tmp/bad.txt" >/dev/null 2>"$tmp/bad.err"'
	expect bad.err "is not in Perfetto's schema"
	awk '/^  track_descriptor/ && !seen { seen = 1; skip = 1 }
		skip && /^  }/ { skip = 0; next } !skip' "$tmp/c.pftrace.txt" \
		>"$tmp/undescribed.txt"
	check "a track used before its descriptor passed the check" \
		eval '! "$trace_check" verify "$tmp/undescribed.txt" >/dev/null 2>"$tmp/bad.err"'
	expect bad.err "which no descriptor before it defines"
fi

stop daemon
finish
