#!/bin/sh
# What the documentation promises a new user, held against what happens:
# the man pages render every command's synopsis on its line, the README
# says where /metrics is and what it holds, and which recordings IGT's
# i915-perf-reader opens (a sim:PLATFORM device's, not the default sim's),
# and that a single script run after a plain `make` says what to build.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
reader=/usr/bin/i915-perf-reader
root=$(cd "$(dirname "$0")/../.." && pwd)

# ---- the man pages: each command's synopsis whole, on one line
if command -v nroff >/dev/null; then
	LC_ALL=C.UTF-8 nroff -man -Tascii "$root/man/gpuperf.1" 2>/dev/null |
		sed 's/.\x08//g' >"$tmp/gpuperf.txt"
	for synopsis in 'devices' 'sets [-d DEVICE]' \
		'counters SET [COUNTER...] [-l] [-d DEVICE]'; do
		check "gpuperf(1) does not render '$synopsis' on its line" \
			grep -qxF "       $synopsis" "$tmp/gpuperf.txt"
	done
	for c in devices sets counters stream record run compare metrics replay; do
		check "gpuperf(1) has no entry for $c" grep -Eq "^       $c( |$)" "$tmp/gpuperf.txt"
	done
else
	fail "nroff is missing (Debian package groff-base): the man pages go unchecked"
fi

# ---- README: /metrics, and the recordings IGT reads
expect "$root/README.md" "### Prometheus: /metrics"
expect "$root/README.md" "gpuperf_gpu_busy_ratio"
expect "$root/README.md" "unsupported device (0x5f00)"
start daemon -d sim -d sim:tglgt2 -m "$shared/intel-metrics/i915" -l none \
	--unix "$tmp/sock" --linger 0
curl_metrics() {
	curl -s --unix-socket "$tmp/sock" http://localhost/metrics >"$tmp/metrics"
}
if command -v curl >/dev/null; then
	curl_metrics
	expect metrics 'gpuperf_gpu_busy_ratio{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",metric_set="RenderBasic"}'
	expect metrics 'gpuperf_reports_total{device="sim1"'
fi
run 0 record --unix "$tmp/sock" -d sim0 -m RenderBasic --duration 300ms -o "$tmp/sim.i915perf"
run 0 record --unix "$tmp/sock" -d sim1 -m RenderBasic --duration 300ms -o "$tmp/tgl.i915perf"
if [ -x "$reader" ]; then
	"$reader" "$tmp/sim.i915perf" >"$tmp/reader-sim" 2>&1
	status=$?
	check "i915-perf-reader opened a default sim recording, which the README says it refuses" \
		[ "$status" != 0 ]
	expect reader-sim "unsupported device (0x5f00)"
	"$reader" "$tmp/tgl.i915perf" >"$tmp/reader-tgl" 2>&1
	status=$?
	check "i915-perf-reader refused a sim:tglgt2 recording: $(head -2 "$tmp/reader-tgl")" \
		[ "$status" = 0 ]
else
	fail "$reader is missing (Debian package intel-gpu-tools)"
fi
run 0 replay "$tmp/sim.i915perf" --format csv -c GpuTime
expect out "simgen12,RenderBasic"

# ---- the README's single script after a plain `make`: it says what to
# build instead of failing on a program it lacks
mkdir "$tmp/made"
ln -s "$(cd "$build" && pwd)/gpuperfd" "$(cd "$build" && pwd)/gpuperf" "$tmp/made/"
GPM_BUILD_DIR="$tmp/made" sh "$root/tests/cli/test-trigger.sh" >"$tmp/made.out" 2>&1
check "a script without its test programs exited 0" [ $? != 0 ]
expect made.out "$tmp/made/tests/episodes-recording is missing: 'make unit-tests' builds"
expect "$root/README.md" "sh tests/cli/test-trigger.sh"

finish
