#!/bin/sh
# make mutate: small, realistic bugs put into the sources one at a time,
# each run against the tests that should catch it; prints which were
# caught, which survived, and the kill rate.
#
#   tests/mutate/mutate.sh [FILTER]
#
# The mutations are tests/mutate/mutations: records of "key: value" lines
# separated by blank lines:
#
#   id: equation-udiv-rounds             a name, unique
#   file: metrics/equation.c
#   find: top.u = top.u ? a1.u / top.u : 0;
#   replace: top.u = top.u ? (a1.u + top.u / 2) / top.u : 0;
#   equivalent: why no test can tell      (optional; not counted)
#
# "find" is one line's text and must occur exactly once in the file. The
# tests of each file are in tests/mutate/tests-of ("PATTERN: TEST..."; the
# first pattern, as a shell case pattern, that matches the file wins).
# Only mutations whose id contains FILTER run when it is given.
#
# The sources are copied to $MUTATE_DIR (build/mutate) and mutated there,
# so the checkout is never touched; builds there are incremental. A test
# that fails, crashes or runs past $MUTATE_TIMEOUT seconds (300) kills the
# mutation. Exits 1 when fewer than 90% of the mutations that count were
# killed.
#
# Environment: GPM_SHARED_DIR (default ../shared), MAKE (make).
here=$(cd "$(dirname "$0")/../.." && pwd)
list="$here/tests/mutate/mutations"
map="$here/tests/mutate/tests-of"
dir=${MUTATE_DIR:-$here/build/mutate}
tree=$dir/tree
timeout_s=${MUTATE_TIMEOUT:-300}
shared=$(cd "${GPM_SHARED_DIR:-$here/../shared}" && pwd)
make=${MAKE:-make}
filter=$1

mkdir -p "$tree" "$dir/logs"
# A mutant left by a run that was stopped goes first; then the tracked
# files, copied where they differ.
find "$tree" -name '*.orig' -path "$tree/*" ! -path '*/node_modules/*' | while read -r orig; do
	mv "$orig" "${orig%.orig}" && touch "${orig%.orig}"
done
(cd "$here" && git ls-files) | while IFS= read -r f; do
	cmp -s "$here/$f" "$tree/$f" 2>/dev/null && continue
	mkdir -p "$tree/$(dirname "$f")" && cp -p "$here/$f" "$tree/$f" &&
		touch "$tree/$f"
done

# tests_of FILE: the tests mapped to FILE.
tests_of() {
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		pattern=${line%%:*}
		# shellcheck disable=SC2254
		case $1 in $pattern) echo "${line#*:}"; return ;; esac
	done <"$map"
}

