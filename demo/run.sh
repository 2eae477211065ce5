#!/usr/bin/env bash
# run.sh - `make demo`: latscope's main job end to end on what ships with the repo.
#
# Runs every demo/NN-*.sh in order (each feature adds its own step). Must finish in under two
# minutes on 2 cores and print what a newcomer needs to see.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LATSCOPE=${LATSCOPE:-$root/build/latscope} LATSCOPE_SRCDIR=$root
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
export -f step 2>/dev/null || true
start=$(date +%s)
step "latscope $("$LATSCOPE" version | cut -d' ' -f2): what it can do"
"$LATSCOPE" help
for d in "$root"/demo/[0-9][0-9]-*.sh; do
    [[ -f $d ]] || continue
    bash "$d"
done
printf '\ndemo finished in %ss\n' "$(( $(date +%s) - start ))"
