#!/bin/sh
# The network server end to end: gpuperfd on sim, driven by real WebSocket
# clients (server-checks), /metrics through promtool, a recording through
# IGT's i915-perf-reader, TLS with a certificate made here, an IPv6
# listener, a silent unauthenticated connection timed out, upgrades from
# other sites' pages and requests naming another Host refused, and a clean
# shutdown (under ASan, one without leaks).
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
needs_built tests/server-checks
checks="$build/tests/server-checks"
reader=/usr/bin/i915-perf-reader
# Each daemon that starts is a check of its own.
count_starts=yes

# run_checks ARGS...: server-checks, its counts added to ours.
run_checks() {
	"$checks" "$@" >"$tmp/checks.out" 2>&1
	cat "$tmp/checks.out"
	line=$(sed -n 's/^server-checks [a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/checks.out")
	if [ -z "$line" ]; then
		fail "server-checks $1 ended without its counts"
		return
	fi
	set -- $line
	passed=$((passed + $1))
	failed=$((failed + $2))
}

printf 'viewtok-0123456789abcdefghij viewer\nctltok-0123456789abcdefghijk controller\n' >"$tmp/tokens"
chmod 600 "$tmp/tokens"

# A non-loopback address without tokens is refused at start; a daemon
# that accepted it would serve on, so it is given 30 s to refuse.
timeout 30 "$gpuperfd" --allow-root --listen 0.0.0.0:0 2>"$tmp/refused.log"
refused_status=$?
if [ "$refused_status" = 0 ] || [ "$refused_status" = 124 ]; then
	fail "--listen 0.0.0.0 without --token-file was accepted (status $refused_status)"
elif grep -q "token-file" "$tmp/refused.log"; then
	ok
else
	fail "--listen 0.0.0.0 refused without saying why"
fi

if start plain --device sim --linger 0 --listen 127.0.0.1:0 --listen 0.0.0.0:0 \
	--token-file "$tmp/tokens" --unix "$tmp/gpuperfd.sock" \
	--queue-frames 16 --metrics-window 200; then
	local_port=$(port plain 127.0.0.1)
	remote_port=$(port plain 0.0.0.0)
	run_checks plain "ws://127.0.0.1:$local_port" "ws://127.0.0.1:$remote_port" \
		"unix:$tmp/gpuperfd.sock" "127.0.0.1:$local_port" "$tmp/metrics.txt"
	if command -v promtool >/dev/null; then
		if promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.out" 2>&1; then
			ok
		else
			fail "promtool check metrics"
			sed 's/^/  | /' "$tmp/promtool.out" | head -20
		fi
	else
		skip "/metrics through promtool" "promtool: Debian package prometheus"
	fi
	stop plain
fi

# Cross-site WebSockets and DNS rebinding: the status a WebSocket upgrade
# gets with an Origin (or none: -) and a Host header, and a plain GET's.
upgrade_status() {
	set -- "$1" "$2" "$3"
	[ "$2" = - ] && set -- "$1" "" "$3"
	curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Connection: Upgrade' \
		-H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
		-H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
		-H 'Sec-WebSocket-Protocol: gpuperf.v1' \
		${2:+-H "Origin: $2"} -H "Host: $3" "$1/ws"
}
get_status() {
	curl -s -o /dev/null -w '%{http_code}' -m 5 -H "Host: $2" "$1"
}
# check_upgrades URL CASE...: each CASE is "ORIGIN HOST STATUS".
check_upgrades() {
	upgrades_url=$1
	shift
	for case in "$@"; do
		set -- $case
		got=$(upgrade_status "$upgrades_url" "$1" "$2")
		check "an upgrade from Origin $1 with Host $2 got $got, not $3" [ "$got" = "$3" ]
	done
}
# check_gets URL CASE...: each CASE is "PATH HOST STATUS".
check_gets() {
	gets_url=$1
	shift
	for case in "$@"; do
		set -- $case
		got=$(get_status "$gets_url$1" "$2")
		check "GET $1 with Host $2 got $got, not $3" [ "$got" = "$3" ]
	done
}
if start origin --device sim --linger 0 --listen 127.0.0.1:0; then
	p=$(port origin)
	check_upgrades "http://127.0.0.1:$p" "- 127.0.0.1:$p 101" \
		"http://127.0.0.1:$p 127.0.0.1:$p 101" "http://localhost:$p localhost:$p 101" \
		"https://evil.example.com 127.0.0.1:$p 403" \
		"http://127.0.0.1:8000 127.0.0.1:$p 403" "null 127.0.0.1:$p 403" \
		"http://attacker.example:$p attacker.example:$p 421" \
		"- attacker.example:$p 421"
	check_gets "http://127.0.0.1:$p" "/metrics 127.0.0.1:$p 200" \
		"/metrics attacker.example 421" "/healthz attacker.example:$p 421" \
		"/ attacker.example 421" "/ localhost:$p 200"
	# Twenty more upgrades from another site's page: refused, and summed
	# up in the log, not a line each.
	refused=0
	for i in $(seq 20); do
		[ "$(upgrade_status "http://127.0.0.1:$p" https://evil.example.com \
			"127.0.0.1:$p")" = 403 ] && refused=$((refused + 1))
	done
	check "$refused of 20 upgrades from another site refused" [ "$refused" = 20 ]
	lines=$(grep -c "libwebsockets: " "$tmp/origin.log")
	check "$lines log lines for 23 refused upgrades" [ "$lines" -le 3 ]
	stop origin
fi
if start named --device sim --linger 0 --listen 127.0.0.1:0 \
	--server-name gpu.test --allow-origin https://ui.test:8443; then
	p=$(port named)
	check_upgrades "http://127.0.0.1:$p" "http://gpu.test:$p gpu.test:$p 101" \
		"https://ui.test:8443 127.0.0.1:$p 101" "https://ui.test 127.0.0.1:$p 403"
	check_gets "http://127.0.0.1:$p" "/metrics gpu.test 200" "/metrics gpu.test.evil 421"
	stop named
fi
# /metrics has the WebSocket Auth's brake: five wrong tokens from an
# address, then its attempts are refused unheard, the right token's too,
# until a second has passed. One curl sends them all on one connection,
# within far less than the second the brake gives back a try in.
if start brake --device sim --linger 0 --listen 0.0.0.0:0 --token-file "$tmp/tokens"; then
	url="http://127.0.0.1:$(port brake 0.0.0.0)/metrics"
	wrong="Authorization: Bearer wrong-0123456789abcdefghijklmn"
	right="Authorization: Bearer viewtok-0123456789abcdefghij"
	set --
	for i in 1 2 3 4 5 6 7 8; do
		set -- "$@" -o /dev/null "$url"
	done
	codes=$(curl -s -m 10 -w ' %{http_code}' -H "$wrong" "$@" \
		--next -s -o "$tmp/braked.txt" -w ' %{http_code}' -H "$right" "$url")
	check "8 wrong tokens, then the right one, to /metrics got$codes, not 5 x 401 and 4 x 429" \
		[ "$codes" = " 401 401 401 401 401 429 429 429 429" ]
	expect braked.txt "too many wrong tokens from 127.0.0.1"
	# Once the brake lets go (a try back each second), the right one is
	# heard.
	for i in $(seq 100); do
		got=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "$right" "$url")
		[ "$got" = 429 ] || break
		sleep 0.1
	done
	check "the right token to /metrics, once the brake let go, got $got, not 200" \
		[ "$got" = 200 ]
	stop brake
