#!/bin/sh
# The usage stream of i915 and xe cards on a fake machine: the fake
# kernel's PMUs (tests/fake-kernel/pmu.c) behind perf_event_open, hwmon
# and RAPL energy, and a fake /proc (--proc-root) of processes with DRM
# fdinfo files in the kernel's format. Checks busy shares and clocks from
# known counts, counters that wrap, processes that come and go, a client
# shared by two fds, memory, an absent PMU and a refused one, another
# user's processes without CAP_SYS_PTRACE, gpuperf run's process tree, and
# the Kubernetes pods and containers of processes on /metrics, from their
# /proc/PID/cgroup in each layout of the kubelet's cgroup drivers.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/libfake-kernel.so
i915_metrics="$shared/intel-metrics/i915"
xe_metrics="$shared/intel-metrics/xe"

preload="$(cd "$build/tests" && pwd)/libfake-kernel.so"
asan=$(ldd "$build/gpuperfd" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && preload="$asan $preload"

# control KEY=VALUE...: replaces the fake kernel's control file.
control() {
	printf '%s\n' "$@" >"$tmp/control.new"
	mv "$tmp/control.new" "$tmp/control"
}

# machine NAME CARDS METRICS [PMU [OPTION...]]: the daemon NAME on a fresh
# fake machine of CARDS, its /proc in $tmp/NAME.proc, its socket
# $tmp/NAME.sock.
machine() {
	root="$tmp/$1.root"
	proc="$tmp/$1.proc"
	mkdir -p "$proc"
	process 1 0 init
	name=$1 cards=$2 metrics=$3 pmu=${4:-1}
	shift 3
	[ $# -gt 0 ] && shift
	start_command "$name" env LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=1 \
		GPD_FAKE_KERNEL_ROOT="$root" GPD_FAKE_KERNEL_CARDS="$cards" \
		GPD_FAKE_KERNEL_METRICS="$metrics" GPD_FAKE_KERNEL_PMU="$pmu" \
		GPD_FAKE_KERNEL_LOG="$tmp/$name.requests" \
		GPD_FAKE_KERNEL_CONTROL="$tmp/control" \
		"$build/gpuperfd" --allow-root --dev-root "$root/dev" --sysfs-root "$root/sys" \
		--proc-root "$proc" -m "$metrics" -l none --unix "$tmp/$name.sock" \
		--log-level debug "$@"
}

# process PID PPID COMMAND [UID]: a process of the fake /proc.
process() {
	mkdir -p "$proc/$1/fd" "$proc/$1/fdinfo"
	printf '%s (%s) S %s %s %s 0 -1 4194560 0 0\n' "$1" "$3" "$2" "$1" "$1" \
		>"$proc/$1/stat"
	if [ -n "$4" ]; then
		printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\n' "$3" "$4" "$4" "$4" "$4" \
			>"$proc/$1/status"
	fi
}

# drm_fd PID FD DRIVER CLIENT_ID LINE...: a DRM file of the card at
# 0000:00:02.0, its fdinfo written whole (renamed into place).
drm_fd() {
	pid=$1 fd=$2 driver=$3 client=$4
	shift 4
	ln -sf /dev/dri/renderD128 "$proc/$pid/fd/$fd"
	{
		printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1047\n'
		printf 'drm-driver:\t%s\ndrm-client-id:\t%s\ndrm-pdev:\t0000:00:02.0\n' \
			"$driver" "$client"
		for line in "$@"; do printf '%s\n' "$line"; done
	} >"$proc/$pid/fdinfo/$fd.new"
	mv "$proc/$pid/fdinfo/$fd.new" "$proc/$pid/fdinfo/$fd"
}

# top NAME ARGS...: gpuperf top's NDJSON from daemon NAME into $tmp/NAME.top
# (in the background; its pid in $top_pid).
top() {
	name=$1
	shift
	rm -f "$tmp/$name.top"
	"$gpuperf" top --unix "$tmp/$name.sock" --format ndjson \
		-o "$tmp/$name.top" "$@" 2>"$tmp/$name.top.err" &
	top_pid=$!
}

# lines FILE N [SECONDS]: waits until FILE has N lines.
lines() {
	tenths=$((${3:-10} * 10))
	while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ]; do
		[ "$tenths" -le 0 ] && return 1
		tenths=$((tenths - 1))
		sleep 0.1
	done
}

# until_line FILE JQ [SECONDS]: waits until a line of FILE satisfies the
# jq filter (at most SECONDS, default 20, which only bounds a hang).
until_line() {
	tenths=$((${3:-20} * 10))
	until jq -e "$2" "$1" 2>/dev/null | grep -qx true; do
		[ "$tenths" -le 0 ] && return 1
		tenths=$((tenths - 1))
		sleep 0.1
	done
}

# stop_top: ends the gpuperf top started by top(), as Ctrl-C would.
stop_top() {
	kill -INT "$top_pid" 2>/dev/null
	wait "$top_pid"
}

# last_has FILE JQ: the last line of FILE satisfies the jq filter.
last_has() {
	tail -1 "$1" | jq -e "$2" >/dev/null
}

# any_after FILE N JQ: a line of FILE past its N-th satisfies the filter.
any_after() {
	tail -n +$(($2 + 1)) "$1" | jq -s -e "any(.[]; $3)" >/dev/null
}

near() { # near VALUE WANTED TOLERANCE
	awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= t) }'
}

