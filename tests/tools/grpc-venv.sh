#!/usr/bin/env bash
# grpc-venv.sh - prints the path of a python3 that can `import grpc` (grpcio from PyPI), creating
# a venv when needed: $LATSCOPE_GRPC_VENV (default build/venv-grpc of this tree). The hostile
# KServe v2 gRPC server of the bench tests (tests/tools/grpc-v2-server.py) runs on it; it needs
# grpcio only (generic handlers, the messages hand-encoded), not protobuf or grpcio-tools.
# Exit 77 with the reason on stdout when that is not possible (no python3-venv, no network): the
# calling test skips. LATSCOPE_GRPC_NO_INSTALL=1 uses an existing venv only.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
venv=${LATSCOPE_GRPC_VENV:-$here/build/venv-grpc}
py=$venv/bin/python3
if [[ -x $py ]] && "$py" -c 'import grpc' >/dev/null 2>&1; then
    echo "$py"
    exit 0
fi
[[ ${LATSCOPE_GRPC_NO_INSTALL:-0} == 1 ]] && { echo "no grpcio in $venv (LATSCOPE_GRPC_NO_INSTALL=1)"; exit 77; }
[[ ${LATSCOPE_NO_DOWNLOADS:-0} == 1 ]] &&
    { echo "grpcio not in $venv and LATSCOPE_NO_DOWNLOADS=1 (unset it to pip install grpcio from PyPI, ~6 MB)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
mkdir -p "$(dirname "$venv")" 2>/dev/null
# one installer at a time (tests/e2e/run.sh -j runs scripts in parallel)
{ exec 9>"$venv.lock"; } 2>/dev/null && flock 9
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "python3 -m venv failed (python3-venv missing?)"; exit 77; }
fi
log=$venv/pip-install.log
if ! timeout "${LATSCOPE_GRPC_INSTALL_TIMEOUT:-300}" "$venv/bin/pip" install --progress-bar off grpcio >"$log" 2>&1; then
    echo "pip install grpcio failed or timed out (PyPI unreachable? see $log)"
    exit 77
fi
"$py" -c 'import grpc' >/dev/null 2>&1 || { echo "grpcio installed but does not import (see $log)"; exit 77; }
echo "$py"
