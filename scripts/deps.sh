#!/usr/bin/env bash
# deps.sh - install the Debian packages latscope needs, when they are missing.
#
# Idempotent: checks each package with dpkg-query first; runs `apt-get update` at most once per
# invocation and only when something is missing. Not root and no sudo: prints the exact
# apt-get line to run and fails. LATSCOPE_DEPS_PERF=1 adds the packages `make perf` compares
# against (nginx, wrk, hyperfine). LATSCOPE_DEPS_BROWSER=1 adds chromium, the optional browser of
# the report tests (t601 skips without it). libxml2-utils: xmllint, t603 checks the SVG plots with it.
# LATSCOPE_DEPS_INTEROP=1 adds what `make interop` needs (tests/interop/run.sh: a venv, GNU time,
# cmake/ninja/g++ for llama-cpp-python's build, wrk as a third client on the plain JSON endpoint).
# LATSCOPE_DEPS_LOAD=1 adds stress-ng, the background load of `scripts/check-under-load.sh`
# (issue 28: make check under `stress-ng --cpu 2`) and of the sampler's loaded measurements.
# LATSCOPE_DEPS_DEB=1 adds what `dpkg-buildpackage -us -uc -b` needs for debian/ (dpkg-dev,
# debhelper; docs/install.md; t821 skips without them).
set -euo pipefail

pkgs=(
    build-essential make pkg-config git
    zlib1g-dev libssl-dev libsqlite3-dev libdw-dev libelf-dev libdeflate-dev libisal-dev
    clang libclang-rt-14-dev clang-format-14
    jq procps curl python3 openssl xxd sqlite3 libxml2-utils
    openmpi-bin libopenmpi-dev
)
if [[ "${LATSCOPE_DEPS_PERF:-0}" == 1 ]]; then
    pkgs+=(nginx wrk hyperfine linux-perf)
fi
if [[ "${LATSCOPE_DEPS_INTEROP:-0}" == 1 ]]; then
    pkgs+=(python3-venv python3-pip time cmake ninja-build wrk)
fi
if [[ "${LATSCOPE_DEPS_LOAD:-0}" == 1 ]]; then
    pkgs+=(stress-ng)
fi
if [[ "${LATSCOPE_DEPS_DEB:-0}" == 1 ]]; then
    pkgs+=(dpkg-dev debhelper)
fi
if [[ "${LATSCOPE_DEPS_BROWSER:-0}" == 1 ]]; then
    pkgs+=(chromium)
fi

missing=()
for p in "${pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed'; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: missing Debian packages: ${missing[*]}" >&2
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive $line
        exit 0
    fi
    echo "deps: not root; run as root:  apt-get update && $line" >&2
    exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive $line
