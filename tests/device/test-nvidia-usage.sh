#!/bin/sh
# The usage stream on a real NVIDIA GPU (written for an H200).
#
#   tests/device/test-nvidia-usage.sh
#
# Runs gpuperfd --device nvidia:0 and, at once:
# - two tests/device/usage_load processes, one saturating the GPU, one at
#   a 25% duty cycle, each holding its own amount of memory;
# - gpuperf top --format ndjson at 500 ms;
# - gpuperf stream of the Basic set (CUPTI PM sampling) at 1 ms.
# Checks that each load's compute share in the usage stream is within 10
# points of the share it measured itself (the kernels it finished times
# their time alone, over the wall time), that each one's memory is
# exactly what NVML reports for it (read through python's pynvml at the
# same time), and that the PM sampling stream delivered its windows all
# the while. The NDJSON, the logs and figures.json land in $OUT (a
# temporary folder if unset). Prints "checks: N passed, F failed";
# without a GPU it says why and passes nothing.
#
# Environment: GPM_BUILD_DIR (build), CUDA_HOME (/usr/local/cuda),
# SECONDS_OF_LOAD (8), PORT (7951), OUT.

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

"$BUILD/gpuperfd" --allow-root --device nvidia:0 --listen "127.0.0.1:$PORT" --linger 0 \
	>"$OUT/daemon.log" 2>&1 &
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

# The loads calibrate one after the other, alone, then wait for go.
go="$OUT/go"
rm -f "$go"
"$BUILD/usage_load" 1 "$LOAD" 3072 "$go" >"$OUT/load-saturating.json" 2>&1 &
saturating=$!
until grep -q ready "$OUT/load-saturating.json" 2>/dev/null; do
	kill -0 $saturating 2>/dev/null || { fail "the saturating load failed: $(cat "$OUT/load-saturating.json")"; finish; }
	sleep 0.1
done
"$BUILD/usage_load" 0.25 "$LOAD" 1024 "$go" >"$OUT/load-quarter.json" 2>&1 &
quarter=$!
until grep -q ready "$OUT/load-quarter.json" 2>/dev/null; do
	kill -0 $quarter 2>/dev/null || { fail "the 25% load failed: $(cat "$OUT/load-quarter.json")"; finish; }
	sleep 0.1
done

seconds=$((LOAD + 3))
"$GPUPERF" --port "$PORT" top -i 500ms --format ndjson -o "$OUT/top.ndjson" \
	--duration "${seconds}s" 2>"$OUT/top.log" &
top=$!
"$GPUPERF" --port "$PORT" stream -m Basic -p 1ms -i 200ms --format ndjson \
	-o "$OUT/stream.ndjson" --duration "${seconds}s" 2>"$OUT/stream.log" &
stream=$!
sleep 1
touch "$go"
sleep $((LOAD / 2))
# What NVML itself says of each process's memory, mid-run.
python3 - >"$OUT/nvml.json" 2>&1 <<'EOF'
import json, pynvml
pynvml.nvmlInit()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
procs = {}
for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
    procs[str(p.pid)] = p.usedGpuMemory
print(json.dumps(procs))
EOF
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$OUT/nvidia-smi.csv" 2>&1
wait $saturating || fail "the saturating load exited $?"
wait $quarter || fail "the 25% load exited $?"
wait $top || fail "gpuperf top failed ($(tail -1 "$OUT/top.log"))"
wait $stream || fail "gpuperf stream failed ($(tail -1 "$OUT/stream.log"))"

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

loads = {}
for name in ("saturating", "quarter"):
    done = [l for l in lines("load-%s.json" % name) if "gpu_share" in l]
    if done:
        loads[name] = done[-1]
check(len(loads) == 2, "both loads ran: %s" % sorted(loads))
frames = lines("top.ndjson")
check(len(frames) > 0, "%d usage frames" % len(frames))
try:
    nvml = json.loads(read("nvml.json"))
except ValueError:
    nvml = {}
figures = {"loads": {}, "frames": len(frames)}
for name, load in loads.items():
    pid = load["pid"]
    margin = 500_000_000
    inside = [f for f in frames
              if f["timestamp_ns"] >= load["start_ns"] + margin
              and f["timestamp_ns"] + f["duration_ns"] <= load["end_ns"] - margin]
    shares, memories = [], []
    for f in inside:
        for p in f.get("processes", []):
            if p["pid"] == pid:
                shares.append(p["busy_ratio"].get("compute") or 0)
                memories.append(p["memory_bytes"])
    daemon = sum(shares) / len(shares) if shares else float("nan")
    nvml_memory = nvml.get(str(pid))
    figures["loads"][name] = dict(pid=pid, duty=load["duty"], self_measured=load["gpu_share"],
                                  daemon=daemon, frames=len(shares),
                                  memory_bytes=memories[-1] if memories else None,
                                  nvml_memory_bytes=nvml_memory,
                                  kernel_ms=load["kernel_ms"])
    check(bool(shares) and abs(daemon - load["gpu_share"]) <= 0.10,
          "%s (pid %d): the usage stream gave it %.1f%% of the GPU over %d frames; "
          "it measured %.1f%% itself" % (name, pid, 100 * daemon, len(shares),
                                        100 * load["gpu_share"]))
    check(bool(memories) and nvml_memory is not None and all(m == nvml_memory for m in memories),
          "%s: memory %s bytes in the usage stream, NVML says %s"
          % (name, sorted(set(memories)), nvml_memory))
stream = lines("stream.ndjson")
start = min((l["start_ns"] for l in loads.values()), default=0)
end = max((l["end_ns"] for l in loads.values()), default=0)
during = [f for f in stream if start <= f["timestamp_ns"] <= end]
figures["pm_sampling"] = dict(frames=len(stream), frames_during_load=len(during),
                              reports=sum(f["reports"] for f in during),
                              lost=sum(f["lost"] + f["buffers_lost"] for f in during))
check(len(during) >= 10 and all(f["reports"] > 0 for f in during),
      "PM sampling streamed beside the usage stream: %d windows while the loads ran, "
      "%d reports" % (len(during), figures["pm_sampling"]["reports"]))
engines = [f for f in frames if start <= f["timestamp_ns"] <= end]
sm = [e["busy_ratio"] for f in engines for e in f["engines"] if e["name"] == "sm"]
figures["sm_busy_during_load"] = sum(sm) / len(sm) if sm else None
check(bool(sm) and min(sm) > 0.9, "the sm engine busy while the loads ran: %s"
      % ", ".join("%.2f" % s for s in sm[:8]))
last = frames[-1] if frames else {}
figures["last_frame"] = {k: last.get(k) for k in ("actual_frequency_hertz", "max_frequency_hertz",
                                                  "power_watts", "temperature_celsius", "gauges",
                                                  "note", "processes_note")}
json.dump(figures, open(os.path.join(out, "figures.json"), "w"), indent=1)
EOF
cat "$OUT/checks.txt"
passed=$((passed + $(grep -c '^ok:' "$OUT/checks.txt")))
failed=$((failed + $(grep -c '^FAILED:' "$OUT/checks.txt")))
[ -f "$OUT/figures.json" ] && cat "$OUT/figures.json"
finish
