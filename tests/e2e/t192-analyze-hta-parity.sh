#!/usr/bin/env bash
# t192-analyze-hta-parity: `latscope analyze --hta-compat` against HolisticTraceAnalysis
# f4d0062c on every Kineto trace of the shared corpus (issue 20 §1): temporal breakdown,
# idle-time breakdown per stream, kernel-type buckets, launch statistics, queue length per
# stream. HTA's numbers were recorded once by tests/tools/hta-parity.sh into
# tests/data/hta-parity.jsonl (HTA is not a dependency); tests/tools/hta-parity-diff.jq lists
# the differences. Each difference must be in tests/data/hta-parity-known.tsv (trace, field
# prefix, the reason HTA differs), and each entry there must still match one: a difference
# that is gone fails too, so the list stays true. Traces absent from LATSCOPE_TRACES are
# skipped; all absent: skip. Runs all 54 traces (about 20 s on the 2-core VM).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
[[ -n ${LATSCOPE_TRACES:-} && -d $LATSCOPE_TRACES ]] || skip "no LATSCOPE_TRACES"
ref=$LATSCOPE_SRCDIR/tests/data/hta-parity.jsonl
known=$LATSCOPE_SRCDIR/tests/data/hta-parity-known.tsv
prog=$LATSCOPE_SRCDIR/tests/tools/hta-parity-diff.jq
checked=0 skipped=0 bad=0
: >"$TMPDIR/diffs"
while IFS= read -r line; do
    f=$(jq -r .trace <<<"$line")
    if [[ ! -f $LATSCOPE_TRACES/$f ]]; then
        skipped=$((skipped + 1))
        continue
    fi
    if [[ $(jq -r 'has("error")' <<<"$line") == true ]]; then
        # HTA could not load it at all (not a trace HTA reads): latscope must still analyse it
        "$LATSCOPE" analyze --hta-compat --format json "$LATSCOPE_TRACES/$f" >"$TMPDIR/l.json" 2>"$TMPDIR/err" ||
            { cat "$TMPDIR/err" >&2; fail "$f: latscope analyze failed"; }
        checked=$((checked + 1))
        continue
    fi
    "$LATSCOPE" analyze --hta-compat --format json "$LATSCOPE_TRACES/$f" >"$TMPDIR/l.json" 2>"$TMPDIR/err" ||
        { cat "$TMPDIR/err" >&2; fail "$f: latscope analyze failed"; }
    jq -r --argjson hta "$line" -f "$prog" "$TMPDIR/l.json" >"$TMPDIR/d" || fail "$f: jq failed"
    sed "s|^|$f\t|" "$TMPDIR/d" >>"$TMPDIR/diffs"
    checked=$((checked + 1))
done <"$ref"
[[ $checked -gt 0 ]] || skip "none of the $skipped traces of $ref is in $LATSCOPE_TRACES"
# every difference must be known
while IFS=$'\t' read -r f d; do
    hit=0
    while IFS=$'\t' read -r kf kp _; do
        [[ -z $kf || $kf == \#* ]] && continue
        if [[ $kf == "$f" && $d == "$kp"* ]]; then hit=1; break; fi
    done <"$known"
    if [[ $hit == 0 ]]; then
        echo "DIFF $f: $d" >&2
        bad=$((bad + 1))
    fi
done <"$TMPDIR/diffs"
# every known entry must still match a difference (of a trace that was checked)
while IFS=$'\t' read -r kf kp why; do
    [[ -z $kf || $kf == \#* ]] && continue
    [[ -f $LATSCOPE_TRACES/$kf ]] || continue
    if ! awk -F'\t' -v f="$kf" -v p="$kp" '$1 == f && index($2, p) == 1 { found = 1 } END { exit !found }' "$TMPDIR/diffs"; then
        echo "STALE known difference (now equal to HTA): $kf $kp ($why)" >&2
        bad=$((bad + 1))
    fi
done <"$known"
echo "$checked traces checked against HTA ($skipped absent), $(wc -l <"$TMPDIR/diffs") known differences"
[[ $bad == 0 ]] || fail "$bad unexplained or stale difference(s) against HTA"
exit 0
