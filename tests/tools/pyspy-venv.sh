#!/usr/bin/env bash
# pyspy-venv.sh - prints the path of a py-spy executable, installing py-spy from PyPI (plain
# `pip install py-spy`) into a venv when needed: $LATSCOPE_PYSPY_VENV (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-pyspy). Exit 77 with the reason on stdout when
# that is not possible (no python3-venv, no network): the calling test skips.
# LATSCOPE_PYSPY_NO_INSTALL=1 uses an existing venv only.
set -u
venv=${LATSCOPE_PYSPY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-pyspy}
bin=$venv/bin/py-spy
if [[ -x $bin ]] && "$bin" --version >/dev/null 2>&1; then
    echo "$bin"
    exit 0
fi
[[ ${LATSCOPE_PYSPY_NO_INSTALL:-0} == 1 ]] && { echo "no py-spy in $venv (LATSCOPE_PYSPY_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "py-spy not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install py-spy from PyPI, ~5 MB)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel); a second waits,
# then finds the venv made
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_PYSPY_INSTALL_TIMEOUT:-180}" "$venv/bin/pip" install --progress-bar off py-spy >"$log" 2>&1; then
    echo "pip install py-spy failed or timed out (see $log)"
    exit 77
fi
"$bin" --version >/dev/null 2>&1 || { echo "py-spy installed but does not run (see $log)"; exit 77; }
echo "$bin"