# ---- i915: the PMU's engines, clocks and RC6; RAPL's power
control busy.rcs0=0.5 wait.rcs0=0.1 sema.rcs0=0.05 busy.vcs0=0.25 \
	actual_mhz=1100 requested_mhz=1200 rc6=0.2 rapl_watts=7.5
machine i915 i915:tglgt2 "$i915_metrics"
top i915 -i 300ms --duration 1100ms
wait $top_pid
status=$?
check "top on i915 failed: $(cat "$tmp/i915.top.err")" [ "$status" = 0 ]
f="$tmp/i915.top"
check "rcs0 is not 50% busy, 10% waiting, 5% on semaphores: $(tail -1 "$f")" last_has "$f" \
	'.engines[] | select(.name == "rcs0") | (.busy_ratio - 0.5 | fabs) < 0.002 and
	 (.wait_ratio - 0.1 | fabs) < 0.002 and (.sema_ratio - 0.05 | fabs) < 0.002'
check "vcs0 is not 25% busy, vcs1 idle" last_has "$f" \
	'[.engines[] | select(.name == "vcs0" or .name == "vcs1") | .busy_ratio] == [0.25, 0] or
	 ([.engines[] | select(.name == "vcs0") | (.busy_ratio - 0.25 | fabs) < 0.002] | all)'
check "the engines are not those of the PMU's events" last_has "$f" \
	'[.engines[].name] == ["bcs0", "rcs0", "vcs0", "vcs1", "vecs0"]'
# i915 reads its frequency counters whole MHz x s (__i915_pmu_event_read(),
# Linux 6.8: the MHz x us sum divided by USEC_PER_SEC): each read may be
# short by up to one, 1 MHz x s in a 300 ms window is 3.3 MHz, and a
# window a loaded machine shortens to 200 ms makes that 5 MHz.
check "the clocks are not 1100/1200 MHz: $(tail -1 "$f" | jq -c '[.actual_frequency_hertz, .requested_frequency_hertz]')" last_has "$f" \
	'(.actual_frequency_hertz - 1.1e9 | fabs) < 6e6 and
	 (.requested_frequency_hertz - 1.2e9 | fabs) < 6e6 and
	 .min_frequency_hertz == 3e8 and .max_frequency_hertz == 1.35e9'
check "RC6 is not 20%" last_has "$f" '(.rc6_ratio - 0.2 | fabs) < 0.002'
# Power is energy over the reading's own clock, not the PMU's enabled
# time: a loaded machine's scheduling shows in it, hence 3%.
check "RAPL's power is not 7.5 W: $(tail -1 "$f" | jq .power_watts)" last_has "$f" \
	'(.power_watts - 7.5 | fabs) < 0.25'
expect i915.requests "perf_event_open type=40 config=0x100000 group="
# A reader preempted between its clock and the PMU's read: clocks and RC6
# are measured against the counters' own enabled time, not that clock.
control busy.rcs0=0.5 actual_mhz=1100 requested_mhz=1200 rc6=0.2 \
	rapl_watts=7.5 pmu_read_lag_ms=60
run 0 top --unix "$tmp/i915.sock" -i 300ms --duration 1300ms --format ndjson
check "a late PMU read skewed the clocks or RC6: $(tail -2 "$tmp/out")" \
	eval "tail -n +2 \"$tmp/out\" | jq -s -e 'length >= 2 and all(.[];
	 (.actual_frequency_hertz - 1.1e9 | fabs) < 6e6 and
	 (.requested_frequency_hertz - 1.2e9 | fabs) < 6e6 and
	 (.rc6_ratio - 0.2 | fabs) < 0.002)' >/dev/null"
