#!/usr/bin/env bash
# exclusive: real TCP timing (Nagle + delayed ACK) against a local Python server
# t830-doctor-service-nagle: `latscope doctor RESULT.json` on a bench result. A keep-alive
# HTTP/1.1 server writing headers and body in two sends (tests/tools/nagle-server.py) gets
# nagle-delayed-ack first, with its fix; the same server with TCP_NODELAY gets no such finding.
# `latscope report` of each result carries the same findings as doctor, and its bench page puts
# the first one on the first screen (headless Chromium, when installed, reads the DOM).
# Asserts on the classification only, never on absolute times.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
need_python
start_py() { # start_py NAME [nodelay]: sets PY_PORT
    python3 "$LATSCOPE_SRCDIR/tests/tools/nagle-server.py" "$TMPDIR/$1.port" ${2:-} &
    FIXTURE_PIDS+=($!)
    local i
    for i in $(seq 1 100); do
        PY_PORT=$({ tr -dc 0-9 <"$TMPDIR/$1.port"; } 2>/dev/null || true)
        [[ -n $PY_PORT ]] && break
        sleep 0.05
    done
    [[ -n $PY_PORT ]] || fail "nagle-server.py did not write its port"
}

start_py nagle
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --format json \
    "http://127.0.0.1:$PY_PORT/"
cp "$TMPDIR/out" "$TMPDIR/nagle.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/nagle.json"
check_py "$TMPDIR/out" "
f = d['findings']
assert f and f[0]['id'] == 'nagle-delayed-ack', [x['id'] for x in f]
assert f[0]['severity'] in ('medium', 'high'), f[0]['severity']
assert 'TCP_NODELAY' in f[0]['recommendation']
assert 'latscope bench --records' in f[0]['next_step']
"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/nagle.json"
contains "$TMPDIR/out" "nagle-delayed-ack"
contains "$TMPDIR/out" "per request"
expect_rc 1 "$LATSCOPE" doctor --format md "$TMPDIR/nagle.json"
contains "$TMPDIR/out" "nagle-delayed-ack"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/nagle.json"
cp "$TMPDIR/out" "$TMPDIR/nagle-doctor.json"

# report: the page's doctor member is doctor's JSON on the same file (ids, order, savings)
expect_rc 0 "$LATSCOPE" report "$TMPDIR/nagle.json" -o "$TMPDIR/nagle.html"
report_data "$TMPDIR/nagle.html" >"$TMPDIR/nagle-page.json"
python3 - "$TMPDIR/nagle-page.json" "$TMPDIR/nagle-doctor.json" <<'PY' || fail "report's findings differ from doctor's"
import json, sys
page, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
pd = page["pages"][0]["doctor"]
key = lambda f: (f["id"], f["severity"], f["saving_us_per_step"], f["title"])
assert [key(f) for f in pd["findings"]] == [key(f) for f in doc["findings"]], (pd, doc)
assert pd["verdict"] == doc["verdict"] == "findings"
PY
if command -v chromium >/dev/null; then
    report_dom_ok "$TMPDIR/nagle.html" 0
    python3 - "$TMPDIR/body" "$TMPDIR/nagle-doctor.json" <<'PY' || fail "report: the bench page's first screen does not name doctor's first finding"
import html, json, re, sys
body, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
first = doc["findings"][0]
text = html.unescape(re.sub(r"<[^>]+>", " ", body))
w = text.find("What is slow")
assert w >= 0, "no 'What is slow' card"
# the headline names the first finding before the load-point table
assert text.find(first["title"], w) > w, first["title"]
assert text.find("Load points") > text.find(first["title"], w)
assert "Doctor findings" in text and "per request" in text
PY
else
    echo "chromium not installed: the bench page's findings were not rendered (apt-get install chromium)"
fi

start_py nodelay nodelay
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --format json \
    "http://127.0.0.1:$PY_PORT/"
cp "$TMPDIR/out" "$TMPDIR/nodelay.json"
"$LATSCOPE" doctor --format json "$TMPDIR/nodelay.json" >"$TMPDIR/nd.out" || true
check_py "$TMPDIR/nd.out" "
ids = [x['id'] for x in d['findings']]
assert 'nagle-delayed-ack' not in ids, ids
"
cp "$TMPDIR/nd.out" "$TMPDIR/nd-doctor.json"
expect_rc 0 "$LATSCOPE" report "$TMPDIR/nodelay.json" -o "$TMPDIR/nodelay.html"
report_data "$TMPDIR/nodelay.html" >"$TMPDIR/nd-page.json"
python3 - "$TMPDIR/nd-page.json" "$TMPDIR/nd-doctor.json" <<'PY' || fail "report's findings differ from doctor's (TCP_NODELAY)"
import json, sys
page, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
pd = page["pages"][0]["doctor"]
assert [f["id"] for f in pd["findings"]] == [f["id"] for f in doc["findings"]], (pd, doc)
assert pd["verdict"] == doc["verdict"]
PY
exit 0
