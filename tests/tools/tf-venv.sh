#!/usr/bin/env bash
# tf-venv.sh - prints the python of a venv with tensorflow-cpu and xprof (the TensorBoard profile
# plugin's successor: its converter writes trace_viewer JSON and framework_op_stats), creating it
# when needed: $LATSCOPE_TF_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tf),
# both from PyPI's default index with plain `pip install tensorflow-cpu xprof` (~1.8 GB installed with
# their dependencies). Exit 77 with the reason on stdout when python3 -m venv or the install is
# not possible (no network, no disk): the calling test skips. Set LATSCOPE_TF_NO_INSTALL=1 to use
# an existing venv only.
set -u
venv=${LATSCOPE_TF_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tf}
py=$venv/bin/python
probe='import tensorflow, xprof'
if [[ -x $py ]] && "$py" -c "$probe" >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${LATSCOPE_TF_NO_INSTALL:-0} == 1 ]] && { echo "no tensorflow + xprof in $venv (LATSCOPE_TF_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "tensorflow + xprof not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install tensorflow-cpu xprof from PyPI, ~1.8 GB installed with their dependencies)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel); a second waits,
# then finds the venv made
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ -x $py ]] && "$py" -c "$probe" >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
if [[ ! -x $py ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_TF_INSTALL_TIMEOUT:-900}" "$venv/bin/pip" install --progress-bar off tensorflow-cpu xprof >"$log" 2>&1; then
    echo "pip install tensorflow-cpu xprof failed or timed out (see $log)"
    exit 77
fi
"$py" -c "$probe" >/dev/null 2>&1 || { echo "tensorflow + xprof installed but do not import (see $log)"; exit 77; }
echo "$py"
