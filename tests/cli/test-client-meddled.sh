#!/bin/sh
# gpuperf against a daemon that says things in an order, or with offsets,
# that a real one sends only by chance or not at all: daemon-proxy
# (tests/cli/daemon_proxy.c) stands between them.
#   - A Frame read together with its subscription's Subscribed, so it is
#     handled inside gpc_subscribe_sync(), before the handle is returned
#     (a crash of gpuperf stream, once seen 7 times in 20 runs).
#   - A recording's second chunk at an offset that does not follow the
#     first: 1 GiB on (gpuperf record used to write there, a sparse file
#     of 1 GiB) or 0 (over the file's header): refused, the file keeps
#     what came in order.
#   - A snapshot whose transfer stops after its first chunk: Ctrl-C
#     (SIGINT) ends gpuperf snapshot, which says so and removes the part
#     it had written.
#
# Environment: GPM_BUILD_DIR (default build). Prints "checks: N passed, F
# failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/daemon-proxy
proxy=$build/tests/daemon-proxy

# start_proxy NAME MODE [ARG]: daemon-proxy on $tmp/NAME.sock in front of
# the daemon, its log in $tmp/NAME.log.
start_proxy() {
	proxy_name=$1
	shift
	"$proxy" "$tmp/$proxy_name.sock" "$tmp/sock" "$@" \
		2>"$tmp/$proxy_name.log" &
	eval "${proxy_name}_pid=$!"
	pids="$pids $!"
	check "daemon-proxy $proxy_name did not start" \
		wait_for "$proxy_name.log" "ready on"
}

# stop_proxy NAME: ends it; $changed is how many messages it changed.
stop_proxy() {
	eval "proxy_pid=\$${1}_pid"
	kill -TERM "$proxy_pid"
	wait "$proxy_pid"
	changed=$(sed -n 's/^daemon-proxy: \([0-9]*\) changed$/\1/p' "$tmp/$1.log")
}

start daemon --device sim --listen none --unix "$tmp/sock" --linger 0

# ---- a Frame with the Subscribed, inside gpc_subscribe_sync()
start_proxy acked ack-with-frame
for i in 1 2 3; do
	run 0 stream --unix "$tmp/acked.sock" -c GpuTime -i 10ms \
		--duration 50ms --format csv -o "$tmp/acked.csv"
	rows=$(($(wc -l <"$tmp/acked.csv") - 1))
	check "stream $i through the proxy wrote $rows rows" [ "$rows" -ge 2 ]
done
stop_proxy acked
check "the proxy handed $changed Frames with their Subscribed, not 3" \
	[ "$changed" = 3 ]

# ---- recording bytes that do not follow those written
for offset in 1073741824 0; do
	start_proxy moved recording-offset $offset
	# It ends at the moved chunk; --duration only bounds a gpuperf that
	# would write it.
	run 4 record --unix "$tmp/moved.sock" -m RenderBasic \
		-o "$tmp/moved.i915perf" --duration 10s
	expect err "at offset $offset, but the next bytes are at"
	expect err "holds what arrived before"
	size=$(stat -c %s "$tmp/moved.i915perf")
	first=$(sed -n 's/.*the next bytes are at \([0-9]*\);.*/\1/p' "$tmp/err")
	check "the file has $size bytes, not the ${first:-?} of the first chunk" \
		[ "$size" = "$first" ]
	stop_proxy moved
	check "the proxy moved $changed chunks, not 1" [ "$changed" = 1 ]
done

stop daemon

# ---- Ctrl-C while a snapshot is coming: no partial file stays
start daemon -d sim:tglgt2 --metrics-dir "$shared/intel-metrics/i915" \
	-l none --unix "$tmp/sock" --linger 0 \
	--flight-recorder 4Mi --keep-streaming RenderBasic@1ms
# The ring has reports once a snapshot straight from the daemon has some.
run 0 snapshot --unix "$tmp/sock" --last 60s -o "$tmp/whole.i915perf"
start_proxy stalled snapshot-stalls
"$gpuperf" snapshot --unix "$tmp/stalled.sock" --last 60s \
	-o "$tmp/cut.i915perf" >"$tmp/cut.out" 2>"$tmp/cut.err" &
cut_pid=$!
tenths=600
while [ ! -s "$tmp/cut.i915perf" ] && [ "$tenths" -gt 0 ] &&
	kill -0 "$cut_pid" 2>/dev/null; do
	tenths=$((tenths - 1))
	sleep 0.1
done
check "the snapshot's first chunk was never written" [ -s "$tmp/cut.i915perf" ]
kill -INT "$cut_pid"
tenths=300
while kill -0 "$cut_pid" 2>/dev/null && [ "$tenths" -gt 0 ]; do
	tenths=$((tenths - 1))
	sleep 0.1
done
if kill -0 "$cut_pid" 2>/dev/null; then
	fail "gpuperf snapshot did not end within 30 s of SIGINT"
	kill -KILL "$cut_pid"
fi
wait "$cut_pid"
status=$?
check "the interrupted snapshot exited $status, not 1" [ "$status" = 1 ]
expect cut.err "interrupted before the snapshot was whole; its partial files are removed"
check "the interrupted snapshot left its partial file" [ ! -e "$tmp/cut.i915perf" ]
stop_proxy stalled
check "the proxy stalled $changed snapshots, not 1" [ "$changed" = 1 ]

stop daemon
finish
