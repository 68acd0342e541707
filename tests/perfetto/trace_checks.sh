# Shell helpers for the tests that write Perfetto traces; source after
# tests/checks.sh. Each trace is expanded, decoded by protoc against
# Perfetto's own schema (../shared/perfetto, test data) and read back by
# trace-check (tests/perfetto/trace_check.c).
needs_built tests/trace-check
trace_check="$build/tests/trace-check"
perfetto_schema="$shared/perfetto/perfetto_trace.proto"

# decode_trace TRACE: $TRACE.txt, the trace as protoc decodes it with
# Perfetto's schema; fails when protoc cannot.
decode_trace() {
	"$trace_check" expand "$1" "$1.plain" &&
		protoc --decode=perfetto.protos.Trace -I "$(dirname "$perfetto_schema")" \
			"$perfetto_schema" <"$1.plain" >"$1.txt" 2>"$1.protoc-err" &&
		[ ! -s "$1.protoc-err" ]
}

# check_trace TRACE [NDJSON]: TRACE decodes with Perfetto's schema and
# means what it should (trace-check verify); with NDJSON, its counter
# windows hold the rows' values. The summary is in $TRACE.summary.
check_trace() {
	if ! decode_trace "$1"; then
		fail "$(basename "$1") does not decode as a Perfetto trace"
		sed 's/^/  | /' "$1.protoc-err" | head -5
		return
	fi
	ok
	if "$trace_check" verify "$1.txt" >"$1.summary" 2>"$1.err"; then
		ok
	else
		fail "$(basename "$1") does not mean what it should"
		sed 's/^/  | /' "$1.err" | head -10
	fi
	[ -n "$2" ] || return 0
	if "$trace_check" values "$1.txt" "$2" >"$1.values" 2>"$1.err"; then
		ok
	else
		fail "$(basename "$1")'s counters differ from $(basename "$2")"
		sed 's/^/  | /' "$1.err" | head -10
	fi
}
