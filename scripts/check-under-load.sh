#!/usr/bin/env bash
# check-under-load.sh [STRESSORS] - `make check` while `stress-ng --cpu STRESSORS` (default 2:
# one per core of the 2-core machines) loads every CPU, issue 28's "0 failures under load" run.
# Installs stress-ng through scripts/deps.sh (LATSCOPE_DEPS_LOAD=1). The closing line is make
# check's own; the exit status too. stress-ng stops when the check ends (or is interrupted).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
n=${1:-2}
LATSCOPE_DEPS_LOAD=1 scripts/deps.sh
stress-ng --cpu "$n" --timeout 0 --quiet &
sp=$!
trap 'kill $sp 2>/dev/null; wait $sp 2>/dev/null || true' EXIT
echo "check-under-load: stress-ng --cpu $n (pid $sp) running beside make check"
make check
