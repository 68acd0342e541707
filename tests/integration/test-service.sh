#!/bin/sh
# gpuperfd as a service: `make install` into a DESTDIR and the installed
# daemon run from there on sim; the installed unit through
# `systemd-analyze verify` and `systemd-analyze security` (exposure at
# most 2.0); the sysusers file; `--user nobody` checked in
# /proc/PID/status; SIGHUP re-reading the --config file while a client
# stays connected; `make uninstall`.
#
# Environment: GPM_BUILD_DIR (default build). Run by `make test`, which
# passes its variables (SAN=1) on to the `make install` here. Prints
# "checks: N passed, F failed".
. "$(dirname "$0")/../checks.sh"
# Each daemon that starts is a check of its own.
count_starts=yes

# --- make install into a DESTDIR ------------------------------------------
dest=$tmp/dest
prefix=/usr/local
if make -s install DESTDIR="$dest" PREFIX=$prefix BUILD="$build" \
		>"$tmp/install.log" 2>&1; then
	ok
else
	fail "make install DESTDIR=$dest"
	tail -20 "$tmp/install.log" | sed 's/^/  | /'
fi
root=$dest$prefix
for f in bin/gpuperfd bin/gpuperf share/gpuperf/metrics/oa-simgen12.xml \
	lib/systemd/system/gpuperfd.service lib/sysusers.d/gpuperfd.conf \
	share/gpuperf/gpuperfd.conf.example share/man/man8/gpuperfd.8 \
	share/man/man1/gpuperf.1 include/gpuperf.h lib/pkgconfig/gpuperf.pc; do
	check "make install put no $prefix/$f" [ -f "$root/$f" ]
done
check "make install put no /etc/gpuperfd.conf" \
	cmp -s systemd/gpuperfd.conf.example "$dest/etc/gpuperfd.conf"
unit=$root/lib/systemd/system/gpuperfd.service
check "the unit does not start $prefix/bin/gpuperfd --config /etc/gpuperfd.conf" \
	grep -qx "ExecStart=$prefix/bin/gpuperfd --config /etc/gpuperfd.conf" "$unit"
check "the unit still holds @...@ placeholders" eval '! grep -q "@[A-Z]*@" "$unit"'
if command -v man >/dev/null; then
	for page in share/man/man8/gpuperfd.8 share/man/man1/gpuperf.1; do
		warnings=$(man --warnings -l "$root/$page" 2>&1 >/dev/null)
		check "man $page warns: $warnings" [ -z "$warnings" ]
	done
else
	skip "the man pages through man --warnings" "man: Debian package man-db"
fi

# --- the unit: systemd-analyze verify and security ------------------------
# verify wants ExecStart's binary where the unit says it is: the DESTDIR
# tree is mounted over $prefix in a mount namespace of its own.
manopt=--man=no
command -v man >/dev/null && manopt=--man=yes
if unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount --bind '$root' '$prefix' &&
		systemd-analyze verify $manopt '$prefix/lib/systemd/system/gpuperfd.service'" \
		>"$tmp/verify.log" 2>&1
	status=$?
	where="DESTDIR install mounted at $prefix"
else
	# No mount namespace here: an install whose prefix is a temporary
	# directory has paths that resolve as they are.
	make -s install-service PREFIX="$tmp/prefix" BINDIR="$root/bin" \
		SYSCONFDIR="$tmp/prefix/etc" >>"$tmp/install.log" 2>&1
	systemd-analyze verify --man=no "$tmp/prefix/lib/systemd/system/gpuperfd.service" \
		>"$tmp/verify.log" 2>&1
	status=$?
	where="install under $tmp/prefix (no mount namespace for the DESTDIR one)"
fi
if [ "$status" = 0 ] && [ ! -s "$tmp/verify.log" ]; then
	ok
	echo "systemd-analyze verify: clean ($where)"
else
	fail "systemd-analyze verify gpuperfd.service ($where)"
	sed 's/^/  | /' "$tmp/verify.log"
fi

# A leak or a flood ends in a restart, not in the machine's memory.
for key in MemoryMax TasksMax; do
	check "the unit sets no $key" grep -q "^$key=[1-9]" "$unit"
done

systemd-analyze security --offline=yes "$unit" >"$tmp/security.log" 2>&1
score=$(sed -n 's/.*Overall exposure level for gpuperfd.service: \([0-9.]*\).*/\1/p' "$tmp/security.log")
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
	ok
	echo "systemd-analyze security --offline=yes: exposure $score (at most 2.0)"
