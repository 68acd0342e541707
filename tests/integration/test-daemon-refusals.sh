#!/bin/sh
# gpuperfd refusing to start: each refusal is one sentence that says what
# to do, with the exit status gpuperfd(8) gives it, and never a crash: a
# listener refused for want of tokens (alone or next to a good one), an
# address in use (alone, or after another listener was opened), a
# --device that names no kind of device.
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared). Prints "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"

# refused STATUS TEXT ARGS...: gpuperfd ARGS exits STATUS and its error
# output holds TEXT; it is kept in $tmp/refused.log.
refused() {
	refused_status=$1
	refused_text=$2
	shift 2
	"$gpuperfd" --allow-root "$@" >"$tmp/refused.log" 2>&1
	status=$?
	if [ "$status" != "$refused_status" ]; then
		fail "gpuperfd $* exited $status, expected $refused_status"
		sed 's/^/  | /' "$tmp/refused.log" | tail -5
	elif ! grep -qF -- "$refused_text" "$tmp/refused.log"; then
		fail "gpuperfd $* did not say '$refused_text'"
		sed 's/^/  | /' "$tmp/refused.log" | tail -5
	else
		ok
	fi
}

# ---- a listener other machines could reach, without tokens: bad options
refused 2 "needs --token-file" --device sim --listen 0.0.0.0:0
refused 2 "needs --token-file" --device sim --listen 127.0.0.1:0 \
	--listen 0.0.0.0:0
refused 2 "needs --token-file" --device sim --unix "$tmp/s.sock" \
	--listen 0.0.0.0:0

# ---- an address in use: where, that it is in use, how to find by whom
start holder --device sim --linger 0 --listen 127.0.0.1:0
held=$(port holder)
refused 1 "cannot listen on 127.0.0.1:$held: the address is in use" \
	--device sim --listen "127.0.0.1:$held"
expect refused.log "ss -ltnp 'sport = :$held'"
check "libwebsockets' own words reached the user" \
	eval '! grep -q "ERROR on binding" "$tmp/refused.log"'
# The second listener is refused after the first was opened.
refused 1 "cannot listen on 127.0.0.1:$held: the address is in use" \
	--device sim --listen 127.0.0.1:0 --listen "127.0.0.1:$held"
stop holder

# ---- a device spec is an option like any other
refused 2 "--device foo: unknown device kind" --device foo
refused 2 "unknown option '--devcie'" --devcie sim
refused 2 "--device replay:" --device replay:

finish
