#!/usr/bin/env bash
# torch-venv.sh - prints the python of a venv with torch (CPU use only), creating it when needed:
# $LATSCOPE_TORCH_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-torch), torch from
# PyPI's default index with plain `pip install torch` (no other index). Exit 77 with the reason
# on stdout when python3 -m venv or the install is not possible (no network, no disk): the
# calling test skips. Set LATSCOPE_TORCH_NO_INSTALL=1 to use an existing venv only.
set -u
venv=${LATSCOPE_TORCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-torch}
py=$venv/bin/python
if [[ -x $py ]] && "$py" -c 'import torch' >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${LATSCOPE_TORCH_NO_INSTALL:-0} == 1 ]] && { echo "no torch in $venv (LATSCOPE_TORCH_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "torch not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install torch from PyPI, ~1.8 GB with its dependencies)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel); a second waits,
# then finds the venv made
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ ! -x $py ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_TORCH_INSTALL_TIMEOUT:-240}" "$venv/bin/pip" install --progress-bar off torch >"$log" 2>&1; then
    echo "pip install torch failed or timed out (see $log)"
    exit 77
fi
"$py" -c 'import torch' >/dev/null 2>&1 || { echo "torch installed but does not import (see $log)"; exit 77; }
echo "$py"
