#!/usr/bin/env bash
# t259-analyze-stream: analyze/doctor on many rank files in bounded memory (--stream: a batch of
# traces in memory at a time, each file read twice; the default for directories of more than 16
# trace files) give byte for byte the report of the in-memory run (--no-stream): text, JSON,
# pretty JSON, --hta-compat, critical paths; a bad file, duplicate ranks, files without a rank.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
same() { # ARGS...: --stream and --no-stream give the same stdout and exit status
    local a b
    set +e
    "$LATSCOPE" analyze --no-stream "$@" >"$TMPDIR/mem" 2>"$TMPDIR/mem.err"
    a=$?
    "$LATSCOPE" -v analyze --stream "$@" >"$TMPDIR/str" 2>"$TMPDIR/str.err"
    b=$?
    set -e
    [[ $a == "$b" ]] || { cat "$TMPDIR/mem.err" "$TMPDIR/str.err" >&2; fail "exit $a vs $b: $*"; }
    cmp -s "$TMPDIR/mem" "$TMPDIR/str" || { diff "$TMPDIR/mem" "$TMPDIR/str" | head -c 3000 >&2; fail "streamed output differs: $*"; }
    [[ $a != 0 ]] || [[ -s $TMPDIR/mem ]] || fail "no output: $*"
    [[ $a != 0 ]] || grep -q "streamed .* trace(s)" "$TMPDIR/str.err" || fail "not streamed: $*"
}
modes() { # DIR...
    same "$@"
    same --format json "$@"
    same --format json --pretty "$@"
    same --format json --hta-compat "$@"
    same --format json --critical-path "$@"
    same --include-last-step --top 3 "$@"
}
modes "$data/handmade-ranks-straggler"
modes "$data/handmade-ranks-even" "$data/handmade-analyze-basic.json"

# 40 ranks (copies of the hand-made ones, renumbered): streamed by default
mkdir "$TMPDIR/many"
for r in $(seq 0 39); do
    sed "s/\"rank\": [0-9]*, \"world_size\": 4/\"rank\": $r, \"world_size\": 40/" \
        "$data/handmade-ranks-straggler/rank-$((r % 4)).json" >"$TMPDIR/many/r$r.json"
done
modes "$TMPDIR/many"
"$LATSCOPE" -v analyze --format json "$TMPDIR/many" >"$TMPDIR/auto.json" 2>"$TMPDIR/auto.err"
contains "$TMPDIR/auto.err" "streamed 40 trace(s)"
cmp -s "$TMPDIR/auto.json" <("$LATSCOPE" analyze --format json --no-stream "$TMPDIR/many" 2>/dev/null) || fail "auto-streamed output differs"
# the cross-rank table has all 40 and the ten copies of rank 2 (work +2 ms) are its slowest
[[ $(jq '.cross_rank.ranks | length' "$TMPDIR/auto.json") == 40 ]] || fail "40 rank rows"
[[ $(jq '[.ranks[].rank] == [range(40)]' "$TMPDIR/auto.json") == true ]] || fail "ranks in order"
# doctor on the directory (streamed) equals doctor on the files named one by one (in memory)
set +e
"$LATSCOPE" doctor --format json "$TMPDIR/many" >"$TMPDIR/d1" 2>/dev/null
"$LATSCOPE" doctor --format json $(ls "$TMPDIR/many"/r*.json | sort) >"$TMPDIR/d2" 2>/dev/null
set -e
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/d1") == 8 ]] || fail "doctor: 8 straggler findings (of 10 ranks, capped)"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")][0].evidence.outlier_ranks' "$TMPDIR/d1") == 10 ]] || fail "doctor: 10 outlier ranks"
cmp -s "$TMPDIR/d1" "$TMPDIR/d2" || fail "doctor: directory (streamed) and named files differ"
# a bad file and a duplicate rank: skipped with the same warnings and JSON "skipped"
echo '{"traceEvents": [' >"$TMPDIR/many/zz-broken.json"
cp "$TMPDIR/many/r5.json" "$TMPDIR/many/zz-dup.json"
modes "$TMPDIR/many"
"$LATSCOPE" analyze --format json --stream "$TMPDIR/many" >"$TMPDIR/sk.json" 2>"$TMPDIR/sk.err"
[[ $(jq '.skipped | length' "$TMPDIR/sk.json") == 2 ]] || fail "skipped files"
[[ $(grep -c "skipped" "$TMPDIR/sk.err") == 2 ]] || { cat "$TMPDIR/sk.err" >&2; fail "one warning per skipped file"; }
# usage: --stream reads every input twice (not stdin); it analyses every rank
expect_rc 2 "$LATSCOPE" analyze --stream - <"$data/handmade-ranks-even/rank-0.json"
contains "$TMPDIR/err" "not '-' (stdin)"
expect_rc 2 "$LATSCOPE" analyze --stream --rank 1 "$data/handmade-ranks-even"
contains "$TMPDIR/err" "--stream analyses every rank"

# real traces (HTA's test data): two ranks, and a directory with a broken and a rank-less file
d=$(need_trace hta/tests/data)
modes "$d/trace_filter"
mkdir "$TMPDIR/real"
cp "$d/trace_filter/"*.json.gz "$d/rank_non_gpu/rank_non_gpu.json.gz" "$d/distributed_info_unavailable/distributed_info_not_found.json.gz" "$TMPDIR/real/"
echo 'not json' >"$TMPDIR/real/bad.json"
modes "$TMPDIR/real"
exit 0
