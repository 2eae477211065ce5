#!/usr/bin/env bash
# t702-trt-times-drops: TensorRT --exportTimes queries with unusable times (a negative time, a
# string, a missing field, an end before its start) are left out and counted in the model's one
# drop accounting: analyze's dropped.{total,queries,by_reason} and the TensorRT section's
# queries.dropped, a warning on stderr (analyze and doctor), the throughput and statistics over
# the usable queries only, as tests/tools/trt-truth.py computes them independently from the
# same files; a file whose queries are mostly unusable fails with a clear error. Inputs: copies
# of the hand-made engine tests/data/trt/handmade-trt-clean.* and (when the corpus is there) of
# the real TREx resnet fp32 engine, their .timing.json mutated here with jq.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
command -v jq >/dev/null || skip "jq not installed"
truth=$LATSCOPE_SRCDIR/tests/tools/trt-truth.py
# mutate SRC_PREFIX NAME JQ: copies the engine's files to $TMPDIR/NAME.engine.*, the timing
# file through JQ
mutate() {
    local src=$1 name=$2 f sfx
    for f in "$src".*; do
        sfx=${f#"$src"}
        cp "$f" "$TMPDIR/$name.engine$sfx"
    done
    jq "$3" "$src.timing.json" >"$TMPDIR/$name.engine.timing.json"
}
# every 3rd query (index % 3 == 1) broken in turn four ways
BREAK='[to_entries[] | .key as $i | .value | if $i % 3 != 1 then .
        elif ($i / 3 | floor) % 4 == 0 then .startH2dMs = -1.5
        elif ($i / 3 | floor) % 4 == 1 then .endComputeMs = "n/a"
        elif ($i / 3 | floor) % 4 == 2 then del(.startEnqMs)
        else .endD2hMs = .startD2hMs - 0.5 end]'
run() { # run PREFIX: analyze JSON + the independent check + the warning
    local p=$1
    set +e
    "$LATSCOPE" analyze --format json --top 1000 "$p" >"$TMPDIR/a.json" 2>"$TMPDIR/a.err"
    local rc=$?
    set -e
    [[ $rc -eq 0 ]] || { cat "$TMPDIR/a.err" >&2; fail "$p: analyze exited $rc"; }
    python3 "$truth" "$p" "$TMPDIR/a.json" || fail "$p: latscope differs from the independent computation"
    nbad=$(jq '.ranks[0].dropped.queries' "$TMPDIR/a.json")
    [[ $nbad -gt 0 ]] || fail "$p: no query dropped (the mutation did nothing?)"
    grep -q "among them $nbad TensorRT quer" "$TMPDIR/a.err" || { cat "$TMPDIR/a.err" >&2; fail "$p: no warning for $nbad dropped queries"; }
    "$LATSCOPE" analyze "$p" >"$TMPDIR/a.txt" 2>/dev/null || fail "$p: text analyze failed"
    grep -q "; $nbad more dropped as unusable" "$TMPDIR/a.txt" || { grep queries "$TMPDIR/a.txt" >&2; fail "$p: the TensorRT section does not say $nbad were dropped"; }
    "$LATSCOPE" doctor "$p" >/dev/null 2>"$TMPDIR/d.err" || true
    grep -q "TensorRT quer" "$TMPDIR/d.err" || { cat "$TMPDIR/d.err" >&2; fail "$p: doctor did not warn"; }
}
mutate "$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-clean.engine" hm "$BREAK"
run "$TMPDIR/hm.engine"
real=${LATSCOPE_TRACES:-}/trt/trex/examples/pytorch/resnet/A100/fp32/resnet.onnx.engine
if [[ -e $real.timing.json ]]; then
    mutate "$real" real "$BREAK"
    run "$TMPDIR/real.engine"
    # the clean real file: nothing dropped
    expect_rc 0 "$LATSCOPE" analyze --format json "$real"
    jq -e '.ranks[0].dropped.total == 0 and .ranks[0].tensorrt.queries.dropped == 0' "$TMPDIR/out" >/dev/null ||
        fail "the clean real engine reports drops"
fi
# mostly unusable (every time a string, or all negative): an error that says so, exit 2
for how in '[.[] | .startH2dMs = "x"]' '[.[] | .startEnqMs = -1]'; do
    jq "$how" "$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-clean.engine.timing.json" >"$TMPDIR/bad.timing.json"
    expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/bad.timing.json"
    grep -q "of [0-9]* queries have no usable time" "$TMPDIR/err" || { cat "$TMPDIR/err" >&2; fail "no clear error for '$how'"; }
done
echo ok
