#!/usr/bin/env bash
# t195-bench-mpi-rank-error: under `mpirun ... latscope bench --mpi`, a rank that fails (a bad
# option on that rank alone, a host it cannot resolve, a file it cannot write) must not leave the
# other ranks waiting for it in a collective: it aborts the whole job (MPI_Abort) after saying so.
# Each run is under `timeout`: 124 (a hang) fails the test. A run where every rank exits 0
# (--help) is no abort. Skips without mpirun or an MPI build.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
command -v timeout >/dev/null || skip "timeout missing"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
grep -q "built without MPI" "$TMPDIR/probe" && skip "this latscope was built without MPI"
MPI=(mpirun --oversubscribe)
[[ $(id -u) -eq 0 ]] && MPI+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# a port nothing listens on: the good ranks would run (errors counted) and reach the barrier
url=http://127.0.0.1:9/
good=(bench --mpi -c 4 -n 400 --duration 20s "$url")
# aborted NAME MPIRUN-ARGS...: the job ends (not by timeout) with an error and the note
aborted() {
    local name=$1 rc
    shift
    set +e
    timeout 60 "${MPI[@]}" "$@" >"$TMPDIR/$name.out" 2>"$TMPDIR/$name.err"
    rc=$?
    set -e
    [[ $rc != 124 && $rc != 137 ]] || { cat "$TMPDIR/$name.err" >&2; fail "$name: the job hung (timeout)"; }
    [[ $rc != 0 ]] || { cat "$TMPDIR/$name.err" >&2; fail "$name: exit 0"; }
    [[ ${NOTE:-1} == 0 ]] ||
        contains "$TMPDIR/$name.err" "before the run ended (its error is above): aborting every rank"
}
# A bad option is refused before MPI_Init (options are parsed first): that rank exits 2 at
# once and mpirun ends the job (it aborts a job when a process exits non-zero); no note.
NOTE=0 aborted bad-option-rank0 -n 1 "$LATSCOPE" bench --mpi --bogus -c 3 "$url" : -n 3 "$LATSCOPE" "${good[@]}"
contains "$TMPDIR/bad-option-rank0.err" "unknown option '--bogus'"
NOTE=0 aborted bad-option-rank3 -n 3 "$LATSCOPE" "${good[@]}" : -n 1 "$LATSCOPE" bench --mpi --bogus -c 3 "$url"
contains "$TMPDIR/bad-option-rank3.err" "unknown option '--bogus'"
aborted resolve -n 2 "$LATSCOPE" "${good[@]}" : -n 1 "$LATSCOPE" bench --mpi -c 3 -n 300 http://no-such-host.invalid:9/
contains "$TMPDIR/resolve.err" "cannot resolve no-such-host.invalid"
contains "$TMPDIR/resolve.err" "rank 2 of 3 stops"
# a file rank 0 cannot write (rank 0 writes the records)
aborted unwritable -n 1 "$LATSCOPE" bench --mpi -c 3 -n 300 --records "$TMPDIR/no/such/dir/r.jsonl" "$url" : -n 2 "$LATSCOPE" "${good[@]}"
contains "$TMPDIR/unwritable.err" "rank 0 of 3 stops"
# every rank exits 0: no abort
set +e
timeout 60 "${MPI[@]}" -n 2 "$LATSCOPE" bench --mpi --help >"$TMPDIR/help.out" 2>"$TMPDIR/help.err"
rc=$?
set -e
[[ $rc == 0 ]] || { cat "$TMPDIR/help.err" >&2; fail "--help under mpirun: exit $rc"; }
! grep -q "aborting every rank" "$TMPDIR/help.err" || fail "--help aborted"
exit 0
