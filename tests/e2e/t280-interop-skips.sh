#!/usr/bin/env bash
# t280-interop-skips: `make interop` (tests/interop/run.sh) is not part of make check, but when it
# cannot run it must say why and exit 77, never fail or hang: no latscope binary, venvs missing
# with LATSCOPE_INTEROP_NO_INSTALL=1, and PyPI unreachable (pip pointed at a closed port).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
RUN=$LATSCOPE_SRCDIR/tests/interop/run.sh
[[ -x $RUN ]] || fail "$RUN missing or not executable"
command -v python3 >/dev/null || skip "python3 not installed"

try() { # WANT_RC WANT_TEXT ENV...
    local want=$1 text=$2
    shift 2
    set +e
    env "$@" LATSCOPE_INTEROP_OUT="$TMPDIR/out-$RANDOM" timeout 120 bash "$RUN" >"$TMPDIR/o" 2>"$TMPDIR/e"
    local rc=$?
    set -e
    [[ $rc -eq $want ]] || { cat "$TMPDIR/o" "$TMPDIR/e" >&2; fail "$* -> exit $rc, want $want"; }
    tail -1 "$TMPDIR/o" | grep -qF -- "$text" || { cat "$TMPDIR/o" >&2; fail "$* -> last line lacks '$text'"; }
}
try 77 "SKIP: no latscope binary" LATSCOPE="$TMPDIR/nonexistent"
try 77 "SKIP: venvs incomplete and LATSCOPE_INTEROP_NO_INSTALL=1" LATSCOPE="$LATSCOPE" \
    LATSCOPE_INTEROP_VENV="$TMPDIR/venv" LATSCOPE_INTEROP_NO_INSTALL=1
[[ ! -e $TMPDIR/venv ]] || fail "NO_INSTALL created a venv"
# PyPI unreachable: pip's index is a closed local port; nothing is created or installed.
python3 -m pip --version >/dev/null 2>&1 || skip "python3 has no pip"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
try 77 "SKIP: PyPI unreachable" LATSCOPE="$LATSCOPE" LATSCOPE_INTEROP_VENV="$TMPDIR/venv2" \
    PIP_INDEX_URL="http://127.0.0.1:$port/simple" PIP_FIND_LINKS= PIP_NO_INDEX= PIP_RETRIES=0 PIP_DEFAULT_TIMEOUT=5
[[ ! -e $TMPDIR/venv2 && ! -e $TMPDIR/venv2-aiperf ]] || fail "made a venv without PyPI"
exit 0
