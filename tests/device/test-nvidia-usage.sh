#!/bin/sh
# The usage stream on a real NVIDIA GPU (written for an H200).
#
#   tests/device/test-nvidia-usage.sh
#
# Runs gpuperfd --device nvidia:0 (with --unix, so that processes can
# report their kernel time on PATH.activity) with gpuperf top --format
# ndjson at 500 ms, and tests/device/usage_load processes (each measures
# its own share: the kernels it finished times their time alone, over
# the wall time), launched as gpuperf run --cuda-activity launches a
# command: with CUDA_INJECTION64_PATH naming libgpuperf-cuda-activity.so,
# which measures their kernel time inside them with CUPTI and reports it
# to the daemon. In two phases:
# - alone: one load at a 25% duty cycle, by itself on the GPU;
# - together: one saturating load and one at 25%, each holding its own
#   amount of memory, while gpuperf stream samples the Basic set (CUPTI
#   PM sampling) at 1 ms, and python's pynvml reads NVML's per-process
#   samples (nvmlDeviceGetProcessUtilization) every 500 ms beside it.
# Checks that each load's compute share in the usage stream is within 10
# points of the share it measured itself, in both phases, and that its
# rows say the share was measured in the process; that each one's memory
# is exactly what NVML reports for it; and that the PM sampling stream
# delivered its windows all the while. NVML's own per-process samples
# are kept beside as figures (on an H200 with driver 580 they give the
# saturating process all the time and the other none while they run
# together: README, NVIDIA per-process shares). The NDJSON, the logs and
# figures.json land in $OUT (a temporary folder if unset). Prints
# "checks: N passed, F failed"; without a GPU it says why and passes
# nothing.
#
# Environment: GPM_BUILD_DIR (build), CUDA_HOME (/usr/local/cuda),
# SECONDS_OF_LOAD (8), PORT (7951), OUT, ACTIVITY_LIBS (a folder of the
# libraries libgpuperf-cuda-activity.so links, for a build copied to a
# machine without them).

