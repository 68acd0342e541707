#!/bin/sh
# /metrics as Prometheus reads it: OpenMetrics when the scraper asks for
# it (# UNIT, _total, # EOF), the text format otherwise, the same series
# in both; every device series labelled with the device's id, model and
# driver; the series budget per GPU and the options that widen or narrow
# it (--metrics-counters, --metrics-processes, --metrics-max-processes).
. "$(dirname "$0")/../checks.sh"
check_py="$(dirname "$0")/exposition_check.py"
openmetrics='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	echo "note: python3-prometheus-client is absent (make deps installs it)"
	fail "python3-prometheus-client missing"
	finish
	exit
fi

# scrape SOCKET OUT [ACCEPT]: /metrics into $tmp/OUT, its headers into
# $tmp/OUT.headers.
scrape() {
	curl -s --max-time 10 --unix-socket "$1" -D "$tmp/$2.headers" \
		${3:+-H "Accept: $3"} http://localhost/metrics >"$tmp/$2"
}
# scrape_until SOCKET OUT TEXT [ACCEPT]: scrapes until TEXT is there (a
# first scrape may be answered before the usage stream's first interval).
scrape_until() {
	tries=50
	scrape "$1" "$2" "$4"
	while ! grep -qF -- "$3" "$tmp/$2" && [ $tries -gt 0 ]; do
		sleep 0.2
		tries=$((tries - 1))
		scrape "$1" "$2" "$4"
	done
}
# series OUT KIND: the series of $tmp/OUT, one a line, as Prometheus parses them.
series() {
	/usr/bin/python3 "$check_py" "$2" "$tmp/$1" >"$tmp/$1.series" 2>"$tmp/$1.err"
}
# count OUT PATTERN: how many series of $tmp/OUT.series match PATTERN.
count() {
	grep -c -- "$2" "$tmp/$1.series"
}

# ---- the two formats
start two -d sim -d sim -l none --unix "$tmp/two.sock" --linger 0 --seed 7
scrape_until "$tmp/two.sock" om gpuperf_engine_busy_seconds_total "$openmetrics"
scrape_until "$tmp/two.sock" text gpuperf_engine_busy_seconds_total
expect om.headers "content-type: application/openmetrics-text; version=1.0.0; charset=utf-8"
expect text.headers "content-type: text/plain; version=0.0.4; charset=utf-8"
check "OpenMetrics a strict parser refuses: $(series om openmetrics; cat "$tmp/om.err")" \
	series om openmetrics
check "text format a parser refuses: $(series text text; cat "$tmp/text.err")" \
	series text text
if command -v promtool >/dev/null; then
	check "promtool finds fault with the text format: $(promtool check metrics <"$tmp/text" 2>&1 | head -3)" \
		eval "promtool check metrics <\"$tmp/text\" >/dev/null 2>&1"
fi
expect om "# TYPE gpuperf_engine_busy_seconds counter"
expect om "# UNIT gpuperf_engine_busy_seconds seconds"
expect om "# UNIT gpuperf_gpu_busy_ratio ratio"
expect om "# UNIT gpuperf_power_watts watts"
expect om "# TYPE gpuperf_reports counter"
expect om "# TYPE gpuperf info"
expect text "# TYPE gpuperf_engine_busy_seconds_total counter"
expect text "# TYPE gpuperf_info gauge"
# Values move between the scrapes; the series do not.
cut -d' ' -f1 "$tmp/om.series" | sort >"$tmp/om.names"
cut -d' ' -f1 "$tmp/text.series" | sort >"$tmp/text.names"
check "the formats have other series: $(diff "$tmp/om.names" "$tmp/text.names" | head -4)" \
	cmp -s "$tmp/om.names" "$tmp/text.names"
