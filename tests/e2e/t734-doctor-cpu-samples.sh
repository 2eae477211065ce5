#!/usr/bin/env bash
# t734-doctor-cpu-samples: CPU-sample traces get findings, not "no rule applies". A real
# `latscope trace --cpu` of tests/tools/cpu-preprocess-loop.py (preprocess() is most of the
# CPU): cpu-hot-function names preprocess with the share of the samples whose innermost Python
# frame it is (>= 40 %, at most analyze's total share of it). The real py-spy (speedscope, raw) and perf
# script samples of $LATSCOPE_TRACES/cpu-stacks: doctor exits 1 with cpu-hot-function
# (Session.run under py-spy, ORT's .so under perf) and cpu-startup for py-spy's imports.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
ran=0
doc() { # FILE: doctor JSON into $TMPDIR/d.json; must exit 1 (findings)
    set +e
    "$LATSCOPE" doctor --format json "$1" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
    local rc=$?
    set -e
    [[ $rc -eq 1 ]] || { cat "$TMPDIR/err" "$TMPDIR/d.json" >&2; fail "$1: doctor exited $rc"; }
}
if command -v python3 >/dev/null &&
    "$LATSCOPE" trace --cpu -o "$TMPDIR/loop.json" -- python3 "$LATSCOPE_SRCDIR/tests/tools/cpu-preprocess-loop.py" \
        >"$TMPDIR/trace.log" 2>&1; then
    doc "$TMPDIR/loop.json"
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/loop.json"
    cp "$TMPDIR/out" "$TMPDIR/a.json"
    python3 - "$TMPDIR/d.json" "$TMPDIR/a.json" <<'PY' || fail "trace --cpu: cpu-hot-function"
import json, sys
d, a = (json.load(open(p)) for p in sys.argv[1:3])
f = [x for x in d["findings"] if x["id"] == "cpu-hot-function"]
if not f:
    sys.exit("no cpu-hot-function")
f = f[0]
ev = f["evidence"]
if not ev["function"].startswith("py:preprocess ("):
    sys.exit(f"hot function {ev['function']}")
cpu = a["ranks"][0]["cpu"]
tot = {x["function"]: x for x in cpu["top_functions_total"]}
row = tot.get(ev["function"])
# the samples where it is the innermost Python frame are among those with it on the stack
if row is None or ev["share_pct"] > 100.0 * row["total"] / cpu["samples"] + 0.01:
    sys.exit(f"share {ev['share_pct']} vs analyze {row}")
if ev["share_pct"] < 40:
    sys.exit(f"preprocess only {ev['share_pct']} % of the samples")
if f["saving_bound"] != "upper":
    sys.exit("saving_bound")
PY
    ran=$((ran + 1))
else
    echo "trace --cpu not possible here: $(tail -1 "$TMPDIR/trace.log")"
fi
cs=${LATSCOPE_TRACES:-}/cpu-stacks
if [[ -d $cs ]]; then
    for f in "$cs"/pyspy0.4.3_ort_transformer.speedscope.json "$cs"/pyspy0.4.3_ort_transformer.raw.txt; do
        doc "$f"
        [[ $(jq -r '.findings[] | select(.id == "cpu-hot-function") | .evidence.function' "$TMPDIR/d.json") == "py:Session.run "* ]] ||
            fail "$f: hot function"
        jq -e '.findings[] | select(.id == "cpu-startup")' "$TMPDIR/d.json" >/dev/null || fail "$f: no cpu-startup"
    done
    doc "$cs"/perf6.1_ort_transformer.perf-script.txt
    jq -r '.findings[] | select(.id == "cpu-hot-function") | .evidence.function' "$TMPDIR/d.json" | grep -q onnxruntime ||
        fail "perf script: hot function"
    set +e
    "$LATSCOPE" doctor "$cs"/pyspy0.4.3_ort_transformer.speedscope.json >"$TMPDIR/t.txt" 2>&1
    set -e
    contains "$TMPDIR/t.txt" "cpu-hot-function"
    ! grep -q "no rule applies" "$TMPDIR/t.txt" || fail "no rule applies on CPU samples"
    ran=$((ran + 1))
fi
[[ $ran -gt 0 ]] || skip "neither trace --cpu nor \$LATSCOPE_TRACES/cpu-stacks"
exit 0
