# lib.sh - helpers for end-to-end tests (sourced by tests/e2e/t*.sh).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
# need_trace REL: path of a shared trace, or skip the test when the corpus is absent.
need_trace() {
    local p=$LATSCOPE_TRACES/$1
    [[ -e $p ]] || skip "shared trace $1 not present (../shared/traces absent?)"
    echo "$p"
}
# expect_rc N CMD...: runs CMD, fails unless its exit status is N. Output in $TMPDIR/out, err.
expect_rc() {
    local want=$1; shift
    set +e; "$@" >"$TMPDIR/out" 2>"$TMPDIR/err"; local rc=$?; set -e
    [[ $rc -eq $want ]] || { cat "$TMPDIR/out" "$TMPDIR/err" >&2; fail "'$*' exited $rc, want $want"; }
}
# contains FILE TEXT: fails unless FILE contains TEXT.
contains() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks '$2'"; }; }
# check_py FILE CODE: runs Python CODE with d = the JSON in FILE; fails the test on exception.
# The document comes first and the traceback last, so a log that keeps only its tail shows why.
check_py() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2])' "$1" "$2" \
        2>"$TMPDIR/check_py.err" || {
        cat "$1" "$TMPDIR/check_py.err" >&2
        fail "check failed: $2"
    }
}
