#!/usr/bin/env bash
# t810-report-lane-depth: a timeline lane has a row per nesting depth up to 64 rows, and events
# nested deeper are not drawn over the last row (issue 30 item 7: lanes were capped at 10 rows
# and deeper events overdrew it; a depth-43 decode trace showed 1 of 5 steps). A hand-made
# trace: thread 1 has 5 ProfilerSteps, each holding a chain of 43 nested ops (depth 43); thread 2
# has one chain nested 70 deep. Headless Chromium (SKIP without it) with #rowtest: thread 1's
# lane has 44 rows, thread 2's 64, the whole view draws every event but the 7 nested deeper
# than 63 (depth 64..70), and the info line says so.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (it writes the trace)"
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
T=$TMPDIR
python3 - "$T/deep.json" <<'EOF_PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "decode"}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "deep"}}]
for s in range(5):  # 5 steps of 1000 us, each a chain of 43 ops nested inside it
    t0 = s * 1100
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1, "ts": t0, "dur": 1000})
    for d in range(1, 44):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "layer%d" % d, "pid": 1, "tid": 1, "ts": t0 + 5 * d, "dur": 1000 - 10 * d})
for d in range(71):  # depth 0..70 on thread 2
    ev.append({"ph": "X", "cat": "cpu_op", "name": "nest%d" % d, "pid": 1, "tid": 2, "ts": 5 * d, "dur": 5000 - 10 * d})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF_PY
"$LATSCOPE" report "$T/deep.json" -o "$T/r.html" 2>/dev/null || fail "report failed"
report_data "$T/r.html" >"$T/data.json"
report_dom_ok "$T/r.html" "0&rowtest"
sc=$(grep -o '<div id="selfcheck">[^<]*' "$T/dom")
python3 - "$sc" "$T/data.json" <<'EOF_PY' || fail "lanes: $sc"
import json, re, sys
sc, d = sys.argv[1], json.load(open(sys.argv[2]))
lanes = d["pages"][0]["timeline"]["lanes"]
md = dict((l["label"], l["maxdepth"]) for l in lanes)
got = re.search(r"rowtest (.*) \| drawn (\d+) hidden (\d+)", sc)
assert got, sc
rows = dict((m.group(1).strip(", "), (int(m.group(2)), int(m.group(3))))
            for m in re.finditer(r"([^,]*?) rows (\d+) depth (\d+)", got.group(1)))
deco = [k for k in rows if "decode" in k]
deep = [k for k in rows if "deep" in k]
assert len(deco) == 1 and len(deep) == 1, rows
assert rows[deco[0]] == (44, 43), rows[deco[0]]
assert rows[deep[0]] == (64, 70), rows[deep[0]]
total = sum(len(l["ts"]) for l in lanes)
assert int(got.group(3)) == 7 and int(got.group(2)) == total - 7, (got.groups(), total)
print("lanes", rows, "drawn", got.group(2), "of", total)
EOF_PY
grep -q "7 nested deeper than their lane's rows not drawn" "$T/body" || fail "the info line does not say 7 events were not drawn"
exit 0
