#!/bin/sh
# deploy/ as operators take it, offline: Prometheus' configuration and
# rules pass promtool, every alert's unit test passes (and fails when the
# alert is broken), the Kubernetes manifests hold together
# (check_manifests.py, which fails on a broken one), and the Grafana
# dashboard provisions as it is and queries only series gpuperfd or the
# recording rules make, in PromQL promtool parses.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
here="$(cd "$(dirname "$0")" && pwd)"
deploy="$here/../../deploy"
prom="$deploy/prometheus"

for tool in promtool curl; do
	if ! command -v $tool >/dev/null; then
		fail "$tool is missing (Debian package prometheus, curl: make deps installs them)"
		finish
		exit
	fi
done
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	fail "python3-yaml is missing (make deps installs it)"
	finish
	exit
fi

# ---- Prometheus: the configuration, the rules, the alerts' unit tests
cp -r "$prom" "$tmp/prom"
cp "$prom/targets/gpu-nodes.yml.example" "$tmp/prom/targets/gpu-nodes.yml"
check "promtool refuses the configuration: $(promtool check config "$tmp/prom/prometheus.yml" 2>&1 | tail -3)" \
	eval "promtool check config \"$tmp/prom/prometheus.yml\" >/dev/null 2>&1"
check "promtool refuses the rules: $(cd "$prom" && promtool check rules gpuperf-recording-rules.yml gpuperf-alert-rules.yml 2>&1 | tail -3)" \
	eval "(cd \"$prom\" && promtool check rules gpuperf-recording-rules.yml gpuperf-alert-rules.yml) >/dev/null 2>&1"
check "an alert's unit test fails: $(cd "$prom" && promtool test rules gpuperf-alert-rules.test.yml 2>&1 | tail -8)" \
	eval "(cd \"$prom\" && promtool test rules gpuperf-alert-rules.test.yml) >/dev/null 2>&1"
# Every alert has a test.
for alert in $(sed -n 's/^ *- alert: //p' "$prom/gpuperf-alert-rules.yml"); do
	check "alert $alert has no unit test" grep -q "alertname: $alert\$" \
		"$prom/gpuperf-alert-rules.test.yml"
done
# ...and each test catches its alert broken: a threshold, a duration or
# a condition changed.
broken() { # broken WHAT SED: the alert tests must fail once SED is applied
	cp "$prom/gpuperf-alert-rules.yml" "$tmp/prom/gpuperf-alert-rules.yml"
	sed -i "$2" "$tmp/prom/gpuperf-alert-rules.yml"
	check "the alert tests pass with $1" \
		eval "! (cd \"$tmp/prom\" && promtool test rules gpuperf-alert-rules.test.yml >/dev/null 2>&1)"
}
broken "saturation at 40%" 's/>= 0.95/>= 0.4/'
broken "saturation for 5 minutes" 's/for: 10m/for: 5m/'
broken "buffer losses left out" 's/or device:gpuperf_buffers_lost:rate5m > 0//'
broken "a device lost at once" 's/for: 2m/for: 0m/'
broken "a daemon down that is up" 's/up{job="gpuperfd"} == 0/up{job="gpuperfd"} == 1/'
broken "overwriting only past 1 GB/s" 's/overwritten_bytes_total\[5m\]) > 0/overwritten_bytes_total[5m]) > 1e9/'
broken "a ring that holds what it was asked firing" 's/held_seconds < gpuperf/held_seconds <= gpuperf/'
broken "a ring that stopped overwriting firing" 's/^ *and rate(gpuperf_flight_recorder_overwritten.*//'
broken "a ring given in bytes firing" 's/< gpuperf_flight_recorder_asked_seconds/< 30/'
cp "$prom/gpuperf-alert-rules.yml" "$tmp/prom/gpuperf-alert-rules.yml"
sed 's/group_left (namespace, pod)/group_left (namespace)/' \
	"$prom/gpuperf-recording-rules.yml" >"$tmp/prom/gpuperf-recording-rules.yml"
check "the rules' tests pass with pods joined without their names" \
	eval "! (cd \"$tmp/prom\" && promtool test rules gpuperf-alert-rules.test.yml >/dev/null 2>&1)"

# ---- Kubernetes manifests
check "the manifests do not hold together: $(/usr/bin/python3 "$here/check_manifests.py" "$deploy/kubernetes" 2>&1)" \
	/usr/bin/python3 "$here/check_manifests.py" "$deploy/kubernetes"
# mangled WHAT FILE SED: the checker must refuse the manifests once SED
# is applied to FILE.
mangled() {
	rm -rf "$tmp/k8s"
	cp -r "$deploy/kubernetes" "$tmp/k8s"
	sed -i "$3" "$tmp/k8s/$2"
	check "the checker took manifests with $1" \
		eval "! /usr/bin/python3 \"$here/check_manifests.py\" \"$tmp/k8s\" >/dev/null"
}
mangled "a misspelt field" daemonset.yaml 's/containerPort:/containerport:/'
mangled "a Service port the pods lack" service.yaml 's/targetPort: metrics/targetPort: metric/'
mangled "no CAP_PERFMON" daemonset.yaml 's/add: \["PERFMON"\]/add: []/'
mangled "a ServiceMonitor that selects nothing" servicemonitor.yaml \
	'/matchLabels:/{n;s/gpuperfd/gpuperf/}'
mangled "a Secret key that is not there" servicemonitor.yaml 's/key: token/key: tokn/'
mangled "no NVIDIA node term" daemonset.yaml 's/nvidia.com\/gpu.present/nvidia.com\/gpu/'
mangled "a port that is a string" service.yaml 's/port: 7890/port: "7890"/'

# ---- Grafana: the dashboard against what a daemon exports
start daemon -d sim -l none --unix "$tmp/sock" --linger 0 --metrics-processes \
	--flight-recorder 1Mi
tries=50
while [ $tries -gt 0 ]; do
	curl -s --max-time 10 --unix-socket "$tmp/sock" http://localhost/metrics \
		>"$tmp/exposition"
	grep -q '^gpuperf_process_memory_bytes' "$tmp/exposition" && break
	tries=$((tries - 1))
	sleep 0.2
done
stop daemon
for dashboard in "$deploy"/grafana/*.json; do
	name=$(basename "$dashboard")
	check "$name: $(/usr/bin/python3 "$here/check_dashboard.py" "$dashboard" \
		"$prom/gpuperf-recording-rules.yml" "$tmp/exposition" "$tmp/panels.yml" 2>&1)" \
		/usr/bin/python3 "$here/check_dashboard.py" "$dashboard" \
		"$prom/gpuperf-recording-rules.yml" "$tmp/exposition" "$tmp/panels.yml"
	check "$name: promtool cannot parse a panel's query: $(promtool check rules "$tmp/panels.yml" 2>&1 | tail -4)" \
		eval "promtool check rules \"$tmp/panels.yml\" >/dev/null 2>&1"
done
# A panel that reads a series nobody makes is refused.
sed 's/gpuperf_power_watts/gpuperf_power_watt/' "$deploy/grafana/gpuperf-fleet.json" \
	>"$tmp/typo.json"
check "the dashboard checker took a panel of a series nobody makes" \
	eval "! /usr/bin/python3 \"$here/check_dashboard.py\" \"$tmp/typo.json\" \
		\"$prom/gpuperf-recording-rules.yml\" \"$tmp/exposition\" \"$tmp/panels.yml\" >/dev/null"

finish