else
	fail "systemd-analyze security: exposure '${score:-none}', more than 2.0"
	grep '✗' "$tmp/security.log" | sed 's/^/  | /'
fi

mkdir -p "$tmp/sysroot/etc"
systemd-sysusers --root="$tmp/sysroot" --dry-run \
	"$root/lib/sysusers.d/gpuperfd.conf" >"$tmp/sysusers.log" 2>&1
check "systemd-sysusers would not create the gpuperf user" \
	grep -q "Creating user 'gpuperf'" "$tmp/sysusers.log"

# --- the installed gpuperfd on sim ----------------------------------------
web=
[ -f "$root/share/gpuperf/web/index.html" ] && web="web-root = $root/share/gpuperf/web"
cat >"$tmp/installed.conf" <<CONF
device = sim
metrics-dir = $root/share/gpuperf/metrics
listen = 127.0.0.1:0
$web
CONF
if start_command installed "$root/bin/gpuperfd" --allow-root --config "$tmp/installed.conf"; then
	url=http://127.0.0.1:$(port installed)
	check "the installed gpuperfd's /healthz" \
		[ "$(curl -s "$url/healthz")" = ok ]
	check "the installed gpuperfd did not load its metric definitions" \
		grep -q "metric definitions: [2-9][0-9]* files" "$tmp/installed.log"
	curl -s "$url/metrics" >"$tmp/metrics.txt"
	check "the installed gpuperfd's /metrics" \
		grep -q '^gpuperf_info{device="sim0"' "$tmp/metrics.txt"
	if [ -n "$web" ]; then
		curl -s -o "$tmp/index.html" "$url/"
		check "the installed gpuperfd does not serve the installed web UI" \
			cmp -s "$root/share/gpuperf/web/index.html" "$tmp/index.html"
	fi
	stop installed
fi

