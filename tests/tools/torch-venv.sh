#!/usr/bin/env bash
# torch-venv.sh - prints the python of a venv with torch (CPU use only), creating it when needed:
# $LATSCOPE_TORCH_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-torch), torch from
# PyPI's default index with plain `pip install torch` (no other index). Exit 77 with the reason
# on stdout when python3 -m venv or the install is not possible (no network, no disk): the
# calling test skips. Set LATSCOPE_TORCH_NO_INSTALL=1 to use an existing venv only. The venv
# logic is tests/tools/pip-venv.sh's.
: "${LATSCOPE_TORCH_INSTALL_TIMEOUT:=240}"
export LATSCOPE_TORCH_INSTALL_TIMEOUT
exec "$(dirname "$0")/pip-venv.sh" torch torch torch
