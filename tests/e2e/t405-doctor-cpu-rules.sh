#!/usr/bin/env bash
# t405-doctor-cpu-rules: each CPU-inference rule of the doctor fires on its hand-made CPU-only
# trace and stays silent on its negative twin (tests/data/handmade-doctor-cpurule-*.json, made by
# gen-handmade-doctor-cpu-rules.py, numbers in its comments); no CPU-only report gives GPU advice;
# a first step slowed by contention is not called warm-up, one that did more work is.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
ids() { # ids FILE: the finding ids of doctor's JSON on FILE, one per line
    set +e
    "$LATSCOPE" doctor --format json "$1" >"$TMPDIR/j.json" 2>"$TMPDIR/j.err"
    local rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/j.err" >&2; fail "$1: exit $rc"; }
    python3 -c 'import json,sys; [print(f["id"]) for f in json.load(open(sys.argv[1]))["findings"]]' "$TMPDIR/j.json"
}
has() {
    local got
    got=$(ids "$data/handmade-doctor-cpurule-$1.json")
    grep -qx "$2" <<<"$got" || fail "$1: no $2 finding (got: $got)"
}
hasnt() {
    local got
    got=$(ids "$data/handmade-doctor-cpurule-$1.json")
    if grep -qx "$2" <<<"$got"; then fail "$1: unexpected $2 finding"; fi
}

has python cpu-python-overhead
hasnt python-neg cpu-python-overhead
has preprocessing cpu-preprocessing
hasnt preprocessing-neg cpu-preprocessing
has small-ops cpu-small-ops
hasnt small-ops-neg cpu-small-ops
has small-ops cpu-eager
hasnt eager-compiled cpu-eager
has alloc cpu-allocation-churn
hasnt alloc-neg cpu-allocation-churn
has contention cpu-contention
hasnt warmup cpu-contention

# Numbers worked out in the generator: Python 80 % of the step, pre/post-processing 30 %,
# small ops 80 %, contention (relu 4 x 700 + add 2 x 600 extra in step #0) 4 ms / 6 steps.
"$LATSCOPE" doctor --format json "$data/handmade-doctor-cpurule-contention.json" >"$TMPDIR/c.json" || true
python3 - "$TMPDIR/c.json" <<'PY' || fail "contention numbers"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
c = f["cpu-contention"]
assert abs(c["saving_us_per_step"] - 4000 / 6) < 0.01, c["saving_us_per_step"]
ops = {r["op"]: r for r in c["evidence"]["slowed_ops_in_worst_step"]}
assert set(ops) == {"aten::relu", "aten::add"}, ops  # conv is only 2x slower
assert ops["aten::relu"]["calls"] == 4 and abs(ops["aten::relu"]["slowdown"] - 8) < 1e-6, ops
t = f["tail-steps"]
assert t["severity"] == "info", t
assert t["evidence"]["warm_up"] is False and t["evidence"]["slow_steps_with_cpu_contention"] == 1, t
assert "this is warm-up" not in t["recommendation"], t["recommendation"]
assert "cpu-contention" in t["recommendation"], t["recommendation"]
PY
"$LATSCOPE" doctor --format json "$data/handmade-doctor-cpurule-warmup.json" >"$TMPDIR/w.json" || true
python3 - "$TMPDIR/w.json" <<'PY' || fail "warm-up step"
import json, sys
t = [x for x in json.load(open(sys.argv[1]))["findings"] if x["id"] == "tail-steps"][0]
assert t["evidence"]["warm_up"] is True, t
assert "this is warm-up" in t["recommendation"], t["recommendation"]
PY
for n in python preprocessing small-ops alloc; do
    "$LATSCOPE" doctor --format json "$data/handmade-doctor-cpurule-$n.json" >"$TMPDIR/n.json" || true
    python3 - "$TMPDIR/n.json" "$n" <<'PY' || fail "$n numbers"
import json, sys
want = {"python": ("cpu-python-overhead", 80.0), "preprocessing": ("cpu-preprocessing", 30.0),
        "small-ops": ("cpu-small-ops", 80.0), "alloc": ("cpu-allocation-churn", 4.0)}[sys.argv[2]]
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["id"] == want[0]][0]
assert abs(f["saving_pct"] - want[1]) < 0.01, (f["id"], f["saving_pct"])
PY
done

# Never GPU advice without GPU evidence: every CPU-only report, hand-made and (when present)
# the real torch-cpu traces of the shared corpus.
gpu_words='cudaMalloc|cuDNN|cudnn|TensorRT|pin_memory|trace --cuda|CUDA graph|nsys|ncu '
files=("$data"/handmade-doctor-cpurule-*.json)
if [[ -d ${LATSCOPE_TRACES:-/nonexistent}/torch-cpu ]]; then
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$LATSCOPE_TRACES/torch-cpu" -name '*.pt.trace.json*' -print0)
fi
for f in "${files[@]}"; do
    set +e
    "$LATSCOPE" doctor "$f" >"$TMPDIR/t.txt" 2>"$TMPDIR/t.err"
    rc=$?
    set -e
    [[ $rc -le 1 || $rc -eq 3 ]] || fail "$f: exit $rc"
    contains "$TMPDIR/t.txt" "no GPU activity in the trace (CPU-only)"
    if grep -Eq "$gpu_words" "$TMPDIR/t.txt"; then
        grep -En "$gpu_words" "$TMPDIR/t.txt" >&2
        fail "$f: GPU advice on a CPU-only trace"
    fi
done
exit 0
