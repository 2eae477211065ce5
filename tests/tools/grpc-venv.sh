#!/usr/bin/env bash
# grpc-venv.sh - prints the path of a python3 that can `import grpc` (grpcio from PyPI), creating
# a venv when needed: $LATSCOPE_GRPC_VENV (default build/venv-grpc of this tree). The hostile
# KServe v2 gRPC server of the bench tests (tests/tools/grpc-v2-server.py) runs on it; it needs
# grpcio only (generic handlers, the messages hand-encoded), not protobuf or grpcio-tools.
# Exit 77 with the reason on stdout when that is not possible (no python3-venv, no network): the
# calling test skips. LATSCOPE_GRPC_NO_INSTALL=1 uses an existing venv only. The venv logic is
# tests/tools/pip-venv.sh's.
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${LATSCOPE_GRPC_VENV:=$here/build/venv-grpc}"
export LATSCOPE_GRPC_VENV
exec "$(dirname "$0")/pip-venv.sh" grpc grpc grpcio
