#!/bin/sh
# gpuperf metrics check|list|show, end to end: exit codes, messages, and
# counts checked against a plain-text count of the metric files.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
i915="$shared/intel-metrics/i915"
xe="$shared/intel-metrics/xe"

count() {
	cat "$@" | grep -o "$pattern" | wc -l | tr -d ' '
}

# check: the built-in definitions, then every shared file.
run 0 metrics check
expect out "1 files, "
expect out ", 0 errors"

run 0 metrics check --metrics-dir "$i915" --metrics-dir="$xe"
files=$(ls "$i915"/oa-*.xml "$xe"/oa-*.xml | wc -l | tr -d ' ')
pattern='<set '
sets=$(count "$i915"/oa-*.xml "$xe"/oa-*.xml)
pattern='<counter '
counters=$(count "$i915"/oa-*.xml "$xe"/oa-*.xml)
expect out "$files files, $sets sets, $counters counters, 0 errors"
if [ "$(wc -l <"$tmp/out")" = 1 ]; then ok; else fail "check printed more than the summary"; fi

# check: problems are listed with file and line, and fail the run.
mkdir "$tmp/bad"
cat >"$tmp/bad/oa-bad.xml" <<'XML'
<metrics>
<set name="b" chipset="BAD" symbol_name="Bad" hw_config_guid="01234567-89ab-cdef-0123-456789abcdef">
<counter name="x" symbol_name="X" units="ns" semantic_type="event" data_type="uint64" equation="A 0 READ"/>
<counter name="y" symbol_name="Y" units="ns" semantic_type="event" data_type="uint64" equation="$X $Nope UADD"/>
</set>
</metrics>
XML
run 1 metrics check --metrics-dir "$tmp/bad"
expect out "$tmp/bad/oa-bad.xml:4: set Bad, counter Y: unknown counter reference '\$Nope'"
expect out "1 files, 1 sets, 1 counters, 1 errors"

# Directories that cannot serve.
run 3 metrics check --metrics-dir "$tmp/nonexistent"
expect err "cannot read metrics directory '$tmp/nonexistent'"
mkdir "$tmp/empty"
run 3 metrics list --metrics-dir "$tmp/empty"
expect err "no metric files (oa-*.xml) in '$tmp/empty'"

# Usage errors say what to do.
run 2 metrics
run 2 metrics frobnicate
expect err "unknown command 'frobnicate'"
run 2 metrics check --bogus
expect err "unknown option '--bogus'"
expect err "gpuperf metrics check --help"
run 2 metrics check extra
run 2 metrics list --metrics-dir
expect err "needs a directory"
run 2 metrics show RenderBasic
expect err "--platform NAME is required"
run 2 metrics show --platform simgen12
expect err "name the SET"
run 2 metrics show --platform simgen12 RenderBasic Other
run 2 metrics show --platform nope RenderBasic
expect err "no metric file for platform 'nope'"
expect err "simgen12"
run 2 metrics show --platform simgen12 Nope
expect err "platform simgen12 has no set 'Nope'"

for cmd in check list show; do
	run 0 metrics $cmd --help
	expect out "usage: gpuperf metrics $cmd"
done
run 0 metrics --help
expect out "gpuperf metrics show"

# list: one aligned row per set.
run 0 metrics list --metrics-dir "$i915" --platform tglgt2
pattern='<set '
rows=$(count "$i915/oa-tglgt2.xml")
if [ "$(tail -n +2 "$tmp/out" | grep -c '^tglgt2 ')" = "$rows" ]; then ok; else fail "list: expected $rows tglgt2 rows"; fi
expect out "RenderBasic"
expect out "0fc397c0-4833-492c-9ccd-4929d574d5b8"
# The GUID column starts at the same place on every line.
columns=$(awk '{ print index($0, $NF) }' "$tmp/out" | sort -u | wc -l)
if [ "$columns" = 1 ]; then ok; else fail "list: GUID column not aligned"; fi
run 2 metrics list --platform nope
run 0 metrics list
expect out "simgen12"

# show: types, bounds evaluated on a typical part, equations.
run 0 metrics show --metrics-dir "$i915" --platform tglgt2 RenderBasic
expect out "guid 0fc397c0-4833-492c-9ccd-4929d574d5b8"
expect out "Tiger Lake GT2"
if grep -Eq '^GpuBusy +percent +raw +float +100 +A 0 READ 100 UMUL \$GpuCoreClocks FDIV$' "$tmp/out"; then ok; else fail "show: GpuBusy row"; fi
if grep -Eq '^AvgGpuCoreFrequency +hz +event +uint64 +\$GpuMaxFrequency = 1350000000 ' "$tmp/out"; then ok; else fail "show: AvgGpuCoreFrequency bound"; fi
if grep -Eq '^GtiReadThroughput +bytes +throughput +uint64 +\$GpuCoreClocks 64 UMUL ' "$tmp/out"; then ok; else fail "show: GtiReadThroughput bound"; fi
run 0 metrics show --platform simgen12 RenderBasic
expect out "GpuTime"

finish
