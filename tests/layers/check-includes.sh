#!/bin/sh
# Checks every #include "..." of the .c and .h files under ROOT (default:
# the current folder) against ROOT/DEPS, which says what may include what.
#
#   sh tests/layers/check-includes.sh [ROOT]
#
# Prints one line per include that breaks a rule, "FILE:LINE: #include
# "WHAT": ... (DEPS:N: the rule)", and exits 1; exits 0, saying how many
# includes it checked, when none does; 2 when DEPS cannot be read.
root=${1:-.}
cd "$root" || exit 2
if [ ! -r DEPS ]; then
	echo "check-includes: no DEPS file in $root" >&2
	exit 2
fi
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find . \( -path ./build -o -path ./web -o -path ./.git \) -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort >"$list"

# Arguments: DEPS, then the file list (to resolve includes), then each file.
# shellcheck disable=SC2046
awk '
function fail_deps(line, msg) {
	printf "DEPS:%d: %s\n", line, msg > "/dev/stderr"
	deps_broken = 1
	exit 2
}

# A pattern (folder/, glob with *) as an anchored regular expression.
function pattern_regex(p,    re, i, c) {
	re = "^"
	for (i = 1; i <= length(p); i++) {
		c = substr(p, i, 1)
		if (c == "*")
			re = re ".*"
		else if (index(".[]()+?^$|\\{}", c))
			re = re "\\" c
		else
			re = re c
	}
	return substr(p, length(p)) == "/" ? re : re "$"
}

function layer_of(path,    i, best, best_len) {
	best = ""
	best_len = -1
	for (i = 1; i <= n_members; i++)
		if (path ~ member_re[i] && length(member_pat[i]) > best_len) {
			best = member_layer[i]
			best_len = length(member_pat[i])
		}
	return best
}

function folder_of(path,    n) {
	n = split(path, part, "/")
	return n > 1 ? substr(path, 1, length(path) - length(part[n])) : ""
}

# Whether path is one of the entry: a pattern or @layer.
function matches(entry, path) {
	if (substr(entry, 1, 1) == "@")
		return layer_of(path) == substr(entry, 2)
	return path ~ pattern_regex(entry)
}

# A directive line, with the lines that continue it.
function directive(text, line,    name, colon, rest, n, w, i) {
	colon = index(text, ":")
	if (!colon)
		fail_deps(line, "a rule needs a colon: " text)
	name = substr(text, 1, colon - 1)
	rest = substr(text, colon + 1)
	n = split(rest, w, /[ \t]+/)
	if (name ~ /^layer /) {
		sub(/^layer[ \t]+/, "", name)
		n_layers++
		layer_rank[name] = n_layers
		layer_line[name] = line
		layer_text[name] = text
		for (i = 1; i <= n; i++) {
			if (w[i] == "")
				continue
			n_members++
			member_pat[n_members] = w[i]
			member_re[n_members] = pattern_regex(w[i])
			member_layer[n_members] = name
		}
		return
	}
	if (name == "layered") {
		for (i = 1; i <= n; i++)
			if (w[i] != "")
				layered[++n_layered] = pattern_regex(w[i])
		return
	}
	n_rules++
	rule_line[n_rules] = line
	rule_text[n_rules] = text
	rule_files[n_rules] = name
	rule_what[n_rules] = rest
	for (i = 1; i <= n; i++)
		if (w[i] != "" && w[i] !~ /^[+-]./)
			fail_deps(line, "a rule allows (+) or forbids (-): " w[i])
}

function flush_directive() {
	if (pending != "")
		directive(pending, pending_line)
	pending = ""
}

function check(file, line, inc, target,    fl, tl, verdict, why, r, n, f, w, i, j, sign, what, hit) {
	fl = layer_of(file)
	tl = layer_of(target)
	verdict = "+"
	if (fl != "" && tl != "" && layer_rank[tl] > layer_rank[fl]) {
		verdict = "-"
		why = sprintf("layer %s includes only the layers below it, and %s is in layer %s above it (DEPS:%d: %s)",
			      fl, target, tl, layer_line[tl], layer_text[tl])
	}
	for (r = 1; r <= n_rules; r++) {
		n = split(rule_files[r], f, /[ \t]+/)
		hit = 0
		for (i = 1; i <= n; i++)
			if (f[i] != "" && matches(f[i], file))
				hit = 1
		if (!hit)
			continue
		n = split(rule_what[r], w, /[ \t]+/)
		for (j = 1; j <= n; j++) {
			if (w[j] == "")
				continue
			sign = substr(w[j], 1, 1)
			what = substr(w[j], 2)
			if (what == "./")
				what = folder_of(file)
			if (matches(what, target)) {
				verdict = sign
				why = sprintf("breaks DEPS:%d: %s", rule_line[r], rule_text[r])
			}
		}
	}
	checked++
	if (verdict == "-") {
		printf "%s:%d: #include \"%s\": %s\n", file, line, inc, why
		broken++
	}
}

FILENAME == "DEPS" {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	if ($0 ~ /^[ \t]/) {
		if (pending == "")
			fail_deps(FNR, "a continued line continues nothing")
		line = $0
		sub(/^[ \t]+/, "", line)
		pending = pending " " line
		next
	}
	flush_directive()
	pending = $0
	pending_line = FNR
	next
}

FILENAME == list {
	flush_directive()
	exists[$0] = 1
	for (i = 1; i <= n_layered; i++)
		if ($0 ~ layered[i] && layer_of($0) == "") {
			printf "%s: in no layer of DEPS; add it to the layer it belongs to\n", $0
			broken++
		}
	next
}

/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	target = folder_of(FILENAME) inc
	if (!(target in exists))
		target = inc
	check(FILENAME, FNR, inc, target)
}

END {
	if (deps_broken)
		exit 2
	if (broken)
		exit 1
	printf "check-includes: %d includes follow DEPS\n", checked
}
' DEPS list="$list" "$list" $(cat "$list")
