#!/usr/bin/env bash
# pip-venv.sh NAME 'IMPORTS' PKG... - prints the path of a python3 that can `import IMPORTS`
# (comma-separated modules), pip-installing PKG... from PyPI into a venv when needed:
# $LATSCOPE_<NAME>_VENV (NAME upper-cased, '-' as '_'; default
# ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-NAME). Exit 77 with the reason on stdout when
# that is not possible (no python3-venv, no network, LATSCOPE_NO_DOWNLOADS=1): the calling test
# skips. LATSCOPE_<NAME>_NO_INSTALL=1 uses an existing venv only; LATSCOPE_<NAME>_INSTALL_TIMEOUT
# (seconds, default 300) bounds the install. The one venv helper of the tests that need a Python
# package (tokenizers-, torch- and tf-venv.sh and the ORT server of t841 use it).
set -u
name=${1:?usage: pip-venv.sh NAME IMPORTS PKG...}
imports=${2:?usage: pip-venv.sh NAME IMPORTS PKG...}
shift 2
[[ $# -gt 0 ]] || { echo "pip-venv.sh: no package to install"; exit 2; }
key=$(echo "$name" | tr 'a-z-' 'A-Z_')
vv=LATSCOPE_${key}_VENV ni=LATSCOPE_${key}_NO_INSTALL to=LATSCOPE_${key}_INSTALL_TIMEOUT
venv=${!vv:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-$name}
py=$venv/bin/python3
if [[ -x $py ]] && "$py" -c "import $imports" >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${!ni:-0} == 1 ]] && { echo "no $imports in $venv ($ni=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "$imports not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install $* from PyPI)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel); a second waits,
# then finds the venv made
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ -x $py ]] && "$py" -c "import $imports" >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${!to:-300}" "$venv/bin/pip" install --progress-bar off "$@" >"$log" 2>&1; then
    echo "pip install $* failed or timed out (see $log)"
    exit 77
fi
"$py" -c "import $imports" >/dev/null 2>&1 || { echo "$* installed but 'import $imports' fails (see $log)"; exit 77; }
echo "$py"