# Either device's series, labelled with its identity.
expect om.series 'gpuperf_gpu_busy_ratio{device="sim0",device_id="sim0-seed7",driver="sim",metric_set="RenderBasic",model="SIMGEN12 virtual GPU",pci_id="0x5f00"}'
expect om.series 'gpuperf_gpu_busy_ratio{device="sim1",device_id="sim1-seed7",driver="sim",metric_set="RenderBasic",model="SIMGEN12 virtual GPU",pci_id="0x5f00"}'
expect om.series 'gpuperf_engine_busy_seconds_total{class="render",device="sim1",device_id="sim1-seed7",driver="sim",engine="rcs0",model="SIMGEN12 virtual GPU",pci_id="0x5f00"}'
expect om.series 'gpuperf_info{device="sim0",device_id="sim0-seed7",driver="sim",model="SIMGEN12 virtual GPU",pci_id="0x5f00",platform="simgen12",source="sim",version="'
expect om.series 'gpuperf_device_up{device="sim1",device_id="sim1-seed7",driver="sim",model="SIMGEN12 virtual GPU",pci_id="0x5f00"} 1'
# An Accept of the text format alone, or of an OpenMetrics version this
# daemon does not write, gets the text format.
scrape "$tmp/two.sock" plain "text/plain;version=0.0.4"
expect plain.headers "content-type: text/plain; version=0.0.4"
scrape "$tmp/two.sock" old "application/openmetrics-text;version=0.0.1"
expect old.headers "content-type: text/plain; version=0.0.4"
scrape "$tmp/two.sock" zero "application/openmetrics-text;q=0,text/plain"
expect zero.headers "content-type: text/plain; version=0.0.4"
stop two

# ---- a scrape is answered with the last window's text, kept between
# windows; once a controller has switched the device to another metric
# set, no scrape shows the old set's counters: the first after the switch
# waits for the new set's values.
start sets -d sim -l none --unix "$tmp/sets.sock" --linger 0
scrape_until "$tmp/sets.sock" s1 gpuperf_engine_busy_seconds_total "$openmetrics"
expect s1 'metric_set="RenderBasic"'
"$gpuperf" --unix "$tmp/sets.sock" stream -m ComputeBasic -c GpuBusy -i 100ms \
	--format csv --duration 60s >"$tmp/compute.csv" 2>"$tmp/compute.err" &
compute_pid=$!
pids="$pids $compute_pid"
check "gpuperf stream -m ComputeBasic wrote no row: $(cat "$tmp/compute.err")" \
	wait_lines "$tmp/compute.csv" 2
scrape "$tmp/sets.sock" s2 "$openmetrics"
check "a scrape after the switch to ComputeBasic shows $(grep -c 'metric_set="RenderBasic"' "$tmp/s2") RenderBasic series" \
	[ "$(grep -c 'metric_set="RenderBasic"' "$tmp/s2")" = 0 ]
expect s2 'gpuperf_gpu_busy_ratio{device="sim0",device_id="sim0-seed1",pci_id="0x5f00",model="SIMGEN12 virtual GPU",driver="sim",metric_set="ComputeBasic"}'
kill "$compute_pid"
stop sets

# ---- a flight recorder's series parse in both formats, its times in
# seconds: the time it holds, and the time --flight-recorder asked.
start ring -d sim:tglgt2 -m "$shared/intel-metrics/i915" -l none --unix "$tmp/ring.sock" \
	--linger 0 --flight-recorder 2s --keep-streaming RenderBasic@1ms
scrape_until "$tmp/ring.sock" r1 gpuperf_flight_recorder_held_seconds "$openmetrics"
scrape_until "$tmp/ring.sock" r2 gpuperf_flight_recorder_held_seconds
check "OpenMetrics with a ring a strict parser refuses: $(series r1 openmetrics; cat "$tmp/r1.err")" \
	series r1 openmetrics
check "the text format with a ring a parser refuses: $(series r2 text; cat "$tmp/r2.err")" \
	series r2 text
expect r1 "# UNIT gpuperf_flight_recorder_held_seconds seconds"
expect r1 "# UNIT gpuperf_flight_recorder_asked_seconds seconds"
expect r1.series 'gpuperf_flight_recorder_asked_seconds{device="sim0",device_id="sim0-seed1",driver="sim",model="Tiger Lake GT2",pci_id="0x9a49"} 2'
expect r2.series 'gpuperf_flight_recorder_held_seconds{device="sim0",'
stop ring

# ---- the budget: the series of one simulated GPU by default, as README
# says; fewer with --metrics-counters; per-process series only when asked,
# at most --metrics-max-processes processes' worth.
start budget -d sim -l none --unix "$tmp/budget.sock" --linger 0
scrape_until "$tmp/budget.sock" b1 gpuperf_engine_busy_seconds_total "$openmetrics"
series b1 openmetrics
check "the sim's default budget is 44 series, not $(count b1 'device="sim0"')" \
	test "$(count b1 'device="sim0"')" = 44
stop budget
start narrow -d sim -l none --unix "$tmp/narrow.sock" --linger 0 \
	--metrics-counters gpubusy,EuActive
