#!/usr/bin/env bash
# hta-parity.sh [TRACES_ROOT] > tests/data/hta-parity.jsonl: HTA's reference numbers for every
# Kineto trace (a file holding "traceEvents") of the shared corpus, one JSON line per trace, by
# tests/tools/hta-parity.py. Needs HTA f4d0062c on PYTHONPATH and pandas 2.x in the Python of
# $HTA_PYTHON (default: python3). t192 compares latscope with the recorded file; rerun this after
# a corpus change (docs/latscope-analyze.md, "HTA parity").
set -euo pipefail
root=${1:-${LATSCOPE_TRACES:-/work/shared/traces}}
py=${HTA_PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
cd "$root"
list=()
while IFS= read -r f; do
    f=${f#./}
    if [[ $f == *.gz ]]; then c=(zcat); else c=(cat); fi
    # no pipefail here: grep -q stops reading early and zcat dies of SIGPIPE
    if (set +o pipefail; "${c[@]}" "$f" 2>/dev/null | grep -q '"traceEvents"'); then list+=("$f"); fi
done < <(find . \( -name '*.json' -o -name '*.json.gz' \) -size +0 | LC_ALL=C sort)
for f in "${list[@]}"; do
    "$py" "$here/hta-parity.py" "$root" "$f" 2>/dev/null || echo "{\"trace\": \"$f\", \"error\": \"hta-parity.py failed\"}"
done
