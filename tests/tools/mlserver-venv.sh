#!/usr/bin/env bash
# mlserver-venv.sh - prints the path of a python3 that can `import mlserver` (Seldon MLServer),
# creating a venv when needed: $LATSCOPE_MLSERVER_VENV (default build/venv-mlserver of this tree),
# for the real KServe v2 server of tests/e2e/t289 (HTTP and gRPC from one process).
# Exit 77 with the reason on stdout when that is not possible (no python3-venv, no network): the
# calling test skips. LATSCOPE_MLSERVER_NO_INSTALL=1 uses an existing venv only.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
venv=${LATSCOPE_MLSERVER_VENV:-$here/build/venv-mlserver}
py=$venv/bin/python3
if [[ -x $py ]] && "$py" -c 'import mlserver' >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${LATSCOPE_MLSERVER_NO_INSTALL:-0} == 1 ]] && { echo "no mlserver in $venv (LATSCOPE_MLSERVER_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "mlserver not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install mlserver from PyPI, ~150 MB, about 2 min)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel)
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_MLSERVER_INSTALL_TIMEOUT:-300}" "$venv/bin/pip" install --progress-bar off mlserver >"$log" 2>&1; then
    echo "pip install mlserver failed or timed out (PyPI unreachable? see $log)"
    exit 77
fi
"$py" -c 'import mlserver' >/dev/null 2>&1 || { echo "mlserver installed but does not import (see $log)"; exit 77; }
echo "$py"
