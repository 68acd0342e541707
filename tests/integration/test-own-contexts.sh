#!/bin/sh
# gpuperf run --own-contexts and libgpuperf-preload.so on the fake i915
# GPU (tests/fake-kernel): an application that knows nothing of gpuperf
# (context-app) is measured by its own context while another process's
# context runs on the same GPU, and the other's reports are not in the
# result. The preload never changes what the application sees: without
# gpuperf run, with gpuperf run gone, and when the daemon refuses, its
# ioctls return what the kernel gave, errno included, and a failure is
# said once. xe's exec queue create is offered too (a stand-in answers
# it on the i915 card), and xe, whose queue streams are not filtered, and
# a device without the kernel's context filter are refused before the
# command runs.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/libfake-kernel.so tests/libxe-exec-queue.so tests/context-app
i915_metrics="$shared/intel-metrics/i915"
tests_dir=$(cd "$build/tests" && pwd)
fake="$tests_dir/libfake-kernel.so"
xe_queue="$tests_dir/libxe-exec-queue.so"
preload_lib="$(cd "$build" && pwd)/libgpuperf-preload.so"
app="$tests_dir/context-app"
# A build with ASan needs its runtime first among preloaded libraries.
asan=$(ldd "$build/gpuperfd" | awk '/libasan/ { print $3 }')
asan_first=${asan:+$asan }

root="$tmp/m"
export GPD_FAKE_KERNEL_ROOT="$root" GPD_FAKE_KERNEL_CARDS=i915:tglgt2 \
	GPD_FAKE_KERNEL_METRICS="$i915_metrics" GPD_FAKE_KERNEL_LOG="$root.requests" \
	GPD_FAKE_KERNEL_CONTROL="$tmp/control"
: >"$tmp/control"

# on_fake COMMAND...: COMMAND on the fake machine.
on_fake() {
	LD_PRELOAD="$asan_first$fake" "$@"
}

# in_run: the words gpuperf run's command runs under: its LD_PRELOAD
# (the preload first) with the fake kernel after it.
in_run() {
	printf '%s\n' 'a=$1 f=$2; shift 2; LD_PRELOAD="$a$LD_PRELOAD $f" exec "$@"'
}

# forget PID: a background process waited for, no longer to end on exit
# (its pid may be another's by then).
forget() {
	kept=""
	for p in $pids; do
		[ "$p" = "$1" ] || kept="$kept $p"
	done
	pids=$kept
}

# hw_ids: the hardware context IDs of the contexts created, in order.
hw_ids() {
	sed -n 's/.*GEM_CONTEXT_CREATE -> [0-9]*, hardware context \(0x[0-9a-f]*\).*/\1/p' \
		"$root.requests"
}

# --- The application on its own: what the preload must keep.
on_fake "$app" /dev/dri/card0 --contexts 2 >"$tmp/alone.out" 2>"$tmp/alone.err"
check "context-app failed on the fake GPU" [ $? = 0 ]
expect alone.out "context 2"
expect alone.out "unknown flag: Invalid argument"

# With the preload and no gpuperf run: the same, and not a word.
LD_PRELOAD="$asan_first$preload_lib $fake" "$app" /dev/dri/card0 --contexts 2 \
	>"$tmp/quiet.out" 2>"$tmp/quiet.err"
check "context-app failed under the preload" [ $? = 0 ]
check "the preload changed the application's results" cmp -s "$tmp/alone.out" "$tmp/quiet.out"
check "the preload spoke with no gpuperf run" [ ! -s "$tmp/quiet.err" ]

# gpuperf run gone (nothing listens where it said): the same results, and
# the failure said once for two contexts.
LD_PRELOAD="$asan_first$preload_lib $fake" GPUPERF_OFFER_SOCKET="$tmp/gone" \
	"$app" /dev/dri/card0 --contexts 2 >"$tmp/gone.out" 2>"$tmp/gone.err"
check "context-app failed with gpuperf run gone" [ $? = 0 ]
check "gpuperf run gone changed the application's results" cmp -s "$tmp/alone.out" "$tmp/gone.out"
expect gone.err "cannot reach gpuperf run at $tmp/gone"
check "the failure was said $(grep -c 'gpuperf preload' "$tmp/gone.err") times, not once" \
	[ "$(grep -c 'gpuperf preload' "$tmp/gone.err")" = 1 ]

# --- The daemon on the fake GPU, and another process's context on it.
start_command daemon env LD_PRELOAD="$asan_first$fake" ASAN_OPTIONS=detect_leaks=1 \
	"$build/gpuperfd" --allow-root --dev-root "$root/dev" --sysfs-root "$root/sys" \
	-m "$i915_metrics" -l none --unix "$tmp/sock" --linger 0 \
	--device "i915:$root/dev/dri/card0"
S="--unix $tmp/sock"
# i915 takes a context's DRM file and holds back others' reports.
run 0 $S devices
expect out "  kernel, software  "
: >"$root.requests"
on_fake "$app" /dev/dri/card0 --contexts 1 --wait "$tmp/other-go" >"$tmp/other.out" 2>&1 &
other_pid=$!
pids="$pids $other_pid"
wait_for other.out "context 1" 30 "$other_pid" || fail "the other process made no context"

