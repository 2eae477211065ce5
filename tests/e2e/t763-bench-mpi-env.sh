#!/usr/bin/env bash
# t763-bench-mpi-env: `mpirun -n N latscope bench URL` without --mpi (issue 31 item 6): every
# rank sent the whole load and reported it as if alone. A launcher's world of more than one
# process (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE) without --mpi or --shard is refused
# (exit 2, naming the variable and both ways out); a world of one, or an explicit --shard, runs.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture
for var in OMPI_COMM_WORLD_SIZE PMI_SIZE PMIX_SIZE; do
    set +e
    env "$var=4" OMPI_COMM_WORLD_RANK=1 PMI_RANK=1 PMIX_RANK=1 \
        "$LATSCOPE" bench -c 1 -t 1 -n 5 "$FIXTURE_URL/" >"$TMPDIR/o.txt" 2>"$TMPDIR/e.txt"
    rc=$?
    set -e
    [[ $rc -eq 2 ]] || { cat "$TMPDIR/e.txt"; fail "$var=4 without --mpi: exit $rc, want 2"; }
    grep -q "one of 4 started by an MPI launcher ($var=4)" "$TMPDIR/e.txt" || { cat "$TMPDIR/e.txt"; fail "$var: reason"; }
    grep -q -- "--mpi" "$TMPDIR/e.txt" && grep -q -- "--shard auto" "$TMPDIR/e.txt" || fail "$var: no way out named"
    [[ ! -s $TMPDIR/o.txt ]] || fail "$var: a result was printed"
done
# A world of one is a plain run.
OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 "$LATSCOPE" bench -c 1 -t 1 -n 5 --format json \
    "$FIXTURE_URL/" >"$TMPDIR/one.json" 2>"$TMPDIR/one.err" || { cat "$TMPDIR/one.err"; fail "world of one"; }
check_py "$TMPDIR/one.json" "assert d['points'][0]['requests'] == 5"
# --shard auto takes this process's share from the launcher: no refusal.
OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$LATSCOPE" bench --shard auto -c 2 -t 1 -n 10 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/sh.json" 2>"$TMPDIR/sh.err" || { cat "$TMPDIR/sh.err"; fail "--shard auto"; }
check_py "$TMPDIR/sh.json" "assert d['shard']['index'] == 1 and d['shard']['count'] == 2, d['shard']"
# The real launcher, when installed: every rank refuses.
if command -v mpirun >/dev/null; then
    MPI=(mpirun --oversubscribe)
    [[ $(id -u) -eq 0 ]] && MPI+=(--allow-run-as-root)
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    set +e
    timeout 60 "${MPI[@]}" -n 2 "$LATSCOPE" bench -c 1 -t 1 -n 5 "$FIXTURE_URL/" \
        >"$TMPDIR/m.txt" 2>"$TMPDIR/m.err"
    rc=$?
    set -e
    [[ $rc -ne 0 ]] || { cat "$TMPDIR/m.txt"; fail "mpirun -n 2 bench without --mpi ran"; }
    grep -q "one of 2 started by an MPI launcher (OMPI_COMM_WORLD_SIZE=2)" "$TMPDIR/m.err" ||
        { cat "$TMPDIR/m.err"; fail "mpirun: reason"; }
    grep -q "requests" "$TMPDIR/m.txt" && fail "mpirun: a rank printed a result"
fi
exit 0
