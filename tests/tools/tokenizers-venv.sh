#!/usr/bin/env bash
# tokenizers-venv.sh - prints the path of a python3 that can `import tokenizers` (Hugging Face's
# Rust tokenizers library, from PyPI: plain `pip install tokenizers`), creating a venv when
# needed: $LATSCOPE_TOKENIZERS_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/latscope/venv-tokenizers).
# Exit 77 with the reason on stdout when that is not possible (no python3-venv, no network): the
# calling test skips. LATSCOPE_TOKENIZERS_NO_INSTALL=1 uses an existing venv only.
# The venv logic is tests/tools/pip-venv.sh's.
exec "$(dirname "$0")/pip-venv.sh" tokenizers tokenizers tokenizers
