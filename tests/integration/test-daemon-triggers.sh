#!/bin/sh
# gpuperfd's own triggers (--trigger): on a replayed recording with known
# episodes of loss each fires once per episode and saves a readable
# snapshot into --trigger-dir; the directory's cap holds, the oldest files
# going first, and a snapshot larger than the cap is not written; clients
# of the device are told as events; bad options are refused before the
# daemon starts, with the column of a bad expression.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
M="--metrics-dir $shared/intel-metrics/i915"

# OA_BUFFER_LOST at 1.0 s, 1.1 s, 2.0 s and 3.0 s of a 4 s recording: with
# `rearm 500ms` the first two are one episode. The trigger's own
# subscription starts the replay with the daemon.
"$build/tests/episodes-recording" "$shared/intel-metrics/i915" \
	"$tmp/episodes.i915perf" 4 1000 1100 2000 3000
T="--trigger-before 200ms --trigger-after 100ms"

# ---- three episodes, a cap of two snapshots (each is about 130 kB)
mkdir "$tmp/capped"
start capped -d "replay:$tmp/episodes.i915perf" $M -l none \
	--unix "$tmp/capped.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'lost > 0 rearm 500ms' --trigger-dir "$tmp/capped" \
	--trigger-dir-max 300k $T
check "the replay did not end" \
	wait_for capped.log "the replay reached the end" 30 "$capped_pid"
# Its last snapshot is saved --trigger-after past the last episode.
check "the third episode was not saved" \
	wait_for capped.log "fired (3); saved" 10 "$capped_pid"
check "the triggers fired $(grep -c 'fired (' "$tmp/capped.log") times for 3 episodes" \
	[ "$(grep -c "fired (" "$tmp/capped.log")" = 3 ]
expect capped.log "trigger 'lost > 0 rearm 500ms' watches RenderBasic; snapshots go to $tmp/capped"
expect capped.log "deleted $tmp/capped/trigger-replay0-"
files=$(ls "$tmp/capped")
bytes=$(cat "$tmp/capped"/* | wc -c)
check "the directory holds $bytes bytes, over its cap of 300k" \
	[ "$bytes" -le 300000 ]
check "the directory holds $(echo $files), not the newest two" \
	eval 'echo "$files" | grep -q -- "-2.i915perf" &&
	      echo "$files" | grep -q -- "-3.i915perf" &&
	      [ "$(echo "$files" | wc -l)" = 2 ]'
for f in $files; do
	"$gpuperf" replay "$tmp/capped/$f" $M -c GpuTime --format csv \
		>"$tmp/replay" 2>&1
	check "gpuperf replay cannot read $f: $(head -2 "$tmp/replay")" \
		grep -q "RenderBasic" "$tmp/replay"
done
stop capped

# ---- a snapshot larger than the whole cap is not written, and that is said
mkdir "$tmp/small"
start small -d "replay:$tmp/episodes.i915perf" $M -l none \
	--unix "$tmp/small.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'lost > 0 rearm 500ms' --trigger-dir "$tmp/small" \
	--trigger-dir-max 50k $T
check "the oversized snapshot was not said" \
	wait_for small.log "is more than --trigger-dir-max (0.05 MB) allows, so it is not written" 30 "$small_pid"
check "a snapshot over the cap was written: $(ls "$tmp/small")" \
	[ -z "$(ls "$tmp/small")" ]
stop small

# ---- clients of the device hear of each firing
mkdir "$tmp/told"
start told -d "replay:$tmp/episodes.i915perf,loop" $M -l none \
	--unix "$tmp/told.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'replay0=lost > 0 rearm 500ms' --trigger-dir "$tmp/told" $T
"$gpuperf" stream --unix "$tmp/told.sock" -c GpuTime -i 1s --format csv \
	>"$tmp/stream.out" 2>"$tmp/stream.err" &
stream_pid=$!
pids="$pids $stream_pid"
check "the client was not told of a firing: $(tail -3 "$tmp/stream.err")" \
	wait_for stream.err "gpuperf stream: device replay0: trigger 'lost > 0 rearm 500ms' fired (" 30 "$stream_pid"
expect stream.err "; saved $tmp/told/trigger-replay0-"
kill "$stream_pid"
stop told

# ---- refusals, before anything starts
# refused STATUS TEXT ARGS...: gpuperfd ARGS exits STATUS saying TEXT.
refused() {
	refused_status=$1
	refused_text=$2
	shift 2
	"$gpuperfd" --allow-root -d sim:tglgt2 $M -l none --unix "$tmp/r.sock" --linger 0 \
		"$@" >"$tmp/refused.log" 2>&1
	status=$?
	if [ "$status" != "$refused_status" ]; then
		fail "gpuperfd $* exited $status, expected $refused_status"
		sed 's/^/  | /' "$tmp/refused.log" | tail -5
	elif ! grep -qF -- "$refused_text" "$tmp/refused.log"; then
		fail "gpuperfd $* did not say '$refused_text'"
		sed 's/^/  | /' "$tmp/refused.log" | tail -5
	else
		ok
	fi
}
FR="--flight-recorder 8Mi --keep-streaming RenderBasic@1ms"
refused 2 "--trigger: column 14: expected 'for', 'hysteresis', 'rearm' or the end, found 'fr'" \
	$FR --trigger 'GpuBusy > 95 fr 1s' --trigger-dir "$tmp"
expect refused.log "  GpuBusy > 95 fr 1s"
expect refused.log "               ^"
refused 2 "--trigger needs --trigger-dir DIR" $FR --trigger 'lost > 0'
refused 2 "--trigger-dir-max takes a size such as 1Gi or 500M, not 'lots'" \
	$FR --trigger 'lost > 0' --trigger-dir "$tmp" --trigger-dir-max lots
refused 2 "--trigger-after takes a duration such as 5s or 500ms, not 'soon'" \
	$FR --trigger 'lost > 0' --trigger-dir "$tmp" --trigger-after soon
refused 1 "--trigger-dir $tmp/nope: No such file or directory" \
	$FR --trigger 'lost > 0' --trigger-dir "$tmp/nope"
refused 1 "--trigger lost > 0: no device keeps a flight recorder" \
	--trigger 'lost > 0' --trigger-dir "$tmp"
refused 1 "--trigger card7=lost > 0: no device 'card7'" \
	$FR --trigger 'card7=lost > 0' --trigger-dir "$tmp"
refused 1 "--trigger NoSuch > 1: metric set RenderBasic has no counter 'NoSuch'" \
	$FR --trigger 'NoSuch > 1' --trigger-dir "$tmp"
refused 1 "--trigger: column 12: 'MHz' is no unit of GpuBusy, which is percent (%)" \
	$FR --trigger 'GpuBusy > 1MHz' --trigger-dir "$tmp"
check "a refused daemon wrote into the directory" \
	[ -z "$(ls "$tmp" | grep trigger-)" ]

finish
