#!/bin/sh
# gpuperf replay of RGP captures the project writes by radv's rules
# (build/tests/rgp-capture: CPU info, ASIC info at 100 MHz, two SPM
# chunks around a chunk of an unknown kind): the samples' times in ns
# from the ASIC info chunk in CSV and NDJSON, a Perfetto trace that
# Perfetto's schema decodes and whose counters sit at those times with
# those counts; and a capture without the ASIC info chunk: its rows keep
# the ticks with an empty gpu_time_ns and a note saying why, its trace
# refused in words and no file written.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/rgp-capture
. "$(dirname "$0")/../perfetto/trace_checks.sh"
capture="$build/tests/rgp-capture"

"$capture" "$tmp/cap.rgp"
"$capture" "$tmp/no-asic.rgp" --no-asic-info

run 0 replay "$tmp/cap.rgp" --format csv
expect out "chunk,gpu_timestamp,gpu_time_ns,SQ[0].e4,GL2C[15].e3,TCP[2].e9"
expect out "0,5256,52560,10,11,12"
expect out "1,6100,61000,65537,131073"
expect err "1 chunks of kinds this gpuperf does not know were skipped"
run 0 replay "$tmp/cap.rgp" --format ndjson
expect out '{"chunk":1,"gpu_timestamp":6000,"gpu_time_ns":60000,"TA[1].e7":65536,'

run 0 replay "$tmp/cap.rgp" --format perfetto -o "$tmp/cap.trace"
expect err "the trace takes it for CLOCK_MONOTONIC"
check_trace "$tmp/cap.trace"
"$trace_check" list "$tmp/cap.trace.txt" >"$tmp/cap.list"
# Every sample of both chunks, each counter at the sample's ns.
for line in "50000 SQ[0].e4 TYPE_COUNTER  0" "52560 GL2C[15].e3 TYPE_COUNTER  11" \
	"55120 TCP[2].e9 TYPE_COUNTER  22" "60000 TA[1].e7 TYPE_COUNTER  65536" \
	"61000 GRBM[0].e2 TYPE_COUNTER  131073"; do
	expect cap.list "$line"
done
expect cap.trace.txt "SPM chunk 1 (a sample every 1024 shader clocks)"
check "the trace has other than 13 counter values: $(grep -c TYPE_COUNTER "$tmp/cap.list")" \
	[ "$(grep -c TYPE_COUNTER "$tmp/cap.list")" = 13 ]

# Without the ASIC info chunk: ticks, no ns, and words.
run 0 replay "$tmp/no-asic.rgp" --format csv
expect out "0,5256,,10,11,12"
expect err "no ASIC info chunk gives the GPU timestamp frequency: gpu_time_ns is empty, times are in ticks (gpu_timestamp)"
run 3 replay "$tmp/no-asic.rgp" --format perfetto -o "$tmp/no-asic.trace"
expect err "the capture has no ASIC info chunk giving its GPU timestamp frequency"
check "a refused trace left a file" [ ! -e "$tmp/no-asic.trace" ]

finish
