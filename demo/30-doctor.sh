#!/usr/bin/env bash
# 30-doctor.sh - `latscope doctor`: from a trace to ranked findings with evidence, savings and
# the next command. Runs on hand-made traces that ship with the repo (they are NOT from real
# programs: tests/data/handmade-doctor-*.json), and on a real ResNet-50 training trace when the
# shared corpus (../shared/traces) is present.
set -euo pipefail
root=${LATSCOPE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
L=${LATSCOPE:-$root/build/latscope}
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "doctor: a HAND-MADE inference trace with an .item() sync in every step"
"$L" doctor "$root/tests/data/handmade-doctor-sync.json" | sed -n '1,22p' || true

step "doctor: a HAND-MADE GPU-bound trace gets 'No significant finding' (exit 0)"
"$L" doctor "$root/tests/data/handmade-doctor-clean.json" | sed -n '1,9p'

step "doctor --format json: the ranking of a HAND-MADE eager, launch-bound trace"
"$L" doctor --format json "$root/tests/data/handmade-doctor-launch.json" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); [print("  %-22s %-7s %6.1f %% of the step  %s" % (f["id"], f["severity"], f["saving_pct"], f["next_step"][:60])) for f in d["findings"]]' || true

traces=${LATSCOPE_TRACES:-$root/../shared/traces}
t=$traces/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
if [[ -f $t ]]; then
    step "doctor on a REAL trace: ResNet-50 training, DataLoader num_workers=0 (tb_plugin sample)"
    echo "(tb_plugin reports DataLoader = 33.37 % of the step for this run)"
    "$L" doctor "$t" | sed -n '1,20p' || true
else
    echo "(../shared/traces absent: the real ResNet-50 example is skipped)"
fi
t=$traces/torch-cpu/resnet18_b1/resnet18_b1.pt.trace.json
if [[ -f $t ]]; then
    step "doctor on a REAL CPU-only trace: resnet18 batch 1 on a loaded 2-core VM (CPU rules, no GPU advice)"
    echo "(its first profiled step is 3x the median: contention, not warm-up)"
    "$L" doctor "$t" | sed -n '1,16p' || true
fi
step "doctor on an input no rule reads (an ONNX Runtime profile): 'no rule applies', exit 3"
printf '[{"ph":"X","cat":"Node","name":"Conv_0","pid":1,"tid":1,"ts":0,"dur":100}]\n' >"${TMPDIR:-/tmp}/latscope-demo-ort.json"
"$L" doctor "${TMPDIR:-/tmp}/latscope-demo-ort.json" | tail -1 || echo "(exit $?)"