# The command's first context is measured from its creation, through
# the file it passed; its second is named, not measured.
"$gpuperf" $S run --own-contexts -m RenderBasic -c GpuTime -i 20ms \
	--format csv -o "$tmp/run.csv" -- sh -c "$(in_run)" sh "$asan_first" "$fake" \
	"$app" /dev/dri/card0 --contexts 2 --wait "$tmp/go" \
	>"$tmp/run.out" 2>"$tmp/run.err" &
run_pid=$!
pids="$pids $run_pid"
# Rows of its context have come: the command may end.
if wait_lines "$tmp/run.csv" 5 60; then ok; else fail "no rows came"; fi
touch "$tmp/go"
wait "$run_pid"
check "gpuperf run --own-contexts exited $?, not 0" [ $? = 0 ]
forget "$run_pid"
touch "$tmp/other-go"
wait "$other_pid"
forget "$other_pid"
expect run.out "done"
expect run.err "measuring GEM context 1 of process"
expect run.err "GEM context 2 of process"
expect run.err "is not measured: the OA unit takes one context filter"
expect "$root.requests" "CTX_HANDLE=1"
other=$(hw_ids | sed -n 1p)
mine=$(hw_ids | sed -n 2p)
check "the two processes' contexts share hardware context $mine" [ "$other" != "$mine" ]
# The rows: the totals (mark 1) and, per interval, the context's own.
column() {
	head -1 "$tmp/run.csv" | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1
}
ctx_col=$(column context_id)
mark_col=$(column mark)
# (Rows of idle time, context 0, are nobody's.)
awk -F, -v c="$ctx_col" 'NR > 1 && $c != "" && $c != "0" { print $c }' "$tmp/run.csv" |
	sort -u >"$tmp/run.contexts"
check "the result's contexts are $(tr '\n' ' ' <"$tmp/run.contexts"), not $mine alone" \
	[ "$(cat "$tmp/run.contexts")" = "$mine" ]
check "the other process's context $other is in the result" \
	sh -c "! grep -qx '$other' '$tmp/run.contexts'"
# The totals (mark 1): the window's row, then the context's own row.
check "$(awk -F, -v m="$mark_col" -v c="$ctx_col" '$m == 1 && $c == ""' "$tmp/run.csv" | wc -l) totals rows, not one" \
	[ "$(awk -F, -v m="$mark_col" -v c="$ctx_col" '$m == 1 && $c == ""' "$tmp/run.csv" | wc -l)" = 1 ]
check "the totals have no row of context $mine" \
	[ "$(awk -F, -v m="$mark_col" -v c="$ctx_col" -v x="$mine" '$m == 1 && $c == x' "$tmp/run.csv" | wc -l)" = 1 ]

# A process the command forked makes the context: it is the one measured.
"$gpuperf" $S run --own-contexts -m RenderBasic -c GpuTime -i 20ms \
	--format csv -o "$tmp/fork.csv" -- sh -c "$(in_run)" sh "$asan_first" "$fake" \
	"$app" /dev/dri/card0 --contexts 1 --fork 1 --wait "$tmp/fork-go" \
	>"$tmp/fork.out" 2>"$tmp/fork.err" &
fork_pid=$!
pids="$pids $fork_pid"
if wait_lines "$tmp/fork.csv" 3 60; then ok; else fail "no rows came of a forked process's context"; fi
touch "$tmp/fork-go"
wait "$fork_pid"
check "gpuperf run of a forking command exited $?, not 0" [ $? = 0 ]
forget "$fork_pid"
forked=$(sed -n 's/^forked //p' "$tmp/fork.out")
expect fork.err "measuring GEM context 1 of process $forked on card0"

# --- The daemon refuses (someone streams the whole GPU, which a context
# stream cannot share): the command runs as ever, the preload says so
# once for its two contexts, and gpuperf run exits with the refusal.
"$gpuperf" $S stream -m RenderBasic -c GpuTime -i 100ms --duration 600s \
	--format csv -o "$tmp/wide.csv" 2>"$tmp/wide.err" &
wide_pid=$!
pids="$pids $wide_pid"
wait_lines "$tmp/wide.csv" 2 60 || fail "the system-wide stream did not start"
"$gpuperf" $S run --own-contexts -m RenderBasic -- sh -c "$(in_run)" sh \
	"$asan_first" "$fake" "$app" /dev/dri/card0 --contexts 2 \
	>"$tmp/refused.out" 2>"$tmp/refused.err"
check "a refused run exited $?, not 5" [ $? = 5 ]
check "the refusal changed the application's results" cmp -s "$tmp/alone.out" "$tmp/refused.out"
expect refused.err "the daemon refused the subscription"
expect refused.err "is not measured: the daemon refused its stream"
check "the preload said the refusal $(grep -c 'gpuperf preload' "$tmp/refused.err") times, not once" \
	[ "$(grep -c 'gpuperf preload' "$tmp/refused.err")" = 1 ]
