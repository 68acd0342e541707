#!/bin/sh
# The simulated AMD GPU (--device sim:amd): its SPM unit writes a ring by
# PAL's rules, the daemon decodes it and streams windows like any other
# device's: gpuperf sets and gpuperf stream show its metric sets and SPM
# counters that move with the workload, /metrics exports them, a period
# the unit cannot sample at is refused in words, and samples lost while
# the daemon could not read are counted; its usage view names its engines
# as amdgpu does.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
. "$(dirname "$0")/../perfetto/trace_checks.sh"

start amd -d sim:amd -l none --unix "$tmp/amd.sock" --linger 0 --seed 5
expect amd.log "device sim0: Simulated AMD GPU (SPM) (sim, PCI 0x7300)"

run 0 sets --unix "$tmp/amd.sock"
expect out "Overview"
expect out "3b1f2c8e-6a0d-4e57-9c41-5d2a7e90b6f1"
expect out "Memory"

# stream NAME ARGS...: gpuperf stream's NDJSON rows in $tmp/NAME.
stream() {
	stream_name=$1
	shift
	"$gpuperf" stream --unix "$tmp/amd.sock" --format ndjson "$@" \
		>"$tmp/$stream_name" 2>"$tmp/$stream_name.err"
	check "gpuperf stream $* failed: $(cat "$tmp/$stream_name.err")" \
		[ -s "$tmp/$stream_name" ]
}
# holds NAME JQ: every row of $tmp/NAME satisfies JQ.
holds() {
	jq -e -s "all(.[]; $2)" "$tmp/$1" >/dev/null
}

stream overview -m Overview -p 1ms -i 100ms --duration 1500ms
check "fewer than 8 windows: $(wc -l <"$tmp/overview")" \
	[ "$(wc -l <"$tmp/overview")" -ge 8 ]
check "a window is not of the SPM platform or counted loss: $(head -2 "$tmp/overview")" \
	holds overview '.platform == "simamd" and .lost == 0 and .buffers_lost == 0'
check "the shader clock is not 2 GHz over GPU time: $(head -1 "$tmp/overview")" \
	holds overview '.AvgShaderFrequency == 2000000000 and
	 (.ShaderClocks / .GpuTime - 2 | fabs) < 0.001'
check "the SPM counters do not stay within their bounds: $(head -2 "$tmp/overview")" \
	holds overview '.GpuBusy >= 0 and .GpuBusy <= 100 and .L2HitRate <= 100 and
	 .ValuIpc <= 8 and .WavesLaunched <= .ShaderClocks * 4 / 64 + 4'
check "GpuBusy and VALU instructions do not move: $(jq -c '[.GpuBusy, .ValuInstructions]' "$tmp/overview" | tr '\n' ' ')" \
	eval "jq -e -s '([.[1:][] | .GpuBusy] | max - min > 5) and
	 ([.[1:][] | .ValuInstructions] | unique | length > 3)' \"$tmp/overview\" >/dev/null"

stream memory -m Memory -p 100us -i 100ms --duration 600ms
check "the Memory set's counters are not there or out of range: $(head -2 "$tmp/memory")" \
	holds memory '.metric_set == "Memory" and .TaBusy >= 0 and .TaBusy <= 100 and
	 .TcpHitRate <= 100 and .L2Misses01 >= 0'
check "no Memory window saw texture work: $(jq -c .TcpRequests "$tmp/memory" | tr '\n' ' ')" \
	eval "jq -e -s 'any(.[]; .TcpRequests > 0)' \"$tmp/memory\" >/dev/null"

# The usage view: amdgpu's engine classes, no RC6 (amdgpu has none).
"$gpuperf" top --unix "$tmp/amd.sock" -d sim0 --format ndjson -i 300ms \
	--duration 700ms -o "$tmp/top" 2>"$tmp/top.err"
check "the usage view's engines are not gfx, dma, dec, compute without RC6: $(tail -1 "$tmp/top" | head -c 300) $(cat "$tmp/top.err")" \
	eval "tail -1 \"$tmp/top\" | jq -e '[.engines[].name] == [\"gfx\", \"dma\", \"dec\", \"compute\"] and
	 .rc6_ratio == null and (.processes | length) > 0' >/dev/null"

# Past 2^31 shader clocks a sample's 32-bit counters could wrap.
run 5 stream --unix "$tmp/amd.sock" -m Overview -p 2s --duration 1s
expect err "SPM samples every 32 to 2147483647 clocks"

# The daemon stopped for longer than the ring holds (1 s at 1 ms): the
# unit went round past the reader, and the windows say so.
"$gpuperf" stream --unix "$tmp/amd.sock" -m Overview -p 1ms -i 100ms \
	--duration 20s --format ndjson >"$tmp/lossy" 2>"$tmp/lossy.err" &
