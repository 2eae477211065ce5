#!/usr/bin/env bash
# t704-ops-by-shape-tensor-lists: analyze's ops_by_shape groups as torch's
# key_averages(group_by_input_shape=True) does: an event's key is its input_shapes, in which a
# tensor list is [] (profiler_kineto.cpp parseArgData), so every torch.cat of a growing KV cache
# is one "[[],[]]" row, while the trace's "Input Dims" lists each call's list shapes. Checked
# (1) on the hand-made tests/data/handmade-ops-tensorlist.json (3 cats of different lists and one
# written as [[], []]: one row of 4; two mm shapes: two rows), (2) with tests/tools/
# torch-shape-groups.py (torch's rule applied to the trace in Python) on the shared TraceLens H100
# traces, and (3) against torch itself: tests/progs/torch-cat-shapes.py profiled by torch from
# PyPI (tests/tools/torch-venv.sh; skipped when it cannot be installed) prints its own
# key_averages rows, which latscope's rows must equal.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
command -v python3 >/dev/null || skip "python3 not installed"
expect_rc 0 "$LATSCOPE" analyze --format json --top 1000 "$LATSCOPE_SRCDIR/tests/data/handmade-ops-tensorlist.json"
got=$(jq -c '[.ranks[0].ops_by_shape[] | {name, input_dims, count}] | sort_by(.name, .input_dims)' "$TMPDIR/out")
want='[{"name":"aten::cat","input_dims":"[[],[]]","count":4},{"name":"aten::mm","input_dims":"[[2,8],[8,4]]","count":1},{"name":"aten::mm","input_dims":"[[3,8],[8,4]]","count":1}]'
[[ $got == "$want" ]] || fail "hand-made: ops_by_shape $got, want $want"
jq -e '[.ranks[0].ops_by_shape[] | select(.name == "aten::cat")][0].self_us == 45' "$TMPDIR/out" >/dev/null ||
    fail "hand-made: the cat row's self time is not 10+12+14+9 us"

n=0
for f in Qwen_Qwen1.5-0.5B-Chat__1016005 facebook_timesformer-base-finetuned-k400__1016002; do
    p=${LATSCOPE_TRACES:-}/tracelens/tests/traces/h100/$f.json.gz
    [[ -e $p ]] || continue
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$p"
    python3 "$LATSCOPE_SRCDIR/tests/tools/torch-shape-groups.py" "$p" "$TMPDIR/out" ||
        fail "$f: ops_by_shape differs from torch's grouping rule"
    n=$((n + 1))
done

py=$(bash "$LATSCOPE_SRCDIR/tests/tools/torch-venv.sh") || { echo "t704: torch not available ($py): checked $n shared traces and the hand-made one" >&2; echo ok; exit 0; }
"$py" "$LATSCOPE_SRCDIR/tests/progs/torch-cat-shapes.py" "$TMPDIR/t.json" "$TMPDIR/ka.json" >/dev/null 2>&1 ||
    fail "torch-cat-shapes.py failed"
expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/t.json"
python3 - "$TMPDIR/ka.json" "$TMPDIR/out" <<'PY' || fail "ops_by_shape differs from torch's key_averages(group_by_input_shape=True)"
import json, sys
ka = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))["ranks"][0]["ops_by_shape"]
want = {(r["name"], r["input_shapes"].replace(" ", "")): r["count"]
        for r in ka if r["name"] in ("aten::cat", "aten::stack", "aten::mm")}
got = {(r["name"], (r["input_dims"] or "[]").replace(" ", "")): r["count"]
       for r in rows if r["name"] in ("aten::cat", "aten::stack", "aten::mm")}
assert ("aten::cat", "[[],[]]") in want, want
if got != want:
    sys.exit(f"latscope {sorted(got.items())}\ntorch    {sorted(want.items())}")
PY
echo ok
