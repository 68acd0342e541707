#!/bin/sh
# libgpuperf as its users get it: the shared library exports only the gpc_
# API, gpuperf.pc gives the flags, and a program built against the header
# (tests/cli/libgpuperf_example.c: the client on the program's own libuv
# loop, asynchronous calls only) streams frames from gpuperfd and closes
# with its loop run dry.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (unused).
# Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# The exported symbols: gpc_ functions and the version node, nothing else.
if nm -D --defined-only "$build/libgpuperf.so" >"$tmp/symbols" 2>"$tmp/nm.err" &&
	grep -q ' gpc_[a-z]' "$tmp/symbols"; then
	ok
else
	fail "libgpuperf.so exports no gpc_ function: $(cat "$tmp/nm.err")"
fi
others=$(grep -v ' gpc_[a-z]' "$tmp/symbols" | grep -v ' LIBGPUPERF_0$')
[ -z "$others" ] && ok || fail "libgpuperf.so exports more than the API: $others"
grep -q ' gpc_query_get_data@@LIBGPUPERF_0$' "$tmp/symbols" && ok ||
	fail "libgpuperf.so lacks gpc_query_get_data"
objdump -p "$build/libgpuperf.so" | grep -q 'SONAME *libgpuperf.so.0' && ok ||
	fail "libgpuperf.so has no SONAME libgpuperf.so.0"

# Laid out as make install lays it out; the .pc file as built.
mkdir -p "$tmp/include" "$tmp/lib"
cp client/include/gpuperf.h "$tmp/include/"
cp "$build/libgpuperf.so" "$tmp/lib/libgpuperf.so.0.1.0"
ln -s libgpuperf.so.0.1.0 "$tmp/lib/libgpuperf.so.0"
ln -s libgpuperf.so.0 "$tmp/lib/libgpuperf.so"
flags=$(PKG_CONFIG_PATH="$build" pkg-config --define-variable=libdir="$tmp/lib" \
	--define-variable=includedir="$tmp/include" --cflags --libs gpuperf)
[ -n "$flags" ] && ok || fail "pkg-config gpuperf failed"
# A sanitized build's library needs a sanitized program.
san=""
ldd "$build/libgpuperf.so" | grep -q libasan && \
	san="-fsanitize=address,undefined -fno-omit-frame-pointer"
if cc -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror $san -o "$tmp/example" \
	tests/cli/libgpuperf_example.c $flags 2>"$tmp/cc"; then
	ok
else
	fail "the example does not build against the installed header"
	sed 's/^/  | /' "$tmp/cc" | head -10
fi

start daemon -d sim -l none --unix "$tmp/sock" --linger 0

LD_LIBRARY_PATH="$tmp/lib" "$tmp/example" "$tmp/sock" RenderBasic 3 \
	>"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 0 ] && ok || { fail "the example exited $status"; sed 's/^/  | /' "$tmp/err"; }
expect out "subscribed to RenderBasic of sim0: GpuTime, GpuCoreClocks"
expect out "frame 3: "
LD_LIBRARY_PATH="$tmp/lib" "$tmp/example" "$tmp/sock" NoSuchSet 3 >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && ok || fail "the example found a set that is not there"
expect err "has no set NoSuchSet"
LD_LIBRARY_PATH="$tmp/lib" "$tmp/example" "$tmp/nothing.sock" RenderBasic 3 \
	>"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && ok || fail "the example connected to nothing"
expect err "connect: cannot connect to unix:$tmp/nothing.sock: No such file or directory (cannot connect to the daemon)"

finish
