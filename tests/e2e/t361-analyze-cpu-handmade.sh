#!/usr/bin/env bash
# t361-analyze-cpu-handmade: `latscope analyze` on a hand-made trace with CPU samples (cat
# cpu_sample, as `latscope trace --cpu` writes them) prints the CPU section (functions by self
# and total, stacks, threads on/off-CPU) and the JSON "cpu" object; a trace without samples
# gets neither. Numbers worked out from tests/data/handmade-doctor-cpu.json: 4 steps x 10
# samples on thread 100 (server-main) and on thread 101 (worker, always in spin), 1 kHz.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
expect_rc 0 "$LATSCOPE" analyze "$data/handmade-doctor-cpu.json"
contains "$TMPDIR/out" "CPU samples: 80 on-CPU (period 1.000 ms, ~0.080 s on-CPU), 4 off-CPU intervals (0.002 s)"
contains "$TMPDIR/out" "Top functions by self samples:"
grep -Eq '^ +20 +25\.0% +20 +25\.0%  encode$' "$TMPDIR/out" || fail "encode self row"
grep -Eq '^ +20 +25\.0%  py:dumps \(json/__init__\.py\)$' "$TMPDIR/out" || fail "py:dumps total row"
grep -Eq '^ +40 +50\.0%  _start;worker_loop;spin$' "$TMPDIR/out" || fail "top stack"
grep -Eq '^ +100 +100 +0\.040 +0\.002 +40  server-main +encode$' "$TMPDIR/out" || fail "thread row"

expect_rc 0 "$LATSCOPE" analyze --format json --top 3 "$data/handmade-doctor-cpu.json"
python3 - "$TMPDIR/out" <<'PY' || fail "JSON cpu object"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["ranks"][0]["cpu"]
assert c["samples"] == 80 and c["off_cpu_intervals"] == 4, c
assert c["period_us"] == 1000.0 and c["off_cpu_us"] == 2400.0 and c["on_cpu_us"] == 80000.0, c
assert len(c["top_functions_self"]) == 3 and len(c["top_stacks"]) == 3, c  # --top 3
assert c["top_functions_self"][0] == {"function": "spin", "self": 40, "self_share": 0.5,
                                      "total": 40, "total_share": 0.5}, c["top_functions_self"][0]
assert c["top_functions_total"][0]["function"] == "_start", c["top_functions_total"]
th = {t["tid"]: t for t in c["threads"]}
assert th[100]["name"] == "server-main" and th[100]["top_function"] == "encode", th
assert th[100]["off_cpu_us"] == 2400.0 and th[100]["off_cpu_intervals"] == 4, th
assert th[101]["off_cpu_us"] == 0.0 and th[101]["samples"] == 40, th
assert "cpu" not in d["whole"], d["whole"].keys()
PY

# No samples: no CPU section, no "cpu" key.
expect_rc 0 "$LATSCOPE" analyze "$data/handmade-analyze-basic.json"
if grep -q "CPU samples" "$TMPDIR/out"; then fail "CPU section without samples"; fi
expect_rc 0 "$LATSCOPE" analyze --format json "$data/handmade-analyze-basic.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert all("cpu" not in r for r in d["ranks"]), "cpu key"' \
    <"$TMPDIR/out" || fail "cpu key without samples"
