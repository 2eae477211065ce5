#!/usr/bin/env bash
# t602-report-diff: two inputs of a kind give a diff page whose embedded document is exactly
# what `latscope diff --format json A B` prints (bench results from real runs against the
# fixture, traces with a resolved doctor finding); inputs diff cannot compare get a diff entry
# with the reason, not a failed report.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
command -v jq >/dev/null || skip "jq not installed"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"

run() { # NAME SERVICE: one closed-loop run of 300 requests
    start_fixture --service "$2" --seed 7
    set +e
    "$LATSCOPE" bench -c 1 -t 1 -n 300 --format json "$FIXTURE_URL/work" >"$T/$1.json" 2>"$T/$1.err"
    local rc=$?
    set -e
    [[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/$1.err")"
}
run fast exp:1ms
run slow exp:3ms

# ---- bench: one diff page, the same document as latscope diff ----
expect_rc 0 "$LATSCOPE" report "$T/fast.json" "$T/slow.json" -o "$T/b.html"
report_self_contained "$T/b.html"
report_data "$T/b.html" >"$T/b.json"
[[ $(jq '.diffs | length' "$T/b.json") -eq 1 ]] || fail "one diff page expected"
jq -e '.diffs[0] | .kind == "bench" and .before_page == 0 and .after_page == 1 and .error == null' \
    "$T/b.json" >/dev/null || fail "diff entry: $(jq -c '.diffs[0] | del(.diff)' "$T/b.json")"
"$LATSCOPE" diff --format json "$T/fast.json" "$T/slow.json" >"$T/d.json" || true
jq -e '.rows | length > 0' "$T/d.json" >/dev/null || fail "diff printed no rows"
jq -S '.diffs[0].diff' "$T/b.json" | diff - <(jq -S . "$T/d.json") >/dev/null ||
    fail "embedded diff differs from latscope diff --format json"
# a 3x slower service is a regression of the median
jq -e '[.diffs[0].diff.rows[] | select(.metric == "latency.p50")][0].verdict == "REGRESSION"' \
    "$T/b.json" >/dev/null || fail "p50 of 1 ms -> 3 ms not a regression"

# ---- traces: ops and findings as diff has them ----
a=$D/handmade-doctor-dataloader.json b=$D/handmade-doctor-clean.json
expect_rc 0 "$LATSCOPE" report "$a" "$b" -o "$T/t.html"
report_data "$T/t.html" >"$T/t.json"
"$LATSCOPE" diff --format json "$a" "$b" >"$T/dt.json"
jq -S '.diffs[0].diff' "$T/t.json" | diff - <(jq -S . "$T/dt.json") >/dev/null ||
    fail "embedded trace diff differs from latscope diff --format json"
jq -e '[.diffs[0].diff.findings[] | select(.id == "dataloader")][0].status == "resolved"' \
    "$T/t.json" >/dev/null || fail "resolved finding missing"
[[ $(jq '.diffs[0].diff.ops | length' "$T/t.json") -ge 1 ]] || fail "no ops compared"

# ---- a directory with one bad file: diff skips it with a warning, and so does the report's
# diff page (report once loaded its traces by hand and dropped the page); one warning per file ----
mkdir -p "$T/da" "$T/db"
cp "$a" "$T/da/r0.json"
cp "$b" "$T/db/r0.json"
printf '{"traceEvents": [' >"$T/db/r1.json" # a hand-made truncated trace
"$LATSCOPE" diff --format json "$T/da" "$T/db" >"$T/dd.json" 2>"$T/dd.err" ||
    fail "diff of the directories: $(cat "$T/dd.err")"
contains "$T/dd.err" "r1.json: truncated JSON trace"
expect_rc 0 "$LATSCOPE" report "$T/da" "$T/db" -o "$T/dir.html"
report_data "$T/dir.html" >"$T/dir.json"
jq -e '.diffs[0].error == null' "$T/dir.json" >/dev/null ||
    fail "no diff page for a directory with one bad file: $(jq -c '.diffs[0].error' "$T/dir.json")"
jq -S '.diffs[0].diff' "$T/dir.json" | diff - <(jq -S . "$T/dd.json") >/dev/null ||
    fail "embedded directory diff differs from latscope diff --format json"
[[ $(grep -c 'r1.json: truncated JSON trace' "$T/err") -eq 1 ]] ||
    fail "the skipped file's warning, once: $(cat "$T/err")"

# ---- a TensorRT engine prefix (TREx files from the shared corpus): a page and a diff page, as
# analyze and diff accept it ----
trex=${LATSCOPE_TRACES:-}/trt/trex/examples/pytorch/resnet/A100
if [[ -n ${LATSCOPE_TRACES:-} && -f $trex/fp32/resnet.onnx.engine.profile.json ]]; then
    expect_rc 0 "$LATSCOPE" report "$trex/fp32/resnet.onnx.engine" "$trex/fp16/resnet.onnx.engine" \
        -o "$T/trt.html"
    report_data "$T/trt.html" >"$T/trt.json"
    "$LATSCOPE" diff --format json "$trex/fp32/resnet.onnx.engine" \
        "$trex/fp16/resnet.onnx.engine" >"$T/dtrt.json" 2>/dev/null || true
    jq -S '.diffs[0].diff' "$T/trt.json" | diff - <(jq -S . "$T/dtrt.json") >/dev/null ||
        fail "TensorRT engine prefixes: report's diff page differs from latscope diff"
else
    echo "no TREx corpus files: the TensorRT engine prefix case not run"
fi

# ---- three of a kind: the first against each later one; mixed kinds are not compared ----
expect_rc 0 "$LATSCOPE" report "$T/fast.json" "$a" "$T/slow.json" "$b" "$T/fast.json" -o "$T/m.html"
report_data "$T/m.html" >"$T/m.json"
[[ $(jq -c '[.diffs[] | [.kind, .before_page, .after_page]]' "$T/m.json") == \
    '[["bench",0,2],["trace",1,3],["bench",0,4]]' ]] ||
    fail "diff pairs: $(jq -c '[.diffs[] | [.kind, .before_page, .after_page]]' "$T/m.json")"

# ---- not comparable (a bench result without points): the report is still written ----
printf '{"target":"http","points":[]}\n' >"$T/empty.json"
set +e
"$LATSCOPE" diff --format json "$T/fast.json" "$T/empty.json" >/dev/null 2>"$T/derr"
drc=$?
set -e
if [[ $drc -eq 2 ]]; then
    expect_rc 0 "$LATSCOPE" report "$T/fast.json" "$T/empty.json" -o "$T/e.html"
    report_data "$T/e.html" >"$T/e.json"
    jq -e '.diffs[0].diff == null and (.diffs[0].error | length > 0)' "$T/e.json" >/dev/null ||
        fail "a failed diff has no reason: $(jq -c '.diffs' "$T/e.json")"
    contains "$T/err" "no diff page for"
fi
echo "ok"
