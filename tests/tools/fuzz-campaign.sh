#!/usr/bin/env bash
# fuzz-campaign.sh [-j N] [-s SECONDS] [TARGET...] - one libFuzzer campaign over every target
# (`make fuzz-campaign SECONDS=N JOBS=N`), issue 32's fuzz regime for 2-core machines.
#
# For each target (default: every tests/fuzz/fuzz-*.c, N at once, default the number of cores):
#   1. runs build-fuzz/fuzz-NAME for SECONDS (ASan + UBSan, aborting) on a scratch corpus seeded
#      with the committed corpus tests/fuzz/corpus/NAME/;
#   2. merges what the run found back into the committed corpus with libFuzzer's -merge=1 (only
#      inputs that add coverage, at most -max_len bytes);
#   3. appends one row to docs/fuzz-ledger.tsv: date, commit, target, seconds, executions,
#      coverage (cov: edges), corpus entries added, result (ok / the crash file);
# then regenerates the cumulative table in docs/testing.md (between the ledger markers) from the
# whole ledger. A crash leaves its input in build-fuzz/crashes/NAME/ and the campaign exits 1
# after every target has run; the input becomes a seed only when it is fixed (by hand).
#
# Environment: FUZZ_MAX_LEN (default 20000), FUZZ_RSS_MB (2048), NICE (19: the campaign takes the
# idle cycles of a shared machine). Needs clang with libFuzzer (make fuzz-build).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
jobs=$(nproc 2>/dev/null || echo 2) secs=60 targets=()
while [[ $# -gt 0 ]]; do
    case $1 in
    -j) jobs=${2:?-j needs a number}; shift 2 ;;
    -s) secs=${2:?-s needs seconds}; shift 2 ;;
    -h | --help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    -*) echo "fuzz-campaign: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz-campaign: -j wants a positive number, not '$jobs'" >&2; exit 2; }
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz-campaign: -s wants whole seconds, not '$secs'" >&2; exit 2; }
if [[ ${#targets[@]} -eq 0 ]]; then
    for f in tests/fuzz/fuzz-*.c; do n=${f##*/fuzz-}; targets+=("${n%.c}"); done
fi
for n in "${targets[@]}"; do
    [[ -f tests/fuzz/fuzz-$n.c ]] || { echo "fuzz-campaign: no target tests/fuzz/fuzz-$n.c" >&2; exit 2; }
done
command -v clang >/dev/null || { echo "fuzz-campaign: clang not installed (scripts/deps.sh installs it)" >&2; exit 2; }
make --no-print-directory fuzz-build >/dev/null || { echo "fuzz-campaign: make fuzz-build failed" >&2; exit 2; }

ledger=docs/fuzz-ledger.tsv
[[ -f $ledger ]] || printf 'date\tcommit\ttarget\tseconds\texecutions\tcoverage\tadded\tresult\n' >"$ledger"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src tests/fuzz/*.c 2>/dev/null || commit+="+dirty"
work=$(mktemp -d /tmp/latscope-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
maxlen=${FUZZ_MAX_LEN:-20000} rss=${FUZZ_RSS_MB:-2048}

# one NAME: the campaign of one target; leaves $work/NAME.row (the ledger row).
one() {
    local n=$1 bin=build-fuzz/fuzz-$1 seeds=tests/fuzz/corpus/$1 scratch=$work/$1 log=$work/$1.log
    local crashes=build-fuzz/crashes/$1 before after execs cov result=ok
    mkdir -p "$scratch" "$seeds" "$crashes"
    before=$(find "$seeds" -type f | wc -l)
    nice -n "${NICE:-19}" "$bin" -max_total_time="$secs" -print_final_stats=1 -max_len="$maxlen" \
        -rss_limit_mb="$rss" -timeout=20 -artifact_prefix="$crashes/" "$scratch" "$seeds" >"$log" 2>&1
    local rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    if [[ $rc -ne 0 ]]; then
        result="crash:$(grep -o "$crashes/[^ ]*" "$log" | tail -1)"
        [[ $result == crash: ]] && result="exit $rc (see a rerun's log)"
    fi
    # merge what adds coverage into the committed corpus (a crashing run merges nothing)
    if [[ $result == ok ]]; then
        nice -n "${NICE:-19}" "$bin" -merge=1 -max_len="$maxlen" -rss_limit_mb="$rss" -timeout=20 \
            "$seeds" "$scratch" >"$log.merge" 2>&1 || result="merge failed"
    fi
    after=$(find "$seeds" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" "$n" "$secs" \
        "${execs:-0}" "${cov:-0}" "$((after - before))" "$result" >"$work/$n.row"
    echo "fuzz-campaign: $n: ${execs:-0} executions in $secs s, cov ${cov:-?}, +$((after - before)) corpus, $result"
}

running=0
for n in "${targets[@]}"; do
    one "$n" &
    running=$((running + 1))
    if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
done
wait
bad=0
for n in "${targets[@]}"; do
    if [[ -f $work/$n.row ]]; then
        cat "$work/$n.row" >>"$ledger"
        grep -q $'\tok$' "$work/$n.row" || bad=1
    else
        echo "fuzz-campaign: $n left no result" >&2
        bad=1
    fi
done
tests/tools/fuzz-ledger.sh --update || bad=1
exit $bad