fi
if "$gpuperfd" --allow-root --listen 127.0.0.1:0 --allow-origin ui.test 2>"$tmp/origin.log"; then
	fail "--allow-origin without a scheme was accepted"
else
	expect origin.log "--allow-origin ui.test: expected SCHEME://HOST[:PORT]"
fi

# Idle unauthenticated connections from many addresses, the default
# budgets but a long --auth-timeout so they stay while the checks run.
if start flood --device sim --linger 0 --listen 127.0.0.1:0 --listen 0.0.0.0:0 \
	--token-file "$tmp/tokens" --unix "$tmp/flood.sock" --auth-timeout 600000; then
	run_checks flood "ws://127.0.0.1:$(port flood 0.0.0.0)" \
		"ws://127.0.0.1:$(port flood 127.0.0.1)" "unix:$tmp/flood.sock" \
		"127.0.0.1:$(port flood 127.0.0.1)"
	stop flood
fi

# Clients that never read, against a 16 MiB send budget, while a reader
# streams: the daemon stays within the budget and the reader loses nothing.
budget=$((16 << 20))
# Under SAN=1, AddressSanitizer keeps freed memory in a quarantine of
# 256 MB before reusing it, which the daemon's RSS would show: a small one
# keeps the RSS bound meaningful there too.
ASAN_OPTIONS=quarantine_size_mb=4
export ASAN_OPTIONS
if start amplify --device sim --linger 0 --listen 127.0.0.1:0 \
	--send-budget "$budget"; then
	p=$(port amplify)
	"$gpuperf" stream --port "$p" -i 200ms -c GpuBusy --format csv \
		>"$tmp/reader.csv" 2>"$tmp/reader.err" &
	reader_pid=$!
	pids="$pids $reader_pid"
	if wait_for reader.csv RenderBasic 10 "$reader_pid"; then
		run_checks amplify "ws://127.0.0.1:$p" "$amplify_pid" "127.0.0.1:$p" "$budget"
	else
		fail "the reader did not stream"
	fi
	kill "$reader_pid"
	wait "$reader_pid"
	# timestamp_ns,duration_ns,...,dropped: windows follow each other
	# (within the CPU clock's fit to the GPU's) and none was dropped.
	awk -F, 'NR > 2 && $5 == 0 {
			gap = $3 - (start + duration)
			if (gap < 0) gap = -gap
			if (gap > max) max = gap
			dropped += $9; lost += $8; n++
		}
		NR > 1 { start = $3; duration = $4 }
		END { printf "%d %d %d %d\n", n, max / 1e6, dropped, lost }' \
		"$tmp/reader.csv" >"$tmp/reader.stats"
	read rows gap_ms dropped lost <"$tmp/reader.stats"
	echo "amplify: the reader got $rows windows of 200 ms, $dropped dropped, buffers lost $lost, the largest gap between windows $gap_ms ms"
	check "the reader streamed only $rows windows" [ "$rows" -ge 5 ]
	check "the reader lost $dropped frames under the attack" [ "$dropped" = 0 ]
	# A missed window would leave a gap of a whole window (200 ms); less
	# than half of one is the CPU clock's fit moving, which a loaded
	# machine's late correlations do.
	check "the reader's windows were $gap_ms ms apart" [ "$gap_ms" -lt 100 ]
	stop amplify
