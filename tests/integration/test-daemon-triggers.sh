#!/bin/sh
# gpuperfd's own triggers (--trigger): on replayed recordings with known
# episodes of loss and of GpuBusy each fires once per episode and saves a readable
# snapshot into --trigger-dir; the directory's cap holds, the oldest files
# going first, and a snapshot larger than the cap is not written; clients
# of the device are told as events; /metrics counts firings, saves,
# firings skipped while the one before is saved, and failed saves; a
# snapshot stuck in its writing leaves the daemon serving; SIGHUP re-reads
# the triggers of the configuration file, check then act: a bad one keeps
# the running triggers, saying its line and column, and a firing in
# flight is saved across a reload; bad options are refused before the
# daemon starts, with the column of a bad expression.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/episodes-recording tests/libhold-open.so
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

# ---- episodes of a counter: GpuBusy 20 % but 98 % at 0.5-0.9 s (dipping
# to 93 % at 0.70-0.75 s), 1.5-1.7 s, 2.50-2.55 s and 3.0-3.3 s; with a
# hysteresis of 5 the dip does not clear it: one firing an episode.
"$build/tests/episodes-recording" "$shared/intel-metrics/i915" \
	"$tmp/busy.i915perf" 4 busy:500-900=98 busy:700-750=93 \
	busy:1500-1700=98 busy:2500-2550=98 busy:3000-3300=98
mkdir "$tmp/busy"
start busy -d "replay:$tmp/busy.i915perf" $M -l none \
	--unix "$tmp/busy.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'GpuBusy > 95 hysteresis 5' --trigger-dir "$tmp/busy" $T
check "the replay did not end" \
	wait_for busy.log "the replay reached the end" 30 "$busy_pid"
check "the fourth episode was not saved" \
	wait_for busy.log "fired (4); saved" 10 "$busy_pid"
