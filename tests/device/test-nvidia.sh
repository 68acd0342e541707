#!/bin/sh
# The nvidia source on a real NVIDIA GPU (written for an H200).
#
#   tests/device/test-nvidia.sh
#
# Runs the daemon's devices in process on nvidia:0 (tests/device/
# nvidia_stream.c) while tests/device/workload.cu runs idle, copy and
# tensor-core GEMM phases in another process, and checks:
# - cuda_abi.h against the CUDA headers, where they are;
# - idle SM activity near 0, DRAM read+write bandwidth within 10% of what
#   the copy measured itself, tensor pipe activity high during the GEMM;
# - at least 99% of the samples the period asks for delivered, with the
#   15-counter Overview set asked for 1 ms (the device's period grid gives
#   800 us) and the 5-counter Basic set at 100 us;
# - a second daemon on the same GPU refused as busy elsewhere, and NVML
#   telemetry working meanwhile;
# - the Compute and Memory sets configuring.
# Every NDJSON stream and a summary land in $OUT (a temporary folder if
# unset). Prints "checks: N passed, F failed"; without a GPU it says why
# and passes nothing.
#
# Environment: GPM_BUILD_DIR (build), CUDA_HOME (/usr/local/cuda),
# PHASE_SECONDS (3), OUT.

