#!/usr/bin/env bash
# t700-nsys-cudabacktrace-rows: an Nsight Systems export of a run with `--cudabacktrace` (nsys
# 2022.x, export schema 2.9) holds, beside each long CUDA call's row of eventClass 0, a
# backtrace record of eventClass 67 (TRACE_PROCESS_EVENT_CUDABACKTRACE) with the same
# correlationId in CUPTI_ACTIVITY_KIND_RUNTIME. Those are not calls: analyze's syncs, doctor's
# allocator-churn and convert's events count each call once, as SQL over the eventClass-0 rows
# says (the independent check). Input: the HAND-MADE export tests/data/nsys/
# handmade-nsys2022-cudabacktrace.sql (schema 2.9's tables and columns, made-up numbers); the
# shared real nsys 2024.5 export (no class-67 rows) keeps every runtime/driver row.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed (scripts/deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
db=$TMPDIR/bt.sqlite
sqlite3 "$db" <"$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys2022-cudabacktrace.sql" ||
    fail "sqlite3 could not build the hand-made export"
q() { sqlite3 -readonly -batch -noheader -separator '|' "$1" "$2"; }
set +e
"$LATSCOPE" analyze --format json "$db" >"$TMPDIR/a.json" 2>"$TMPDIR/err"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
    grep -q "built without SQLite" "$TMPDIR/err" && skip "latscope built without SQLite"
    cat "$TMPDIR/err" >&2
    fail "analyze failed on the hand-made export"
fi
# the input really has the twins (else this test proves nothing)
[[ $(q "$db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67") -gt 0 ]] ||
    fail "the hand-made export has no eventClass-67 rows"

# expected (SQL): the eventClass-0 cudaMemcpy rows (count | total µs with 3 decimals)
want=$(q "$db" "SELECT count(*) || '|' || printf('%.3f', sum(R.end - R.start) / 1000.0)
                FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN StringIds S ON S.id = R.nameId
                WHERE R.eventClass = 0 AND S.value LIKE 'cudaMemcpy%'")
got=$(jq -r '.ranks[0].syncs.calls[] | select(.name == "cudaMemcpy") | "\(.count)|\(.total_us | . * 1000 | round / 1000 | tostring)"' "$TMPDIR/a.json")
# jq drops trailing zeros: compare as numbers
awk -F'|' -v w="$want" -v g="$got" 'BEGIN { split(w, a, "|"); split(g, b, "|");
    exit !(a[1] == b[1] && (a[2] - b[2]) < 0.0005 && (b[2] - a[2]) < 0.0005) }' ||
    fail "syncs cudaMemcpy: latscope $got, SQL over eventClass 0: $want"

# convert: one cuda_runtime event per eventClass-0 row, by name
q "$db" "SELECT S.value, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN StringIds S ON S.id = R.nameId
         WHERE R.eventClass = 0 GROUP BY 1 ORDER BY 1" | sed 's/_v[0-9]*|/|/' | LC_ALL=C sort >"$TMPDIR/want.rt"
expect_rc 0 "$LATSCOPE" convert "$db" -o "$TMPDIR/c.json"
jq -r '[.traceEvents[] | select(.cat == "cuda_runtime") | .name] | group_by(.) | .[] | "\(.[0])|\(length)"' \
    "$TMPDIR/c.json" | LC_ALL=C sort >"$TMPDIR/got.rt"
diff "$TMPDIR/want.rt" "$TMPDIR/got.rt" >&2 || fail "convert's runtime events differ from the eventClass-0 rows"
n67=$(q "$db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67")
jq -e --argjson n "$n67" '.nsys_backtrace_rows_skipped == $n' "$TMPDIR/c.json" >/dev/null ||
    fail "metadata nsys_backtrace_rows_skipped is not $n67: $(jq -c .nsys_backtrace_rows_skipped "$TMPDIR/c.json")"

# doctor: allocator-churn counts each cudaMalloc/cudaFree once
walloc=$(q "$db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN StringIds S ON S.id = R.nameId
                  WHERE R.eventClass = 0 AND (S.value LIKE 'cudaMalloc%' OR S.value LIKE 'cudaFree%')")
"$LATSCOPE" doctor --format json "$db" >"$TMPDIR/d.json" || true
galloc=$(jq -r '[.findings[] | select(.id == "allocator-churn") | .evidence.calls_per_step] | first // "none"' "$TMPDIR/d.json")
[[ $galloc == "$walloc" ]] || fail "doctor allocator-churn: $galloc calls, SQL over eventClass 0: $walloc"

# the shared real export (nsys 2024.5): every runtime/driver row is a call and is kept
real=${LATSCOPE_TRACES:-}/nsys/perlmutter-cloverleaf-cuda.sqlite
if [[ -e $real ]]; then
    expect_rc 0 "$LATSCOPE" convert "$real" -o "$TMPDIR/r.json"
    want=$(q "$real" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IN (0, 1)")
    got=$(jq '[.traceEvents[] | select(.cat == "cuda_runtime" or .cat == "cuda_driver")] | length' "$TMPDIR/r.json")
    [[ $got == "$want" ]] || fail "shared export: $got runtime/driver events, SQL: $want rows"
    jq -e 'has("nsys_backtrace_rows_skipped") | not' "$TMPDIR/r.json" >/dev/null ||
        fail "shared export: backtrace rows reported where it has none"
fi
echo ok
