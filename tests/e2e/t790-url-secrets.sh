#!/bin/bash
# issue 32: secrets in a URL's query never reach an output of bench (JSON, text, CSV) or the
# HTML report of its JSON (one redaction: core/redact.h).
. "$(dirname "$0")/lib.sh"
T=$TMPDIR
port=$((20000 + RANDOM % 20000))
"$LATSCOPE" serve-test --port $port >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
sleep 1
u="http://127.0.0.1:$port/ok?api_key=SSECRETS&token=TSECRETT"
for f in json text csv; do
    "$LATSCOPE" bench --requests 10 --format $f "$u" >"$T/b.$f" 2>"$T/b.$f.err" || fail "bench --format $f"
done
contains "$T/b.json" "api_key=REDACTED&token=REDACTED"
"$LATSCOPE" report -o "$T/r.html" "$T/b.json" >"$T/r.out" 2>&1 || fail "report"
# an older result with the secrets verbatim: the report still redacts them
sed 's/api_key=REDACTED/api_key=OSECRETO/' "$T/b.json" >"$T/old.json"
"$LATSCOPE" report -o "$T/old.html" "$T/old.json" >>"$T/r.out" 2>&1 || fail "report old"
if grep -l 'SSECRETS\|TSECRETT\|OSECRETO' "$T"/b.* "$T"/r.* "$T/old.html"; then fail "a secret leaked"; fi
exit 0
