#!/usr/bin/env bash
# run-suites.sh - runs test suites and prints one closing line "N passed, N failed, N skipped".
#
# Each suite prints TAP-like lines ending with its own "N passed, N failed, N skipped" line; we
# sum them. A suite that crashes or prints no closing line counts as one failure.
# Suites: unit, e2e, unit-san, e2e-san, fuzz-corpus, format. Paths come from the environment
# (LATSCOPE, UNIT_BIN, SAN_LATSCOPE, SAN_UNIT_BIN, FUZZ_DIR) with defaults under the repo.
# -j N (before the suites) runs N e2e scripts at once (tests/e2e/run.sh -j; default: cores).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LATSCOPE_SRCDIR=$root
: "${LATSCOPE:=$root/build/latscope}" "${UNIT_BIN:=$root/build/unit-tests}"
: "${SAN_LATSCOPE:=$root/build-san/latscope}" "${SAN_UNIT_BIN:=$root/build-san/unit-tests}"
: "${FUZZ_DIR:=$root/build-fuzz}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

jobs=()
if [[ ${1:-} == -j ]]; then jobs=(-j "$2"); shift 2; elif [[ ${1:-} == -j* ]]; then jobs=("$1"); shift; fi
tp=0 tf=0 ts=0
log=$(mktemp -d /tmp/latscope-suites.XXXXXX)
trap 'rm -rf "$log"' EXIT

fuzz_corpus() {
    local p=0 f=0 s=0
    for bin in "$FUZZ_DIR"/fuzz-*; do
        [[ -x $bin ]] || continue
        local n; n=$(basename "$bin"); n=${n#fuzz-}
        local dir=$root/tests/fuzz/corpus/$n
        mkdir -p "$dir"
        if "$bin" -runs=0 "$dir" >"$log/fuzz-$n.out" 2>&1; then
            echo "ok - fuzz corpus $n ($(find "$dir" -type f | wc -l) inputs)"; p=$((p + 1))
        else
            echo "not ok - fuzz corpus $n"; tail -20 "$log/fuzz-$n.out"; f=$((f + 1))
        fi
    done
    if [[ $p -eq 0 && $f -eq 0 ]]; then
        echo "ok - fuzz corpus # SKIP no fuzz targets built (needs clang)"; s=1
    fi
    echo "$p passed, $f failed, $s skipped"
}

format_suite() {
    if ! command -v clang-format-14 >/dev/null; then
        echo "ok - format # SKIP clang-format-14 missing"; echo "0 passed, 0 failed, 1 skipped"; return
    fi
    if (cd "$root" && make --no-print-directory -s format-check) >"$log/format.out" 2>&1; then
        echo "ok - clang-format clean"; echo "1 passed, 0 failed, 0 skipped"
    else
        echo "not ok - clang-format (run 'make format')"; head -30 "$log/format.out"
        echo "0 passed, 1 failed, 0 skipped"
    fi
}

run_suite() {
    case $1 in
    unit) "$UNIT_BIN" ;;
    e2e) LATSCOPE=$LATSCOPE "$root/tests/e2e/run.sh" "${jobs[@]}" ;;
    unit-san) LAT_TEST_TIMEOUT_MULT=4 "$SAN_UNIT_BIN" ;;
    e2e-san) LATSCOPE=$SAN_LATSCOPE LATSCOPE_SAN=1 E2E_TIMEOUT_MULT=${E2E_TIMEOUT_MULT:-2} "$root/tests/e2e/run.sh" "${jobs[@]}" ;;
    fuzz-corpus) fuzz_corpus ;;
    format) format_suite ;;
    *) echo "unknown suite $1"; return 1 ;;
    esac
}

for suite in "$@"; do
    echo "# suite: $suite"
    run_suite "$suite" 2>&1 | tee "$log/$suite.out"
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log/$suite.out" | tail -1 || true)
    if [[ -z $last ]]; then
        echo "not ok - suite $suite printed no result line"
        tf=$((tf + 1))
        continue
    fi
    read -r p f s <<<"$(echo "$last" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/')"
    tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + ${s:-0}))
done
echo "$tp passed, $tf failed, $ts skipped"
[[ $tf -eq 0 ]]