# --- --user nobody --------------------------------------------------------
if [ "$(id -u)" = 0 ]; then
	nobody_gid=$(id -g nobody)
	# CAP_PERFMON is bit 38, unless this container withholds it.
	want=0000000000000000
	bnd=$(sed -n 's/^CapBnd:\t//p' /proc/self/status)
	[ $((0x$bnd >> 38 & 1)) = 1 ] && want=0000004000000000
	if start dropped --device sim --listen 127.0.0.1:0 --user nobody; then
		pid=$dropped_pid
		status=/proc/$pid/status
		check "Uid is not nobody's: $(grep ^Uid: "$status")" \
			grep -q "^Uid:	65534	65534	65534	65534$" "$status"
		check "Gid is not nobody's: $(grep ^Gid: "$status")" \
			grep -q "^Gid:	$nobody_gid	$nobody_gid	$nobody_gid	$nobody_gid$" "$status"
		# CAP_PERFMON permitted and effective, nothing to pass on.
		for set in CapPrm CapEff CapBnd; do
			have=$(sed -n "s/^$set:\t//p" "$status")
			check "$set is $have, not $want" [ "$have" = "$want" ]
		done
		for set in CapInh CapAmb; do
			have=$(sed -n "s/^$set:\t//p" "$status")
			check "$set is $have, not empty" [ "$have" = 0000000000000000 ]
		done
		check "no_new_privs is not set" grep -q "^NoNewPrivs:	1$" "$status"
		grep -E '^(Uid|Gid|CapPrm|CapEff|CapInh|CapAmb):' "$status" |
			sed 's/^/--user nobody: /'
		url=http://127.0.0.1:$(port dropped)
		check "/healthz after dropping privileges" \
			[ "$(curl -s "$url/healthz")" = ok ]
		stop dropped
	fi
	# The service unit's credentials: a user's, CAP_PERFMON handed over
	# as an ambient capability (AmbientCapabilities=), which the daemon
	# keeps permitted and effective only.
	if [ "$want" != 0000000000000000 ] && command -v setpriv >/dev/null &&
	   start_command ambient setpriv --reuid=65534 --regid="$nobody_gid" \
		--clear-groups --inh-caps=+perfmon --ambient-caps=+perfmon \
		"$build/gpuperfd" --device sim --listen 127.0.0.1:0; then
		status=/proc/$ambient_pid/status
		for set in CapPrm CapEff CapInh CapAmb; do
			have=$(sed -n "s/^$set:\t//p" "$status")
			expected=$want
			case $set in CapInh|CapAmb) expected=0000000000000000 ;; esac
			check "started with ambient CAP_PERFMON, $set is $have, not $expected" \
				[ "$have" = "$expected" ]
		done
		grep -E '^(Uid|CapPrm|CapEff|CapInh|CapAmb):' "$status" |
			sed 's/^/ambient CAP_PERFMON: /'
		stop ambient
	fi
	# Without root there is nothing to drop from.
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid="$nobody_gid" --clear-groups \
			"$build/gpuperfd" --device sim --listen 127.0.0.1:0 \
			--user nobody >"$tmp/notroot.log" 2>&1
		status=$?
		check "--user without root exited $status, not 1" [ "$status" = 1 ]
		check "--user without root did not say to start as root" \
			grep -q "must start as root" "$tmp/notroot.log"
	fi
	# Root without --user is refused, unless told to serve as root.
	timeout 30 "$build/gpuperfd" --device sim --listen 127.0.0.1:0 \
		>"$tmp/asroot.log" 2>&1
	status=$?
	check "root without --user or --allow-root exited $status, not 2" \
		[ "$status" = 2 ]
	check "root without --user did not say to give --user or --allow-root" \
		grep -q "started as root.*Give --user .* or --allow-root" "$tmp/asroot.log"
	check "root without --user opened a listener" \
		eval '! grep -q "listening on" "$tmp/asroot.log"'
	if start_command allowed "$build/gpuperfd" --allow-root --device sim \
		--listen 127.0.0.1:0; then
		check "--allow-root did not warn" \
			grep -q "serving as root (--allow-root)" "$tmp/allowed.log"
		stop allowed
	fi
	# make run, as root, serves as the service's user or nobody.
	run_user=nobody
	getent passwd gpuperf >/dev/null && run_user=gpuperf
	run_uid=$(id -u "$run_user")
	make -s run BUILD="$build" RUN_ARGS="--listen 127.0.0.1:0 --linger 0" \
		>"$tmp/makerun.log" 2>&1 &
	make_pid=$!
	pids="$pids $make_pid"
	if wait_for makerun.log "ready with" 300 "$make_pid"; then
		run_pid=$(pgrep -P "$make_pid" -x gpuperfd)
		uids=$(sed -n 's/^Uid:\t//p' "/proc/$run_pid/status" 2>/dev/null)
		check "make run as root serves as uids '$uids', not $run_user's ($run_uid)" \
			[ "$uids" = "$run_uid	$run_uid	$run_uid	$run_uid" ]
		kill -TERM "$run_pid"
		wait "$make_pid"
		status=$?
		check "make run ended with status $status after SIGTERM" [ "$status" = 0 ]
	else
		fail "make run did not start gpuperfd"
		tail -20 "$tmp/makerun.log" | sed 's/^/  | /'
	fi
else
	skip "--user nobody" "root, to start as and drop from"
fi

# --- a token file the dropped user cannot read ---------------------------
# Read as root at start, it could not be read again for a reload.
if [ "$(id -u)" = 0 ]; then
	printf 'rootonly-0123456789abcdefghijk viewer\n' >"$tmp/rootonly"
	chmod 600 "$tmp/rootonly"
	if start unreadable --device sim --listen 127.0.0.1:0 \
		--token-file "$tmp/rootonly" --user nobody; then
		check "no warning that nobody cannot read the token file" \
			grep -q "token-file $tmp/rootonly cannot be read as user nobody" \
			"$tmp/unreadable.log"
		stop unreadable
	fi
else
	skip "a token file --user cannot read" "root, to start as and drop from"
fi

# --- SIGHUP: the --config file re-read, clients kept ----------------------
printf 'viewtok-0123456789abcdefghij viewer\n' >"$tmp/tokens"
chmod 600 "$tmp/tokens"
cat >"$tmp/reload.conf" <<CONF
device = sim
listen = 127.0.0.1:0
listen = 0.0.0.0:0
token-file = $tmp/tokens
metrics-window = 200
CONF
if start reload --config "$tmp/reload.conf"; then
	pid=$reload_pid
	local_url=http://127.0.0.1:$(port reload)/healthz
	remote_url=http://127.0.0.1:$(port reload 0.0.0.0)/metrics
	code() {
		curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" \
			"$remote_url"
	}
	check "/metrics with the first token" [ "$(code viewtok-0123456789abcdefghij)" = 200 ]
	# One connection, four requests half a second apart; the reload
	# comes once the second has been answered.
	curl -s -N --rate 2/s -w '\n%{http_code} %{num_connects}\n' \
		"$local_url" "$local_url" "$local_url" "$local_url" \
		>"$tmp/curl.out" 2>&1 &
	curl_pid=$!
	tenths=300
	while [ "$(grep -c '^200 ' "$tmp/curl.out")" -lt 2 ] && [ "$tenths" -gt 0 ]; do
		tenths=$((tenths - 1))
		sleep 0.1
	done
	printf 'newtok-0123456789abcdefghijk controller\n' >"$tmp/tokens"
	cat >>"$tmp/reload.conf" <<CONF