# targets TESTS...: what make builds for them: a test binary itself and
# the fake kernel that the suites of a machine preload; the two programs,
# the server checks and the fake kernel for a script.
targets() {
	for t in "$@"; do
		case $t in
		build/tests/*) printf '%s\n' "$t" build/tests/libfake-kernel.so ;;
		*) echo build/gpuperfd build/gpuperf build/tests/server-checks \
			build/tests/libfake-kernel.so build/libgpuperf.so ;;
		esac
	done | sort -u | tr '\n' ' '
}

# apply FILE FIND REPLACE: replaces the one line holding FIND; fails,
# saying why, unless FIND occurs exactly once.
apply() {
	FIND=$2 REPLACE=$3 awk '
		{ n += (i = index($0, ENVIRON["FIND"])) > 0 }
		i && n == 1 {
			$0 = substr($0, 1, i - 1) ENVIRON["REPLACE"] \
				substr($0, i + length(ENVIRON["FIND"]))
		}
		{ print }
		END { if (n != 1) { print n > "/dev/stderr"; exit 1 } }' "$1" >"$1.mutant"
}

total=0 killed=0 survived=0 equivalent=0 broken=0
survivors=""
started=$(date +%s)
# run_one: tries the mutation in $id, $file, $find, $replace, $why.
run_one() {
	[ -n "$id" ] || return 0
	case $id in *"$filter"*) ;; *) return 0 ;; esac
	if [ -n "$why" ]; then
		equivalent=$((equivalent + 1))
		printf '%-44s equivalent: %s\n' "$id" "$why"
		return 0
	fi
	src=$tree/$file
	if ! count=$(apply "$src" "$find" "$replace" 2>&1); then
		rm -f "$src.mutant"
		broken=$((broken + 1))
		printf '%-44s BROKEN: its text is in %s %s times\n' "$id" "$file" "${count:-0}"
		return 0
	fi
	tests=$(tests_of "$file")
	if [ -z "$tests" ]; then
		rm -f "$src.mutant"
		broken=$((broken + 1))
		printf '%-44s BROKEN: tests/mutate/tests-of maps no test to %s\n' "$id" "$file"
		return 0
	fi
	cp -p "$src" "$src.orig"
	mv "$src.mutant" "$src"
	# Stopped now, the original goes back all the same.
	trap 'mv "$src.orig" "$src"; touch "$src"; exit 130' INT TERM
	total=$((total + 1))
	log=$dir/logs/$id.log
	t0=$(date +%s)
	verdict=""
	# shellcheck disable=SC2046,SC2086
	if ! (cd "$tree" && $make -s -j2 SHARED="$shared" $(targets $tests)) >"$log" 2>&1; then
		verdict="killed by the build"
	else
		for t in $tests; do
			# A session of its own, so that a test the mutation hung
			# is ended with every process it started.
			(cd "$tree" && GPM_SHARED_DIR="$shared" exec setsid \
				sh tests/run-tests.sh "$t") >>"$log" 2>&1 &
			test_pid=$!
			(sleep "$timeout_s" && kill -KILL -- "-$test_pid") 2>/dev/null &
			watchdog=$!
			wait "$test_pid"
			rc=$?
			kill "$watchdog" 2>/dev/null
			if [ "$rc" != 0 ]; then
				[ "$rc" = 137 ] && verdict="killed by $t (timed out)" ||
					verdict="killed by $t"
				break
			fi
		done
	fi
	# The original back, newer than what the mutant built.
	mv "$src.orig" "$src"
	touch "$src"
	trap - INT TERM
	took=$(($(date +%s) - t0))
	if [ -n "$verdict" ]; then
		killed=$((killed + 1))
		printf '%-44s %s (%s s)\n' "$id" "$verdict" "$took"
	else
		survived=$((survived + 1))
		survivors="$survivors $id"
		printf '%-44s SURVIVED %s (%s s): %s -> %s\n' "$id" "$file" "$took" "$find" "$replace"
	fi
}

id="" file="" find="" replace="" why=""
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*) ;;
	'')
		run_one
		id="" file="" find="" replace="" why=""
		;;
	id:*) id=$(echo "${line#id:}" | sed 's/^ *//') ;;
	file:*) file=$(echo "${line#file:}" | sed 's/^ *//') ;;
	find:*) find=${line#find: } ;;
	replace:*) replace=${line#replace: } ;;
	equivalent:*) why=${line#equivalent: } ;;
	*) echo "tests/mutate/mutations: not understood: $line" >&2; exit 2 ;;
	esac
done <"$list"
run_one

counted=$((killed + survived))
echo
echo "mutations: $killed killed, $survived survived, $equivalent equivalent (not counted), $broken broken, in $(($(date +%s) - started)) s"
[ -z "$survivors" ] || echo "survivors:$survivors (logs in $dir/logs)"
if [ "$counted" = 0 ]; then
	echo "no mutation ran"
	exit 1
fi
rate=$((killed * 1000 / counted))
echo "kill rate: $((rate / 10)).$((rate % 10))% ($killed of $counted)"
[ "$broken" = 0 ] && [ "$rate" -ge 900 ]