expect i915.requests "perf_event_open type=39 config=0x4 group=-1"

# ---- processes: known counts, a client on two fds, coming and going
process 100 1 glxgears
drm_fd 100 4 i915 11 'drm-engine-render:	1000000000 ns' \
	'drm-engine-capacity-video:	2' 'drm-engine-video:	0 ns' \
	'drm-total-system0:	8 MiB' 'drm-resident-system0:	4096 KiB'
process 200 1 ffmpeg
drm_fd 200 5 i915 12 'drm-engine-video:	500000000 ns' \
	'drm-engine-capacity-video:	2'
drm_fd 200 6 i915 12 'drm-engine-video:	500000000 ns' \
	'drm-engine-capacity-video:	2'
# Another driver's file, and another device's: not this card's.
drm_fd 200 7 amdgpu 13 'drm-engine-gfx:	5 ns'
top i915 -i 300ms --duration 60s
lines "$tmp/i915.top" 2
drm_fd 100 4 i915 11 'drm-engine-render:	1300000000 ns' \
	'drm-engine-capacity-video:	2' 'drm-engine-video:	0 ns' \
	'drm-total-system0:	8 MiB' 'drm-resident-system0:	4096 KiB'
drm_fd 200 5 i915 12 'drm-engine-video:	700000000 ns' \
	'drm-engine-capacity-video:	2'
drm_fd 200 6 i915 12 'drm-engine-video:	700000000 ns' \
	'drm-engine-capacity-video:	2'
until_line "$tmp/i915.top" '.processes[] | select(.pid == 100) |
	.gpu_time_ns == 300000000'
rm -rf "${proc:?}/100"
process 300 200 vainfo
drm_fd 300 3 i915 14 'drm-engine-copy:	0 ns'
until_line "$tmp/i915.top" '[.processes[] | select(.pid == 100)] == [] and
	any(.processes[]; .pid == 300)'
stop_top
f="$tmp/i915.top"
check "glxgears's 300 ms of render time were not seen: $(cat "$f")" any_after "$f" 1 \
	'.processes[] | select(.pid == 100) | .gpu_time_ns == 300000000'
head -2 "$f" >"$tmp/first2"
check "glxgears's memory is not 8 MiB, 4 MiB resident" last_has "$tmp/first2" \
	'.processes[] | select(.pid == 100) | .memory_bytes == 8388608 and .resident_bytes == 4194304'
check "ffmpeg's client on two fds counted twice or not at all" any_after "$f" 1 \
	'.processes[] | select(.pid == 200) | .gpu_time_ns == 200000000 and .clients == 1 and .client_ids == [12]'
check "ffmpeg's video share is not of a class of two engines" any_after "$f" 1 \
	'.processes[] | select(.pid == 200) | .gpu_time_ns == 200000000 and
	 .busy_ratio.video < 0.5'
check "glxgears did not go" last_has "$f" '[.processes[] | select(.pid == 100)] == []'
check "vainfo did not come, as ffmpeg's child" last_has "$f" \
	'.processes[] | select(.pid == 300) | .command == "vainfo" and .ppid == 200'
check "another driver's file was counted" eval "! grep -q '\"client_ids\":\[13\]' \"$f\""
check "the list said it is partial: $(tail -1 "$f")" last_has "$f" \
	'.processes_unreadable == 0 and .processes_note == ""'

# ---- another user's process, without CAP_SYS_PTRACE: a partial list
process 400 1 secret 12345
drm_fd 400 3 i915 15 'drm-engine-render:	0 ns'
control busy.rcs0=0.5 actual_mhz=1100 rapl_watts=7.5 cap_sys_ptrace=0
run 0 top --unix "$tmp/i915.sock" -i 300ms --duration 700ms --format ndjson
check "another user's process was read without CAP_SYS_PTRACE: $(tail -1 "$tmp/out")" \
	last_has "$tmp/out" '.processes_unreadable == 1 and
	 (.processes_note | test("CAP_SYS_PTRACE")) and
	 ([.processes[] | select(.pid == 400)] == [])'
run 0 top --unix "$tmp/i915.sock" -i 300ms --duration 700ms
expect out "partial: 1 processes of other users could not be looked at"