scrape_until "$tmp/narrow.sock" n1 gpuperf_engine_busy_seconds_total "$openmetrics"
series n1 openmetrics
check "--metrics-counters gpubusy,EuActive left $(count n1 'metric_set=') counter series, not 2" \
	test "$(count n1 'metric_set=')" = 2
expect n1.series 'gpuperf_gpu_busy_ratio{'
expect n1.series 'gpuperf_eu_active_ratio{'
stop narrow
start none -d sim -l none --unix "$tmp/none.sock" --linger 0 --metrics-counters none
scrape_until "$tmp/none.sock" z1 gpuperf_engine_busy_seconds_total "$openmetrics"
series z1 openmetrics
check "--metrics-counters none left $(count z1 'metric_set=') counter series" \
	test "$(count z1 'metric_set=')" = 0
check "the sim's budget without counters is 20 series, not $(count z1 'device="sim0"')" \
	test "$(count z1 'device="sim0"')" = 20
stop none
"$gpuperfd" --allow-root -d sim -l none --unix "$tmp/typo.sock" --metrics-counters GpuBusy,EuActiv \
	>"$tmp/typo.log" 2>&1
check "a mistyped --metrics-counters name started the daemon" test $? != 0
expect typo.log "--metrics-counters: no device has a counter 'EuActiv' (did you mean EuActive?)"
start few -d sim -l none --unix "$tmp/few.sock" --linger 0 --metrics-processes \
	--metrics-max-processes 2
scrape_until "$tmp/few.sock" p1 gpuperf_process_memory_bytes "$openmetrics"
series p1 openmetrics
check "--metrics-max-processes 2 exported $(count p1 '^gpuperf_process_memory_bytes') processes' memory" \
	test "$(count p1 '^gpuperf_process_memory_bytes')" = 2
check "--metrics-max-processes 2 exported $(count p1 '^gpuperf_process_gpu_seconds_total') GPU time series, not 2 x 4 classes" \
	test "$(count p1 '^gpuperf_process_gpu_seconds_total')" = 8
omitted=$(sed -n 's/^gpuperf_processes_omitted{.*} //p' "$tmp/p1.series")
processes=$(grep -c '^gpuperf_process_gpu_seconds_total{.*class="render"' "$tmp/p1.series")
check "the processes left out are not counted: $omitted" \
	awk -v n="$omitted" 'BEGIN { exit !(n >= 2) }'
stop few


# ---- --process-details holds on /metrics as on the WebSocket: over TCP,
# a controller's token gets the processes' series, a viewer's none, and
# gpuperf_processes_omitted counts them all for it.
printf 'viewtok-0123456789abcdefghij viewer\nctltok-0123456789abcdefghijk controller\n' \
	>"$tmp/tokens"
chmod 600 "$tmp/tokens"
# scrape_as PORT TOKEN OUT TEXT: /metrics with TOKEN until TEXT is there.
scrape_as() {
	tries=50
	while :; do
		curl -s --max-time 10 -H "Authorization: Bearer $2" \
			"http://127.0.0.1:$1/metrics" >"$tmp/$3"
		grep -qF -- "$4" "$tmp/$3" || [ $tries = 0 ] || {
			sleep 0.2
			tries=$((tries - 1))
			continue
		}
		break
	done
}
if start roles -d sim -l 0.0.0.0:0 --token-file "$tmp/tokens" --linger 0 \
	--metrics-processes; then
	p=$(port roles 0.0.0.0)
	scrape_as "$p" ctltok-0123456789abcdefghijk controller.txt 'gpuperf_process_memory_bytes{'
	expect controller.txt 'gpuperf_process_memory_bytes{'
	expect controller.txt ',pid="'
	scrape_as "$p" viewtok-0123456789abcdefghij viewer.txt 'gpuperf_processes_omitted{'
	check "a viewer's scrape has $(grep -c 'pid="' "$tmp/viewer.txt") series naming a pid, not 0" \
		[ "$(grep -c 'pid="' "$tmp/viewer.txt")" = 0 ]
	omitted=$(sed -n 's/^gpuperf_processes_omitted{.*} //p' "$tmp/viewer.txt")
	check "a viewer's scrape counts $omitted processes left out, not all (at least 1)" \
		awk -v n="$omitted" 'BEGIN { exit !(n >= 1) }'
	stop roles
fi
finish
