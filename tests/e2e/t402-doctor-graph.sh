#!/usr/bin/env bash
# t402-doctor-graph: a trace that replays CUDA graphs gets no "use CUDA graphs" advice and its
# gaps between graph kernels are not reported as waiting for the host; the same work launched
# eagerly is launch-bound.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

expect_rc 0 "$LATSCOPE" doctor --format json "$data/handmade-doctor-graph.json"
python3 - "$TMPDIR/out" <<'PY' || fail "graph replay judged wrongly"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [f["id"] for f in d["findings"]]
assert "launch-bound" not in ids and "host-bound-idle" not in ids, ids
for f in d["findings"]:
    assert "torch.cuda.CUDAGraph" not in f["recommendation"], f["id"]
t = d["traces"][0]
assert t["graph_launches"] == 3, t
assert t["host_wait_idle_pct"] < 10, t
PY
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-doctor-launch.json"
contains "$TMPDIR/out" '"id": "launch-bound"'
exit 0
