#!/bin/sh
# gpuperf top against gpuperfd on sim: the full-screen view in a terminal
# and its keys, the usage stream's screens, CSV and NDJSON rows, beside a
# counter stream; who sees which process details (controllers, viewers,
# --process-details none); what is refused, in words (an interval below
# the minimum, a replay device, no such device).
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# json_lines FILE: every line of FILE is a whole JSON object.
json_lines() {
	while IFS= read -r line; do
		printf '%s\n' "$line" | jq -e 'type == "object"' >/dev/null 2>&1 ||
			return 1
	done <"$1"
}

start daemon -d sim -l none --unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"

# ---- in a terminal: the full-screen view and its keys (sort, idle
# processes, physical engines, quit), each screen waited for.
python3 "$(dirname "$0")/top_keys.py" "$gpuperf" $S >"$tmp/keys" 2>&1
while IFS= read -r line; do
	case $line in
	"ok "*) ok ;;
	"FAIL "*) fail "gpuperf top in a terminal: ${line#FAIL }" ;;
	esac
done <"$tmp/keys"
check "the terminal driver did not finish: $(tail -3 "$tmp/keys")" \
	grep -qx done "$tmp/keys"

# ---- NDJSON: a line per interval, engines, clocks, power, processes.
run 0 top $S -i 300ms --duration 1400ms --format ndjson -o "$tmp/top.ndjson"
check "top's NDJSON lines are not all JSON objects" json_lines "$tmp/top.ndjson"
lines=$(wc -l <"$tmp/top.ndjson")
# A line per interval: a loaded machine may deliver one less, never more.
check "1.4 s at 300 ms gave $lines lines" eval '[ "$lines" -ge 2 ] && [ "$lines" -le 6 ]'
last=$(tail -1 "$tmp/top.ndjson")
check "no render engine rcs0 in: $last" eval "printf '%s' '$last' | jq -e \
	'.engines[] | select(.name == \"rcs0\" and .engine_class == \"render\") |
	 .busy_ratio >= 0 and .busy_ratio <= 1' >/dev/null"
check "no clocks, RC6, power: $last" eval "printf '%s' '$last' | jq -e \
	'.actual_frequency_hertz > 0 and .max_frequency_hertz == 1.3e9 and
	 .rc6_ratio >= 0 and .power_watts > 0 and .temperature_celsius > 0' >/dev/null"
check "no process with a pid and command: $last" eval "printf '%s' '$last' | jq -e \
	'[.processes[] | select(.pid > 0 and .command != \"\")] | length >= 2' >/dev/null"
check "the compositor is not listed: $last" eval "printf '%s' '$last' | jq -e \
	'[.processes[] | select(.command == \"gnome-shell\" and (.client_ids | length) == 1)] |
	 length == 1' >/dev/null"
# One late tick lengthens a line and shortens the next: the median
# duration is the interval's.
check "durations are not near 300 ms: $(jq -c .duration_ns "$tmp/top.ndjson" | tr '\n' ' ')" \
	jq -s -e 'all(.[]; .duration_ns > 0) and
	 ([.[].duration_ns] | sort | .[length / 2 | floor]) as $median |
	 $median > 250000000 and $median < 350000000' "$tmp/top.ndjson" >/dev/null

# ---- the usage stream runs beside a counter stream
"$gpuperf" stream $S -m RenderBasic -i 100ms --duration 1500ms --format csv \
	-o "$tmp/counters.csv" 2>"$tmp/stream.err" &
stream_pid=$!
run 0 top $S -i 200ms --duration 1s --format ndjson -o "$tmp/beside.ndjson"
wait $stream_pid
status=$?
check "the counter stream failed beside top: $(cat "$tmp/stream.err")" [ "$status" = 0 ]
check "top gave nothing beside a counter stream" [ -s "$tmp/beside.ndjson" ]

# ---- CSV: the documented header, a row per engine, device value, process value
run 0 top $S -i 200ms --duration 700ms --format csv -o "$tmp/top.csv"
header=$(sed -n 1p "$tmp/top.csv")
check "csv header: $header" [ "$header" = \
	"timestamp_ns,duration_ns,device,kind,name,engine_class,pid,command,busy_ratio,wait_ratio,sema_ratio,value,unit,share_source" ]
expect top.csv ",sim0,engine,rcs0,render,,,"
expect top.csv ",sim0,device,power,,,,,,,"
expect top.csv ",watts"
expect top.csv ",sim0,process,busy,render,"
expect top.csv ",sim0,process,memory,,"
# The sim device's process shares are its model's, and say so.
expect top.csv ",ratio,simulated"

# ---- the screen, as text off a terminal
run 0 top $S -i 200ms --duration 500ms --engines --sort memory
expect out "sim0: the simulated GPU"
expect out " ENGINE "
expect out "rcs0 render"
expect out "     PID COMMAND"
expect out "MEMORY"
expect out "SHARE_SOURCE"
run 0 top $S -i 200ms --duration 500ms
expect out " CLASS "

# ---- a viewer sees rows without pid, command or client ids
run 0 top $S --viewer -i 200ms --duration 500ms --format ndjson
check "a viewer saw a pid or command: $(tail -1 "$tmp/out")" eval "tail -1 \"$tmp/out\" | jq -e \
	'(.processes | length) > 0 and ([.processes[] | select(.pid != 0 or .command != \"\" or
	 (.client_ids | length) > 0)] | length == 0)' >/dev/null"
run 0 top $S --viewer -i 200ms --duration 500ms
expect out "(hidden)"
expect out "shown to controllers only"

