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
# truth_cached NAME OUTDIR KEY... -- CMD...: fills OUTDIR with what CMD (a truth generator:
# torch, HTA, tokenizers...) writes into OUTDIR, computed once per key and then copied from
# ${LATSCOPE_TRUTH_CACHE:-~/.cache/latscope/truth}/NAME-HASH. Each KEY is a file (its content
# counts) or a string (the tool's version, an option): change any and it is computed again.
# LATSCOPE_TRUTH_CACHE=off always computes. CMD's failure fails like CMD's own exit status.
truth_cached() {
    local name=$1 out=$2 k h cache
    shift 2
    h=$( (
        for k in "$@"; do
            [[ $k == -- ]] && break
            if [[ -f $k ]]; then sha256sum <"$k"; else printf '%s\n' "$k"; fi
        done
    ) | sha256sum | cut -c1-16)
    while [[ $# -gt 0 && $1 != -- ]]; do shift; done
    shift
    cache=${LATSCOPE_TRUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latscope/truth}
    mkdir -p "$out"
    if [[ $cache != off && -f $cache/$name-$h/.done ]]; then
        cp -r "$cache/$name-$h/." "$out/" && rm -f "$out/.done" && return 0
    fi
    "$@" || return
    if [[ $cache != off ]] && mkdir -p "$cache" 2>/dev/null; then
        local tmp
        tmp=$(mktemp -d "$cache/.$name-XXXXXX") || return 0
        cp -r "$out/." "$tmp/" && touch "$tmp/.done" && mv -T "$tmp" "$cache/$name-$h" 2>/dev/null ||
            rm -rf "$tmp"
    fi
    return 0
}
