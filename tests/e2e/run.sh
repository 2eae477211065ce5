#!/usr/bin/env bash
# run.sh - runs every tests/e2e/t*.sh against the real binary ($LATSCOPE).
#
# Each script gets LATSCOPE, LATSCOPE_SRCDIR, LATSCOPE_TRACES (the shared corpus, possibly
# absent), and a private TMPDIR. Exit 0 = pass, 77 = skip (last stdout line is the reason),
# anything else = fail. Each script has E2E_TIMEOUT seconds (default 300).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${LATSCOPE:=$root/build/latscope}"
: "${LATSCOPE_TRACES:=$root/../shared/traces}"
export LATSCOPE LATSCOPE_TRACES LATSCOPE_SRCDIR=$root
p=0 f=0 s=0 i=0
for t in "$root"/tests/e2e/t*.sh; do
    [[ -f $t ]] || continue
    i=$((i + 1))
    name=$(basename "$t" .sh)
    dir=$(mktemp -d /tmp/latscope-e2e.XXXXXX)
    out=$dir.out
    TMPDIR=$dir timeout "${E2E_TIMEOUT:-300}" bash "$t" >"$out" 2>&1
    rc=$?
    if [[ $rc -eq 0 ]]; then
        echo "ok $i - $name"; p=$((p + 1))
    elif [[ $rc -eq 77 ]]; then
        echo "ok $i - $name # SKIP $(tail -1 "$out")"; s=$((s + 1))
    else
        [[ $rc -eq 124 ]] && why=" # TIMEOUT" || why=" # exit $rc"
        echo "not ok $i - $name$why"; sed 's/^/#   /' "$out" | tail -40; f=$((f + 1))
    fi
    rm -rf "$dir" "$out"
done
echo "$p passed, $f failed, $s skipped"
[[ $f -eq 0 ]]
