#!/usr/bin/env bash
# run.sh - `make perf`: every benchmark perf/NN-*.sh, results as one table.
#
# Each benchmark prints lines "name<TAB>value<TAB>unit<TAB>note" on stdout; this script collects
# them into a table and writes perf/out/results.tsv. Benchmarks never assert: numbers are
# recorded in docs/performance.md by hand after a run, with the machine they ran on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LATSCOPE=${LATSCOPE:-$root/build/latscope} LATSCOPE_SRCDIR=$root
export LATSCOPE_TRACES=${LATSCOPE_TRACES:-$root/../shared/traces}
mkdir -p "$root/perf/out"
out=$root/perf/out/results.tsv
: >"$out"
for b in "$root"/perf/[0-9][0-9]-*.sh; do
    [[ -f $b ]] || continue
    echo "== $(basename "$b")" >&2
    bash "$b" | tee -a "$out" >/dev/null || echo "$(basename "$b")	FAILED		" >>"$out"
done
printf '\n%-48s %14s  %-8s %s\n' benchmark value unit note
awk -F'\t' '{ printf "%-48s %14s  %-8s %s\n", $1, $2, $3, $4 }' "$out"