metrics-dir = metrics/sim
log-level = warning
seed = 5
CONF
	kill -HUP "$pid"
	wait "$curl_pid"
	check "curl across the reload: $(tr '\n' ' ' <"$tmp/curl.out")" \
		[ "$(grep -c '^200 ' "$tmp/curl.out")" = 4 ]
	check "the client's connection did not outlive the reload: $(tr '\n' ' ' <"$tmp/curl.out")" \
		[ "$(grep -c '^200 0$' "$tmp/curl.out")" = 3 ]
	check "the reload did not name --seed as needing a restart" \
		wait_for reload.log "reload: --seed changed; it takes effect when gpuperfd restarts"
	# The built-in sim file, and metrics/sim's two (the sim GPUs').
	check "the reload did not load metrics/sim" \
		grep -q "metric definitions: 3 files" "$tmp/reload.log"
	# /metrics subscribed the device: it moves to the new definitions
	# once that subscription ends.
	check "the device did not queue the reloaded definitions" \
		grep -q "sim0: busy; it takes the reloaded metric definitions" \
		"$tmp/reload.log"
	check "/metrics with the removed token" [ "$(code viewtok-0123456789abcdefghij)" = 401 ]
	check "/metrics with the new token" [ "$(code newtok-0123456789abcdefghijk)" = 200 ]
	# The reload logs its end in the same step as its warning, and the
	# requests above were served after it: "reload done" would be there.
	check "the reload did not apply --log-level warning" \
		eval '! grep -q "reload done" "$tmp/reload.log"'
	# A broken file changes nothing and the daemon stays.
	echo "seed = many" >>"$tmp/reload.conf"
	kill -HUP "$pid"
	check "no error for the broken file" \
		wait_for reload.log "reload: $tmp/reload.conf:9: --seed takes a number"
	check "/healthz after a failed reload" [ "$(curl -s "$local_url")" = ok ]
	check "/metrics after a failed reload" [ "$(code newtok-0123456789abcdefghijk)" = 200 ]
	stop reload
fi

# --- the unit's system call filter, W^X and address families --------------
# No systemd runs here to apply the unit's sandbox, so the daemon's own
# system calls on sim (serving, /metrics streaming, a reload, shutdown)
# are traced and held against what the installed unit allows.
# expand GROUP: the system calls of a systemd-analyze syscall-filter group.
expand() {
	systemd-analyze syscall-filter "$1" | sed -n '2,$p' | sed 's/^ *//' |
	grep -v '^#' | grep -v '^$' | while read -r item; do
		case $item in
		@*) expand "$item" ;;
		*) echo "$item" ;;
		esac
	done
}
if command -v strace >/dev/null; then
	: >"$tmp/allowed"
	# As systemd reads the lines, in order (the first allows): each adds
	# its items to what is allowed, or with ~ takes them away; an item is
	# a group or a call.
	sed -n 's/^SystemCallFilter=//p' "$unit" | while read -r line; do
		refuse=
		case $line in ~*) refuse=yes; line=${line#\~} ;; esac
		for item in $line; do
			case $item in
			@*) expand "$item" ;;
			*) echo "$item" ;;
			esac
		done | sort -u >"$tmp/items"
		if [ -n "$refuse" ]; then
			comm -23 "$tmp/allowed" "$tmp/items" >"$tmp/allowed.next"
		else
			sort -u "$tmp/allowed" "$tmp/items" >"$tmp/allowed.next"
		fi
		mv "$tmp/allowed.next" "$tmp/allowed"
	done
	cp "$tmp/allowed" "$tmp/allowed.sorted"
	# Outside systemd the daemon installs the same filter itself.
	sed -n '/^const char \*const gpd_syscall_filter_allowed/,/^#if/p' \
		daemon/syscall_filter.c | grep -o '"[a-z0-9_]*"' | tr -d '"' |
		sort -u >"$tmp/own.sorted"
	difference=$(comm -3 "$tmp/own.sorted" "$tmp/allowed.sorted" | tr -d '\t' | tr '\n' ' ')
	check "the daemon's own filter and the unit's differ: $difference" \
		[ -z "$difference" ]
	echo "system-call filter: $(wc -l <"$tmp/allowed.sorted") calls allowed by the unit and by the daemon's own"
	cat >"$tmp/traced.conf" <<CONF