# ---- refusals, in words
run 5 top $S -i 50ms --duration 300ms
expect err "from 100 ms"
run 5 top $S -d nosuch --duration 300ms
expect err "no device 'nosuch'"
run 2 top $S --sort nonsense
expect err "--sort takes gpu, memory, pid or command"

# ---- /metrics: the usage series, Prometheus conventions, counters that grow
scrape() { # scrape SOCKET OUT
	curl -s --max-time 10 --unix-socket "$1" http://localhost/metrics >"$tmp/$2"
}
# scrape_until SOCKET OUT TEXT: scrapes until TEXT is there (a first scrape
# may be answered before the first interval of a loaded machine).
scrape_until() {
	tries=50
	scrape "$1" "$2"
	while ! grep -qF -- "$3" "$tmp/$2" && [ $tries -gt 0 ]; do
		sleep 0.2
		tries=$((tries - 1))
		scrape "$1" "$2"
	done
}
busy() { awk '/^gpuperf_engine_busy_seconds_total.*rcs0/ { print $NF }' "$tmp/$1"; }
energy() { awk '/^gpuperf_energy_joules_total/ { print $NF }' "$tmp/$1"; }
scrape_until "$tmp/sock" m1 gpuperf_engine_busy_seconds_total
# The series move once a reading (1 s): scraped again until they have,
# the seconds between the two scrapes bounding how much busy time grew.
first_s=$(date +%s.%N)
tries=100
scrape "$tmp/sock" m2
while ! awk -v a="$(busy m1)" -v b="$(busy m2)" 'BEGIN { exit !(b > a) }' &&
	[ $tries -gt 0 ]; do
	sleep 0.2
	tries=$((tries - 1))
	scrape "$tmp/sock" m2
done
apart_s=$(echo "$(date +%s.%N) $first_s" | awk '{ print $1 - $2 }')
expect m2 '# TYPE gpuperf_engine_busy_seconds_total counter'
expect m2 'gpuperf_engine_busy_seconds_total{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",engine="rcs0",class="render"} '
expect m2 'gpuperf_engine_wait_seconds_total{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",engine="rcs0",class="render"} '
expect m2 'gpuperf_frequency_hertz{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",kind="actual"} '
expect m2 'gpuperf_frequency_hertz{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",kind="requested"} '
expect m2 '# TYPE gpuperf_rc6_seconds_total counter'
expect m2 '# TYPE gpuperf_energy_joules_total counter'
expect m2 'gpuperf_power_watts{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim"} '
# Usage frames count in the server's send budget like every message: what
# it says is queued is what the clients have not read yet.
queued=$(awk '/^gpuperf_send_queue_bytes / { print $2 }' "$tmp/m2")
check "the server says $queued bytes are queued after the usage streams" \
	awk -v q="$queued" 'BEGIN { exit !(q != "" && q + 0 < 1048576) }'
expect m2 'gpuperf_slow_readers_dropped_total 0'
check "per-process series without --metrics-processes" eval \
	"! grep -q gpuperf_process_ \"$tmp/m2\""
check "busy seconds did not grow by at most the $apart_s s between scrapes and a reading: $(busy m1) then $(busy m2)" \
	awk -v a="$(busy m1)" -v b="$(busy m2)" -v t="$apart_s" \
	'BEGIN { exit !(b > a && b - a < t + 2) }'
check "energy did not grow: $(energy m1) then $(energy m2)" \
	awk -v a="$(energy m1)" -v b="$(energy m2)" 'BEGIN { exit !(b > a) }'
if command -v promtool >/dev/null; then
	check "promtool finds fault with /metrics: $(promtool check metrics <"$tmp/m2" 2>&1 | head -3)" \
		eval "promtool check metrics <\"$tmp/m2\" >/dev/null 2>&1"
fi
start procs -d sim -l none --unix "$tmp/procs.sock" --linger 0 --metrics-processes
scrape_until "$tmp/procs.sock" m3 gpuperf_process_gpu_seconds_total
expect m3 '# TYPE gpuperf_process_gpu_seconds_total counter'
expect m3 'gpuperf_process_gpu_seconds_total{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",pid="4100",command="gnome-shell",class="render"} '
expect m3 'gpuperf_process_memory_bytes{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",pid="4100",command="gnome-shell"} '
expect m3 'gpuperf_process_share_source{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",pid="4100",command="gnome-shell",source="simulated"} 1'
stop procs

# ---- --process-details none: nobody gets rows
start none -d sim -l none --unix "$tmp/none.sock" --linger 0 --process-details none \
	--metrics-processes
run 0 top --unix "$tmp/none.sock" -i 200ms --duration 500ms --format ndjson
check "--process-details none still gave processes" eval \
	"! grep -q '\"processes\":\[{' \"$tmp/out\""
run 0 top --unix "$tmp/none.sock" -i 200ms --duration 500ms
expect out "not shown (the daemon's --process-details none)"
scrape "$tmp/none.sock" m4
check "--process-details none still exported processes" eval \
	"! grep -q gpuperf_process_ \"$tmp/m4\""
stop none

# ---- a replay has no usage stream
run 0 record $S -m RenderBasic --duration 300ms -o "$tmp/r.i915perf"
start replay -d "replay:$tmp/r.i915perf,loop" -l none --unix "$tmp/replay.sock"
run 5 top --unix "$tmp/replay.sock" --duration 300ms
expect err "no device of the daemon has a usage stream"
stop replay

stop daemon
finish
