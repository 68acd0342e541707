#!/bin/sh
# The include rules of DEPS: the tree follows them, and the checker refuses
# an include that breaks one, naming the file, the line and the rule.
#
# Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
checker="$(cd "$(dirname "$0")" && pwd)/check-includes.sh"
deps="$(pwd)/DEPS"

# rule_line TEXT: DEPS's line number of the rule that starts with TEXT.
rule_line() {
	grep -n -F -- "$1" "$deps" | head -1 | cut -d: -f1
}

# The repository itself.
sh "$checker" . >"$tmp/out" 2>&1
check "the tree breaks DEPS: $(head -5 "$tmp/out")" [ $? = 0 ]
expect out "includes follow DEPS"

# tree: a fresh tree with DEPS and the headers the files below include.
tree="$tmp/tree"
mkdir -p "$tree/daemon/sim" "$tree/daemon/nvidia" "$tree/daemon/drm" \
	"$tree/daemon/i915" "$tree/daemon/net" "$tree/metrics" \
	"$tree/client/lib" "$tree/client/include"
cp "$deps" "$tree/DEPS"
for h in daemon/log.h daemon/device.h daemon/daemon.h daemon/source.h \
	daemon/nvidia/libs.h daemon/drm/card.h daemon/net/server.h \
	metrics/device.h client/output.h client/include/gpuperf.h; do
	: >"$tree/$h"
done

# checking FILE TEXT...: FILE holds the lines TEXT; the checker runs on
# the tree with it, its output in $tmp/out, and FILE is removed after.
checking() {
	checked_file=$1
	shift
	printf '%s\n' "$@" >"$tree/$checked_file"
	sh "$checker" "$tree" >"$tmp/out" 2>&1
	status=$?
	rm -f "$tree/$checked_file"
}

# refused FILE LINE INCLUDE RULE: the checker failed, naming FILE, LINE,
# the include and RULE.
refused() {
	check "$1:$2 including $3 was not refused (status $status)" [ "$status" = 1 ]
	expect out "$1:$2: #include \"$3\": $4"
}

# A source reaching up to the device layer.
checking daemon/sim/sim_clock.c '/* a source */' '#include "daemon/log.h"' \
	'#include "daemon/device.h"'
line=$(rule_line "layer device:")
refused daemon/sim/sim_clock.c 3 daemon/device.h \
	"layer sources includes only the layers below it, and daemon/device.h is in layer device above it (DEPS:$line: layer device:"

# The server reaching into the composition root.
checking daemon/net/hello.c '#include "daemon/daemon.h"'
line=$(rule_line "layer context:")
refused daemon/net/hello.c 1 daemon/daemon.h \
	"layer net includes only the layers below it, and daemon/daemon.h is in layer context above it (DEPS:$line: layer context:"

# A source including another source's folder; drm/ is shared by i915.
checking daemon/sim/sim_cuda.c '#include "daemon/nvidia/libs.h"'
line=$(rule_line "@sources:")
refused daemon/sim/sim_cuda.c 1 daemon/nvidia/libs.h \
	"breaks DEPS:$line: @sources: -@sources +./"
checking daemon/i915/i915_card.c '#include "daemon/drm/card.h"' \
	'#include "daemon/source.h"'
check "i915 including drm/ was refused: $(cat "$tmp/out")" [ "$status" = 0 ]
checking daemon/drm/drm_i915.c '#include "daemon/i915/i915_source.h"'
refused daemon/drm/drm_i915.c 1 daemon/i915/i915_source.h \
	"breaks DEPS:$line: @sources: -@sources +./"

# metrics/ is pure; an include next to the file is resolved there.
checking metrics/metric_log.c '#include "device.h"' '' '#include "daemon/log.h"'
line=$(rule_line "metrics/:")
refused metrics/metric_log.c 3 daemon/log.h \
	"breaks DEPS:$line: metrics/: -daemon/ -client/ -proto/"
if grep -q 'metric_log.c:1:' "$tmp/out"; then
	fail "metrics/ including its own device.h was refused"
else
	ok
fi

# client/ never includes daemon/; libgpuperf never the CLI's files.
checking client/cmd_daemon.c '#include "daemon/log.h"'
line=$(rule_line "client/: -daemon/")
refused client/cmd_daemon.c 1 daemon/log.h "breaks DEPS:$line: client/: -daemon/"
checking client/lib/table.c '#include "client/include/gpuperf.h"' \
	'#include "client/output.h"'
line=$(rule_line "client/lib/:")
refused client/lib/table.c 2 client/output.h \
	"breaks DEPS:$line: client/lib/: -client/ +client/lib/ +client/include/"

# A new file of the daemon must be given a layer.
checking daemon/unplaced.c '#include "daemon/log.h"'
check "a daemon file in no layer passed" [ "$status" = 1 ]
expect out "daemon/unplaced.c: in no layer of DEPS"

# A rule DEPS cannot read stops the check.
cp "$tree/DEPS" "$tmp/DEPS.good"
echo "metrics/: daemon/" >>"$tree/DEPS"
checking metrics/x.c '/* nothing */'
check "a DEPS rule without + or - was accepted (status $status)" [ "$status" = 2 ]
expect out "DEPS:$(wc -l <"$tree/DEPS" | tr -d ' '): a rule allows (+) or forbids (-): daemon/"
cp "$tmp/DEPS.good" "$tree/DEPS"

finish
