#!/usr/bin/env bash
# t188-trt-dump-profile: the per-layer table trtexec prints with --dumpProfile ("=== Profile (N
# iterations ) ===") is read from the text log into the same layer model as --exportProfile:
# analyze's layer table and doctor's TensorRT layer rules work from a log alone. Checked against
# an independent reading of the same log (tests/tools/trt-dumpprofile-truth.py) on the three
# hand-made layouts (TRT >= 8.5, 8.0-8.4, 7) and on every shared trtexec log that has such a
# table (the shared superbench logs have none today: they ran with "Profile: Disabled").
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
truth=$LATSCOPE_SRCDIR/tests/tools/trt-dumpprofile-truth.py
n=0
check() {
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$1"
    cp "$TMPDIR/out" "$TMPDIR/an.json"
    set +e
    python3 "$truth" "$1" "$TMPDIR/an.json" >"$TMPDIR/truth" 2>&1
    local rc=$?
    set -e
    [[ $rc -eq 0 ]] || { cat "$TMPDIR/truth" >&2; fail "$1: latscope differs from the log (rc $rc)"; }
    echo "$(basename "$1"): $(tail -1 "$TMPDIR/truth")"
    n=$((n + 1))
}
for f in "$LATSCOPE_SRCDIR"/tests/data/trt/handmade-trt-dumpprofile-*.log; do check "$f"; done
[[ $n -eq 3 ]] || fail "$n hand-made logs, want 3"
if [[ -d ${LATSCOPE_TRACES:-}/trt ]]; then
    shared=0
    while IFS= read -r f; do
        if grep -q "=== Profile (" "$f"; then check "$f"; shared=$((shared + 1)); fi
    done < <(find "$LATSCOPE_TRACES/trt" -name '*.log' | sort)
    echo "shared trtexec logs with a --dumpProfile table: $shared"
fi

# the text report shows the table's layers and the iterations; the log's summary stays
f=$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-dumpprofile-86.log
expect_rc 0 "$LATSCOPE" analyze "$f"
contains "$TMPDIR/out" "inputs: log,profile"
contains "$TMPDIR/out" "over 290 profiled iterations"
contains "$TMPDIR/out" "Throughput: 170.5 qps"
# doctor's layer rules run on a log alone: the reformat rule fires on the 8.0-8.4 one (6 % of
# the layer time > 5 %), the dominant-layer note names the 97.7 % layer
expect_rc 0 "$LATSCOPE" doctor --fail-on never "$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-dumpprofile-82.log"
contains "$TMPDIR/out" "trt-reformat-layers"
contains "$TMPDIR/out" "Reformatting CopyNode for Input Tensor 0 to conv1"
expect_rc 0 "$LATSCOPE" doctor --fail-on never "$f"
contains "$TMPDIR/out" "takes 97.7 % of the engine's layer time"
# a log cut inside the table keeps the rows before the cut
head -n 13 "$f" >"$TMPDIR/cut.log"
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/cut.log"
[[ $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"][0]["tensorrt"]["layers_profiled"])' \
    "$TMPDIR/out") == 2 ]] || fail "cut log: not 2 layers"
