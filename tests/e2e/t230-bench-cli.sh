#!/usr/bin/env bash
# t230-bench-cli: `latscope bench` option errors (exit 2, nothing on stdout) and a run against
# a port nobody listens on (connect errors counted, the run completes, INVALID = exit 1).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"

expect_rc 0 "$LATSCOPE" bench --help
contains "$TMPDIR/out" "usage: latscope bench"
contains "$TMPDIR/out" "--concurrency"

for args in "" "ftp://x/" "http://127.0.0.1:1/ extra" "-c 0 http://127.0.0.1:1/" \
    "-c 1:8:x1 http://127.0.0.1:1/" "--rate 10 -c 2 http://127.0.0.1:1/" \
    "--arrival weibull -r 5 http://127.0.0.1:1/" "--duration 0 http://127.0.0.1:1/" \
    "--format xml http://127.0.0.1:1/" "--bogus http://127.0.0.1:1/" \
    "--input x:1:FLOAT http://127.0.0.1:1/v2/models/m" "--warmup abc http://127.0.0.1:1/" \
    "-H NoColon http://127.0.0.1:1/" "--expect-status 200 http://127.0.0.1:1/" \
    "--body @/nonexistent/file http://127.0.0.1:1/"; do
    # shellcheck disable=SC2086
    expect_rc 2 "$LATSCOPE" bench $args
    [[ ! -s $TMPDIR/out ]] || fail "stdout not empty for bench $args"
    [[ -s $TMPDIR/err ]] || fail "no diagnostic for bench $args"
done
contains "$TMPDIR/err" "/nonexistent/file"

# A free port, closed again: nobody listens there.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect_rc 1 "$LATSCOPE" bench -c 2 --duration 500ms --format json "http://127.0.0.1:$port/"
cp "$TMPDIR/out" "$TMPDIR/r.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/r.json"
cp "$TMPDIR/r.json" "$TMPDIR/out"
python3 - "$TMPDIR/out" <<'PY' || fail "JSON result wrong: $(cat "$TMPDIR/out")"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]
assert d["target"] == "http" and p["concurrency"] == 2 and p["rate"] is None
assert p["requests"] == 0 and p["errors"]["connect"] >= 2, p["errors"]
assert p["errors"]["total"] == sum(v for k, v in p["errors"].items() if k != "total")
assert p["valid"] is False and "no request" in p["invalid_reason"]
PY
# Text output says INVALID and why; exit 1.
expect_rc 1 "$LATSCOPE" bench -c 1 --duration 200ms "http://127.0.0.1:$port/"
contains "$TMPDIR/out" "INVALID"
contains "$TMPDIR/out" "connect"
exit 0
