#!/usr/bin/env bash
# t175-nsys-cpu-samples: the CPU sampling of an Nsight Systems SQLite export (COMPOSITE_EVENTS
# with their SAMPLING_CALLCHAINS) is imported as CPU samples the way `latscope trace --cpu`
# records them, and analyze's CPU section equals the database by independent sqlite3 queries:
# the number of samples, per function the samples it is the leaf of (self: stackDepth 0, a
# sample without a callchain is "[unknown]") and the samples it appears in (total), and the
# samples per thread (globalTid -> tid).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
db=$(need_trace nsys/perlmutter-cloverleaf-cuda.sqlite)
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed (scripts/deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
q() { sqlite3 -readonly -batch -noheader -separator '|' "$db" "$1"; }

if ! "$LATSCOPE" analyze --format json --top 100000 "$db" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err"; then
    grep -q "built without SQLite" "$TMPDIR/an.err" && skip "latscope built without SQLite"
    cat "$TMPDIR/an.err" >&2
    fail "analyze failed on the nsys export"
fi
n=$(q "SELECT count(*) FROM COMPOSITE_EVENTS")
[[ $n -gt 0 ]] || fail "the export has no CPU samples?"
got=$(jq '.ranks[0].cpu.samples' "$TMPDIR/an.json")
[[ $got == "$n" ]] || fail "samples: latscope $got, SQL $n"

q "SELECT coalesce(S.value, '[unknown]'), count(*) FROM COMPOSITE_EVENTS C
   LEFT JOIN SAMPLING_CALLCHAINS K ON K.id = C.id AND K.stackDepth = 0
   LEFT JOIN StringIds S ON S.id = K.symbol GROUP BY 1" | LC_ALL=C sort >"$TMPDIR/self.sql"
jq -r '.ranks[0].cpu.top_functions_self[] | select(.self > 0) | [.function, .self] | join("|")' \
    "$TMPDIR/an.json" | LC_ALL=C sort >"$TMPDIR/self.lat"
diff "$TMPDIR/self.sql" "$TMPDIR/self.lat" >&2 || fail "self samples per function differ"

q "SELECT S.value, count(DISTINCT K.id) FROM SAMPLING_CALLCHAINS K JOIN StringIds S ON S.id = K.symbol
   GROUP BY S.value" | LC_ALL=C sort >"$TMPDIR/total.sql"
q "SELECT '[unknown]', count(*) FROM COMPOSITE_EVENTS C WHERE NOT EXISTS
   (SELECT 1 FROM SAMPLING_CALLCHAINS K WHERE K.id = C.id) HAVING count(*) > 0" >>"$TMPDIR/total.sql"
LC_ALL=C sort "$TMPDIR/total.sql" -o "$TMPDIR/total.sql"
jq -r '.ranks[0].cpu.top_functions_total[] | [.function, .total] | join("|")' "$TMPDIR/an.json" |
    LC_ALL=C sort >"$TMPDIR/total.lat"
diff "$TMPDIR/total.sql" "$TMPDIR/total.lat" >&2 || fail "total samples per function differ"

q "SELECT globalTid % 16777216, count(*) FROM COMPOSITE_EVENTS GROUP BY 1" | LC_ALL=C sort >"$TMPDIR/thr.sql"
jq -r '.ranks[0].cpu.threads[] | select(.samples > 0) | [.tid, .samples] | join("|")' "$TMPDIR/an.json" |
    LC_ALL=C sort >"$TMPDIR/thr.lat"
diff "$TMPDIR/thr.sql" "$TMPDIR/thr.lat" >&2 || fail "samples per thread differ"
exit 0
