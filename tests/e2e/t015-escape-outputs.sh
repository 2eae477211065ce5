#!/usr/bin/env bash
# t015-escape-outputs: names, URLs and workloads that carry ESC sequences, an OSC title
# sequence (ESC ] 0 ; title BEL), CR/LF (a forged line), \x01, DEL and the C1 CSI U+009B reach
# no terminal raw: every text, markdown and CSV output of analyze, doctor, diff (traces and
# bench results), bench merge and convert prints them escaped by core/esc.h (\x1b, \n,
# \u009b), and nothing but \t and \n below 0x20 reaches stdout or stderr. Inputs are hand-made
# (tests/data/gen-handmade-esc.py: Kineto, ONNX Runtime, TensorRT profile, ncu CSV); the bench
# results are real short runs against serve-test whose url/workload are then made hostile.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
d=$TMPDIR/esc
mkdir -p "$d"
python3 "$LATSCOPE_SRCDIR/tests/data/gen-handmade-esc.py" "$d"

# clean FILE WHAT [MUST]: no raw control byte (other than \t, \n), no UTF-8 C1 control, no
# line forged by a name's CR/LF; with MUST, the escaped name is
# there (\x1b[31mRED or the end \u009bZ): the name was printed, escaped.
clean() {
    python3 - "$1" "$2" "${3:-}" <<'PY' || fail "$2: raw control bytes (above)"
import re, sys
b = open(sys.argv[1], "rb").read()
what, must = sys.argv[2], sys.argv[3]
bad = [m.start() for m in re.finditer(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b)]
if bad:
    i = bad[0]
    sys.exit("%s: %d raw control bytes, first at %d: %r" % (what, len(bad), i, b[max(0, i - 40):i + 40]))
if re.search(rb"(?m)^FORGED", b):
    sys.exit("%s: a name's CR/LF started a line" % what)
# names are cut to their column: the escaped start or end of the name must be there
if must and rb"\x1b[31mRED" not in b and rb"\u009bZ" not in b:
    sys.exit("%s: the escaped name is missing: %r" % (what, b[:2000]))
PY
}
# run1 WHAT MUST CMD...: runs CMD (any exit status but a crash), checks stdout and stderr
run1() {
    local what=$1 must=$2
    shift 2
    set +e
    "$@" >"$TMPDIR/out" 2>"$TMPDIR/err"
    local rc=$?
    set -e
    [[ $rc -le 3 ]] || { cat "$TMPDIR/err" >&2; fail "$what: exit $rc"; }
    clean "$TMPDIR/out" "$what (stdout)" "$must"
    clean "$TMPDIR/err" "$what (stderr)"
}

for f in kineto-a ort trt.engine.profile ncu; do
    in=$d/handmade-esc-$f.json
    [[ $f == ncu ]] && in=$d/handmade-esc-ncu.csv
    run1 "analyze $f" must "$LATSCOPE" analyze "$in"
    for fmt in text md; do
        run1 "doctor --format $fmt $f" "" "$LATSCOPE" doctor --fail-on never --format "$fmt" "$in"
    done
done
# doctor names the hostile kernels of the Kineto trace
run1 "doctor kineto" must "$LATSCOPE" doctor --fail-on never "$d/handmade-esc-kineto-a.json"
for fmt in text md csv; do
    run1 "diff --format $fmt (traces)" must "$LATSCOPE" diff --format "$fmt" \
        "$d/handmade-esc-kineto-a.json" "$d/handmade-esc-kineto-b.json"
done
for f in ort trt.engine.profile; do # their own sections' rows in diff
    run1 "diff $f" must "$LATSCOPE" diff "$d/handmade-esc-$f.json" "$d/handmade-esc-$f.json"
done
run1 "convert" "" "$LATSCOPE" convert "$d/handmade-esc-kineto-a.json" -o "$TMPDIR/conv.json"
run1 "convert -o -" "" "$LATSCOPE" convert "$d/handmade-esc-kineto-a.json" -o -

# bench results: two short shards of one run, then a hostile url and workloads
start_fixture --service exp:1ms --seed 3
for k in 0 1; do
    set +e
    "$LATSCOPE" bench --shard $k/2 -r 100 --duration 400ms -t 1 --max-send-lag $((50 * SAN_MULT)) \
        --format json "$FIXTURE_URL/" >"$TMPDIR/s$k.json" 2>"$TMPDIR/s$k.err"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/s$k.err" >&2; fail "bench shard $k: exit $rc"; }
done
python3 - "$TMPDIR" "$d" <<'PY'
import json, sys
H = "\x1b[31mRED\x1b]0;PWNED-TITLE\x07\r\nFORGED LINE\x01\x7f\u009bZ"
for k in (0, 1):
    r = json.load(open("%s/s%d.json" % (sys.argv[1], k)))
    r["url"] += H
    r["workload"] += H
    json.dump(r, open("%s/handmade-esc-bench-%d.json" % (sys.argv[2], k), "w"))
    r["workload"] += " other" + H  # a different workload: diff says so, merge refuses
    json.dump(r, open("%s/handmade-esc-bench-%d-other.json" % (sys.argv[2], k), "w"))
PY
b0=$d/handmade-esc-bench-0.json b1=$d/handmade-esc-bench-1.json
for fmt in text csv; do
    run1 "bench merge --format $fmt" "" "$LATSCOPE" bench merge --format "$fmt" "$b0" "$b1"
done
run1 "bench merge (text, url)" must "$LATSCOPE" bench merge "$b0" "$b1"
run1 "bench merge (different workloads)" "" "$LATSCOPE" bench merge "$b0" "$d/handmade-esc-bench-1-other.json"
for fmt in text md csv; do
    run1 "diff --format $fmt (bench)" "" "$LATSCOPE" diff --format "$fmt" "$b0" "$b1"
done
run1 "diff (bench, different workloads)" must "$LATSCOPE" diff "$b0" "$d/handmade-esc-bench-1-other.json"
echo "ok"
