#!/bin/sh
# AMD GPUs on a fake sysfs and /proc: cards found by the driver their
# device is bound to, gpu_metrics tables of v1.x, v2.x and v3.x written by
# gpu-metrics-table from the kernel's layouts, an unknown version said in
# words with the sysfs percentages standing in, DRM fdinfo processes, the
# usage view through gpuperf top and /metrics, and a counter stream
# refused in words.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/gpu-metrics-table
table="$build/tests/gpu-metrics-table"
sys="$tmp/sys"
proc="$tmp/proc"

# card N SLOT DRIVER: card N's sysfs directory, its device at PCI SLOT
# bound to DRIVER; the device directory in $dev.
card() {
	dev="$sys/devices/pci0000:00/$2"
	mkdir -p "$dev" "$sys/class/drm/card$1" "$sys/bus/pci/drivers/$3"
	ln -sfn "$sys/bus/pci/drivers/$3" "$dev/driver"
	ln -sfn "$dev" "$sys/class/drm/card$1/device"
	printf '0x744c\n' >"$dev/device"
	printf '0: 500Mhz\n1: 2500Mhz *\n' >"$dev/pp_dpm_sclk"
}

# A discrete card (v1.4), two APUs (v2.4 and v3.0), a card of a newer
# firmware (v1.7) with the sysfs percentages and hwmon, and one that
# radeon drives.
card 0 0000:03:00.0 amdgpu
"$table" 1.4 gfx=40 memory=15 vcn0=5 vcn1=10 temperature=70 power=300 \
	gfxclk=2400 uclk=1250 >"$dev/gpu_metrics"
card 1 0000:04:00.0 amdgpu
"$table" 2.4 gfx=2500 media=1000 temperature=4550 power=15000 gfxclk=1600 \
	>"$dev/gpu_metrics"
card 2 0000:05:00.0 amdgpu
"$table" 3.0 gfx=60 media=12 temperature=5025 power=70000 gfxclk=2700 \
	>"$dev/gpu_metrics"
card 3 0000:06:00.0 amdgpu
"$table" 1.7 size=400 >"$dev/gpu_metrics"
printf '42\n' >"$dev/gpu_busy_percent"
printf '7\n' >"$dev/mem_busy_percent"
mkdir -p "$dev/hwmon/hwmon2"
printf '95000000\n' >"$dev/hwmon/hwmon2/power1_average"
printf '48000\n' >"$dev/hwmon/hwmon2/temp1_input"
card 4 0000:07:00.0 radeon

# A game on card0, its fdinfo as amdgpu_show_fdinfo() prints it.
mkdir -p "$proc/1" "$proc/4242/fd" "$proc/4242/fdinfo"
printf '1 (init) S 0 1 1 0 -1 4194560 0 0\n' >"$proc/1/stat"
printf '4242 (game) S 1 4242 4242 0 -1 4194560 0 0\n' >"$proc/4242/stat"
ln -s /dev/dri/renderD128 "$proc/4242/fd/9"
printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t26\ndrm-driver:\tamdgpu\ndrm-client-id:\t12\ndrm-pdev:\t0000:03:00.0\ndrm-engine-gfx:\t0 ns\ndrm-total-vram:\t65536 KiB\ndrm-resident-vram:\t32768 KiB\n' \
	>"$proc/4242/fdinfo/9"

mkdir -p "$tmp/metrics" "$tmp/dev/dri"
start amd --sysfs-root "$sys" --dev-root "$tmp/dev" --proc-root "$proc" \
	-m "$tmp/metrics" -l none --unix "$tmp/amd.sock" --linger 0
expect amd.log "device card0: AMD GPU (amdgpu) (amdgpu, PCI 0x744c)"
expect amd.log "device card3: AMD GPU (amdgpu)"
check "radeon's card became a device" eval '! grep -q "device card4" "$tmp/amd.log"'
check "the AMD cards were not found, the sim stood in" \
	eval '! grep -q "using sim" "$tmp/amd.log"'

# top DEVICE: two frames of gpuperf top's NDJSON for DEVICE in $tmp/DEVICE.top.
top() {
	"$gpuperf" top --unix "$tmp/amd.sock" -d "$1" --format ndjson -i 300ms \
		--duration 700ms -o "$tmp/$1.top" 2>"$tmp/$1.err"
	check "top on $1 failed: $(cat "$tmp/$1.err")" [ -s "$tmp/$1.top" ]
}
last_has() {
	tail -1 "$1" | jq -e "$2" >/dev/null
}

