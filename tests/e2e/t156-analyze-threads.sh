#!/usr/bin/env bash
# t156-analyze-threads: the analyses run on a thread pool; the JSON result must be byte for byte
# the same with 1 thread and with 8 (hand-made trace always; a multi-rank corpus directory and the
# largest single-rank corpus trace when ../shared is present). --threads is range-checked.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
same_with_threads() {
    expect_rc 0 "$LATSCOPE" analyze --format json --threads 1 "$@"
    cp "$TMPDIR/out" "$TMPDIR/t1.json"
    expect_rc 0 "$LATSCOPE" analyze --format json --threads 8 "$@"
    cmp -s "$TMPDIR/t1.json" "$TMPDIR/out" || {
        diff <(jq -S . "$TMPDIR/t1.json") <(jq -S . "$TMPDIR/out") | head -20 >&2
        fail "--threads 1 and --threads 8 differ on $*"
    }
    # the result is not empty: some rank has analysed events
    jq -e '[.ranks[].kept_events] | add > 0' "$TMPDIR/out" >/dev/null || fail "no events analysed in $*"
}
same_with_threads "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json"
expect_rc 2 "$LATSCOPE" analyze --threads 0 "$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json"
contains "$TMPDIR/err" "--threads wants a number (1..8)"
need_trace param/example_input_files/chakra_traces/dlrm_kineto >/dev/null
same_with_threads "$LATSCOPE_TRACES/param/example_input_files/chakra_traces/dlrm_kineto"
same_with_threads "$(need_trace hta/tests/data/df_index_resolver/df_index_resolver.json.gz)"
exit 0
