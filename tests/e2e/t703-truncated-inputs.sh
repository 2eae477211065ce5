#!/usr/bin/env bash
# t703-truncated-inputs: a reader that reaches the end of a row or section early says so.
# - ncu --csv (the real report ../shared/traces/ncu/cublaslt_ncu.log, and the hand-made raw page
#   seed of fuzz-ncu, tests/fuzz/corpus/ncu/raw): cut at every byte of its last records, analyze either fails
#   naming the cut (exit 2) or, only where the cut falls at a record's end (a newline, or the
#   closing quote of the record's last field: checked here with Python's csv module), loads
#   with no launch missing a metric.
# - trtexec logs (the hand-made tests/data/trt/handmade-trt-clean.log and the real superbench
#   8.6 log): cut at 25 % (before the summary: exit 2, "stops ... before its performance
#   summary") and at 90 % (a part of the summary: exit 0 with a "cut short" warning and
#   dropped.cut_short in the JSON); the complete logs have neither.
# - trtexec 8.0's "End-to-End Host Latency" summary line (hand-made tests/data/trt/
#   handmade-trt80-summary.log, TensorRT 8.0's layout) is read as end_to_end_ms.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
command -v jq >/dev/null || skip "jq not installed"

# ---- ncu ----
ncu_cuts() { # ncu_cuts FILE BYTES: every cut in the last BYTES bytes
    python3 - "$LATSCOPE" "$1" "$2" "$TMPDIR" <<'PY'
import csv, io, subprocess, sys
lat, path, tail, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = open(path, "rb").read()
full = {}  # line number -> field count of the complete record
for i, row in enumerate(csv.reader(io.StringIO(d.decode()))):
    full[i] = len(row)
bad = []
n_ok = n_cut = 0
for cut in range(max(0, len(d) - tail), len(d) + 1):
    part = d[:cut]
    open(f"{tmp}/c.csv", "wb").write(part)
    p = subprocess.run([lat, "analyze", "--format", "json", f"{tmp}/c.csv"], capture_output=True)
    err = p.stderr.decode()
    # the truth: is the cut at a record's end? (the last record parsed from the part has the
    # field count of the complete one, its last field closed)
    rows = list(csv.reader(io.StringIO(part.decode(errors="replace"))))
    at_end = part.endswith(b"\n") or not rows or (
        part.endswith(b'"') and len(rows[-1]) == full.get(len(rows) - 1, -1))
    if p.returncode == 0:
        n_ok += 1
        if not at_end:
            bad.append(f"cut at byte {cut} (...{part[-30:]!r}) loaded, exit 0, no word of the cut")
    elif p.returncode == 2 and ("cut short" in err or "quoted field" in err or "no `ncu" in err
                                or "header but no" in err or "no kernel" in err):
        n_cut += 1
    else:
        bad.append(f"cut at byte {cut}: exit {p.returncode}: {err.strip()[:200]}")
print(f"{path}: {n_ok} cuts at a record's end loaded, {n_cut} cuts refused", file=sys.stderr)
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
}
# the raw-page seed of fuzz-ncu without its first byte (the fuzz target's option byte)
tail -c +2 "$LATSCOPE_SRCDIR/tests/fuzz/corpus/ncu/raw" >"$TMPDIR/raw.csv"
ncu_cuts "$TMPDIR/raw.csv" 400 || fail "ncu raw page: a cut went unnoticed"
real=${LATSCOPE_TRACES:-}/ncu/cublaslt_ncu.log
if [[ -e $real ]]; then
    ncu_cuts "$real" 700 || fail "ncu details page: a cut went unnoticed"
fi

# ---- trtexec logs ----
logs=("$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-clean.log")
[[ -e ${LATSCOPE_TRACES:-}/trt/superbench/tensorrt_inference.2.log ]] &&
    logs+=("$LATSCOPE_TRACES/trt/superbench/tensorrt_inference.2.log")
for f in "${logs[@]}"; do
    b=$(basename "$f")
    expect_rc 0 "$LATSCOPE" analyze --format json "$f"
    jq -e '.ranks[0].dropped.cut_short == null' "$TMPDIR/out" >/dev/null || fail "$b: complete, but reported cut"
    grep -q "cut short" "$TMPDIR/err" && fail "$b: complete, but warned"
    sz=$(stat -c %s "$f")
    head -c $((sz * 90 / 100)) "$f" >"$TMPDIR/c90.log"
    expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/c90.log"
    grep -q "cut short: the trtexec log stops" "$TMPDIR/err" || { cat "$TMPDIR/err" >&2; fail "$b at 90 %: no warning"; }
    jq -e '.ranks[0].dropped.cut_short | test("stops")' "$TMPDIR/out" >/dev/null || fail "$b at 90 %: no cut_short in the JSON"
done
# the 25 % cut of the log that has trtexec's first line: before any summary
f=$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt-clean.log
head -c $(($(stat -c %s "$f") * 25 / 100)) "$f" >"$TMPDIR/c25.log"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/c25.log"
contains "$TMPDIR/err" "before its performance summary"

# ---- trtexec 8.0's End-to-End Host Latency ----
f=$LATSCOPE_SRCDIR/tests/data/trt/handmade-trt80-summary.log
expect_rc 0 "$LATSCOPE" analyze --format json "$f"
want=$(grep -o 'End-to-End Host Latency: .*' "$f" | python3 -c '
import re, sys
l = sys.stdin.read()
v = dict(re.findall(r"(min|max|mean|median) = ([0-9.]+) ms", l))
p = re.search(r"percentile\(99%\) = ([0-9.]+) ms", l).group(1)
print(" ".join(str(float(x)) for x in (v["min"], v["max"], v["mean"], v["median"], p)))')
got=$(jq -r '.ranks[0].tensorrt.summary.end_to_end_ms | "\(.min) \(.max) \(.mean) \(.median) \(.p99)"' "$TMPDIR/out" |
    python3 -c 'import sys; print(" ".join(str(float(x)) for x in sys.stdin.read().split()))')
[[ $got == "$want" ]] || fail "End-to-End Host Latency: latscope '$got', the log '$want'"
echo ok