top card0
f="$tmp/card0.top"
check "card0's engines are not gfx 40%, memory 15%, vcn0 5%, vcn1 10%: $(tail -1 "$f")" \
	last_has "$f" '[.engines[] | {(.name): .busy_ratio}] | add |
	 ((.gfx - 0.4 | fabs) < 1e-6) and ((.memory - 0.15 | fabs) < 1e-6) and
	 ((.vcn0 - 0.05 | fabs) < 1e-6) and ((.vcn1 - 0.1 | fabs) < 1e-6) and
	 (has("vcn2") | not)'
check "card0's classes are not amdgpu's" last_has "$f" \
	'[.engines[] | select(.name == "gfx" or .name == "vcn0") | .engine_class] == ["gfx", "media"]'
check "card0 is not at 300 W, 70 C, 2400 MHz of 500-2500, memory at 1250 MHz" \
	last_has "$f" '((.power_watts - 300 | fabs) < 1e-3) and
	 .temperature_celsius == 70 and
	 ((.actual_frequency_hertz - 2.4e9 | fabs) < 1e3) and
	 .min_frequency_hertz == 5e8 and .max_frequency_hertz == 2.5e9 and
	 .gauges.memory_clock_hertz == 1.25e9'
check "the game is not card0's process with 64 MiB, 32 MiB resident: $(tail -1 "$f" | jq -c .processes)" \
	last_has "$f" '.processes == [.processes[] | select(.pid == 4242 and
	 .command == "game" and .memory_bytes == 67108864 and
	 .resident_bytes == 33554432)] and (.processes | length) == 1'

top card1
check "card1 (v2.4) is not gfx 25%, media 10%, 15 W, 45.5 C: $(tail -1 "$tmp/card1.top")" \
	last_has "$tmp/card1.top" '([.engines[] | {(.name): .busy_ratio}] | add |
	 ((.gfx - 0.25 | fabs) < 1e-6) and ((.media - 0.1 | fabs) < 1e-6)) and
	 ((.power_watts - 15 | fabs) < 1e-6) and .temperature_celsius == 45.5 and
	 ((.actual_frequency_hertz - 1.6e9 | fabs) < 1e3)'
top card2
check "card2 (v3.0) is not gfx 60%, media 12%, 70 W, 50.25 C: $(tail -1 "$tmp/card2.top")" \
	last_has "$tmp/card2.top" '([.engines[] | {(.name): .busy_ratio}] | add |
	 ((.gfx - 0.6 | fabs) < 1e-6) and ((.media - 0.12 | fabs) < 1e-6)) and
	 ((.power_watts - 70 | fabs) < 1e-6) and .temperature_celsius == 50.25'
top card3
check "card3's unknown table is not said, or its sysfs files not read: $(tail -1 "$tmp/card3.top")" \
	last_has "$tmp/card3.top" '(.note | contains("version 1.7, which this gpuperfd does not know")) and
	 ([.engines[] | {(.name): .busy_ratio}] | add |
	  ((.gfx - 0.42 | fabs) < 1e-6) and ((.memory - 0.07 | fabs) < 1e-6)) and
	 ((.power_watts - 95 | fabs) < 1e-6) and .temperature_celsius == 48'

# /metrics: the same series as for every other device.
scrape() {
	curl -s --max-time 10 --unix-socket "$tmp/amd.sock" http://localhost/metrics \
		>"$tmp/$1"
}
tries=50
scrape m1
while ! grep -q 'gpuperf_engine_busy_seconds_total{device="card2",' "$tmp/m1" &&
	[ "$tries" -gt 0 ]; do
	tries=$((tries - 1))
	sleep 0.2
	scrape m1
done
expect m1 'gpuperf_engine_busy_seconds_total{device="card0",device_id="0000:03:00.0",pci_id="0x744c",model="AMD GPU (amdgpu)",driver="amdgpu",engine="gfx"'
expect m1 'gpuperf_memory_clock_hertz{device="card0",device_id="0000:03:00.0",pci_id="0x744c",model="AMD GPU (amdgpu)",driver="amdgpu"}'
expect m1 'gpuperf_temperature_celsius{device="card1",device_id="0000:04:00.0",pci_id="0x744c",model="AMD GPU (amdgpu)",driver="amdgpu"} 45.5'

# A counter stream: refused, saying why and where the usage view is.
run 5 stream --unix "$tmp/amd.sock" -d card0 --duration 300ms
check "a stream on card0 was not refused in words: $(cat "$tmp/err")" \
	grep -q "Linux gives a daemon no stream of its counters" "$tmp/err"

# Naming a card amdgpu does not drive is refused at start.
"$gpuperfd" --allow-root --sysfs-root "$sys" -m "$tmp/metrics" -l none \
	--unix "$tmp/bad.sock" --device amdgpu:card4 >"$tmp/bad.log" 2>&1
check "amdgpu:card4 started" [ $? != 0 ]
expect bad.log "card4 is driven by radeon, not amdgpu"

stop amd
finish
