#!/usr/bin/env bash
# san: skip (a py-spy run of Python; the C speedscope reader runs under the sanitizers in t166)
# t366-stacks-pyspy-live: a fresh py-spy run (py-spy from PyPI in a venv, tests/tools/pyspy-venv.sh;
# skips without it) of tests/progs/hot.py, written as raw (-t: thread prefixes) and speedscope:
# latscope's sample count equals py-spy's own "Samples: N" for each file, the thread is the one
# py-spy names, and hot_py / warm_py (2:1 work, the program's design) come out in that order with
# hot_py's share of the two within 0.5..0.85 (the program's 2/3, allowing for sampling).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
command -v python3 >/dev/null || skip "python3 not installed"
pyspy=$("$LATSCOPE_SRCDIR/tests/tools/pyspy-venv.sh") || skip "$pyspy"
C='.ranks[0].cpu'
check() { # FILE SAMPLES
    "$LATSCOPE" analyze --format json --top 1000 "$1" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
        { cat "$TMPDIR/an.err" >&2; fail "analyze failed on py-spy's $1"; }
    jq -e "$C.samples == $2" "$TMPDIR/an.json" >/dev/null ||
        fail "$1: latscope $(jq "$C.samples" "$TMPDIR/an.json") samples, py-spy said $2"
    local h w
    h=$(jq "[$C.top_functions_total[] | select(.function | startswith(\"py:hot_py \"))][0].total // 0" "$TMPDIR/an.json")
    w=$(jq "[$C.top_functions_total[] | select(.function | startswith(\"py:warm_py \"))][0].total // 0" "$TMPDIR/an.json")
    (( h > w && w > 0 )) || fail "$1: hot_py $h samples, warm_py $w"
    awk -v h="$h" -v w="$w" 'BEGIN { s = h / (h + w); exit !(s >= 0.5 && s <= 0.85) }' ||
        fail "$1: hot_py share of hot+warm $h/($h+$w) outside 0.5..0.85"
}
for fmt in raw speedscope; do
    out=$TMPDIR/hot.$fmt
    set +e
    timeout 120 "$pyspy" record -r 200 -t -f "$fmt" -o "$out" -- python3 "$LATSCOPE_SRCDIR/tests/progs/hot.py" 1.5 \
        >"$TMPDIR/pyspy.out" 2>&1
    rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
        grep -qiE "permission|ptrace|operation not permitted" "$TMPDIR/pyspy.out" && skip "py-spy may not trace here: $(tail -1 "$TMPDIR/pyspy.out")"
        cat "$TMPDIR/pyspy.out" >&2
        fail "py-spy record failed ($rc)"
    fi
    n=$(grep -o 'Samples: [0-9]*' "$TMPDIR/pyspy.out" | awk '{print $2}')
    [[ -n $n && $n -gt 50 ]] || { cat "$TMPDIR/pyspy.out" >&2; fail "py-spy reported no sample count"; }
    check "$out" "$n"
    if [[ $fmt == raw ]]; then
        tid=$(grep -o '^thread ([0-9]*)' "$out" | head -1 | tr -dc 0-9)
        jq -e "$C.threads[0].tid == $tid" "$TMPDIR/an.json" >/dev/null || fail "raw -t: thread $tid not read"
    fi
    echo "t366: $fmt: $n samples (py-spy's count)"
done