check "'GpuBusy > 95 hysteresis 5' fired $(grep -c 'fired (' "$tmp/busy.log") times for 4 episodes" \
	[ "$(grep -c "fired (" "$tmp/busy.log")" = 4 ]
stop busy

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

# since NAME LINES TEXT SECONDS PID: as wait_for, for TEXT in NAME.log past
# its first LINES lines.
since() {
	tenths=$(($4 * 10))
	while ! tail -n +"$(($2 + 1))" "$tmp/$1.log" | grep -qF -- "$3"; do
		if [ "$tenths" -le 0 ] || ! kill -0 "$5" 2>/dev/null; then
			return 1
		fi
		tenths=$((tenths - 1))
		sleep 0.1
	done
}

# metric FILE NAME TRIGGER: the value of series NAME of trigger TRIGGER in
# the exposition FILE ($tmp).
metric() {
	grep "^$2{.*trigger=\"$3\"}" "$tmp/$1" | sed 's/.* //'
}

# ---- /metrics counts each trigger's firings and what became of them
# Without rearm, the losses at 1.0 s and 1.1 s are two episodes: the second
# comes while the first waits for its --trigger-after, and is not saved.
mkdir "$tmp/counted"
start counted -d "replay:$tmp/episodes.i915perf" $M -l none \
	--unix "$tmp/counted.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'lost > 0' --trigger-dir "$tmp/counted" \
	--trigger-before 200ms --trigger-after 500ms
check "the fourth firing was not saved" \
	wait_for counted.log "trigger 'lost > 0' fired (4); saved" 30 "$counted_pid"
expect counted.log "trigger 'lost > 0' fired (2) while the snapshot of the one before is still being saved; this one is not saved (1 so far)"
curl -s --max-time 20 --unix-socket "$tmp/counted.sock" \
	http://localhost/metrics >"$tmp/counted.metrics"
for m in "gpuperf_trigger_firings_total 4" \
	"gpuperf_trigger_snapshots_saved_total 3" \
	"gpuperf_trigger_firings_skipped_total 1" \
	"gpuperf_trigger_saves_failed_total 0"; do
	set -- $m
	check "/metrics: $1 of 'lost > 0' is '$(metric counted.metrics "$1" 'lost > 0')', not $2" \
		[ "$(metric counted.metrics "$1" 'lost > 0')" = "$2" ]
done
expect counted.metrics 'Firings not saved because the trigger'"'"'s firing before'
expect counted.metrics 'gpuperf_trigger_firings_total{device="replay0",'
stop counted
# The snapshots over the cap above are failed saves.
mkdir "$tmp/failed"
start failed -d "replay:$tmp/episodes.i915perf" $M -l none \
	--unix "$tmp/failed.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'lost > 0 rearm 500ms' --trigger-dir "$tmp/failed" \
	--trigger-dir-max 50k $T
check "the third oversized snapshot was not said" \
	wait_for failed.log "fired (3); its snapshot of" 30 "$failed_pid"
curl -s --max-time 20 --unix-socket "$tmp/failed.sock" \
	http://localhost/metrics >"$tmp/failed.metrics"
check "/metrics: gpuperf_trigger_saves_failed_total is '$(metric failed.metrics gpuperf_trigger_saves_failed_total 'lost > 0 rearm 500ms')', not 3" \
	[ "$(metric failed.metrics gpuperf_trigger_saves_failed_total 'lost > 0 rearm 500ms')" = 3 ]
stop failed

# ---- the daemon serves while a snapshot is being written
# The first snapshot's file is held at its open() until the test lets it
# go: meanwhile the daemon answers a client and keeps streaming to one.
mkdir "$tmp/held"
mkfifo "$tmp/gate"
# Under SAN=1 the sanitizer's runtime goes first.
hold="$(cd "$build/tests" && pwd)/libhold-open.so"
asan=$(ldd "$gpuperfd" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && hold="$asan $hold"
start_command held env LD_PRELOAD="$hold" \
	GPM_HOLD_GATE="$tmp/gate" GPM_HOLD_SUFFIX=.i915perf.part \
	"$gpuperfd" --allow-root -d "replay:$tmp/episodes.i915perf,loop" $M \
	-l none --unix "$tmp/held.sock" --linger 0 --flight-recorder 8Mi \
	--trigger 'lost > 0 rearm 500ms' --trigger-dir "$tmp/held" $T
"$gpuperf" stream --unix "$tmp/held.sock" -c GpuTime -i 100ms --format csv \
	>"$tmp/held.csv" 2>"$tmp/held.err" &
held_stream_pid=$!
pids="$pids $held_stream_pid"
check "the snapshot's writing was never held" \
	wait_for gate.held held 30 "$held_pid"
rows=$(wc -l <"$tmp/held.csv")
timeout 30 "$gpuperf" devices --unix "$tmp/held.sock" >"$tmp/held.devices" 2>&1
check "no answer while a snapshot was being written: $(tail -2 "$tmp/held.devices")" \
	grep -q replay0 "$tmp/held.devices"
check "no frame came while a snapshot was being written" \
	wait_lines "$tmp/held.csv" "$((rows + 1))"
expect held.log "trigger 'lost > 0 rearm 500ms': episode 1 began"
check "the held snapshot was saved before it was let go" \
	eval '! grep -q "fired (1); saved" "$tmp/held.log"'
echo go >"$tmp/gate"
check "the held snapshot was not saved once let go" \
	wait_for held.log "trigger 'lost > 0 rearm 500ms' fired (1); saved" 30 "$held_pid"
kill "$held_stream_pid"
stop held

# ---- SIGHUP: the triggers of the file re-read, check then act
# Losses at 1 s and 5 s of an 8 s recording played in a loop; a firing
# waits 3 s for its --trigger-after, so the reload below, sent once one
# fired, comes while it is in flight.
"$build/tests/episodes-recording" "$shared/intel-metrics/i915" \
	"$tmp/sparse.i915perf" 8 1000 5000
mkdir "$tmp/reload"
# conf TRIGGER...: the configuration file, one trigger a line from line 8.
conf() {
	{
		echo "device = replay:$tmp/sparse.i915perf,loop"
		echo "metrics-dir = $shared/intel-metrics/i915"
		echo "flight-recorder = 8Mi"
		echo "trigger-dir = $tmp/reload"
		echo "trigger-before = 200ms"
		echo "trigger-after = 3s"
		echo "# the triggers"
		for t in "$@"; do echo "trigger = $t"; done
	} >"$tmp/reload.conf"
}
conf 'lost > 0'
start reload --config "$tmp/reload.conf" -l none --unix "$tmp/reload.sock" \
	--linger 0
check "the trigger did not fire" \
	wait_for reload.log "trigger 'lost > 0': episode 1 began" 30 "$reload_pid"
# A trigger the set has no unit for, on line 9: nothing changes.
conf 'lost > 0' 'GpuBusy > 1MHz'
kill -HUP "$reload_pid"
check "the bad trigger's reload did not say its line and column" \
	wait_for reload.log "reload: $tmp/reload.conf:9: --trigger: column 12: 'MHz' is no unit of GpuBusy" 30 "$reload_pid"
expect reload.log "; keeping the running triggers"
# One that cannot be read, on line 8: nothing changes either.
conf 'lost > 0 fr 1s'
kill -HUP "$reload_pid"
check "the unreadable trigger's reload did not say its line and column" \
	wait_for reload.log "reload: $tmp/reload.conf:8: --trigger: column 10: expected 'for', 'hysteresis', 'rearm' or the end, found 'fr'" 30 "$reload_pid"
mark=$(wc -l <"$tmp/reload.log")
check "the running trigger stopped saving after refused reloads" \
	since reload "$mark" "trigger 'lost > 0' fired (" 30 "$reload_pid"
# A good set replaces it while a firing of it waits for --trigger-after.
mark=$(wc -l <"$tmp/reload.log")
check "the running trigger stopped firing after refused reloads" \
	since reload "$mark" "trigger 'lost > 0': episode " 30 "$reload_pid"
n=$(tail -n +"$((mark + 1))" "$tmp/reload.log" |
	sed -n "s/.*trigger 'lost > 0': episode \([0-9]*\) began.*/\1/p" | head -1)
conf 'lost >= 1'
kill -HUP "$reload_pid"
check "the new trigger did not start" \
	wait_for reload.log "trigger 'lost >= 1' watches RenderBasic" 30 "$reload_pid"
expect reload.log "reload: 1 trigger now watches"
check "the firing in flight ($n) was not saved across the reload" \
	wait_for reload.log "trigger 'lost > 0' fired ($n); saved" 30 "$reload_pid"
check "the firing in flight was saved before the reload came" \
	awk -v n="$n" '/reload: 1 trigger now watches/ { r = 1 }
	     index($0, "trigger '"'"'lost > 0'"'"' fired (" n "); saved") { exit !r }' \
	"$tmp/reload.log"
check "the new trigger did not fire" \
	wait_for reload.log "trigger 'lost >= 1' fired (1); saved" 30 "$reload_pid"
check "the replaced trigger went on watching" \
	awk '/reload: 1 trigger now watches/ { r = 1 }
	     r && /trigger .lost > 0.: episode/ { exit 1 }' "$tmp/reload.log"
check "a trigger reload was said to need a restart" \
	eval '! grep -q "trigger changed" "$tmp/reload.log"'
stop reload

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