kill "$wide_pid" 2>/dev/null
wait "$wide_pid" 2>/dev/null
forget "$wide_pid"

# --- An xe exec queue created on an i915 device: offered (a stand-in
# answers the create as xe would), and named as another GPU's.
"$gpuperf" $S run --own-contexts -m RenderBasic -- sh -c "$(in_run)" sh \
	"$asan_first" "$xe_queue $fake" "$app" /dev/dri/card0 --xe-queues 1 \
	>"$tmp/xe.out" 2>"$tmp/xe.err"
check "a run whose command made only an exec queue exited $?, not 1" [ $? = 1 ]
expect xe.out "exec queue 7"
expect xe.err "exec queue 7 of process"
expect xe.err "is on another GPU than card0 (i915): not measured"
expect xe.err "created no GEM context on card0"

# --- A command that makes no context: said, and 1.
run 1 $S run --own-contexts -m RenderBasic -- true
expect err "true created no GEM context on card0: nothing was measured"
run 2 $S run --own-contexts --drm-fd 0 --context 1 -- true
expect err "--own-contexts finds the command's context itself"
stop daemon

# --- xe streams an exec queue without filtering the OA buffer: refused
# before the command runs, in words that say why and what shows it.
start_command xe_daemon env LD_PRELOAD="$asan_first$fake" \
	GPD_FAKE_KERNEL_ROOT="$tmp/mx" GPD_FAKE_KERNEL_CARDS=xe:tglgt2 \
	GPD_FAKE_KERNEL_METRICS="$shared/intel-metrics/xe" \
	"$build/gpuperfd" --allow-root --dev-root "$tmp/mx/dev" --sysfs-root "$tmp/mx/sys" \
	-m "$shared/intel-metrics/xe" -l none --unix "$tmp/xe.sock" --linger 0 \
	--device "xe:$tmp/mx/dev/dri/card0"
run 0 --unix "$tmp/xe.sock" devices
expect out "  kernel, whole unit, software  "
run 5 --unix "$tmp/xe.sock" run --own-contexts -- touch "$tmp/ran"
expect err "device card0 (xe): xe does not filter the OA buffer by exec queue"
check "the command ran on xe, which cannot measure it" [ ! -e "$tmp/ran" ]
stop xe_daemon

# --- Haswell streams the command's context through the kernel, but its
# reports carry no context ID: the result is the context's, without
# per-context rows, which --per-context asked for is refused.
start_command hsw_daemon env LD_PRELOAD="$asan_first$fake" \
	GPD_FAKE_KERNEL_ROOT="$tmp/mh" GPD_FAKE_KERNEL_CARDS=i915:hsw \
	"$build/gpuperfd" --allow-root --dev-root "$tmp/mh/dev" --sysfs-root "$tmp/mh/sys" \
	-m "$i915_metrics" -l none --unix "$tmp/hsw.sock" --linger 0 \
	--device "i915:$tmp/mh/dev/dri/card0"
run 0 --unix "$tmp/hsw.sock" devices
expect out "  kernel  "
run 0 --unix "$tmp/hsw.sock" run --own-contexts -m RenderBasic -c GpuTime -i 20ms \
	--format csv -o "$tmp/hsw.csv" -- sh -c "$(in_run)" sh "$asan_first" "$fake" \
	env GPD_FAKE_KERNEL_ROOT="$tmp/mh" GPD_FAKE_KERNEL_CARDS=i915:hsw \
	"$app" /dev/dri/card0 --contexts 1
expect err "measuring GEM context 1 of process"
check "Haswell's result has rows of a context: $(head -1 "$tmp/hsw.csv")" \
	sh -c "! head -1 '$tmp/hsw.csv' | grep -q context_id"
hsw_mark_col=$(head -1 "$tmp/hsw.csv" | tr ',' '\n' | grep -n '^mark$' | cut -d: -f1)
check "Haswell's result has no totals" \
	[ "$(awk -F, -v m="$hsw_mark_col" '$m == 1' "$tmp/hsw.csv" | wc -l)" = 1 ]
run 5 --unix "$tmp/hsw.sock" run --own-contexts --per-context -m RenderBasic \
	-- touch "$tmp/hsw-ran"
expect err "device card0's reports (Haswell) carry no context ID"
expect err "--drm-fd FD --context HANDLE, or 'gpuperf run --own-contexts'"
check "the command ran, its rows refused" [ ! -e "$tmp/hsw-ran" ]
stop hsw_daemon

# --- sim takes no DRM file: refused before the command runs.
start daemon -d sim:tglgt2 -m "$i915_metrics" -l none --unix "$tmp/sim.sock" --linger 0
run 5 --unix "$tmp/sim.sock" run --own-contexts -- touch "$tmp/ran"
expect err "device sim0 (sim) takes no DRM file, so --own-contexts cannot"
check "the command ran on a device that cannot measure it" [ ! -e "$tmp/ran" ]
stop daemon

finish