lossy_pid=$!
pids="$pids $lossy_pid"
check "no window before the stop" wait_lines "$tmp/lossy" 2
kill -STOP "$amd_pid"
sleep 1.5
kill -CONT "$amd_pid"
lossy_seen() {
	jq -e -s 'any(.[]; .buffers_lost > 0)' "$tmp/lossy" >/dev/null 2>&1
}
tries=100
while ! lossy_seen && [ $tries -gt 0 ] && kill -0 "$lossy_pid" 2>/dev/null; do
	sleep 0.1
	tries=$((tries - 1))
done
check "the samples lost while the daemon was stopped were not counted: $(jq -c '[.reports, .buffers_lost]' "$tmp/lossy" | tr '\n' ' ')" \
	lossy_seen
kill "$lossy_pid" 2>/dev/null
# Recordings: a Perfetto trace holds the SPM counters over time; IGT's
# i915 perf format holds Intel OA reports only, and the refusal says
# which format to use.
run 0 record --unix "$tmp/amd.sock" -m Overview -p 1ms --format perfetto \
	-c GpuBusy,ValuInstructions,L2HitRate -i 10ms --duration 300ms \
	-o "$tmp/amd.pftrace"
check_trace "$tmp/amd.pftrace"
for track in "GPU Busy" "VALU Instructions" "L2 Hit Rate"; do
	expect amd.pftrace.summary "track $track"
done
for symbol in GpuBusy ValuInstructions L2HitRate; do
	expect amd.pftrace.txt "description: \"$symbol: "
done
windows=$(sed -n 's/.* \([0-9]*\) windows,.*/\1/p' "$tmp/amd.pftrace.summary")
check "the trace has fewer than 10 windows of 10 ms: $(head -1 "$tmp/amd.pftrace.summary")" \
	[ "${windows:-0}" -ge 10 ]
# A window's values ride on its report count's event, in the order of
# the sequence's default tracks: VALU instructions the integer one, GPU
# busy the first float one.
reports_track=$(awk '/track_descriptor/ { u = "" } $1 == "uuid:" && !u { u = $2 }
	/name: "reports"/ { print u; exit }' "$tmp/amd.pftrace.txt")
# window_values FIELD: the first FIELD value of each window, one a line.
window_values() {
	awk -v t="$reports_track" -v f="$1:" '/track_event {/ { on = 0; n = 0 }
		$1 == "track_uuid:" { on = ($2 == t) }
		on && $1 == f && n++ == 0 { print $2 }' "$tmp/amd.pftrace.txt"
}
check "GPU busy does not move in the trace: $(window_values extra_double_counter_values | tr '\n' ' ')" \
	[ "$(window_values extra_double_counter_values | sort -u | wc -l)" -gt 3 ]
check "VALU instructions do not move in the trace: $(window_values extra_counter_values | tr '\n' ' ')" \
	[ "$(window_values extra_counter_values | sort -u | wc -l)" -gt 3 ]
run 5 record --unix "$tmp/amd.sock" -m Overview -o "$tmp/amd.i915perf" \
	--duration 300ms
expect err "device sim0 is not an Intel GPU; IGT's i915 perf format holds only Intel OA reports; record it with --format perfetto"
check "a refused recording left a file" [ ! -s "$tmp/amd.i915perf" ]

# The flight recorder keeps IGT's format: refused for this device, in
# words that say what to use.
"$gpuperfd" --allow-root -d sim:amd -l none --unix "$tmp/ring.sock" \
	--linger 0 --flight-recorder sim0=8Mi >"$tmp/ring.log" 2>&1
ring_status=$?
check "gpuperfd --flight-recorder sim0=8Mi on sim:amd exited $ring_status, expected 1" \
	[ $ring_status = 1 ]
expect ring.log "device sim0 is not an Intel GPU; IGT's i915 perf format holds only Intel OA reports, the format of the flight recorder's snapshots; record it with gpuperf record --format perfetto"

stop amd

# /metrics: a device that keeps streaming exports its SPM counters, and
# they move between scrapes.
start kept -d sim:amd -l none --unix "$tmp/kept.sock" --linger 0 \
	--keep-streaming Overview@1ms
scrape() {
	curl -s --max-time 10 --unix-socket "$tmp/kept.sock" \
		http://localhost/metrics >"$tmp/$1"
}
busy() {
	sed -n 's/^gpuperf_gpu_busy_ratio{.*metric_set="Overview"} //p' "$tmp/$1"
}
scrape m1
tries=50
while [ -z "$(busy m1)" ] && [ $tries -gt 0 ]; do
	sleep 0.2
	tries=$((tries - 1))
	scrape m1
done
check "/metrics has no GpuBusy of the SPM stream: $(grep -c gpuperf_ "$tmp/m1") series" \
	[ -n "$(busy m1)" ]
expect m1 'gpuperf_valu_instructions_events{device="sim0"'
expect m1 'gpuperf_l2_hit_rate_ratio{device="sim0"'
tries=50
scrape m2
while [ "$(busy m2)" = "$(busy m1)" ] && [ $tries -gt 0 ]; do
	sleep 0.2
	tries=$((tries - 1))
	scrape m2
done
check "GpuBusy on /metrics did not move: $(busy m1) then $(busy m2)" \
	[ "$(busy m2)" != "$(busy m1)" ]
stop kept

finish
