#!/bin/sh
# gpuperf trigger: on replayed recordings with known episodes, of loss and
# of GpuBusy, it fires exactly once per episode, rearming as the
# expression says (its `for`, `hysteresis` and `rearm`), and saves a
# readable snapshot around each; on the simulated GPU kept
# streaming, a snapshot spans --before and --after its firing, and Ctrl-C
# saves the snapshot due and ends with 0; bad
# expressions are refused with the column, bad arguments and devices
# without a flight recorder with words.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/episodes-recording
M="--metrics-dir $shared/intel-metrics/i915"

# OA_BUFFER_LOST at 1.0 s, 1.1 s, 2.0 s and 3.0 s of a 4 s recording: with
# `rearm 500ms` the first two are one episode.
"$build/tests/episodes-recording" "$shared/intel-metrics/i915" \
	"$tmp/episodes.i915perf" 4 1000 1100 2000 3000

# episodes NAME EXPR COUNT: a daemon replaying the recording from the
# trigger's subscription on; the trigger ends with the replay, having
# written COUNT snapshots, each holding an OA_BUFFER_LOST.
episodes() {
	start "$1" -d "replay:$tmp/episodes.i915perf" $M -l none \
		--unix "$tmp/$1.sock" --linger 0 --flight-recorder 8Mi
	mkdir "$tmp/$1"
	run 0 trigger --unix "$tmp/$1.sock" --when "$2" --before 200ms \
		--after 100ms -o "$tmp/$1"
	expect err "device replay0's stream ended"
	files=$(ls "$tmp/$1" | wc -l)
	check "'$2' wrote $files snapshots for $3 episodes: $(cat "$tmp/err")" \
		[ "$files" = "$3" ]
	check "the files written are not on standard output" \
		[ "$(wc -l <"$tmp/out")" = "$3" ]
	for f in $(cat "$tmp/out"); do
		"$gpuperf" replay "$f" $M -c GpuTime --format csv >"$tmp/replay" \
			2>&1
		lost=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
				if ($i == "buffers_lost") c = i; next }
			{ s += $c } END { print s + 0 }' "$tmp/replay")
		check "$(basename "$f") holds no OA_BUFFER_LOST ($lost)" \
			[ "$lost" -ge 1 ]
	done
	stop "$1"
}
episodes rearmed 'lost > 0 rearm 500ms' 3
episodes each 'lost > 0' 4

# GpuBusy 20 % but for episodes of 98 %: 0.5-0.9 s (dipping to 93 % at
# 0.70-0.75 s), 1.5-1.7 s, 2.50-2.55 s (50 ms) and 3.0-3.3 s of 4 s.
"$build/tests/episodes-recording" "$shared/intel-metrics/i915" \
	"$tmp/busy.i915perf" 4 busy:500-900=98 busy:700-750=93 \
	busy:1500-1700=98 busy:2500-2550=98 busy:3000-3300=98

# busy NAME EXPR COUNT: as episodes, on the GpuBusy recording; each
# snapshot holds a window of its episode (GpuBusy over 95 %).
busy() {
	start "$1" -d "replay:$tmp/busy.i915perf" $M -l none \
		--unix "$tmp/$1.sock" --linger 0 --flight-recorder 8Mi
	mkdir "$tmp/$1"
	run 0 trigger --unix "$tmp/$1.sock" --when "$2" --before 200ms \
		--after 100ms -o "$tmp/$1"
	expect err "device replay0's stream ended"
	files=$(ls "$tmp/$1" | wc -l)
	check "'$2' wrote $files snapshots for $3 episodes: $(cat "$tmp/err")" \
		[ "$files" = "$3" ]
	for f in $(cat "$tmp/out"); do
		"$gpuperf" replay "$f" $M -c GpuBusy --interval 10ms \
			--format csv >"$tmp/replay" 2>&1
		top=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
				if ($i == "GpuBusy") c = i; next }
			$c > m { m = $c } END { print m + 0 }' "$tmp/replay")
		check "$(basename "$f") holds no window of its episode (GpuBusy at most $top)" \
			awk -v top="$top" 'BEGIN { exit !(top > 95) }'
	done
	stop "$1"
}
# The dip clears the condition for five windows: the first episode fires
# twice.
busy busy_dipped 'GpuBusy > 95' 5
# Past the threshold by 5 to clear, the dip to 93 % does not.
busy busy_hysteresis 'GpuBusy > 95 hysteresis 5' 4
# Held for 100 ms: not the 50 ms episode.
busy busy_held 'GpuBusy > 95 for 100ms hysteresis 5' 3
# Cleared for 500 ms to fire again: not the dip, nor the last episode,
# 450 ms after the one before.
busy busy_rearmed 'GpuBusy > 95 rearm 500ms' 3

# ---- the sim kept streaming: the snapshot spans before and after
start daemon -d sim:tglgt2 $M -l none --unix "$tmp/sock" --linger 0 \
	--flight-recorder 32Mi --keep-streaming RenderBasic@1ms
