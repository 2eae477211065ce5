#!/usr/bin/env bash
# t196-mpi-one-reporter: under mpirun, the commands that do not split their work print one
# report, not one per process: `doctor` (rank 0 alone), `analyze --rank N` and
# `analyze --write-trace` (rank 0 alone, MPI finalized first, so an error exit is an ordinary
# exit, not an abort); the output equals the single-process one. Each run under `timeout`.
# Skips without mpirun or an MPI build.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
command -v timeout >/dev/null || skip "timeout missing"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
grep -q "built without MPI" "$TMPDIR/probe" && skip "this latscope was built without MPI"
MPI=(mpirun --oversubscribe -n 3)
[[ $(id -u) -eq 0 ]] && MPI+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Under the sanitizer build: Open MPI's own components (dlopen'd, "unknown module" in the
# report) leave allocations at exit that LeakSanitizer reports; they are not latscope's, so
# leak detection is off here (ASan and UBSan errors still fail the run).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
data=$LATSCOPE_SRCDIR/tests/data
one() { # WANT-RC ARGS...: mpirun equals one process, stdout and exit status
    local want=$1 a b
    shift
    set +e
    "$LATSCOPE" "$@" >"$TMPDIR/one" 2>/dev/null
    a=$?
    timeout 120 "${MPI[@]}" "$LATSCOPE" "$@" >"$TMPDIR/mpi" 2>"$TMPDIR/mpi.err"
    b=$?
    set -e
    [[ $a == "$want" ]] || fail "one process: exit $a, want $want: $*"
    [[ $b == "$want" ]] || { cat "$TMPDIR/mpi.err" >&2; fail "mpirun: exit $b, want $want: $*"; }
    cmp -s "$TMPDIR/one" "$TMPDIR/mpi" || { diff "$TMPDIR/one" "$TMPDIR/mpi" | head -c 2000 >&2; fail "mpirun output differs: $*"; }
    ! grep -q "MPI_ABORT" "$TMPDIR/mpi.err" || fail "aborted: $*"
}
one 1 doctor --format json "$data/handmade-ranks-straggler"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/mpi") == 1 ]] || fail "doctor: one report with the straggler"
one 0 analyze --format json --rank 2 "$data/handmade-ranks-straggler"
one 1 analyze --rank 7 "$data/handmade-ranks-straggler"
exit 0