# ---- gpuperf run: the command's own GPU time, through its process tree
control busy.rcs0=0.5 actual_mhz=1100 rapl_watts=7.5
cat >"$tmp/command.sh" <<EOF
#!/bin/sh
# A command whose child renders 400 ms, as its fake fdinfo says.
proc="$proc"
sh -c '
	mkdir -p "\$0/\$\$/fd" "\$0/\$\$/fdinfo"
	echo "\$\$ (renderer) S \$PPID 1 1 0 -1 0 0 0" >"\$0/\$\$/stat"
	ln -s /dev/dri/renderD128 "\$0/\$\$/fd/3"
	printf "drm-driver:\ti915\ndrm-client-id:\t99\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t0 ns\n" >"\$0/\$\$/fdinfo/x"
	mv "\$0/\$\$/fdinfo/x" "\$0/\$\$/fdinfo/3"
	sleep 0.8
	printf "drm-driver:\ti915\ndrm-client-id:\t99\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t400000000 ns\n" >"\$0/\$\$/fdinfo/x"
	mv "\$0/\$\$/fdinfo/x" "\$0/\$\$/fdinfo/3"
	sleep 0.8
	rm -rf "\$0/\$\$"
' "\$proc"
EOF
chmod +x "$tmp/command.sh"
run 0 run --unix "$tmp/i915.sock" -m RenderBasic -c GpuTime --format ndjson -- "$tmp/command.sh"
check "run's totals lack the command's 400 ms of GPU time: $(cat "$tmp/out")" last_has "$tmp/out" \
	'.mark == 1 and .process_gpu_time_ns == 400000000'
stop i915

# ---- Kubernetes: each process's pod and container from its cgroup, in
# the layouts of the kubelet's cgroupfs and systemd drivers on cgroup v1
# (a line per hierarchy) and v2 (one "0::" line), as /metrics labels.
uid=1b4c2f7e-5a3d-4e8f-9b21-0c6d7e8f9a0
cid=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde
machine pods i915:tglgt2 "$i915_metrics" 1 --metrics-processes
# pod PID COMMAND CGROUP-TEXT: a process rendering, in that cgroup.
pod() {
	process "$1" 1 "$2"
	printf '%b' "$3" >"$proc/$1/cgroup"
	drm_fd "$1" 3 i915 "$1" 'drm-engine-render:	1000 ns' 'drm-total-system0:	4 KiB'
}
pod 601 v1-cgroupfs "12:memory:/kubepods/burstable/pod${uid}1/${cid}1\n1:name=systemd:/kubepods/burstable/pod${uid}1/${cid}1\n"
pod 602 v1-systemd "12:memory:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(echo "${uid}2" | tr - _).slice/cri-containerd-${cid}2.scope\n0::/\n"
pod 603 v2-systemd "0::/kubepods.slice/kubepods-pod$(echo "${uid}3" | tr - _).slice/crio-${cid}3.scope\n"
pod 604 v2-cgroupfs "0::/kubepods/pod${uid}4/${cid}4\n"
pod 605 host "0::/user.slice/user-1000.slice/session-2.scope\n"
scrape_pods() {
	curl -s --max-time 10 --unix-socket "$tmp/pods.sock" http://localhost/metrics \
		>"$tmp/pods.metrics"
}
tries=100
scrape_pods
while ! grep -q 'gpuperf_process_memory_bytes{.*pid="605"' "$tmp/pods.metrics" &&
	[ $tries -gt 0 ]; do
	sleep 0.1
	tries=$((tries - 1))
	scrape_pods
done
for n in 1 2 3 4; do
	expect pods.metrics "command=\"$(sed 's/.*(\(.*\)).*/\1/' "$proc/60$n/stat")\",pod_uid=\"${uid}$n\",container_id=\"${cid}$n\"} 4096"
done
expect pods.metrics 'gpuperf_process_memory_bytes{device="card0",device_id="0000:00:02.0",pci_id="0x9a49",model="Tiger Lake GT2",driver="i915",pid="605",command="host"} 4096'
check "a process outside a pod got pod labels" \
	eval "! grep -q 'pid=\"605\".*pod_uid' \"$tmp/pods.metrics\""
stop pods

# ---- the same counts starting near 2^64: every counter wraps
control busy.rcs0=0.5 actual_mhz=1100 requested_mhz=1200 rc6=0.2 rapl_watts=7.5 \
	pmu_base=18446744073709550616
machine wrap i915:tglgt2 "$i915_metrics"
run 0 top --unix "$tmp/wrap.sock" -i 300ms --duration 1100ms --format ndjson
check "wrapping counters gave other values: $(tail -1 "$tmp/out")" last_has "$tmp/out" \
	'(.engines[] | select(.name == "rcs0") | (.busy_ratio - 0.5 | fabs) < 0.002) and
	 (.actual_frequency_hertz - 1.1e9 | fabs) < 6e6 and (.rc6_ratio - 0.2 | fabs) < 0.002 and
	 (.power_watts - 7.5 | fabs) < 0.25'

