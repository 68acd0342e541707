#!/bin/sh
# The nvidia source on a real NVIDIA GPU (written for an H200).
#
#   tests/device/test-nvidia.sh
#
# Runs gpuperfd --device nvidia:0 and streams from it with `gpuperf stream
# --format ndjson` while tests/device/workload.cu runs idle, copy,
# elementwise (memory-bound), many-small-kernels and tensor-core GEMM
# phases in another process, and checks:
# - cuda_abi.h against the CUDA headers, where they are;
# - idle SM activity near 0, DRAM read+write bandwidth within 10% of what
#   the copy and the elementwise kernel measured themselves, tensor pipe
#   activity high during the GEMM;
# - at least 99% of the samples delivered within each phase, the
#   memory-bound ones included;
# - the daemon's closing account of each stream counting the BUFFER_LOST
#   its frames carried (and figures.json: the daemon's CPU over each
#   stream, its event loop's and its busiest thread's, and from the
#   account its DecodeData calls' time and CPU and the bytes it copied
#   emptying images);
# - at least 99% of the samples the period asks for delivered: the frames'
#   reports against the time the frames span over the period the daemon
#   says it samples at, with the 15-counter Overview set asked for 1 ms
#   (the device's period grid gives 800 us) and the 5-counter Basic set at
#   100 us;
# - a second daemon on the same GPU refusing a stream as busy elsewhere,
#   the first one's stream going on, and the second one's NVML telemetry
#   working meanwhile;
# - the Compute and Memory sets streaming.
# The NDJSON streams, the daemons' logs and figures.json (the measured
# figures) land in $OUT (a temporary folder if unset). Prints "checks: N
# passed, F failed"; without a GPU it says why and passes nothing.
#
# Environment: GPM_BUILD_DIR (build), CUDA_HOME (/usr/local/cuda),
# PHASE_SECONDS (3), RUNS (1: workload runs per rate), PORT (7941; the
# second daemon listens on PORT+1), OUT.

