#!/bin/sh
# gpuperf compare as CI uses it: five runs a side of one load on the sim
# show no regression, five of a 20% heavier load (sim,load=1.2) are
# flagged, each verdict with its interval; one file a side says the noise
# is unknown; a rising utilisation is reported, not judged, unless named;
# results of other sets, or of another kind (run totals against stream
# windows), are refused; the numbers are for people. The runs come from
# run --repeat, a file each; the verdicts also come as JUnit XML (a test
# case per counter, a regression a failure with its numbers), Markdown
# and JSON, for CI systems.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
here="$(cd "$(dirname "$0")" && pwd)"

# Each run opens the stream anew (--linger 0), so the simulated workload
# starts from its seed every time: what is left is the runs' own jitter,
# and the heavier load is the same pattern of work, heavier.
start daemon -d sim -d sim,load=1.2 -l none --unix "$tmp/sock" --linger 0
S="--unix $tmp/sock"

for side in base:sim0 same:sim0 heavy:sim1; do
	"$gpuperf" run $S -d "${side#*:}" -m RenderBasic --format csv --repeat 5 \
		-o "$tmp/${side%%:*}.csv" -- sleep 1 2>>"$tmp/runs.err" ||
		fail "runs on ${side#*:} failed: $(tail -1 "$tmp/runs.err")"
done
for i in 1 2 3 4 5; do
	check "run --repeat 5 wrote no base-$i.csv" [ -s "$tmp/base-$i.csv" ]
done
check "run --repeat 5 wrote a sixth run" [ ! -e "$tmp/base-6.csv" ]
run 2 run $S -d sim0 --repeat 2 -- true
expect err "--repeat 2 writes a file per run: name them with -o FILE"
run 2 run $S -d sim0 --repeat 0 -o "$tmp/zero.csv" -- true
expect err "--repeat takes a number of runs from 1 to"
# A run that fails stops the runs, with its status.
run 3 run $S -d sim0 --repeat 3 -o "$tmp/failing.csv" -- sh -c 'exit 3'
expect err "run 1 of 3 ended with status 3: no more runs"
check "runs went on after a failing one" [ ! -e "$tmp/failing-2.csv" ]

# ---- the same load: nothing worse
run 0 compare "$tmp"/base-?.csv -- "$tmp"/same-?.csv --junit "$tmp/same.xml" \
	--json "$tmp/same.json"
expect out "5 baseline and 5 result files of RenderBasic on simgen12 (a run's totals)"
expect out "method: Hodges-Lehmann shift of the medians with its 95% Mann-Whitney interval"
expect out "24 counters compared: 0 worse"
check "the same load was not compared with intervals" grep -q ' \.\. ' "$tmp/out"
check "the same load's JUnit has failures: $(head -3 "$tmp/same.xml")" \
	grep -q '<testsuites name="gpuperf compare" tests="24" failures="0"' "$tmp/same.xml"
check "the same load's JSON says it regressed" \
	jq -e '.regression == false and .worse == 0 and (.counters | length) == 24' "$tmp/same.json"

# ---- a 20% heavier load: flagged, utilisation only reported
run 1 compare "$tmp"/base-?.csv -- "$tmp"/heavy-?.csv --junit "$tmp/heavy.xml" \
	--markdown "$tmp/heavy.md" --json "$tmp/heavy.json"
check "PsThreads of a heavier load is not WORSE" grep -Eq '^PsThreads .* WORSE$' "$tmp/out"
check "GtiReadThroughput of a heavier load is not WORSE" \
	grep -Eq '^GtiReadThroughput .* WORSE$' "$tmp/out"
check "a rising GpuBusy was judged" grep -Eq '^GpuBusy .* reported$' "$tmp/out"
check "numbers are not for people" eval '! grep -Eq "[0-9]e[+-][0-9]" "$tmp/out"'
expect out " G threads"
# The reports for CI systems say what the text says.
check "$(/usr/bin/python3 "$here/junit_check.py" "$tmp/heavy.xml" "$tmp/out")" \
	/usr/bin/python3 "$here/junit_check.py" "$tmp/heavy.xml" "$tmp/out"
expect heavy.md "## gpuperf compare: regression"
check "the Markdown summary lists no PsThreads regression" \
	grep -Eq '^- \*\*PsThreads\*\* WORSE: \+[0-9.]+% \(95% interval' "$tmp/heavy.md"
check "the Markdown table has no WORSE PsThreads row" \
	grep -Eq '^\| PsThreads \| .* \| \*\*WORSE\*\* \|$' "$tmp/heavy.md"
check "the JSON report lacks PsThreads' regression: $(jq -c '.counters[] | select(.name == "PsThreads")' "$tmp/heavy.json")" \
	jq -e '.regression and (.counters[] | select(.name == "PsThreads") |
	       .verdict == "worse" and .direction == "lower_is_better" and
	       .result_median > .baseline_median and (.interval_percent | length) == 2)' \
	"$tmp/heavy.json"
# A counter's name comes from the files: a '|' in it stays in its cell.
for f in "$tmp"/base-?.csv "$tmp"/heavy-?.csv; do
	sed '1s/GpuBusy/Gpu|Busy_*/' "$f" >"${f%.csv}-piped.csv"
done
run 1 compare "$tmp"/base-?-piped.csv -- "$tmp"/heavy-?-piped.csv --markdown "$tmp/piped.md"
check "a '|' in a counter's name broke the Markdown table: $(grep Gpu "$tmp/piped.md")" \
	grep -Eq '^\| Gpu\\\|Busy\\_\\\* \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]* \| [^|]+ \|$' "$tmp/piped.md"
run 2 compare "$tmp/base-1.csv" "$tmp/same-1.csv" --junit
expect err "--junit needs a file name"
run 3 compare "$tmp/base-1.csv" "$tmp/same-1.csv" --json /nonexistent/dir/r.json
expect err "cannot write /nonexistent/dir/r.json"
run 1 compare "$tmp"/base-?.csv -- "$tmp"/heavy-?.csv --lower-is-better GpuBusy \
	--threshold 3
check "GpuBusy named lower-is-better was not judged" \
	grep -Eq '^GpuBusy .* (WORSE|ok)$' "$tmp/out"

# ---- one file a side: the noise is unknown (and the estimate alone
# decides, so either status may come)
"$gpuperf" compare "$tmp/base-1.csv" "$tmp/same-1.csv" >"$tmp/out" 2>"$tmp/err"
check "compare of one file a side exited $?" [ $? -le 1 ]
expect out "the noise is unknown"

# ---- like with like
run 0 stream $S -d sim0 -m RenderBasic -i 200ms --duration 600ms --format csv \
	-o "$tmp/stream.csv"
run 3 compare "$tmp/base-1.csv" "$tmp/stream.csv"
expect err "compare like with like"
run 0 run $S -d sim0 -m ComputeBasic --format csv -o "$tmp/compute.csv" -- sleep 0.3
run 3 compare "$tmp/base-1.csv" "$tmp/compute.csv"
expect err "measured RenderBasic on simgen12"
expect err "--force"
run 0 compare "$tmp/base-1.csv" "$tmp/compute.csv" --force
run 2 compare "$tmp/base-1.csv" "$tmp/base-2.csv" "$tmp/base-3.csv"
expect err "put '--' between"

finish
