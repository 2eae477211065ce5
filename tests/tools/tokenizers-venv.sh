#!/usr/bin/env bash
# tokenizers-venv.sh - prints the path of a python3 that can `import tokenizers` (Hugging Face's
# Rust tokenizers library, from PyPI: plain `pip install tokenizers`), creating a venv when
# needed: $LATSCOPE_TOKENIZERS_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tokenizers).
# Exit 77 with the reason on stdout when that is not possible (no python3-venv, no network): the
# calling test skips. LATSCOPE_TOKENIZERS_NO_INSTALL=1 uses an existing venv only.
set -u
venv=${LATSCOPE_TOKENIZERS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tokenizers}
py=$venv/bin/python3
if [[ -x $py ]] && "$py" -c 'import tokenizers' >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${LATSCOPE_TOKENIZERS_NO_INSTALL:-0} == 1 ]] && { echo "no tokenizers in $venv (LATSCOPE_TOKENIZERS_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "tokenizers not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install tokenizers from PyPI, ~10 MB)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel); a second waits,
# then finds the venv made
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_TOKENIZERS_INSTALL_TIMEOUT:-300}" "$venv/bin/pip" install --progress-bar off tokenizers >"$log" 2>&1; then
    echo "pip install tokenizers failed or timed out (see $log)"
    exit 77
fi
"$py" -c 'import tokenizers' >/dev/null 2>&1 || { echo "tokenizers installed but does not import (see $log)"; exit 77; }
echo "$py"
