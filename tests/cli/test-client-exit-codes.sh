#!/bin/sh
# gpuperf's exit statuses and messages where a user first meets them:
# files that cannot be read or written exit 3 as --help says, a file that
# is no recording is called that, a sampling period the device does not
# have is said so, and --max-bytes takes sizes with prefixes and keeps the
# recording within them.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
reader=/usr/bin/i915-perf-reader

start daemon -d sim:tglgt2 -m "$shared/intel-metrics/i915" -l none \
	--unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"

# ---- what --help promises for 3
run 0 --help
expect out "3  a file cannot be read or written"

# ---- outputs that cannot be written, inputs that cannot be read: 3
run 3 stream $S -m RenderBasic -c GpuTime --duration 200ms -o /nonexistent/s.csv
expect err "cannot write /nonexistent/s.csv"
run 3 record $S -m RenderBasic --duration 200ms -o /nonexistent/r.i915perf
expect err "cannot write /nonexistent/r.i915perf"
run 0 record $S -m RenderBasic --duration 300ms -o "$tmp/r.i915perf"
metrics="$shared/intel-metrics/i915"
run 3 replay "$tmp/r.i915perf" --metrics-dir "$metrics" -o /nonexistent/x.csv
expect err "cannot write /nonexistent/x.csv"
run 3 replay "$tmp/r.i915perf" --metrics-dir /nonexistent
expect err "cannot read metrics directory /nonexistent"
run 3 metrics check --metrics-dir /nonexistent

# ---- --drm-fd: a file of this process, with its --context, to a device
# that takes one (sim takes none: refused, 5, in words)
run 2 stream $S -m RenderBasic --drm-fd 0
expect err "--drm-fd and --context go together"
run 2 stream $S -m RenderBasic --drm-fd 77 --context 1
expect err "--drm-fd 77: no such open file in this process"
run 2 stream $S -m RenderBasic --drm-fd 0 --context 1 --ctx 2
expect err "give one of them"
run 5 stream $S -m RenderBasic --duration 200ms --drm-fd 0 --context 1 </dev/null
expect err "device sim0 (sim) takes no DRM file"

# ---- a file that is no recording is named for what it is not
printf '# Network services, Internet style\ntcpmux\t\t1/tcp\n' >"$tmp/services"
run 3 replay "$tmp/services"
expect err "not an i915 perf recording"
check "a text file was called a truncated recording" \
	eval '! grep -q truncated "$tmp/err"'

# ---- a period the device does not have: the one it samples at, and why
run 0 stream $S -m RenderBasic -c GpuTime -p 10s -i 100ms --duration 300ms \
	--format csv
expect err "sampling every 6.99 s, not the 10 s asked"
expect err "the next is 14 s"

# ---- --max-bytes: k, M, G and Ki, Mi, Gi; the file stays within it
run 0 record $S -m RenderBasic -p 100us --max-bytes 100k -o "$tmp/cap.i915perf"
expect err "reached its limit of 100000 bytes"
size=$(wc -c <"$tmp/cap.i915perf")
check "--max-bytes 100k wrote $size bytes" [ "$size" -le 100000 ]
check "--max-bytes 100k wrote only $size bytes" [ "$size" -gt 90000 ]
"$reader" "$tmp/cap.i915perf" >"$tmp/reader" 2>&1
status=$?
check "i915-perf-reader refused the capped recording: $(head -3 "$tmp/reader")" \
	[ "$status" = 0 ]
run 0 record $S -m RenderBasic -p 100us --max-bytes 64KiB -o "$tmp/cap2.i915perf"
size=$(wc -c <"$tmp/cap2.i915perf")
check "--max-bytes 64KiB wrote $size bytes" [ "$size" -le 65536 ]
run 2 record $S -m RenderBasic --max-bytes 10x -o "$tmp/cap3.i915perf"
expect err "--max-bytes takes a size"
run 2 record $S -m RenderBasic --max-bytes 100 -o "$tmp/cap3.i915perf"
expect err "at least 4096 bytes"

finish
