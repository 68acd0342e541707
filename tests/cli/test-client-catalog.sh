#!/bin/sh
# gpuperf devices, sets and counters against gpuperfd on sim: the tables,
# every command's --help, the global options before or after the command,
# tokens, TLS, and the errors (daemon down, bad token, unknown device, set
# or counter) with their messages and exit statuses.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# A port nothing listens on: one the kernel just handed out and took back.
free_port() {
	"$gpuperfd" --allow-root -d sim -l 127.0.0.1:0 2>"$tmp/probe.log" &
	probe=$!
	wait_for probe.log "listening on"
	port probe
	kill "$probe"
	wait "$probe" 2>/dev/null
}

printf 'goodtoken-0123456789abcdefgh controller\n' >"$tmp/tokens"
chmod 600 "$tmp/tokens"
printf '# the token\ngoodtoken-0123456789abcdefgh\n' >"$tmp/good"
printf 'wrongtoken\n' >"$tmp/bad"
start sim -d sim -d sim:tglgt2 -m "$shared/intel-metrics/i915" \
	-l 127.0.0.1:0 --unix "$tmp/sock" --token-file "$tmp/tokens" --linger 0
P=$(port sim)

# --help of gpuperf and of every command
run 0 --help
for code in 4 5; do expect out "  $code  "; done
expect out "--token-file FILE"
for c in devices sets counters stream record run compare; do
	run 0 "$c" --help
	expect out "usage: gpuperf $c"
done

# devices, over TCP and the Unix socket, options before or after
run 0 devices --port "$P"
expect out "NAME  DRIVER  PLATFORM"
expect out "sim1  sim     tglgt2    0x9a49"
run 0 --unix "$tmp/sock" devices
expect out "SIMGEN12 virtual GPU"
# sim takes no DRM file; its reports carry context IDs.
expect out "CONTEXTS"
expect out "  software  "
run 0 --port="$P" --host 127.0.0.1 devices --token-file "$tmp/good"
expect out "Tiger Lake GT2"

# sets, of all devices and of one
run 0 sets --unix "$tmp/sock"
[ "$(grep -c '^sim0 ' "$tmp/out")" = 3 ] && ok || fail "sim0 should have 3 sets"
[ "$(grep -c '^sim1 ' "$tmp/out")" -gt 10 ] && ok || fail "sim1 has Intel's tglgt2 sets"
run 0 sets -d sim0 --unix "$tmp/sock"
expect out "RenderBasic"
grep -q '^sim1' "$tmp/out" && fail "sets -d sim0 lists sim1" || ok

# counters of a set, by symbol and by GUID
run 0 counters RenderBasic --unix "$tmp/sock"
expect out "SYMBOL"
expect out "GpuTime"
"$gpuperf" sets -d sim1 --unix "$tmp/sock" >"$tmp/sets" 2>&1
guid=$(awk '$2 == "RenderBasic" { print $4 }' "$tmp/sets")
run 0 counters "$guid" -d sim1 --unix "$tmp/sock"
expect out "EuActive"

# counters: the unit each is shown in, the bound on this device, what it
# measures; the long form of some or all
run 0 counters RenderBasic --unix "$tmp/sock"
expect out "SYMBOL                    UNIT       MAX              DESCRIPTION"
expect out "AvgGpuCoreFrequency       Hz         1.3 GHz          Mean GPU core clock frequency"
expect out "GtiReadThroughput         B/s        83.2 GB/s        Bytes read from memory"
expect out "EuActive                  %          100.0 %"
check "counters shows bounds as equations" eval '! grep -q UMUL "$tmp/out"'
run 0 counters RenderBasic SamplerTexels GpuBusy --unix "$tmp/sock"
expect out "SamplerTexels: Sampler Texels"
expect out "  Filtered texels the samplers returned to the EUs."
expect out "  unit: texels/s (the metric file's: texels, summed over each window, shown per second of GPU time)"
expect out "  max: 31.2 G texels/s on sim0 at its highest frequency, 1.3 GHz"
expect out "GpuBusy: GPU Busy"
run 0 counters RenderBasic -l --unix "$tmp/sock"
check "counters -l describes $(grep -c '^  unit: ' "$tmp/out") of 24 counters" \
	[ "$(grep -c '^  unit: ' "$tmp/out")" = 24 ]

