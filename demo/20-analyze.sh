#!/usr/bin/env bash
# 20-analyze.sh - `latscope analyze` on a hand-made trace shipped with the repo, then (when the
# shared corpus is there) on a real multi-rank DLRM job: where the GPU time goes.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_SRCDIR:?}"
traces=${LATSCOPE_TRACES:-$LATSCOPE_SRCDIR/../shared/traces}
type step >/dev/null 2>&1 || step() { printf '\n== %s\n' "$*"; }

step "latscope analyze: a tiny hand-made PyTorch profiler trace (tests/data)"
"$LATSCOPE" analyze "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json"

step "the same as JSON, for scripts (docs/analyze-json.md): temporal breakdown and launches"
"$LATSCOPE" analyze --format json "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json" |
    { command -v jq >/dev/null && jq -c '.ranks[0] | {temporal, launch: (.launch | {count, short_kernels, median_launch_delay_us})}' || cat; }

dlrm=$traces/param/example_input_files/chakra_traces/dlrm_kineto
if [[ -d $dlrm ]]; then
    step "a directory of 8 per-rank traces (DLRM training step), rank 0 and the job summary"
    "$LATSCOPE" analyze --rank 0 --top 5 "$dlrm"
    "$LATSCOPE" analyze "$dlrm" | tail -2
fi
