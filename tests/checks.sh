# The helpers of the shell test scripts, which source this file first:
#
#   . "$(dirname "$0")/../checks.sh"
#
# It is not a test itself. It counts checks (ok, fail, skip, check, expect,
# run), ends a script that lacks a test program early (needs_built), runs
# gpuperfd in the background and waits for it (start,
# start_command, wait_for, wait_lines, port, stop), keeps every file of a run in the
# temporary folder $tmp, ends the background processes in $pids and
# removes $tmp on exit, and prints the closing line tests/run-tests.sh
# reads (finish).
#
# Environment: GPM_BUILD_DIR (default build), GPM_SHARED_DIR (default
# ../shared).
build=${GPM_BUILD_DIR:-build}
shared=${GPM_SHARED_DIR:-../shared}
gpuperf="$build/gpuperf"
gpuperfd="$build/gpuperfd"
passed=0
failed=0
skipped=0
tmp=$(mktemp -d)
# The background processes to end on exit.
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() {
	passed=$((passed + 1))
}

fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# skip WHAT MISSING: a check that cannot run here, reported as skipped
# with what it lacks, never as passed.
skip() {
	skipped=$((skipped + 1))
	echo "SKIP: $1 (missing: $2)"
}

# needs_built FILE...: the script runs these programs or libraries of
# the build besides gpuperfd and gpuperf (paths under $build); where one
# is missing it ends at once, failing with what builds it, rather than
# with a daemon that "did not start".
needs_built() {
	for needed in "$@"; do
		[ -e "$build/$needed" ] && continue
		fail "$build/$needed is missing: 'make unit-tests' builds the" \
			"test programs the scripts run ('make' builds only" \
			"gpuperfd, gpuperf and the libraries)"
		finish
		exit 1
	done
}

# check MESSAGE COMMAND...: passes when COMMAND succeeds, else fails
# saying MESSAGE.
check() {
	check_message=$1
	shift
	if "$@"; then ok; else fail "$check_message"; fi
}

# in_tmp FILE: FILE itself when it is an absolute path, else $tmp/FILE.
in_tmp() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$tmp/$1" ;;
	esac
}

# expect FILE TEXT: FILE (a name in $tmp, or a path) holds the fixed
# string TEXT; a failure shows the end of FILE.
expect() {
	expected_in=$(in_tmp "$1")
	if grep -qF -- "$2" "$expected_in"; then
		ok
	else
		fail "$(basename "$1") lacks '$2'"
		sed 's/^/  | /' "$expected_in" | tail -20
	fi
}

# run STATUS ARGS...: gpuperf ARGS must exit STATUS; its standard output
# and error stay in $tmp/out and $tmp/err for expect.
run() {
	wanted_status=$1
	shift
	"$gpuperf" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" = "$wanted_status" ]; then
		ok
	else
		fail "gpuperf $* exited $status, expected $wanted_status"
		sed 's/^/  | /' "$tmp/err" | head -5
	fi
}

# wait_for FILE TEXT [SECONDS [PID]]: waits up to SECONDS (5) for FILE (as
# for expect) to hold the fixed string TEXT, giving up early once process
# PID has ended; succeeds only if TEXT came.
wait_for() {
	waited_in=$(in_tmp "$1")
	tenths_left=$((${3:-5} * 10))
	while ! grep -qF -- "$2" "$waited_in" 2>/dev/null; do
		if [ "$tenths_left" -le 0 ] ||
			{ [ -n "$4" ] && ! kill -0 "$4" 2>/dev/null; }; then
			return 1
		fi
		tenths_left=$((tenths_left - 1))
		sleep 0.1
	done
}

# wait_lines FILE N [SECONDS]: waits up to SECONDS (30) for FILE to hold N
# lines; succeeds only if they came.
wait_lines() {
	lines_tenths_left=$((${3:-30} * 10))
	while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ]; do
		[ "$lines_tenths_left" -gt 0 ] || return 1
		lines_tenths_left=$((lines_tenths_left - 1))
		sleep 0.1
	done
}

# start_command NAME COMMAND...: COMMAND (gpuperfd, or a command that runs
# it) in the background, everything it says in $tmp/NAME.log and its pid in
# $NAME_pid; waits up to 15 s for the daemon to log that it is ready, and
# fails, showing the log, if it ends or never does. Where the script sets
# count_starts=yes, each daemon that starts is a passed check too.
start_command() {
	started=$1
	shift
	"$@" >"$tmp/$started.log" 2>&1 &
	started_pid=$!
	pids="$pids $started_pid"
	eval "${started}_pid=$started_pid"
	if wait_for "$started.log" "ready with" 60 "$started_pid"; then
		[ "$count_starts" != yes ] || ok
		return 0
	fi
	fail "$* did not start"
	sed 's/^/  | /' "$tmp/$started.log"
	return 1
}

# start NAME ARGS...: start_command with the built gpuperfd (as root, it
# serves as root: --allow-root).
start() {
	start_name=$1
	shift
	start_command "$start_name" "$gpuperfd" --allow-root "$@"
}

# port NAME [HOST]: the TCP port daemon NAME listens on at HOST (127.0.0.1;
# an IPv6 address in brackets, as the log writes it: [::1]).
port() {
	port_host=$(printf '%s\n' "${2:-127.0.0.1}" | sed 's/[].[]/\\&/g')
	sed -n "s|.*listening on https\{0,1\}://$port_host:\([0-9]*\)/.*|\1|p" \
		"$tmp/$1.log" | head -1
}

# stop NAME: SIGTERM to daemon NAME, which must then exit 0.
stop() {
	eval "stopped_pid=\$${1}_pid"
	kill -TERM "$stopped_pid"
	wait "$stopped_pid"
	status=$?
	# Waited for, its pid may be another process's by the time of cleanup.
	still_running=""
	for p in $pids; do
		[ "$p" = "$stopped_pid" ] || still_running="$still_running $p"
	done
	pids=$still_running
	if [ "$status" = 0 ]; then
		ok
	else
		fail "gpuperfd $1 exited $status after SIGTERM"
		tail -20 "$tmp/$1.log" | sed 's/^/  | /'
	fi
}

# finish: the closing line, "checks: N passed, F failed" (", S skipped"
# after it when a check was skipped); as a script's last command it
# makes the exit status 0 only when no check failed.
finish() {
	if [ "$skipped" = 0 ]; then
		echo "checks: $passed passed, $failed failed"
	else
		echo "checks: $passed passed, $failed failed, $skipped skipped"
	fi
	[ "$failed" = 0 ]
}