# ---- a /proc that hides other users' processes (no pid 1): partial
rm -rf "${proc:?}/1"
run 0 top --unix "$tmp/wrap.sock" -i 300ms --duration 700ms --format ndjson
check "a /proc without pid 1 was taken as complete: $(tail -1 "$tmp/out")" last_has "$tmp/out" \
	'(.processes_note | test("shows only some processes .*CAP_SYS_PTRACE"))'
stop wrap

# ---- a kernel without the PMU, and one that refuses it
control
machine nopmu i915:tglgt2 "$i915_metrics" 0
run 0 top --unix "$tmp/nopmu.sock" -i 300ms --duration 700ms --format ndjson
check "without a PMU: $(tail -1 "$tmp/out")" last_has "$tmp/out" \
	'(.note | test("no i915 PMU .* need Linux 4.16 or later")) and .engines == [] and
	 .actual_frequency_hertz == null'
stop nopmu
control capable=0
machine refused i915:tglgt2 "$i915_metrics"
run 0 top --unix "$tmp/refused.sock" -i 300ms --duration 700ms --format ndjson
check "a refused PMU: $(tail -1 "$tmp/out")" last_has "$tmp/out" \
	'(.note | test("refused .*EACCES|refused .*Permission denied")) and
	 (.note | test("CAP_PERFMON")) and ([.engines[].busy_ratio] | all(. == null))'
run 0 top --unix "$tmp/refused.sock" -i 300ms --duration 700ms
expect out "note: the i915 PMU refused"
stop refused

# ---- xe: engine ticks, GT C6 in ms, frequencies added per read; hwmon
# energy that wraps, and temperature
control busy.rcs0=0.25 busy.bcs0=0.5 actual_mhz=900 requested_mhz=1000 rc6=0.4
hwmon="$tmp/xe.root/sys/devices/pci0000:00/0000:00:02.0/hwmon/hwmon3"
mkdir -p "$hwmon"
echo 18446744073709550616 >"$hwmon/energy1_input"
echo 47500 >"$hwmon/temp1_input"
machine xe xe:tglgt2 "$xe_metrics"
process 500 1 compute
drm_fd 500 4 xe 21 'drm-cycles-rcs:	1000' 'drm-total-cycles-rcs:	10000' \
	'drm-total-vram0:	64 MiB'
top xe -i 300ms --duration 60s
lines "$tmp/xe.top" 2
# 4800 busy of 19200 ticks; 2.5 J across the wrap.
drm_fd 500 4 xe 21 'drm-cycles-rcs:	5800' 'drm-total-cycles-rcs:	29200' \
	'drm-total-vram0:	64 MiB'
# Written whole (renamed into place): a sysfs read never sees a file
# half-written.
echo 2499000 >"$hwmon/energy1_input.new"
mv "$hwmon/energy1_input.new" "$hwmon/energy1_input"
until_line "$tmp/xe.top" '(.energy_joules - 2.5 | fabs) < 1e-9'
stop_top
f="$tmp/xe.top"
check "xe's engines: $(tail -1 "$f")" last_has "$f" \
	'(.engines[] | select(.name == "rcs0") | (.busy_ratio - 0.25 | fabs) < 0.002) and
	 (.engines[] | select(.name == "bcs0") | (.busy_ratio - 0.5 | fabs) < 0.002)'
check "xe's clocks and C6: $(tail -1 "$f")" last_has "$f" \
	'(.actual_frequency_hertz - 9e8 | fabs) < 1e6 and
	 (.requested_frequency_hertz - 1e9 | fabs) < 1e6 and (.rc6_ratio - 0.4 | fabs) < 0.01'
check "xe's temperature is not 47.5 C" last_has "$f" '.temperature_celsius == 47.5'
check "hwmon energy across its wrap is not 2.5 J: $(cat "$f")" any_after "$f" 1 \
	'(.energy_joules - 2.5 | fabs) < 1e-9'
check "the client's 4800 of 19200 ticks are not a 25% share" any_after "$f" 1 \
	'.processes[] | select(.pid == 500) | (.busy_ratio.render - 0.25 | fabs) < 1e-9'
check "the client's memory is not 64 MiB" last_has "$f" \
	'.processes[] | select(.pid == 500) | .memory_bytes == 67108864'
stop xe

finish