BUILD=${GPM_BUILD_DIR:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PHASE=${PHASE_SECONDS:-3}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAILED: $*"; }
finish() {
	echo "checks: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU here (nvidia-smi -L fails): nothing to check"
	finish
fi

# The ABI of the CUPTI calls, where the headers are. cupti_profiler_host.h
# includes C++'s <string>: an empty file of that name stands in.
if [ -f "$CUDA_HOME/include/cupti.h" ]; then
	mkdir -p "$OUT/abi-include" && : >"$OUT/abi-include/string"
	if cc -std=gnu11 -I. -I"$CUDA_HOME/include" -I"$OUT/abi-include" \
		-o "$OUT/check-cuda-abi" tests/device/check-cuda-abi.c &&
		"$OUT/check-cuda-abi"; then
		pass "cuda_abi.h matches the CUDA headers"
	else
		fail "cuda_abi.h differs from the CUDA headers"
	fi
fi

# The daemon's libraries, the driver and the workload; built here unless
# they came prebuilt.
if [ ! -x "$BUILD/nvidia_stream" ]; then
	[ -f "$BUILD/libgpuperfd.a" ] || make -j"$(nproc)" all || finish
	cc -D_GNU_SOURCE -I. -I"$BUILD" -std=gnu11 -O2 -o "$BUILD/nvidia_stream" \
		tests/device/nvidia_stream.c "$BUILD/libgpuperfd.a" \
		"$BUILD/libgpuperf-proto.a" "$BUILD/libgpm.a" \
		$(pkg-config --libs expat libuv libwebsockets libprotobuf-c libdrm) \
		-lm -ldl -lpthread || { fail "building nvidia_stream"; finish; }
fi
if [ ! -x "$BUILD/workload" ]; then
	"$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 -o "$BUILD/workload" \
		tests/device/workload.cu -lcublas ||
		{ fail "building the workload"; finish; }
fi
STREAM=$BUILD/nvidia_stream

# One run: the stream in the background, the workload beside it.
# $1 name, then the stream's options.
with_workload() {
	name=$1
	shift
	seconds=$(awk "BEGIN { print 3 + 3.5 * $PHASE }")
	"$STREAM" --seconds "$seconds" "$@" >"$OUT/stream-$name.ndjson" \
		2>"$OUT/stream-$name.log" &
	stream=$!
	sleep 1.5
	"$BUILD/workload" "$PHASE" >"$OUT/workload-$name.ndjson" ||
		fail "$name: the workload failed"
	wait $stream || fail "$name: the stream failed ($(tail -1 "$OUT/stream-$name.log"))"
}

with_workload overview-1ms --set Overview --period-us 1000 --window-ms 100
with_workload basic-100us --set Basic --period-us 100 --window-ms 100

# A second daemon while the first samples; NVML telemetry meanwhile.
"$STREAM" --set Basic --period-us 1000 --seconds 5 \
	>"$OUT/stream-holder.ndjson" 2>"$OUT/stream-holder.log" &
holder=$!
sleep 2
"$STREAM" --set Basic --period-us 1000 --seconds 1 \
	>"$OUT/stream-second.ndjson" 2>"$OUT/stream-second.log"
echo "$?" >"$OUT/second.status"
"$STREAM" --set Telemetry --period-us 100000 --window-ms 500 --seconds 2.5 \
	>"$OUT/stream-telemetry.ndjson" 2>"$OUT/stream-telemetry.log"
wait $holder

for set in Compute Memory; do
	"$STREAM" --set $set --period-us 1000 --window-ms 200 --seconds 1.5 \
		>"$OUT/stream-$set.ndjson" 2>"$OUT/stream-$set.log"
done

python3 - "$OUT" <<'EOF' >"$OUT/checks.txt"
import json, os, sys
out = sys.argv[1]

def lines(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    rows = []
    for l in open(path):
        try:
            rows.append(json.loads(l))
        except ValueError:
            pass
    return rows

def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)

def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")

def phase_values(frames, phase, counter, margin_ns=200_000_000):
    return [f["values"][counter] for f in frames
            if "values" in f and f["values"].get(counter) is not None
            and f["gpu_start_ns"] >= phase["start_ns"] + margin_ns
            and f["gpu_end_ns"] <= phase["end_ns"] - margin_ns]

figures = {}
for name, want_pct in (("overview-1ms", 99), ("basic-100us", 99)):
    rows = lines("stream-%s.ndjson" % name)
    frames = [r for r in rows if "values" in r]
    summary = next((r["summary"] for r in rows if "summary" in r), None)
    phases = [r for r in lines("workload-%s.ndjson" % name) if "phase" in r]
    errors = [r for r in rows if "error" in r]
    if errors or not summary or len(phases) < 4:
        check(False, "%s: no run (%s)" % (name, errors[0]["message"] if errors else "no summary or phases"))
        continue
    idle, copy, gemm = phases[0], phases[1], phases[2]
    sm_idle = mean(phase_values(frames, idle, "SmActive"))
    dram = mean(phase_values(frames, copy, "DramBandwidth"))
    tensor = mean(phase_values(frames, gemm, "TensorActive"))
    sm_gemm = mean(phase_values(frames, gemm, "SmActive"))
    ratio = dram / copy["gbps"]
    figures[name] = dict(period_ns=summary["period_ns"], delivered_pct=summary["delivered_pct"],
                         reports=summary["reports"], expected=summary["expected_reports"],
                         buffer_lost=summary["buffer_lost"], cpu_s=summary["cpu_s"], wall_s=summary["wall_s"],
                         sm_active_idle=sm_idle, dram_gbps=dram, workload_gbps=copy["gbps"],
                         tensor_active_gemm=tensor, sm_active_gemm=sm_gemm, gemm_tflops=gemm["tflops"],
                         source=summary.get("source"))
    check(sm_idle < 1.0, "%s: idle SM activity %.3f%% (< 1%%)" % (name, sm_idle))
    check(abs(ratio - 1) <= 0.10, "%s: DRAM read+write %.0f GB/s, the copy measured %.0f GB/s (%+.1f%%)"
          % (name, dram, copy["gbps"], 100 * (ratio - 1)))
    check(tensor >= 50, "%s: tensor pipe active %.1f%% during the GEMM (%.0f TFLOP/s)" % (name, tensor, gemm["tflops"]))
    check(summary["delivered_pct"] >= want_pct, "%s: %.3f%% of %d requested samples delivered at %d ns"
          % (name, summary["delivered_pct"], summary["expected_reports"], summary["period_ns"]))

second = lines("stream-second.ndjson")
status = open(os.path.join(out, "second.status")).read().strip()
msg = next((r["message"] for r in second if "error" in r), "")
figures["second_daemon"] = dict(status=status, message=msg)
check(status == "4" and "busy elsewhere" in msg, "a second daemon is told: %s" % (msg or "(nothing)"))

tel = [r for r in lines("stream-telemetry.ndjson") if "values" in r]
figures["telemetry"] = tel[-1]["values"] if tel else None
check(bool(tel) and tel[-1]["values"].get("Power", 0) > 0 and tel[-1]["values"].get("SmClock", 0) > 0,
      "NVML telemetry beside another PM sampling session: %s" % (tel[-1]["values"] if tel else "no frames"))
for s in ("Compute", "Memory"):
    rows = lines("stream-%s.ndjson" % s)
    frames = [r for r in rows if "values" in r]
    err = next((r["message"] for r in rows if "error" in r), None)
    figures[s] = frames[-1]["values"] if frames else err
    check(bool(frames), "set %s streams%s" % (s, "" if frames else ": " + str(err)))
json.dump(figures, open(os.path.join(out, "figures.json"), "w"), indent=1)
EOF
cat "$OUT/checks.txt"
passed=$((passed + $(grep -c '^ok:' "$OUT/checks.txt")))
failed=$((failed + $(grep -c '^FAILED:' "$OUT/checks.txt")))
[ -f "$OUT/figures.json" ] && cat "$OUT/figures.json"
finish
