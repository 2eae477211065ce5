#!/usr/bin/env bash
# 45-trace-cpu.sh - `latscope trace --cpu`: sample a C program with known hot functions and a
# Python script, show the hottest stacks (folded) and where the SVG flame graph went.
set -euo pipefail
root=${LATSCOPE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step "trace --cpu: a C program spending 60/30/10 % in hot_a/hot_b/cold_c"
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/hot" "$root/tests/progs/hot.c" -lpthread
if ! "$LATSCOPE" -v trace --cpu --freq 499 --folded "$tmp/hot.folded" --flamegraph "$tmp/hot.svg" \
    -o "$tmp/hot.json" -- "$tmp/hot" 1 2>"$tmp/err"; then
    cat "$tmp/err"
    echo "(CPU sampling is not permitted here: see the message above)"
    exit 0
fi
grep -E 'cpu:' "$tmp/err" || true
echo "hottest stacks (folded: root;...;leaf COUNT):"
awk '{ print $NF "\t" $0 }' "$tmp/hot.folded" | sort -nr | awk 'NR <= 3' | cut -f2-
echo "flame graph: $(wc -c <"$tmp/hot.svg") bytes of self-contained SVG"
if command -v python3 >/dev/null; then
    step "trace --cpu: Python frames (read from outside the interpreter) between native ones"
    "$LATSCOPE" -v trace --cpu --folded "$tmp/py.folded" -o "$tmp/py.json" \
        -- python3 "$root/tests/progs/hot.py" 1 2>"$tmp/err" || true
    grep -E 'cpu:' "$tmp/err" || true
    grep 'py:hot_py' "$tmp/py.folded" | awk '{ print $NF "\t" $0 }' | sort -nr | awk 'NR == 1' | cut -f2- |
        sed 's/^.*PyEval_EvalCode;/...;PyEval_EvalCode;/'
fi