fi
unset ASAN_OPTIONS

mkdir "$tmp/www" "$tmp/outside"
echo '<!DOCTYPE html><title>test UI</title><p>served from the web root</p>' >"$tmp/www/index.html"
# Links in the web root: one that stays inside is served; none that leads
# out, to a file or through a directory.
echo '<p>outside the web root</p>' >"$tmp/outside/secret.html"
ln -s index.html "$tmp/www/alias.html"
ln -s /etc/passwd "$tmp/www/passwd.txt"
ln -s "$tmp/outside/secret.html" "$tmp/www/secret.html"
ln -s ../outside "$tmp/www/out"
if start web --device sim --listen 127.0.0.1:0 --web-root "$tmp/www" --max-connections 2; then
	run_checks web "127.0.0.1:$(port web 127.0.0.1)" "served from the web root"
	web_url=http://127.0.0.1:$(port web 127.0.0.1)
	code=$(curl -s -o "$tmp/got" -w '%{http_code}' "$web_url/alias.html")
	check "a link inside --web-root answered $code" \
		eval '[ "$code" = 200 ] && grep -q "served from the web root" "$tmp/got"'
	for path in /passwd.txt /secret.html /out/secret.html; do
		code=$(curl -s -o "$tmp/got" -w '%{http_code}' "$web_url$path")
		check "$path, a link out of --web-root, answered $code: $(head -c 40 "$tmp/got")" \
			eval '[ "$code" = 404 ] && ! grep -q "^root:\|outside the web root" "$tmp/got"'
	done
	stop web
fi
"$build/gpuperfd" --allow-root --device sim --listen 127.0.0.1:0 \
	--web-root "$tmp/www/index.html" \
	>"$tmp/notdir.log" 2>&1
status=$?
check "--web-root naming a file exited $status, not 1" [ "$status" = 1 ]
check "--web-root naming a file did not say so" \
	grep -q -- "--web-root $tmp/www/index.html is not a directory" "$tmp/notdir.log"

# IPv6: a listener on [::1], reached with its address bare and in brackets.
if grep -q "^00000000000000000000000000000001 " /proc/net/if_inet6 2>/dev/null; then
	if start v6 --device sim --linger 0 --listen '[::1]:0'; then
		v6_port=$(port v6 '[::1]')
		for host in ::1 '[::1]'; do
			if "$build/gpuperf" devices --host "$host" --port "$v6_port" \
				>"$tmp/v6.out" 2>&1 && grep -q "^sim0 " "$tmp/v6.out"; then
				ok
			else
				fail "gpuperf devices --host $host over IPv6"
				sed 's/^/  | /' "$tmp/v6.out" | head -5
			fi
		done
		stop v6
	fi
else
	skip "the IPv6 listener" "an IPv6 loopback address on this machine"
fi

if command -v openssl >/dev/null && [ -d "$shared/intel-metrics/i915" ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
		-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >/dev/null 2>&1
	if start tls --device sim:tglgt2 --metrics-dir "$shared/intel-metrics/i915" \
		--linger 0 --listen 127.0.0.1:0 --tls-cert "$tmp/cert.pem" \
		--tls-key "$tmp/key.pem"; then
		tls_port=$(port tls 127.0.0.1)
		run_checks tls "wss://127.0.0.1:$tls_port" "$tmp/cert.pem" "$tmp/recording.i915perf"
		if [ -x "$reader" ]; then
			if "$reader" "$tmp/recording.i915perf" >"$tmp/reader.out" 2>&1 &&
			   grep -q "^Reports: [1-9]" "$tmp/reader.out"; then
				ok
			else
				fail "i915-perf-reader refused the recording"
				sed 's/^/  | /' "$tmp/reader.out" | head -20
			fi
		else
			skip "the recording through IGT's reader" "$reader: Debian package intel-gpu-tools"
		fi
		stop tls
	fi
else
	skip "TLS and the recording over it" "openssl or $shared/intel-metrics/i915"
fi

finish