# names in any case; a typo answered with the nearest name
run 0 counters renderbasic --unix "$tmp/sock"
expect out "GpuBusy"
run 0 stream -m renderbasic -c gpubusy,GPUTIME -i 100ms --duration 300ms \
	--format csv --unix "$tmp/sock"
expect out ",GpuBusy,GpuTime"
run 5 stream -m RenderBasci --duration 1s --unix "$tmp/sock"
expect err "no metric set 'RenderBasci'; did you mean RenderBasic? 'gpuperf sets -d sim0' lists them"
run 5 stream -m RenderBasic -c GpuBusyy --duration 1s --unix "$tmp/sock"
expect err "no counter 'GpuBusyy'; did you mean GpuBusy?"
run 5 counters RenderBasic EuActiv --unix "$tmp/sock"
expect err "did you mean EuActive?"
run 5 record -m computebasc -o "$tmp/r.i915perf" --unix "$tmp/sock"
expect err "did you mean ComputeBasic?"
run 5 sets -d sim00 --unix "$tmp/sock"
expect err "no device 'sim00'; did you mean sim0?"

# devices: what streams, at a period in words
"$gpuperf" stream --unix "$tmp/sock" -d sim1 -m RenderBasic -p 1ms -c GpuTime \
	--format csv -o "$tmp/holder.csv" 2>/dev/null &
holder=$!
pids="$pids $holder"
wait_for holder.csv "GpuTime" 10
run 0 devices --unix "$tmp/sock"
expect out "RenderBasic every 853 µs"
kill "$holder"

# errors: unknown device, set, counter name; bad arguments
run 5 counters NoSuchSet --unix "$tmp/sock"
expect err "device sim0 has no metric set 'NoSuchSet'; 'gpuperf sets -d sim0' lists them"
run 5 sets -d sim7 --unix "$tmp/sock"
expect err "no device 'sim7'; did you mean sim0? 'gpuperf devices' lists them"
run 5 stream -m RenderBasic -c GpuTime,NoSuchCounter --duration 1s --unix "$tmp/sock"
expect err "has no counter 'NoSuchCounter'; 'gpuperf counters RenderBasic -d sim0' lists them"
run 5 stream -m NoSuchSet --duration 1s --unix "$tmp/sock"
expect err "no metric set 'NoSuchSet'"
run 2 counters --unix "$tmp/sock"
expect err "name the metric set"
run 2 devices --port 99999
expect err "--port takes a number"
run 2 stream --interval soon
expect err "--interval takes a duration"
run 2 frobnicate
expect err "unknown command 'frobnicate'"

# errors: the token
run 5 devices --port "$P" --token-file "$tmp/bad"
expect err "token"
expect err "--token-file names the file"
run 3 devices --port "$P" --token-file "$tmp/missing"
expect err "--token-file $tmp/missing"

# errors: no daemon there
dead=$(free_port)
run 4 devices --port "$dead"
expect err "cannot connect to 127.0.0.1:$dead"
expect err "is gpuperfd running there?"
run 4 sets --unix "$tmp/nothing.sock"
expect err "cannot connect to unix:$tmp/nothing.sock"

# TLS, with a certificate made here
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null; then
	start tls -d sim -l 127.0.0.1:0 --tls-cert "$tmp/cert.pem" \
		--tls-key "$tmp/key.pem" --linger 0
	T=$(port tls)
	run 0 devices --port "$T" --tls-ca "$tmp/cert.pem"
	expect out "sim0"
	run 0 stream --port "$T" --tls-ca "$tmp/cert.pem" -c GpuTime -i 100ms \
		--duration 500ms --format csv
	[ "$(wc -l <"$tmp/out")" -ge 3 ] && ok || fail "no rows over TLS"
	# The system's authorities do not know this certificate.
	run 4 devices --port "$T" --tls
	expect err "cannot connect to https://127.0.0.1:$T: the TLS handshake failed"
	expect err "--tls-ca FILE trusts"
	# ... and once they do (OpenSSL reads them from SSL_CERT_FILE), plain
	# --tls trusts it, by address and by name.
	SSL_CERT_FILE="$tmp/cert.pem" run 0 devices --port "$T" --tls
	expect out "sim0"
	SSL_CERT_FILE="$tmp/cert.pem" run 0 devices --host localhost --port "$T" --tls
	expect out "sim0"
else
	fail "openssl could not make a certificate"
fi

finish