device = sim
listen = 127.0.0.1:0
unix = $tmp/traced.sock
$web
CONF
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$tmp/trace" \
		"$build/gpuperfd" --allow-root --config "$tmp/traced.conf" 2>"$tmp/traced.log" &
	strace_pid=$!
	pids="$pids $strace_pid"
	check "the traced gpuperfd did not start" wait_for traced.log "ready with" 30 "$strace_pid"
	url=http://127.0.0.1:$(port traced)
	check "the traced gpuperfd's /healthz" [ "$(curl -s "$url/healthz")" = ok ]
	check "the traced gpuperfd's page" curl -sf -o /dev/null "$url/"
	curl -sf "$url/metrics" >"$tmp/traced-metrics.txt"
	check "the traced gpuperfd's /metrics" grep -q '^gpuperf_info{device="sim0"' "$tmp/traced-metrics.txt"
	check "the traced gpuperfd's /healthz on its Unix socket" \
		[ "$(curl -s --unix-socket "$tmp/traced.sock" http://localhost/healthz)" = ok ]
	daemon_pid=$(sed -n '1s/^\([0-9]*\) .*/\1/p' "$tmp/trace")
	check "the traced gpuperfd runs without a system-call filter: $(grep '^Seccomp' "/proc/$daemon_pid/status" | tr '\n' ' ')" \
		grep -q "^Seccomp:	2$" "/proc/$daemon_pid/status"
	check "the traced gpuperfd did not say it filters system calls" \
		grep -q "system calls: [1-9][0-9]* allowed" "$tmp/traced.log"
	threads=$(sed -n 's/^Threads:\t//p' "/proc/$daemon_pid/status")
	tasks_max=$(sed -n 's/^TasksMax=//p' "$unit")
	check "the traced gpuperfd runs $threads threads, more than TasksMax=$tasks_max" \
		[ "$threads" -le "$tasks_max" ]
	echo "metrics-dir = metrics/sim" >>"$tmp/traced.conf"
	kill -HUP "$daemon_pid"
	check "the traced gpuperfd did not reload" wait_for traced.log "reload done" 30
	kill -TERM "$daemon_pid"
	wait "$strace_pid"
	traced_status=$?
	check "the traced gpuperfd exited $traced_status" [ "$traced_status" = 0 ]
	sed -E 's/^[0-9]+ +//; s/^<\.\.\. ([a-z0-9_]+) resumed>.*/\1/; s/^([a-z0-9_]+)\(.*/\1/' \
		"$tmp/trace" | grep -E '^[a-z0-9_]+$' | sort -u >"$tmp/used"
	# seccomp: the daemon installs its own filter, outside systemd only.
	outside=$(grep -vx seccomp "$tmp/used" | comm -23 - "$tmp/allowed.sorted" |
		tr '\n' ' ')
	check "system calls the unit's SystemCallFilter refuses: $outside" \
		[ -z "$outside" ]
	echo "system calls on sim: $(wc -l <"$tmp/used"), all allowed by the unit"
	wx=$(grep -E 'mprotect\(.*PROT_EXEC|mmap\(.*PROT_WRITE\|PROT_EXEC|shmat\(.*SHM_EXEC' "$tmp/trace")
	check "memory MemoryDenyWriteExecute refuses: $wx" [ -z "$wx" ]
	sed -n 's/^RestrictAddressFamilies=//p' "$unit" | tr ' ' '\n' |
		sort -u >"$tmp/families"
	families=$(sed -n 's/.*socket(\(AF_[A-Z0-9]*\),.*/\1/p' "$tmp/trace" |
		sort -u | comm -23 - "$tmp/families" | tr '\n' ' ')
	check "socket families RestrictAddressFamilies refuses: $families" \
		[ -z "$families" ]
else
	skip "the daemon's system calls against the unit's filter" "strace: Debian package strace"
fi

# --- make uninstall -------------------------------------------------------
make -s uninstall DESTDIR="$dest" PREFIX=$prefix BUILD="$build" \
	>>"$tmp/install.log" 2>&1
left=$(find "$dest" -type f | sed "s|^$dest||")
check "make uninstall left: $left" [ -z "$left" ]

finish
