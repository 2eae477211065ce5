#!/usr/bin/env bash
# 50-diff.sh - `latscope diff` speed: a trace diffed against itself vs two `analyze` runs of it
# (the issue's target: a diff of two traces in about the time of two analyze runs), and the
# bench-result diff (10 000 bootstrap resamples per percentile) on two synthetic bench JSONs.
# Best of $DIFF_RUNS runs (default 3). Prints name<TAB>value<TAB>unit<TAB>note.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_TRACES:?}"
runs=${DIFF_RUNS:-3}
[[ -x /usr/bin/time ]] || { echo "diff	skipped		/usr/bin/time missing"; exit 0; }
best() { # best wall seconds of $runs runs of CMD...
    local b="" w
    for _ in $(seq "$runs"); do
        w=$(/usr/bin/time -f '%e' "$@" 2>&1 >/dev/null | tail -1)
        if [[ -z $b ]] || awk -v a="$w" -v c="$b" 'BEGIN{exit !(a<c)}'; then b=$w; fi
    done
    echo "$b"
}
for rel in hta/tests/data/df_index_resolver/df_index_resolver.json.gz \
    hta/tests/data/trace_diff/control/control.json.gz; do
    t=$LATSCOPE_TRACES/$rel
    [[ -e $t ]] || { echo "diff-$(basename "$rel")	skipped		not in the corpus"; continue; }
    n=$(basename "$rel" .json.gz)
    a=$(best "$LATSCOPE" analyze "$t")
    d=$(best "$LATSCOPE" diff "$t" "$t")
    printf 'diff-trace-%s\t%s\ts\tvs analyze %s s (x2 = %s s)\n' "$n" "$d" "$a" \
        "$(awk -v a="$a" 'BEGIN{printf "%.2f", 2 * a}')"
done
