#!/bin/sh
# A real Prometheus (Debian's prometheus) with deploy/prometheus' scrape
# configuration and rules, against three gpuperfd on loopback: two
# simulated GPUs of other platforms and seeds, and an i915 GPU on the fake
# kernel (tests/fake-kernel) whose render engine the test drives, with a
# process in a Kubernetes pod; and a file standing for kube-state-metrics'
# kube_pod_info. Once Prometheus has scraped them it must hold:
#   - data for every recording rule;
#   - series for every panel of the Grafana dashboard, each with the
#     labels its legend names;
#   - GpuperfDeviceSaturated firing for the i915 GPU driven to 100% busy,
#     and cleared once it is not.
# The shipped files are used as they are but for their times: scrapes and
# evaluations every second, rate windows of 5 s and for: of 3 s, so that
# it takes seconds. Every wait is for a state, bounded only against a hang.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/libfake-kernel.so
here="$(cd "$(dirname "$0")" && pwd)"
deploy="$here/../../deploy"
i915_metrics="$shared/intel-metrics/i915"

for tool in prometheus promtool curl jq; do
	if ! command -v $tool >/dev/null; then
		fail "$tool is missing (Debian packages prometheus, curl, jq: make deps installs them)"
		finish
		exit
	fi
done

# ---- the daemons
uid=1b4c2f7e-5a3d-4e8f-9b21-0c6d7e8f9a01
cid=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
start a -d sim --seed 3 -l 127.0.0.1:0 --linger 0 --metrics-window 250
start b -d sim:tglgt2 -m "$i915_metrics" --seed 4 -l 127.0.0.1:0 --linger 0 \
	--metrics-window 250
