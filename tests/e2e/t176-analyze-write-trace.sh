#!/usr/bin/env bash
# t176-analyze-write-trace: `analyze --write-trace OUT` writes the trace with HTA's counter tracks
# (generate_trace_with_counters, analyses.md §9 and §18): on negative_queue_length_values_check
# HTA f4d0062 writes 12848 ph "C" events (Queue Length 10448, Memcpy DtoD 1824, Memset 400,
# Memcpy HtoD 128, Memcpy DtoH 48; run on a copy of the file, counted with Python's json);
# latscope must write the same series with the same point counts, no negative value, and keep
# every original event.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 absent"

# errors first: an unwritable output fails before anything is read; several ranks are refused
expect_rc 2 "$LATSCOPE" analyze --write-trace /nonexistent-dir/x.json "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json"
contains "$TMPDIR/err" "cannot write there"
contains "$TMPDIR/err" "nothing was read"
expect_rc 2 "$LATSCOPE" analyze --write-trace "$TMPDIR" "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json"
contains "$TMPDIR/err" "is a directory"
B=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json
expect_rc 1 "$LATSCOPE" analyze --write-trace "$TMPDIR/two.json" "$B" \
    "$LATSCOPE_SRCDIR/tests/data/handmade-kineto-current.json"
contains "$TMPDIR/err" "writes one trace"

# a hand-made trace: the counters of its one stream, readable again
expect_rc 0 "$LATSCOPE" analyze --write-trace "$TMPDIR/basic-counters.json" "$B"
python3 - "$B" "$TMPDIR/basic-counters.json" <<'PY' || fail "hand-made counters"
import json, sys
src = json.load(open(sys.argv[1]))["traceEvents"]
out = json.load(open(sys.argv[2]))["traceEvents"]
c = [e for e in out if e.get("ph") == "C"]
assert {e["name"] for e in c} == {"Queue Length", "Memcpy HtoD"}, c
assert all(v >= 0 for e in c for v in e["args"].values()), c
assert len([e for e in out if e.get("ph") != "C" and e.get("ph") != "M"]) >= \
    len([e for e in src if e.get("ph") not in ("C", "M")]) - 0, "events lost"
PY
expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/basic-counters.json"

F=$(need_trace hta/tests/data/negative_queue_length_values_check/rank0.json.gz)
expect_rc 0 "$LATSCOPE" analyze --hta-compat --write-trace "$TMPDIR/nq.json.gz" "$F"
python3 - "$F" "$TMPDIR/nq.json.gz" <<'PY' || fail "counter tracks differ from HTA's"
import gzip, json, sys
from collections import Counter
src = json.load(gzip.open(sys.argv[1]))["traceEvents"]
out = json.load(gzip.open(sys.argv[2]))["traceEvents"]
c = [e for e in out if e.get("ph") == "C"]
got = Counter(e["name"] for e in c)
want = {"Queue Length": 10448, "Memcpy DtoD": 1824, "Memset": 400, "Memcpy HtoD": 128,
        "Memcpy DtoH": 48}
assert dict(got) == want, dict(got)
assert all(v >= 0 for e in c for v in e["args"].values()), "negative counter value"
assert all("id" in e for e in c if e["name"] == "Queue Length"), "Queue Length without its stream id"
# every original X event is still there (by name and ts)
key = lambda e: (e.get("name"), e.get("ts"))
orig = Counter(key(e) for e in src if e.get("ph") == "X")
kept = Counter(key(e) for e in out if e.get("ph") == "X")
missing = orig - kept
assert not missing, list(missing.items())[:5]
PY
exit 0
