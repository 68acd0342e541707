#!/bin/sh
# gpuperf compare as CI uses it: five runs a side of one load on the sim
# show no regression, five of a 20% heavier load (sim,load=1.2) are
# flagged, each verdict with its interval; one file a side says the noise
# is unknown; a rising utilisation is reported, not judged, unless named;
# results of other sets, or of another kind (run totals against stream
# windows), are refused; the numbers are for people.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# Each run opens the stream anew (--linger 0), so the simulated workload
# starts from its seed every time: what is left is the runs' own jitter,
# and the heavier load is the same pattern of work, heavier.
start daemon -d sim -d sim,load=1.2 -l none --unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"

for i in 1 2 3 4 5; do
	for side in base:sim0 same:sim0 heavy:sim1; do
		"$gpuperf" run $S -d "${side#*:}" -m RenderBasic --format csv \
			-o "$tmp/${side%%:*}$i.csv" -- sleep 1 2>>"$tmp/runs.err" ||
			fail "run $i on ${side#*:} failed: $(tail -1 "$tmp/runs.err")"
	done
done

# ---- the same load: nothing worse
run 0 compare "$tmp"/base?.csv -- "$tmp"/same?.csv
expect out "5 baseline and 5 result files of RenderBasic on simgen12 (a run's totals)"
expect out "method: Hodges-Lehmann shift of the medians with its 95% Mann-Whitney interval"
expect out "24 counters compared: 0 worse"
check "the same load was not compared with intervals" grep -q ' \.\. ' "$tmp/out"

# ---- a 20% heavier load: flagged, utilisation only reported
run 1 compare "$tmp"/base?.csv -- "$tmp"/heavy?.csv
check "PsThreads of a heavier load is not WORSE" grep -Eq '^PsThreads .* WORSE$' "$tmp/out"
check "GtiReadThroughput of a heavier load is not WORSE" \
	grep -Eq '^GtiReadThroughput .* WORSE$' "$tmp/out"
check "a rising GpuBusy was judged" grep -Eq '^GpuBusy .* reported$' "$tmp/out"
check "numbers are not for people" eval '! grep -Eq "[0-9]e[+-][0-9]" "$tmp/out"'
expect out " G threads"
run 1 compare "$tmp"/base?.csv -- "$tmp"/heavy?.csv --lower-is-better GpuBusy \
	--threshold 3
check "GpuBusy named lower-is-better was not judged" \
	grep -Eq '^GpuBusy .* (WORSE|ok)$' "$tmp/out"

# ---- one file a side: the noise is unknown (and the estimate alone
# decides, so either status may come)
"$gpuperf" compare "$tmp/base1.csv" "$tmp/same1.csv" >"$tmp/out" 2>"$tmp/err"
check "compare of one file a side exited $?" [ $? -le 1 ]
expect out "the noise is unknown"

# ---- like with like
run 0 stream $S -d sim0 -m RenderBasic -i 200ms --duration 600ms --format csv \
	-o "$tmp/stream.csv"
run 3 compare "$tmp/base1.csv" "$tmp/stream.csv"
expect err "compare like with like"
run 0 run $S -d sim0 -m ComputeBasic --format csv -o "$tmp/compute.csv" -- sleep 0.3
run 3 compare "$tmp/base1.csv" "$tmp/compute.csv"
expect err "measured RenderBasic on simgen12"
expect err "--force"
run 0 compare "$tmp/base1.csv" "$tmp/compute.csv" --force
run 2 compare "$tmp/base1.csv" "$tmp/base2.csv" "$tmp/base3.csv"
expect err "put '--' between"

finish