# c: an i915 machine of the fake kernel, a process of a pod rendering.
preload="$(cd "$build/tests" && pwd)/libfake-kernel.so"
asan=$(ldd "$gpuperfd" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && preload="$asan $preload"
control() {
	printf '%s\n' "$@" >"$tmp/control.new"
	mv "$tmp/control.new" "$tmp/control"
}
proc="$tmp/c.proc"
mkdir -p "$proc/1" "$proc/700/fd" "$proc/700/fdinfo"
echo '1 (init) S 0 1 1 0 -1 4194560 0 0' >"$proc/1/stat"
echo '700 (trainer) S 1 700 700 0 -1 4194560 0 0' >"$proc/700/stat"
printf '0::/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope\n' \
	"$(echo $uid | tr - _)" "$cid" >"$proc/700/cgroup"
ln -s /dev/dri/renderD128 "$proc/700/fd/3"
printf 'drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t1000000 ns\ndrm-total-system0:\t8 MiB\n' \
	>"$proc/700/fdinfo/3"
control busy.rcs0=0.3 actual_mhz=1100 rapl_watts=7.5
start_command c env LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=1 \
	GPD_FAKE_KERNEL_ROOT="$tmp/c.root" GPD_FAKE_KERNEL_CARDS=i915:tglgt2 \
	GPD_FAKE_KERNEL_METRICS="$i915_metrics" GPD_FAKE_KERNEL_PMU=1 \
	GPD_FAKE_KERNEL_LOG="$tmp/c.requests" GPD_FAKE_KERNEL_CONTROL="$tmp/control" \
	"$gpuperfd" --allow-root --dev-root "$tmp/c.root/dev" --sysfs-root "$tmp/c.root/sys" \
	--proc-root "$proc" -m "$i915_metrics" -l 127.0.0.1:0 --linger 0 \
	--metrics-window 250 --metrics-processes
c_target="127.0.0.1:$(port c)"

# ---- kube-state-metrics' part: the pod of process 700
mkdir -p "$tmp/ksm"
printf '# TYPE kube_pod_info gauge\nkube_pod_info{namespace="ml",pod="trainer-0",uid="%s",node="n1"} 1\n' \
	"$uid" >"$tmp/ksm/metrics.txt"
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ksm_port=$(free_port)
(cd "$tmp/ksm" && exec /usr/bin/python3 -m http.server --bind 127.0.0.1 "$ksm_port" \
	>"$tmp/ksm.log" 2>&1) &
pids="$pids $!"

# ---- Prometheus, with the shipped files and short times
cp -r "$deploy/prometheus" "$tmp/prom"
sed -i -e 's/scrape_interval: 15s/scrape_interval: 1s/' \
	-e 's/evaluation_interval: 15s/evaluation_interval: 1s/' \
	-e 's/scrape_timeout: 10s/scrape_timeout: 1s/' "$tmp/prom/prometheus.yml"
cat >>"$tmp/prom/prometheus.yml" <<EOF
  - job_name: kube-state-metrics
    metrics_path: /metrics.txt
    static_configs:
      - targets: ['127.0.0.1:$ksm_port']
EOF
sed -i -e 's/\[1m\]/[5s]/g' -e 's/\[5m\]/[5s]/g' -e 's/for: [0-9]*m/for: 3s/' \
	"$tmp/prom/gpuperf-recording-rules.yml" "$tmp/prom/gpuperf-alert-rules.yml"
{
	echo "- targets:"
	for d in a b c; do echo "    - 127.0.0.1:$(port $d)"; done
} >"$tmp/prom/targets/loopback.yml"
check "promtool refuses the test's configuration: $(promtool check config "$tmp/prom/prometheus.yml" 2>&1 | tail -3)" \
	eval "promtool check config \"$tmp/prom/prometheus.yml\" >/dev/null 2>&1"
prom_port=$(free_port)
prometheus --config.file="$tmp/prom/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
pids="$pids $prom_pid"
api="http://127.0.0.1:$prom_port/api/v1"

echo '[]' >"$tmp/result"
# query PROMQL: the result's JSON array into $tmp/result.
query() {
	curl -s --max-time 10 --get --data-urlencode "query=$1" "$api/query" |
		jq -c '.data.result' >"$tmp/result" 2>/dev/null
}
# holds JQ: the last result satisfies the jq filter.
holds() {
	jq -e "$1" "$tmp/result" >/dev/null 2>&1
}
# wait_until PROMQL JQ [SECONDS]: queries until the result satisfies JQ
# (bounded against a hang, 120 s unless said).
wait_until() {
	tries=$((${3:-120} * 2))
	while [ $tries -gt 0 ]; do
		query "$1"
		holds "$2" && return 0
		tries=$((tries - 1))
		sleep 0.5
	done
	return 1
}

check "Prometheus did not scrape the three daemons: $(cat "$tmp/result"; tail -3 "$tmp/prometheus.log")" \
	wait_until 'up{job="gpuperfd"} == 1' 'length == 3'

# ---- every recording rule has data
for rule in $(sed -n 's/^ *- record: //p' "$deploy/prometheus/gpuperf-recording-rules.yml"); do
	check "recording rule $rule has no data: $(cat "$tmp/result")" wait_until "$rule" 'length > 0' 60
done
query 'namespace_pod:gpuperf_process_gpu_seconds:rate5m'
check "the pod's GPU time is not joined with its name: $(cat "$tmp/result")" \
	holds 'any(.[]; .metric.namespace == "ml" and .metric.pod == "trainer-0")'
query "device:gpuperf_busy:ratio_rate1m{instance=\"$c_target\"}"
check "the i915 GPU's series lack its identity: $(cat "$tmp/result")" \
	holds '.[0].metric | .device == "card0" and .device_id == "0000:00:02.0" and
	       .model == "Tiger Lake GT2" and .driver == "i915"'

# ---- every dashboard panel has series with the labels its legend names
curl -s --max-time 10 "http://$c_target/metrics" >"$tmp/exposition"
for dashboard in "$deploy"/grafana/*.json; do
	/usr/bin/python3 "$here/check_dashboard.py" "$dashboard" \
		"$deploy/prometheus/gpuperf-recording-rules.yml" "$tmp/exposition" \
		"$tmp/panels.yml" --legends "$tmp/legends" >/dev/null
	while IFS='	' read -r panel expr labels; do
		# The short rate windows of the rules, for the panels' own.
		expr=$(printf '%s' "$expr" | sed -e 's/\[1m\]/[5s]/g' -e 's/\[5m\]/[5s]/g')
		jq_labels=$(jq -n -c --arg l "$labels" '$l | split(" ") | map(select(. != ""))')
		check "$(basename "$dashboard") $panel: no series with its legend's labels $labels: $(cat "$tmp/result")" \
			wait_until "$expr" "length > 0 and all(.[]; .metric as \$m | $jq_labels | all(\$m[.] != null))" 60
	done <"$tmp/legends"
done

# ---- saturation: the alert fires, and clears
control busy.rcs0=1.0 actual_mhz=1100 rapl_watts=7.5
check "GpuperfDeviceSaturated did not fire for the i915 GPU at 100%: $(cat "$tmp/result")" \
	wait_until "ALERTS{alertname=\"GpuperfDeviceSaturated\",alertstate=\"firing\",instance=\"$c_target\"}" \
	'length == 1 and .[0].metric.device_id == "0000:00:02.0"'
control busy.rcs0=0.3 actual_mhz=1100 rapl_watts=7.5
check "GpuperfDeviceSaturated did not clear once the GPU was 30% busy: $(cat "$tmp/result")" \
	wait_until "ALERTS{alertname=\"GpuperfDeviceSaturated\",instance=\"$c_target\"}" 'length == 0'

kill "$prom_pid"
wait "$prom_pid"
for d in a b c; do stop $d; done
finish
