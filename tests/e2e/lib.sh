# lib.sh - helpers for end-to-end tests (sourced by tests/e2e/t*.sh).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON: exit 77. REASON says why and what installs the missing piece; it goes to stdout and
# to $LATSCOPE_SKIP_FILE (set by run.sh), so a skip inside $(...) still reports its reason.
skip() {
    echo "$*"
    [[ -n ${LATSCOPE_SKIP_FILE:-} ]] && echo "$*" >>"$LATSCOPE_SKIP_FILE"
    exit 77
}
# need_trace REL: path of a shared trace, or skip the test when the corpus is absent. Called as
# p=$(need_trace REL), so the reason also goes to stderr (stdout is the caller's variable).
need_trace() {
    local p=$LATSCOPE_TRACES/$1
    if [[ ! -e $p ]]; then
        echo "shared trace $1 not present: set LATSCOPE_TRACES to the shared trace corpus" >&2
        skip "shared trace $1 not present: set LATSCOPE_TRACES to the shared trace corpus"
    fi
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