BUILD=${GPM_BUILD_DIR:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
LOAD=${SECONDS_OF_LOAD:-8}
PORT=${PORT:-7951}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
GPUPERF=$BUILD/gpuperf
passed=0
failed=0
pids=

pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAILED: $*"; }
finish() {
	for pid in $pids; do
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
if [ ! -x "$BUILD/usage_load" ]; then
	"$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 -o "$BUILD/usage_load" \
		tests/device/usage_load.cu || { fail "building usage_load"; finish; }
fi

INJECTION=$(cd "$BUILD" && pwd)/libgpuperf-cuda-activity.so
[ -f "$INJECTION" ] || { fail "no $INJECTION: make builds it"; finish; }
SOCK=$OUT/gpuperfd.sock
"$BUILD/gpuperfd" --allow-root --device nvidia:0 --listen "127.0.0.1:$PORT" \
	--unix "$SOCK" --linger 0 --log-level debug >"$OUT/daemon.log" 2>&1 &
daemon=$!
pids="$daemon"
tries=0
until "$GPUPERF" --port "$PORT" devices >"$OUT/devices.txt" 2>&1; do
	tries=$((tries + 1))
	if [ $tries -ge 60 ] || ! kill -0 "$daemon" 2>/dev/null; then
		fail "the daemon did not start ($(tail -1 "$OUT/daemon.log"))"
		finish
	fi
	sleep 0.5
done

# $1: the phase; then DUTY:MEMORY_MIB of each load. The loads calibrate
# one after the other, alone, then wait for go; the usage stream (and in
# the phase "together" PM sampling and an NVML reader) run meanwhile.
phase() {
	name=$1
	shift
	dir="$OUT/$name"
	mkdir -p "$dir"
	go="$dir/go"
	rm -f "$go"
	loads=
	for load; do
		duty=${load%:*}
		# What gpuperf run --cuda-activity sets.
		CUDA_INJECTION64_PATH=$INJECTION GPUPERF_ACTIVITY_SOCKET=$SOCK.activity \
		LD_LIBRARY_PATH=${ACTIVITY_LIBS:+$ACTIVITY_LIBS:}$LD_LIBRARY_PATH \
			"$BUILD/usage_load" "$duty" "$LOAD" "${load#*:}" "$go" \
			>"$dir/load-$duty.json" 2>"$dir/load-$duty.err" &
		loads="$loads $!"
		pids="$pids $!"
		until grep -q ready "$dir/load-$duty.json" 2>/dev/null; do
			kill -0 $! 2>/dev/null || { fail "the $duty load failed: $(cat "$dir/load-$duty.json")"; finish; }
			sleep 0.1
		done
	done
	seconds=$((LOAD + 3))
	"$GPUPERF" --port "$PORT" top -i 500ms --format ndjson -o "$dir/top.ndjson" \
		--duration "${seconds}s" 2>"$dir/top.log" &
	top=$!
	stream=
	if [ "$name" = together ]; then
		"$GPUPERF" --port "$PORT" stream -m Basic -p 1ms -i 200ms --format ndjson \
			-o "$dir/stream.ndjson" --duration "${seconds}s" 2>"$dir/stream.log" &
		stream=$!
		# NVML's own per-process samples, read as the daemon reads them.
		python3 - "$seconds" >"$dir/nvml-samples.ndjson" 2>&1 <<'PY' &
import json, sys, time, pynvml
pynvml.nvmlInit()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
last = int(time.time() * 1e6)
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    time.sleep(0.5)
    try:
        samples = pynvml.nvmlDeviceGetProcessUtilization(h, last)
    except pynvml.NVMLError:
        samples = []
    rows = [dict(pid=s.pid, timestamp_us=s.timeStamp, sm=s.smUtil) for s in samples
            if s.timeStamp > last]
    last = max([last] + [r["timestamp_us"] for r in rows])
    print(json.dumps(dict(monotonic_ns=time.monotonic_ns(), samples=rows)), flush=True)
PY
		reader=$!
	fi
	sleep 1
	touch "$go"
	if [ "$name" = together ]; then
		sleep $((LOAD / 2))
		# What NVML itself says of each process's memory, mid-run.
		python3 - >"$dir/nvml.json" 2>&1 <<'PY'
import json, pynvml
pynvml.nvmlInit()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
procs = {}
for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
    procs[str(p.pid)] = p.usedGpuMemory
print(json.dumps(procs))
PY
		nvidia-smi --query-compute-apps=pid,used_memory --format=csv \
			>"$dir/nvidia-smi.csv" 2>&1
	fi
	for pid in $loads; do
		wait "$pid" || fail "a $name load exited $?"
	done
	wait $top || fail "gpuperf top failed ($(tail -1 "$dir/top.log"))"
	if [ -n "$stream" ]; then
		wait $stream || fail "gpuperf stream failed ($(tail -1 "$dir/stream.log"))"
		wait $reader
	fi
}
phase alone 0.25:1024
phase together 1:3072 0.25:1024

python3 - "$OUT" <<'EOF' >"$OUT/checks.txt"
import json, os, sys
out = sys.argv[1]

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

def mean(values):
    return sum(values) / len(values) if values else float("nan")

MARGIN = 500_000_000    # ns of each load's start and end left out
figures = {}
for phase, duties in (("alone", ("0.25",)), ("together", ("1", "0.25"))):
    loads = {}
    for duty in duties:
        done = [l for l in lines("%s/load-%s.json" % (phase, duty)) if "gpu_share" in l]
        if done:
            loads[duty] = done[-1]
    check(len(loads) == len(duties), "%s: the loads ran: %s" % (phase, sorted(loads)))
    frames = lines("%s/top.ndjson" % phase)
    check(len(frames) > 0, "%s: %d usage frames" % (phase, len(frames)))
    nvml_reads = lines("%s/nvml-samples.ndjson" % phase)
    try:
        nvml_memory = json.loads(read("%s/nvml.json" % phase))
    except ValueError:
        nvml_memory = {}
    fig = figures[phase] = {"frames": len(frames), "loads": {}}
    for duty, load in sorted(loads.items()):
        pid = load["pid"]
        lo, hi = load["start_ns"] + MARGIN, load["end_ns"] - MARGIN
        inside = [f for f in frames if f["timestamp_ns"] >= lo
                  and f["timestamp_ns"] + f["duration_ns"] <= hi]
        shares, memories, sources = [], [], set()
        for f in inside:
            row = [p for p in f.get("processes", []) if p["pid"] == pid]
            shares.append((row[0]["busy_ratio"].get("compute") or 0) if row else 0)
            memories += [p["memory_bytes"] for p in row]
            sources |= {p.get("share_source") for p in row}
        daemon = mean(shares)
        # NVML's samples in the same window: each read's mean, 0 if none.
        nvml = mean([mean([s["sm"] for s in r["samples"] if s["pid"] == pid] or [0]) / 100
                     for r in nvml_reads if lo <= r["monotonic_ns"] <= hi])
        name = "the %s load (pid %d)" % ("saturating" if duty == "1" else duty, pid)
        fig["loads"][duty] = dict(pid=pid, self_measured=load["gpu_share"], daemon=daemon,
                                  nvml_samples=nvml if nvml_reads else None,
                                  frames=len(shares), kernel_ms=load["kernel_ms"],
                                  share_sources=sorted(map(str, sources)),
                                  memory_bytes=memories[-1] if memories else None,
                                  nvml_memory_bytes=nvml_memory.get(str(pid)))
        check(bool(shares) and abs(daemon - load["gpu_share"]) <= 0.10,
              "%s: %s: the usage stream gave it %.1f%% of the GPU over %d frames; "
              "it measured %.1f%% itself" % (phase, name, 100 * daemon, len(shares),
                                            100 * load["gpu_share"]))
        check(sources == {"measured_in_process"},
              "%s: %s: its rows say where the share came from: %s"
              % (phase, name, sorted(map(str, sources))))
        if phase != "together":
            continue
        want = nvml_memory.get(str(pid))
        check(bool(memories) and want is not None and all(m == want for m in memories),
              "%s: %s: memory %s bytes in the usage stream, NVML says %s"
              % (phase, name, sorted(set(memories)), want))
    if phase != "together":
        continue
    start = min((l["start_ns"] for l in loads.values()), default=0)
    end = max((l["end_ns"] for l in loads.values()), default=0)
    during = [f for f in frames if start + MARGIN <= f["timestamp_ns"] <= end - MARGIN]
    notes = [f.get("processes_note", "") for f in during]
    fig["processes_notes"] = sorted(set(notes))
    check(bool(notes) and not any("time-slicing" in n for n in notes),
          "%s: no frame calls the measured shares the driver's sampled attribution: %s"
          % (phase, [n for n in notes if n][:1]))
    stream = lines("together/stream.ndjson")
    windows = [f for f in stream if start <= f["timestamp_ns"] <= end]
    fig["pm_sampling"] = dict(frames=len(stream), frames_during_load=len(windows),
                              reports=sum(f["reports"] for f in windows),
                              lost=sum(f["lost"] + f["buffers_lost"] for f in windows))
    check(len(windows) >= 10 and all(f["reports"] > 0 for f in windows),
          "PM sampling streamed beside the usage stream: %d windows while the loads ran, "
          "%d reports" % (len(windows), fig["pm_sampling"]["reports"]))
    sm = [e["busy_ratio"] for f in during for e in f["engines"] if e["name"] == "sm"]
    fig["sm_busy_during_load"] = mean(sm) if sm else None
    check(bool(sm) and min(sm) > 0.9, "the sm engine busy while the loads ran: %s"
          % ", ".join("%.2f" % s for s in sm[:8]))
    last = frames[-1] if frames else {}
    fig["last_frame"] = {k: last.get(k) for k in ("actual_frequency_hertz", "max_frequency_hertz",
                                                  "power_watts", "temperature_celsius", "gauges",
                                                  "note", "processes_note")}
json.dump(figures, open(os.path.join(out, "figures.json"), "w"), indent=1)
EOF
cat "$OUT/checks.txt"
passed=$((passed + $(grep -c '^ok:' "$OUT/checks.txt")))
failed=$((failed + $(grep -c '^FAILED:' "$OUT/checks.txt")))
[ -f "$OUT/figures.json" ] && cat "$OUT/figures.json"
finish