BUILD=${GPM_BUILD_DIR:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PHASE=${PHASE_SECONDS:-3}
RUNS=${RUNS:-1}
PORT=${PORT:-7941}
PORT2=$((PORT + 1))
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
GPUPERF=$BUILD/gpuperf
passed=0
failed=0
daemons=

pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAILED: $*"; }
finish() {
	for pid in $daemons; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
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
if [ ! -x "$BUILD/check-cuda-abi" ] && [ -f "$CUDA_HOME/include/cupti.h" ] &&
	command -v cc >/dev/null; then
	mkdir -p "$OUT/abi-include" && : >"$OUT/abi-include/string"
	cc -std=gnu11 -I. -I"$CUDA_HOME/include" -I"$OUT/abi-include" \
		-o "$BUILD/check-cuda-abi" tests/device/check-cuda-abi.c ||
		fail "building check-cuda-abi"
fi
if [ -x "$BUILD/check-cuda-abi" ]; then
	if "$BUILD/check-cuda-abi"; then
		pass "cuda_abi.h matches the CUDA headers"
	else
		fail "cuda_abi.h differs from the CUDA headers"
	fi
else
	echo "cuda_abi.h not checked: no CUDA headers or no compiler here"
fi

# The daemon, the client and the workload; built here unless they came
# prebuilt.
if [ ! -x "$BUILD/gpuperfd" ] || [ ! -x "$GPUPERF" ]; then
	make -j"$(nproc)" all || { fail "building gpuperfd"; finish; }
fi
if [ ! -x "$BUILD/workload" ]; then
	"$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 -o "$BUILD/workload" \
		tests/device/workload.cu -lcublas ||
		{ fail "building the workload"; finish; }
fi

# A daemon on nvidia:0 listening on port $2, its log in daemon-$1.log;
# waits until it answers. Sets $daemon.
start_daemon() {
	"$BUILD/gpuperfd" --allow-root --device nvidia:0 --listen "127.0.0.1:$2" \
		--linger 0 >"$OUT/daemon-$1.log" 2>&1 &
	daemon=$!
	daemons="$daemons $daemon"
	tries=0
	until "$GPUPERF" --port "$2" devices >"$OUT/devices-$1.txt" 2>&1; do
		tries=$((tries + 1))
		if [ $tries -ge 60 ] || ! kill -0 "$daemon" 2>/dev/null; then
			fail "daemon $1 did not start ($(tail -1 "$OUT/daemon-$1.log"))"
			finish
		fi
		sleep 0.5
	done
}

# One run: the stream in the background, the workload beside it, and
# what the daemon says it samples at once the stream runs.
# $1 name, $2 metric set, $3 period.
with_workload() {
	seconds=$(awk "BEGIN { print 5 + 5.5 * $PHASE }")
	"$GPUPERF" --port "$PORT" stream -m "$2" -p "$3" -i 100ms \
		--format ndjson -o "$OUT/stream-$1.ndjson" \
		--duration "${seconds}s" 2>"$OUT/stream-$1.log" &
	stream=$!
	cpu_times "$main" >"$OUT/cpu-$1-before.txt"
	sleep 1.5
	"$GPUPERF" --port "$PORT" devices >"$OUT/devices-$1.txt" 2>&1
	"$BUILD/workload" "$PHASE" >"$OUT/workload-$1.ndjson" ||
		fail "$1: the workload failed"
	wait $stream ||
		fail "$1: gpuperf stream failed ($(tail -1 "$OUT/stream-$1.log"))"
	cpu_times "$main" >"$OUT/cpu-$1-after.txt"
}

# The CPU time of each of a process's threads, a line "tid user system"
# each, in clock ticks after a line with the tick rate and the time. The
# event loop is the thread whose tid is the pid.
cpu_times() {
	echo "ticks $(getconf CLK_TCK) wall_ns $(date +%s%N)"
	for stat in /proc/"$1"/task/*/stat; do
		sed 's/^\([0-9]*\) (.*) /\1 /' "$stat" |
			awk '{ print $1, $13, $14 }'
	done
}

start_daemon main "$PORT"
main=$daemon
run=1
while [ $run -le "$RUNS" ]; do
	with_workload "overview-1ms-$run" Overview 1ms
	with_workload "basic-100us-$run" Basic 100us
	run=$((run + 1))
done

# A second daemon while the first streams; NVML telemetry from it
# meanwhile.
"$GPUPERF" --port "$PORT" stream -m Basic -p 1ms -i 500ms --format ndjson \
	-o "$OUT/stream-holder.ndjson" --duration 60s \
	2>"$OUT/stream-holder.log" &
holder=$!
sleep 1.5
start_daemon second "$PORT2"
second=$daemon
"$GPUPERF" --port "$PORT2" stream -m Basic -p 1ms --format ndjson \
	-o "$OUT/stream-second.ndjson" --duration 1s 2>"$OUT/stream-second.log"
echo "$?" >"$OUT/second.status"
"$GPUPERF" --port "$PORT2" stream -m Telemetry -p 100ms -i 500ms \
	--format ndjson -o "$OUT/stream-telemetry.ndjson" --duration 2.5s \
	2>"$OUT/stream-telemetry.log"
kill "$second" && wait "$second"
daemons=$main
kill "$holder" && wait $holder

for set in Compute Memory; do
	"$GPUPERF" --port "$PORT" stream -m $set -p 1ms -i 200ms \
		--format ndjson -o "$OUT/stream-$set.ndjson" --duration 1.5s \
		2>"$OUT/stream-$set.log"
done

python3 - "$OUT" "$RUNS" "$main" <<'EOF' >"$OUT/checks.txt"
import json, os, re, statistics, sys
out = sys.argv[1]
daemon_pid = int(sys.argv[3])
runs = ["%s-%d" % (rate, i) for i in range(1, int(sys.argv[2]) + 1)
        for rate in ("overview-1ms", "basic-100us")]

def read(name):
    path = os.path.join(out, name)
    return open(path).read() if os.path.exists(path) else ""

def lines(name):
    rows = []
    for l in read(name).splitlines():
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
    return [f[counter] for f in frames if f.get(counter) is not None
            and f["timestamp_ns"] >= phase["start_ns"] + margin_ns
            and f["timestamp_ns"] + f["duration_ns"] <= phase["end_ns"] - margin_ns]

figures = {"runs": {}}
for name in runs:
    frames = lines("stream-%s.ndjson" % name)
    phases = {p["phase"]: p for p in reversed(lines("workload-%s.ndjson" % name))}
    if not frames or not all(k in phases for k in ("idle", "copy", "gemm")):
        check(False, "%s: no run (%s)" % (name, read("stream-%s.log" % name).strip()
                                          or "no frames or phases"))
        continue
    idle, copy, gemm = phases["idle"], phases["copy"], phases["gemm"]
    elementwise = phases.get("elementwise")
    # The period the daemon runs at, as it says, and as the frames have it.
    said = re.search(r"every ([0-9.]+) ms", read("devices-%s.txt" % name))
    whole = [f["duration_ns"] / f["reports"] for f in frames
             if f["reports"] and not f["lost"] and not f["buffers_lost"]]
    measured = statistics.median(whole) if whole else None
    period = round(float(said.group(1)) * 1e6) if said else measured
    if not period:
        check(False, "%s: no period: the daemon did not say and no frame is whole" % name)
        continue
    span = frames[-1]["timestamp_ns"] + frames[-1]["duration_ns"] - frames[0]["timestamp_ns"]
    reports = sum(f["reports"] for f in frames)
    expected = span / period
    delivered = 100.0 * reports / expected
    sm_idle = mean(phase_values(frames, idle, "SmActive"))
    dram = mean(phase_values(frames, copy, "DramBandwidth"))
    tensor = mean(phase_values(frames, gemm, "TensorActive"))
    ratio = dram / copy["gbps"]
    figures["runs"][name] = dict(
        period_ns=period, period_from_frames_ns=measured, span_s=span / 1e9,
        reports=reports, expected_reports=round(expected), delivered_pct=delivered,
        lost=sum(f["lost"] for f in frames), buffers_lost=sum(f["buffers_lost"] for f in frames),
        frames_with_loss=sum(1 for f in frames if f["lost"] or f["buffers_lost"]),
        sm_active_idle_pct=sm_idle, dram_gbps=dram, workload_gbps=copy["gbps"],
        dram_vs_workload_pct=100 * (ratio - 1), tensor_active_gemm_pct=tensor,
        sm_active_gemm_pct=mean(phase_values(frames, gemm, "SmActive")),
        gemm_tflops=gemm["tflops"])
    check(sm_idle < 1.0, "%s: idle SM activity %.3f%% (< 1%%)" % (name, sm_idle))
    check(abs(ratio - 1) <= 0.10, "%s: DRAM read+write %.0f GB/s, the copy measured %.0f GB/s (%+.1f%%)"
          % (name, dram, copy["gbps"], 100 * (ratio - 1)))
    check(tensor >= 50, "%s: tensor pipe active %.1f%% during the GEMM (%.0f TFLOP/s)"
          % (name, tensor, gemm["tflops"]))
    check(delivered >= 99, "%s: %d of %.0f samples delivered (%.3f%%) at %d ns over %.2f s"
          % (name, reports, expected, delivered, period, span / 1e9))
    if elementwise:
        ew = mean(phase_values(frames, elementwise, "DramBandwidth"))
        figures["runs"][name].update(dram_elementwise_gbps=ew,
                                     workload_elementwise_gbps=elementwise["gbps"])
        check(abs(ew / elementwise["gbps"] - 1) <= 0.10,
              "%s: DRAM read+write %.0f GB/s in the elementwise phase, which measured %.0f GB/s"
              % (name, ew, elementwise["gbps"]))
    # Within each phase: the frames wholly inside it, their reports
    # against their time over the period.
    by_phase = {}
    for p in sorted(phases.values(), key=lambda p: p["start_ns"]):
        inside = [f for f in frames if f["timestamp_ns"] >= p["start_ns"]
                  and f["timestamp_ns"] + f["duration_ns"] <= p["end_ns"]]
        if not inside:
            continue
        got = sum(f["reports"] for f in inside)
        due = sum(f["duration_ns"] for f in inside) / period
        by_phase[p["phase"]] = dict(delivered_pct=100.0 * got / due,
                                    buffers_lost=sum(f["buffers_lost"] for f in inside))
        check(got >= 0.99 * due, "%s: %s phase: %d of %.0f samples (%.2f%%), %d BUFFER_LOST"
              % (name, p["phase"], got, due, 100.0 * got / due,
                 by_phase[p["phase"]]["buffers_lost"]))
    figures["runs"][name]["phases"] = by_phase

# The daemon's CPU over each stream, its event loop's and the other
# threads' (the sampler's, the evaluating one's, CUPTI's own), from before
# the stream to after.
def cpu(name):
    def parse(which):
        rows = read("cpu-%s-%s.txt" % (name, which)).split("\n")
        if not rows[0].startswith("ticks "):
            return None
        head = rows[0].split()
        threads = {}
        for r in rows[1:]:
            f = r.split()
            if len(f) == 3:
                threads[f[0]] = (int(f[1]), int(f[2]))
        return int(head[1]), int(head[3]), threads
    before, after = parse("before"), parse("after")
    if not before or not after:
        return None
    tck, wall = before[0], (after[1] - before[1]) / 1e9
    used = {}
    for tid, (u, s) in after[2].items():
        u0, s0 = before[2].get(tid, (0, 0))
        used[tid] = ((u - u0) + (s - s0)) / tck
    total = sum(used.values())
    busiest = max(used.values()) if used else 0
    return dict(wall_s=wall, cpu_s=total, core_pct=100 * total / wall,
                loop_cpu_s=used.get(str(daemon_pid), 0),
                busiest_thread_cpu_s=busiest,
                threads_cpu_s=sorted((round(v, 2) for v in used.values()
                                      if v >= 0.05), reverse=True),
                per_32s_cpu_s=32 * total / wall)

for name in runs:
    if name in figures["runs"]:
        figures["runs"][name]["daemon_cpu"] = cpu(name)

figures["overflows_logged"] = read("daemon-main.log").count("overflowed")
# The daemon's own account, as each stream ended: samples, BUFFER_LOST and
# why, the decodes' cost.
figures["daemon_accounts"] = [l for l in read("daemon-main.log").splitlines()
                              if "decodes of" in l]
# The streams ended in the order they ran, each with its account line:
# what the daemon counted must be what the stream's frames carried.
for name, line in zip(runs, figures["daemon_accounts"]):
    said = re.search(r"([0-9]+) BUFFER_LOST", line)
    run = figures["runs"].get(name)
    if run is None:
        continue
    # What the decodes cost: CUPTI's DecodeData calls, their CPU time,
    # and the bytes copied back emptying images.
    cost = re.search(r"([0-9]+) decodes of ([0-9.]+) ms on average "
                     r"\(([0-9.]+) ms of CPU\).*copied ([0-9.]+) MB", line)
    if cost:
        run["decoding"] = dict(decodes=int(cost.group(1)),
                               decode_ms=float(cost.group(2)),
                               decode_cpu_ms=float(cost.group(3)),
                               emptying_copied_mb=float(cost.group(4)))
    check(said is not None and int(said.group(1)) == run["buffers_lost"],
          "%s: the daemon's account, %s BUFFER_LOST, is what the frames carried: %d"
          % (name, said.group(1) if said else "no", run["buffers_lost"]))
status = read("second.status").strip()
msg = read("stream-second.log").strip()
figures["second_daemon"] = dict(exit_status=status, message=msg)
check(status == "5" and "busy elsewhere" in msg, "a second daemon is told: %s" % (msg or "(nothing)"))
holder = lines("stream-holder.ndjson")
held_lost = sum(f["buffers_lost"] + f["lost"] for f in holder)
figures["first_daemon_meanwhile"] = dict(frames=len(holder), lost=held_lost)
check(len(holder) >= 5 and not held_lost,
      "the first daemon streamed on meanwhile: %d frames, %d lost" % (len(holder), held_lost))
tel = lines("stream-telemetry.ndjson")
figures["telemetry"] = tel[-1] if tel else read("stream-telemetry.log").strip()
check(bool(tel) and (tel[-1].get("Power") or 0) > 0 and (tel[-1].get("SmClock") or 0) > 0,
      "NVML telemetry beside the other daemon's PM sampling: %s"
      % (", ".join("%s %s" % (k, tel[-1].get(k)) for k in ("Power", "SmClock", "Temperature"))
         if tel else "no frames"))
for s in ("Compute", "Memory"):
    frames = lines("stream-%s.ndjson" % s)
    figures[s] = frames[-1] if frames else read("stream-%s.log" % s).strip()
    check(bool(frames), "set %s streams%s" % (s, "" if frames else ": " + figures[s]))
json.dump(figures, open(os.path.join(out, "figures.json"), "w"), indent=1)
EOF
cat "$OUT/checks.txt"
passed=$((passed + $(grep -c '^ok:' "$OUT/checks.txt")))
failed=$((failed + $(grep -c '^FAILED:' "$OUT/checks.txt")))
[ -f "$OUT/figures.json" ] && cat "$OUT/figures.json"
finish
