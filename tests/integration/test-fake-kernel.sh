#!/bin/sh
# The real gpuperfd on a fake machine: tests/fake-kernel preloaded, its
# cards found through libdrm under --dev-root and --sysfs-root, streams
# driven through the i915 and xe uAPI and read over /metrics. Checks the
# description, the stream the kernel was asked for (the fake kernel's
# request log), metric sets registered and removed, every kernel refusal
# reaching the client in words, recovery after EIO and a GPU reset, and
# xe's loss status.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/libfake-kernel.so
i915_metrics="$shared/intel-metrics/i915"
xe_metrics="$shared/intel-metrics/xe"

# A daemon built with ASan needs its runtime first among preloaded
# libraries.
preload="$(cd "$build/tests" && pwd)/libfake-kernel.so"
asan=$(ldd "$build/gpuperfd" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && preload="$asan $preload"

# refuse FILE TEXT [WHAT]: FILE lacks the fixed string TEXT.
refuse() {
	if grep -qF -- "$2" "$1"; then
		fail "${3:-$(basename "$1")} has: $2"
	else
		ok
	fi
}

# control KEY=VALUE...: replaces the fake kernel's control file.
control() {
	printf '%s\n' "$@" >"$tmp/control.new"
	mv "$tmp/control.new" "$tmp/control"
}

# machine NAME CARDS METRICS [BOOT_SETS]: a fresh machine for the next start.
machine() {
	root="$tmp/$1"
	cards=$2
	metrics=$3
	boot_sets=$4
	: >"$tmp/control"
}

# start_on_machine [ARGS...]: the daemon "daemon" on the machine, serving
# a Unix socket, its log in $tmp/daemon.log.
start_on_machine() {
	rm -f "$tmp/sock"
	start_command daemon env LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=1 \
		GPD_FAKE_KERNEL_ROOT="$root" GPD_FAKE_KERNEL_CARDS="$cards" \
		GPD_FAKE_KERNEL_METRICS="$metrics" GPD_FAKE_KERNEL_SETS="$boot_sets" \
		GPD_FAKE_KERNEL_LOG="$root.requests" \
		GPD_FAKE_KERNEL_CONTROL="$tmp/control" \
		"$build/gpuperfd" --allow-root --dev-root "$root/dev" --sysfs-root "$root/sys" \
		-m "$metrics" -l none --unix "$tmp/sock" --metrics-window 50 \
		--linger 0 --log-level debug "$@"
}

# scrape: /metrics into $tmp/scrape.
scrape() {
	curl -s --max-time 10 --unix-socket "$tmp/sock" http://localhost/metrics \
		>"$tmp/scrape"
}

# A metric's value for card0 from the last scrape (0 if absent).
value() {
	awk -v name="$1" 'index($0, name "{") == 1 { v = $NF } END { print v + 0 }' \
		"$tmp/scrape"
}

render_basic=0fc397c0-4833-492c-9ccd-4929d574d5b8

# --- Discovery: both drivers found by auto, described, shut down cleanly.
machine discovery i915:tglgt2,xe:tglgt2 "$i915_metrics"
start_on_machine
expect "$tmp/daemon.log" "card0: Tiger Lake GT2, PCI 0x9a49 rev 0, i915 perf revision 7, 96 EUs, OA timestamp 19200000 Hz, GPU 300-1350 MHz"
expect "$tmp/daemon.log" "card1: Tiger Lake GT2, PCI 0x9a49 rev 0, xe with 1 OA unit(s), 96 EUs, OA timestamp 19200000 Hz, GPU 300-1350 MHz"
expect "$tmp/daemon.log" "device card0: Tiger Lake GT2 (i915, PCI 0x9a49)"
expect "$tmp/daemon.log" "device card1: Tiger Lake GT2 (xe, PCI 0x9a49)"
expect "$root.requests" "card0 GETPARAM param=57 -> 19200000"
expect "$root.requests" "card0 QUERY id=1 -> length"
expect "$root.requests" "card1 DEVICE_QUERY query=8"
stop daemon
refuse "$tmp/daemon.log" "still open"

# An old kernel: no perf revision (1 then) and no OA timestamp frequency,
# so the command streamer's clock stands in.
machine old-kernel i915:tglgt2 "$i915_metrics"
GPD_FAKE_KERNEL_PERF_REVISION=0 start_on_machine
expect "$tmp/daemon.log" "i915 perf revision 1, 96 EUs, OA timestamp 19200000 Hz"
expect "$root.requests" "card0 GETPARAM param=51 -> 19200000"
stop daemon

# The wrong driver named on the command line.
machine wrong-driver xe:tglgt2 "$xe_metrics"
env LD_PRELOAD="$preload" GPD_FAKE_KERNEL_ROOT="$root" GPD_FAKE_KERNEL_CARDS="$cards" \
	"$build/gpuperfd" --allow-root --dev-root "$root/dev" --sysfs-root "$root/sys" -l none \
	--device "i915:$root/dev/dri/card0" >"$tmp/wrong.log" 2>&1
[ $? = 1 ] && ok || fail "--device i915: on an xe card did not fail with 1"
expect "$tmp/wrong.log" "$root/dev/dri/card0 is driven by xe, not i915; use --device xe:$root/dev/dri/card0"

# --- i915: a stream on demand, the set registered for it and removed after.
machine i915 i915:tglgt2 "$i915_metrics"
start_on_machine --device "i915:$root/dev/dri/card0"
scrape
scrape
expect "$tmp/scrape" 'gpuperf_eu_active_ratio{device="card0",device_id="0000:00:02.0",pci_id="0x9a49",model="Tiger Lake GT2",driver="i915",metric_set="RenderBasic"}'
[ "$(value gpuperf_reports_total)" -gt 0 ] && ok || fail "no reports counted"
expect "$root.requests" "card0 ADD_CONFIG uuid=$render_basic mux="
expect "$root.requests" "-> 2"
expect "$root.requests" "card0 PERF_OPEN flags=0x3 SAMPLE_OA=1 OA_METRICS_SET=2 OA_FORMAT=10 OA_EXPONENT=13 POLL_OA_PERIOD=5000000 ->"
[ "$(cat "$root/sys/dev/char/226:0/metrics/$render_basic/id")" = 2 ] && ok ||
	fail "sysfs lacks the registered set"
stop daemon
expect "$root.requests" "card0 stream close"
expect "$root.requests" "card0 REMOVE_CONFIG id=2 -> 0"
[ ! -e "$root/sys/dev/char/226:0/metrics/$render_basic" ] && ok ||
	fail "the registered set outlived the daemon"

# A set the kernel already has is used, not registered, and stays.
machine i915-boot i915:tglgt2 "$i915_metrics" RenderBasic
start_on_machine
scrape
refuse "$root.requests" "ADD_CONFIG"
expect "$root.requests" "OA_METRICS_SET=2 OA_FORMAT=10"
stop daemon
refuse "$root.requests" "REMOVE_CONFIG"
[ -e "$root/sys/dev/char/226:0/metrics/$render_basic/id" ] && ok ||
	fail "the kernel's own set was removed"

# --- i915 refusals, each in words at the client (a /metrics comment).
machine refusals i915:tglgt2 "$i915_metrics" RenderBasic
start_on_machine
control busy=1
scrape
expect "$tmp/scrape" "# card0: the OA unit of card0 is in use by another process (gputop, IGT's perf tools, Intel GPA, another gpuperfd); 'fuser -v $root/dev/dri/card0' shows who holds the card: stop it, then subscribe again"
control capable=0
scrape
expect "$tmp/scrape" "# card0: card0 refused a system-wide OA stream: dev.i915.perf_stream_paranoid is 1 and gpuperfd lacks CAP_PERFMON; give it CAP_PERFMON (systemd: AmbientCapabilities=CAP_PERFMON) or run 'sysctl dev.i915.perf_stream_paranoid=0'"
echo 0 >"$root/proc/sys/dev/i915/perf_stream_paranoid"
echo 500 >"$root/proc/sys/dev/i915/oa_max_sample_rate"
control capable=0
scrape
expect "$tmp/scrape" "# card0: card0 refused sampling every 853334 ns (1171 Hz): above dev.i915.oa_max_sample_rate = 500 Hz, which needs CAP_PERFMON; sample every 3413334 ns or slower, raise that sysctl, or give gpuperfd CAP_PERFMON"
echo 1 >"$root/proc/sys/dev/i915/perf_stream_paranoid"
echo 100000 >"$root/proc/sys/dev/i915/oa_max_sample_rate"
control einval=format
scrape
expect "$tmp/scrape" "# card0: card0 rejected the stream parameters (EINVAL): OA format A32u40_A4u32_B8_C8 (0xa), metric set RenderBasic (id 2), exponent 13; its kernel does not take that format or set, so the metric files do not fit it"
control einval=set
scrape
expect "$tmp/scrape" "# card0: card0 rejected metric set RenderBasic (id 2): another process removed it from the kernel while the stream opened; subscribe again"
control capable=0
scrape
expect "$tmp/scrape" "# card0: card0 lacks metric set RenderBasic and registering it needs CAP_PERFMON while dev.i915.perf_stream_paranoid is 1: give gpuperfd CAP_PERFMON or run 'sysctl dev.i915.perf_stream_paranoid=0'"
# Another process registers the set in the same instant: it is used, and
# left to that process.
control add_config_race=1
scrape
scrape
refuse "$tmp/scrape" "# card0:"
expect "$root.requests" "ADD_CONFIG uuid=$render_basic mux=64 boolean=14 flex=7 -> EADDRINUSE"
expect "$tmp/scrape" 'gpuperf_eu_active_ratio{device="card0"'

# --- EIO mid-stream: reopened with backoff, the gap counted as a lost buffer.
# i915_perf_read() fails with EIO only on a stream disabled through its fd.
lost_before=$(value gpuperf_buffers_lost_total)
control eio_after=5
wait_for "$tmp/daemon.log" "OA stream reopened after" && ok || fail "no reopen after EIO"
expect "$tmp/daemon.log" "card0: the kernel stopped the OA stream (EIO: it was disabled through its file descriptor); reopening"
expect "$root.requests" "card0 stream read -> EIO (disabled through its fd)"
scrape
scrape
[ "$(value gpuperf_buffers_lost_total)" -gt "$lost_before" ] && ok ||
	fail "the gap after EIO was not counted"

# --- A GPU reset: the kernel tells the stream nothing and the OA unit
# writes no more reports; the silence is what shows it.
reopens_before=$(grep -c "OA stream reopened after" "$tmp/daemon.log")
control gpu_reset=1
wait_for "$root.requests" "card0 GPU reset: the OA units lose their programming" &&
	ok || fail "the fake GPU did not reset"
wait_for "$tmp/daemon.log" "card0: the OA unit wrote no report for" 10 &&
	ok || fail "the silence after a GPU reset went unnoticed"
for _ in $(seq 100); do
	[ "$(grep -c "OA stream reopened after" "$tmp/daemon.log")" -gt "$reopens_before" ] && break
	sleep 0.1
done
[ "$(grep -c "OA stream reopened after" "$tmp/daemon.log")" -gt "$reopens_before" ] &&
	ok || fail "no reopen after the GPU reset"
stop daemon
refuse "$root.requests" "REMOVE_CONFIG"

# --- xe: open, read, loss through EIO and the status ioctl, close.
machine xe xe:tglgt2 "$xe_metrics"
start_on_machine --device "xe:$root/dev/dri/card0"
scrape
scrape
expect "$tmp/scrape" 'gpuperf_eu_active_ratio{device="card0",device_id="0000:00:02.0",pci_id="0x9a49",model="Tiger Lake GT2",driver="xe",metric_set="RenderBasic"}'
expect "$root.requests" "card0 OA_ADD_CONFIG uuid=$render_basic n_regs="
expect "$root.requests" "card0 OA_STREAM_OPEN OA_UNIT_ID=0 SAMPLE_OA=1 OA_METRIC_SET=1 OA_FORMAT=1280 OA_PERIOD_EXPONENT=13 ->"
# A reader stalled long enough for the 16 MiB buffer to overflow.
control stall_ms=60000
wait_for "$root.requests" "card0 stream STATUS -> 0x2" && ok || fail "no status read after EIO"
expect "$root.requests" "card0 stream read -> EIO status=0x2"
scrape
scrape
[ "$(value gpuperf_buffers_lost_total)" -gt 0 ] && ok || fail "xe buffer overflow not counted"
control busy=1
stop daemon
expect "$root.requests" "card0 OA_REMOVE_CONFIG id=1 -> 0"

machine xe-busy xe:tglgt2 "$xe_metrics" RenderBasic
start_on_machine
control busy=1
scrape
expect "$tmp/scrape" "# card0: the OA unit of card0 is in use by another process"
control capable=0
scrape
expect "$tmp/scrape" "# card0: card0 refused a system-wide OA stream: dev.xe.observation_paranoid is 1 and gpuperfd lacks CAP_PERFMON; give it CAP_PERFMON (systemd: AmbientCapabilities=CAP_PERFMON) or run 'sysctl dev.xe.observation_paranoid=0'"
stop daemon

finish
