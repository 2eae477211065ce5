#!/usr/bin/env bash
# tf-venv.sh - prints the python of a venv with tensorflow-cpu and xprof (the TensorBoard profile
# plugin's successor: its converter writes trace_viewer JSON and framework_op_stats), creating it
# when needed: $LATSCOPE_TF_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tf),
# both from PyPI's default index with plain `pip install tensorflow-cpu xprof` (~1.8 GB installed with
# their dependencies). Exit 77 with the reason on stdout when python3 -m venv or the install is
# not possible (no network, no disk): the calling test skips. Set LATSCOPE_TF_NO_INSTALL=1 to use
# an existing venv only. The venv logic is tests/tools/pip-venv.sh's.
: "${LATSCOPE_TF_INSTALL_TIMEOUT:=900}"
export LATSCOPE_TF_INSTALL_TIMEOUT
exec "$(dirname "$0")/pip-venv.sh" tf 'tensorflow, xprof' tensorflow-cpu xprof
