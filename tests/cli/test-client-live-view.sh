#!/bin/sh
# gpuperf stream on a terminal, in a tmux pane of a known size: a title
# line, never more lines than the terminal has (the counters that do not
# fit are counted, with how to choose them), per-context columns that keep
# their places from one window to the next, counts as rates per second,
# and bars against each counter's bound.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

if ! command -v tmux >/dev/null; then
	fail "tmux is missing (Debian package tmux): the live view goes untested"
	finish
	exit
fi

start daemon -d sim -l none --unix "$tmp/sock" --linger 0
T="tmux -S $tmp/tmux.sock"
trap '$T kill-server 2>/dev/null; cleanup' EXIT

# screen NAME WINDOW: waits until the pane shows window WINDOW, then keeps
# what it shows in $tmp/NAME.
screen() {
	tries=200
	while :; do
		$T capture-pane -p -t live >"$tmp/$1" 2>/dev/null
		grep -q "^window $2" "$tmp/$1" && return 0
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || { fail "the live view never reached window $2"; return 1; }
		sleep 0.1
	done
}

# ---- every counter of the set, in 20 rows
$T new-session -d -s live -x 110 -y 20 \
	"$gpuperf stream --unix $tmp/sock -m RenderBasic -p 100us -i 200ms; sleep 60"
if screen all 3; then
	check "the first line is no title: $(head -1 "$tmp/all")" \
		grep -q '^sim0 RenderBasic: sampling every 53.3 µs, windows of 200 ms (Ctrl-C ends)$' "$tmp/all"
	lines=$(grep -c . "$tmp/all")
	check "the view took $lines of the terminal's 20 lines" [ "$lines" -le 20 ]
	expect all "(9 of 24 counters hidden: the terminal is 110x20; choose counters with -c C1,C2, or make it larger)"
	expect all "GpuTime"
	check "a bar against GpuBusy's bound is missing" \
		grep -Eq '^GpuBusy +[0-9.]+ % +\[#*\.*\]' "$tmp/all"
fi
$T kill-session -t live

# ---- chosen counters, per context: rates, bars, columns that stay put
$T new-session -d -s live -x 150 -y 20 \
	"$gpuperf stream --unix $tmp/sock -m RenderBasic -p 100us -i 200ms --per-context -c GpuBusy,GtiReadThroughput,SamplerTexels,EuActive; sleep 60"
if screen early 3 && screen late 9; then
	check "GtiReadThroughput is not a rate in bytes per second" \
		grep -Eq '^GtiReadThroughput +[0-9.]+ [kMG]?B/s +\[' "$tmp/late"
	check "SamplerTexels is not a rate per second" \
		grep -Eq '^SamplerTexels +[0-9.]+ [kMG]? ?texels/s' "$tmp/late"
	early=$(grep '^COUNTER' "$tmp/early" | sed 's/  */ /g')
	late=$(grep '^COUNTER' "$tmp/late" | sed 's/  */ /g')
	case "$late" in
	"$early"*) ok ;;
	*) fail "the context columns moved: '$early' became '$late'" ;;
	esac
	check "no context column: $late" eval 'echo "$late" | grep -q "ctx 0x"'
	check "nothing should be hidden" eval '! grep -q hidden "$tmp/late"'
fi
$T kill-session -t live

finish
