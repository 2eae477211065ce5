# llm.sh - helpers for the LLM end-to-end tests (t50x-llm-*.sh): sourced after lib.sh.
# need_llm fails when this build lacks `bench --target openai` or `serve-test openai` (both are
# built in; a missing one is a regression, not a reason to skip).
need_llm() {
    command -v python3 >/dev/null || skip "python3 missing (JSON checks)"
    "$LATSCOPE" bench --help >"$TMPDIR/llm-help" 2>/dev/null || true
    grep -q -- "openai" "$TMPDIR/llm-help" || fail "bench --help does not offer --target openai"
    "$LATSCOPE" serve-test openai --help >/dev/null 2>&1 || fail "serve-test openai --help failed"
}
# start_fixture ARGS...: the OpenAI fixture on a free loopback port; sets FX_PORT, FX_PID.
start_fixture() {
    rm -f "$TMPDIR/fx.port"
    "$LATSCOPE" serve-test openai --port-file "$TMPDIR/fx.port" "$@" >/dev/null 2>"$TMPDIR/fx.err" &
    FX_PID=$!
    trap 'kill $FX_PID 2>/dev/null; wait $FX_PID 2>/dev/null' EXIT
    for _ in $(seq 100); do
        [[ -s $TMPDIR/fx.port ]] && break
        kill -0 "$FX_PID" 2>/dev/null || fail "fixture died: $(cat "$TMPDIR/fx.err")"
        sleep 0.05
    done
    FX_PORT=$(cat "$TMPDIR/fx.port")
    [[ -n $FX_PORT ]] || fail "fixture did not start"
}
# stop_fixture: stops the fixture start_fixture started (before starting another), and its
# EXIT trap, whose wait would now fail (and fail the test under set -e).
stop_fixture() {
    kill "$FX_PID" 2>/dev/null
    wait "$FX_PID" 2>/dev/null || true
    trap - EXIT
}
# Timing tolerance in ms: wider under sanitizers.
TOL_MS=${LATSCOPE_SAN:+20}
TOL_MS=${TOL_MS:-6}