S="--unix $tmp/sock"
mkdir "$tmp/sim"
run 0 trigger $S --when 'GpuTime > 0 for 50ms' --before 300ms --after 200ms \
	--count 1 -o "$tmp/sim"
expect err "watching 'GpuTime > 0 for 50ms' on sim0 (RenderBasic)"
expect err "'GpuTime > 0 for 50ms' fired (1); saving 300 ms before and 200 ms after"
check "one snapshot: $(ls "$tmp/sim")" [ "$(ls "$tmp/sim" | wc -l)" = 1 ]
"$gpuperf" replay "$(cat "$tmp/out")" $M -c GpuTime --format csv >"$tmp/replay"
span=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == "duration_ns") c = i; next }
	{ s += $c } END { print s + 0 }' "$tmp/replay")
# The reports at either end may stand a period (1 ms) outside.
check "the snapshot spans $span ns, not 200 to 500 ms" \
	eval '[ "$span" -ge 200000000 ] && [ "$span" -le 502000000 ]'

# ---- Ctrl-C: the snapshot due is saved with what the recorder holds and
# the command ends with 0; with nothing due it ends with 0 and no file
mkdir "$tmp/interrupted"
"$gpuperf" trigger $S --when 'GpuTime > 0' --before 100ms --after 60s \
	-o "$tmp/interrupted" >"$tmp/int.out" 2>"$tmp/int.err" &
int_pid=$!
check "the trigger did not fire" \
	wait_for int.err "'GpuTime > 0' fired (1); saving" 30 "$int_pid"
kill -INT "$int_pid"
wait "$int_pid"
int_status=$?
check "gpuperf trigger exited $int_status on Ctrl-C, not 0" [ "$int_status" = 0 ]
check "the snapshot due was not saved on Ctrl-C: $(ls "$tmp/interrupted")" \
	[ "$(ls "$tmp/interrupted" | wc -l)" = 1 ]
check "the snapshot saved is not on standard output" \
	[ "$(cat "$tmp/int.out")" = "$tmp/interrupted/$(ls "$tmp/interrupted")" ]
mkdir "$tmp/quiet"
"$gpuperf" trigger $S --when 'GpuTime < 0' -o "$tmp/quiet" \
	>"$tmp/quiet.out" 2>"$tmp/quiet.err" &
quiet_pid=$!
check "the trigger did not start watching" \
	wait_for quiet.err "watching 'GpuTime < 0' on sim0" 30 "$quiet_pid"
kill -TERM "$quiet_pid"
wait "$quiet_pid"
quiet_status=$?
check "gpuperf trigger exited $quiet_status on SIGTERM, not 0" \
	[ "$quiet_status" = 0 ]
check "a trigger that never fired wrote a file" [ -z "$(ls "$tmp/quiet")" ]

# ---- refusals
mkdir "$tmp/x"
run 2 trigger $S --when 'GpuBusy > 95 fr 200ms' -o "$tmp/x"
expect err "--when: column 14: expected 'for', 'hysteresis', 'rearm' or the end, found 'fr'"
expect err "  GpuBusy > 95 fr 200ms"
expect err "               ^"
run 2 trigger $S --when 'GpuBusy 95' -o "$tmp/x"
expect err "column 9: expected a comparison (>, >=, <, <=, ==, !=) after GpuBusy, found '95'"
run 2 trigger $S --when 'GpuBusy > 95 for soon' -o "$tmp/x"
expect err "column 18: 'for' takes a duration such as 200ms or 1s, found 'soon'"
run 2 trigger $S --when 'GpuBusy > 600MHz' -o "$tmp/x"
expect err "column 14: 'MHz' is no unit of GpuBusy, which is percent (%)"
run 2 trigger $S -o "$tmp/x"
expect err "say when to take a snapshot with --when"
run 2 trigger $S --when 'lost > 0'
expect err "name the directory for the snapshots with -o"
run 2 trigger $S --when 'lost > 0' --before soon -o "$tmp/x"
expect err "--before takes a duration such as 2s or 500ms, not 'soon'"
run 2 trigger $S --when 'lost > 0' --count 0 -o "$tmp/x"
expect err "--count takes a number of snapshots from 1, not '0'"
run 3 trigger $S --when 'lost > 0' -o "$tmp/no/such/dir"
expect err "cannot write snapshots into $tmp/no/such/dir: No such file or directory"
run 5 trigger $S --when 'NoSuchCounter > 1' -o "$tmp/x"
expect err "metric set RenderBasic has no counter 'NoSuchCounter'"
run 5 trigger $S -d card7 --when 'lost > 0' -o "$tmp/x"
expect err "no device 'card7'"
check "a refused trigger wrote a file" [ -z "$(ls "$tmp/x")" ]
stop daemon

start bare -d sim:tglgt2 $M -l none --unix "$tmp/bare.sock" --linger 0
run 5 trigger --unix "$tmp/bare.sock" --when 'lost > 0' -o "$tmp/x"
expect err "device sim0 keeps no flight recorder; start gpuperfd with --flight-recorder"
stop bare

finish
