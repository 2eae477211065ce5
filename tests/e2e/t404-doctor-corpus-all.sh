#!/usr/bin/env bash
# t404-doctor-corpus-all: doctor on every trace of the shared corpus: never a crash (exit 0 or 1;
# 2 only with a clear error for files that are not traces; 3 only when the report says that no
# rule applies to the input), valid JSON every time, and no
# "use CUDA graphs" advice on traces that already replay graphs.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
[[ -d $LATSCOPE_TRACES ]] || skip "shared trace corpus absent ($LATSCOPE_TRACES)"
n=0
mkdir -p "$TMPDIR/j"
: >"$TMPDIR/judged" # "JSON-FILE<TAB>TRACE" of every report, checked by one python3 below
while IFS= read -r -d '' f; do
    o=$TMPDIR/j/$n.json
    set +e
    "$LATSCOPE" doctor --format json "$f" >"$o" 2>"$TMPDIR/err"
    rc=$?
    set -e
    case $rc in
    0 | 1) "$LATSCOPE" selftest lint-json "$o" >/dev/null || fail "$f: invalid JSON" ;;
    3)
        "$LATSCOPE" selftest lint-json "$o" >/dev/null || fail "$f: invalid JSON"
        grep -q '"verdict": "no rule applies"' "$o" || fail "$f: exit 3 without saying no rule applies"
        ;;
    2) grep -q "error" "$TMPDIR/err" || fail "$f: exit 2 without a message" ;;
    *) cat "$TMPDIR/err" >&2; fail "$f: exit $rc (crash?)" ;;
    esac
    [[ $rc -le 1 || $rc -eq 3 ]] && printf '%s\t%s\n' "$o" "$f" >>"$TMPDIR/judged"
    n=$((n + 1))
done < <(find "$LATSCOPE_TRACES" \( -name '*.json' -o -name '*.json.gz' \) -print0 | sort -z)
[[ $n -gt 0 ]] || skip "no trace files in $LATSCOPE_TRACES"
# traces that already replay CUDA graphs are never advised to use them
python3 - "$TMPDIR/judged" <<'PY' || fail "a CUDA-graph trace was advised to use CUDA graphs"
import json, sys
bad = 0
for line in open(sys.argv[1]):
    o, f = line.rstrip("\n").split("\t", 1)
    d = json.load(open(o))
    if not any(t["graph_launches"] for t in d["traces"]):
        continue
    for x in d["findings"]:
        r = x["recommendation"]
        if "capture the step with torch.cuda.CUDAGraph" in r or (
                x["id"] == "launch-bound" and "already replays CUDA graphs" not in r):
            print(f"{f}: {x['id']}: {r}", file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY

# A directory of per-rank traces: every rank is judged, each finding names its file.
dir=$LATSCOPE_TRACES/param/example_input_files/chakra_traces/dlrm_kineto
if [[ -d $dir ]]; then
    set +e
    "$LATSCOPE" doctor --format json "$dir" >"$TMPDIR/out" 2>"$TMPDIR/err"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || fail "doctor on $dir exited $rc"
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["traces"])==8, len(d["traces"]); assert all("worker" in f["evidence"]["trace"] for f in d["findings"])' <"$TMPDIR/out" \
        || fail "per-rank directory"
fi
echo "doctor ran on $n files"
exit 0
