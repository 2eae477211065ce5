# bench-fixture.sh - helpers for the bench e2e tests (t23x..t27x), sourced after lib.sh.
#
# start_fixture ARGS...: starts `latscope serve-test --port 0 ARGS` in the background, killed
# by an EXIT trap; sets FIXTURE_PORT and FIXTURE_URL. Skips the test when serve-test is not
# available in this build. need_python: skips without python3 (used to check JSON).
# SAN_MULT: tolerance multiplier (LATSCOPE_SAN=1 slows everything down).
SAN_MULT=1
[[ ${LATSCOPE_SAN:-0} == 1 ]] && SAN_MULT=4
FIXTURE_PIDS=()
stop_fixtures() {
    local p
    for p in "${FIXTURE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${FIXTURE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop_fixtures EXIT
need_python() { command -v python3 >/dev/null || skip "python3 not installed (needed to check JSON)"; }
start_fixture() {
    "$LATSCOPE" serve-test --help 2>/dev/null | grep -q -- --port ||
        skip "latscope serve-test (the fixture server) is not available in this build"
    local out=$TMPDIR/fixture.$$.${#FIXTURE_PIDS[@]}
    "$LATSCOPE" serve-test --port 0 --max-seconds 120s "$@" >"$out" 2>"$out.err" &
    FIXTURE_PIDS+=($!)
    local i
    for i in $(seq 1 100); do
        FIXTURE_PORT=$(head -1 "$out" 2>/dev/null | tr -dc 0-9 || true)
        [[ -n $FIXTURE_PORT ]] && break
        sleep 0.05
    done
    [[ -n $FIXTURE_PORT ]] || { cat "$out.err" >&2; fail "serve-test did not print its port"; }
    FIXTURE_URL=http://127.0.0.1:$FIXTURE_PORT
}
# jq_py FILE EXPR: prints the Python expression EXPR evaluated with d = the JSON in FILE.
jq_py() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
