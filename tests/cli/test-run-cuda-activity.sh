#!/bin/sh
# gpuperf run --cuda-activity, without a GPU: the command's environment
# names the injection library (the one built beside gpuperf) and the
# daemon's PATH.activity, where the daemon listens; a command that
# already names another injection library is refused, in words, before
# it runs; the library itself, loaded where CUDA is not, says so and
# lets the process run on.
#
# Environment: GPM_BUILD_DIR (default build). Prints "checks: N passed,
# F failed".
. "$(dirname "$0")/../checks.sh"

start daemon -d sim -l none --unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"
check "the daemon does not listen on $tmp/sock.activity" [ -S "$tmp/sock.activity" ]

# ---- the command's environment
run 0 run $S -m RenderBasic -c GpuTime --cuda-activity -- sh -c \
	'echo "$CUDA_INJECTION64_PATH" >"$0/injection"; echo "$GPUPERF_ACTIVITY_SOCKET" >"$0/socket"' \
	"$tmp"
library=$(cd "$build" && pwd)/libgpuperf-cuda-activity.so
check "CUDA_INJECTION64_PATH was '$(cat "$tmp/injection" 2>/dev/null)', not $library" \
	[ "$(cat "$tmp/injection" 2>/dev/null)" = "$library" ]
check "GPUPERF_ACTIVITY_SOCKET was '$(cat "$tmp/socket" 2>/dev/null)'" \
	[ "$(cat "$tmp/socket" 2>/dev/null)" = "$tmp/sock.activity" ]
# Without the option, nothing is injected.
run 0 run $S -m RenderBasic -c GpuTime -- sh -c \
	'echo "${CUDA_INJECTION64_PATH-unset}" >"$0/plain"' "$tmp"
check "without --cuda-activity the command got an injection library" \
	[ "$(cat "$tmp/plain" 2>/dev/null)" = unset ]

# ---- another tool's injection library is not replaced without a word
rm -f "$tmp/ran"
CUDA_INJECTION64_PATH=/opt/other/libtool.so \
	"$gpuperf" run $S -m RenderBasic --cuda-activity -- touch "$tmp/ran" \
	>"$tmp/out" 2>"$tmp/err"
status=$?
check "a command with CUDA_INJECTION64_PATH set exited $status, not 2" [ "$status" = 2 ]
expect err "CUDA_INJECTION64_PATH already names /opt/other/libtool.so"
expect err "run without --cuda-activity"
check "the refused command ran" [ ! -e "$tmp/ran" ]
# Naming this very library already is no conflict.
CUDA_INJECTION64_PATH=$library \
	"$gpuperf" run $S -m RenderBasic --cuda-activity -- true >"$tmp/out" 2>"$tmp/err"
status=$?
check "CUDA_INJECTION64_PATH naming the library itself was refused ($status)" [ "$status" = 0 ]

# ---- the library where CUDA is not loaded: a word, and no harm
if command -v python3 >/dev/null; then
	python3 -c 'import ctypes, sys
print(ctypes.CDLL(sys.argv[1]).InitializeInjection())' "$library" \
		>"$tmp/inject.out" 2>"$tmp/inject.err"
	check "InitializeInjection without CUDA did not answer 0" \
		[ "$(cat "$tmp/inject.out")" = 0 ]
	expect inject.err "libcuda.so.1 is not loaded in this process"
else
	skip "the library loaded without CUDA" "python3"
fi
# It exports CUDA's entry point and nothing else.
if command -v nm >/dev/null; then
	check "the library exports more than InitializeInjection: $(nm -D --defined-only "$library" | awk '{print $3}' | tr '\n' ' ')" \
		[ "$(nm -D --defined-only "$library" | awk '{print $3}')" = InitializeInjection ]
fi
stop daemon
check "the daemon left $tmp/sock.activity behind" [ ! -e "$tmp/sock.activity" ]
finish
