#!/usr/bin/env bash
# mlserver-venv.sh - prints the path of a python3 that can `import mlserver` (Seldon MLServer,
# from PyPI: ~150 MB, about 2 minutes), creating a venv when needed: $LATSCOPE_MLSERVER_VENV
# (default build/venv-mlserver of this tree), for the real KServe v2 server of
# tests/e2e/t289 (HTTP and gRPC from one process). Exit 77 with the reason on stdout when that
# is not possible (no python3-venv, no network): the calling test skips.
# LATSCOPE_MLSERVER_NO_INSTALL=1 uses an existing venv only. The venv logic is
# tests/tools/pip-venv.sh's.
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${LATSCOPE_MLSERVER_VENV:=$here/build/venv-mlserver}"
export LATSCOPE_MLSERVER_VENV
exec "$(dirname "$0")/pip-venv.sh" mlserver mlserver mlserver
