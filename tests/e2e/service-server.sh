# service-server.sh - start_service NAME MODE ARGS...: starts tests/tools/service-server.py MODE
# (a keep-alive HTTP server with one known service problem, for doctor's service rules) in the
# background, killed by bench-fixture.sh's EXIT trap; sets SVC_URL. Source after lib.sh and
# bench-fixture.sh.
start_service() {
    local name=$1; shift
    python3 "$LATSCOPE_SRCDIR/tests/tools/service-server.py" "$1" "$TMPDIR/$name.port" "${@:2}" &
    FIXTURE_PIDS+=($!)
    local i port=
    for i in $(seq 1 200); do
        port=$({ tr -dc 0-9 <"$TMPDIR/$name.port"; } 2>/dev/null || true)
        [[ -n $port ]] && break
        sleep 0.05
    done
    [[ -n $port ]] || fail "service-server.py $1 did not write its port"
    SVC_URL=http://127.0.0.1:$port/
}
# doctor_ids FILE: the finding ids of `latscope doctor --format json FILE`, one line, space
# separated (doctor's exit status 0 or 1 is not checked here)
doctor_ids() {
    "$LATSCOPE" doctor --format json "$1" >"$TMPDIR/doctor_ids.json" 2>"$TMPDIR/doctor_ids.err" || true
    python3 -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' \
        "$TMPDIR/doctor_ids.json" || { cat "$TMPDIR/doctor_ids.err" >&2; fail "doctor on $1 gave no JSON"; }
}
