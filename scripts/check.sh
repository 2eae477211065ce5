#!/usr/bin/env bash
# check.sh - what `make check` runs: build the release, sanitizer and fuzz configurations, then
# every suite; the last line is the summed "N passed, N failed, N skipped".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)
# E2E_JOBS: e2e scripts at once (default: cores; tests/e2e/run.sh -j)
e2e_jobs=${E2E_JOBS:-$jobs}
# WERROR=1: a compiler warning fails the check (a user's plain `make` does not use -Werror)
make --no-print-directory -j"$jobs" WERROR=1 all build/unit-tests
make --no-print-directory -j"$jobs" WERROR=1 SAN=address,undefined build-san/latscope build-san/unit-tests
suites=(unit e2e unit-san e2e-san)
if command -v clang >/dev/null; then
    make --no-print-directory -j"$jobs" WERROR=1 fuzz-build
    suites+=(fuzz-corpus)
fi
suites+=(format)
exec tests/run-suites.sh -j "$e2e_jobs" "${suites[@]}"
