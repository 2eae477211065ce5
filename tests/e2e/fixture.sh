# fixture.sh - helpers for end-to-end tests that need `latscope serve-test` (sourced after
# lib.sh). Any test may use them: start_fixture, stop_fixture, jnum.
#
#   start_fixture [serve-test options]   starts a server on a free port (--port 0), waits for its
#                                        first stdout line; sets FX_PORT FX_URL FX_PID FX_OUT.
#                                        Every server started is killed by the EXIT trap.
#   stop_fixture                         SIGTERM + wait; its exit status in FX_RC, the counters
#                                        JSON (last stdout line) in FX_FINAL.
#   jnum FILE|- KEY                      first "KEY":<integer> in a JSON text (flat counters).
FX_PIDS=()
fx_cleanup() {
    local p
    for p in "${FX_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
}
trap fx_cleanup EXIT

start_fixture() {
    FX_OUT=$(mktemp "$TMPDIR/fixture.XXXXXX")
    "$LATSCOPE" serve-test --port 0 --max-seconds 120 "$@" >"$FX_OUT" 2>"$FX_OUT.err" &
    FX_PID=$!
    FX_PIDS+=("$FX_PID")
    local i
    for i in $(seq 200); do
        [[ $(wc -l <"$FX_OUT") -ge 1 ]] && break
        kill -0 "$FX_PID" 2>/dev/null || break
        sleep 0.05
    done
    FX_PORT=$(head -1 "$FX_OUT")
    [[ $FX_PORT =~ ^[0-9]+$ ]] || fail "serve-test printed no port: $(cat "$FX_OUT" "$FX_OUT.err")"
    FX_URL=http://127.0.0.1:$FX_PORT
}

stop_fixture() {
    kill -TERM "$FX_PID"
    set +e; wait "$FX_PID"; FX_RC=$?; set -e
    FX_FINAL=$(tail -1 "$FX_OUT")
}

jnum() {
    local text
    if [[ $1 == - ]]; then text=$(cat); else text=$(cat "$1"); fi
    local v
    v=$(grep -o "\"$2\":[0-9]*" <<<"$text" | head -1 | cut -d: -f2)
    [[ -n $v ]] || fail "no \"$2\" in: ${text:0:300}"
    echo "$v"
}
