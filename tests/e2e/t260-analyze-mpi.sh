#!/usr/bin/env bash
# t260-analyze-mpi: `mpirun --oversubscribe -n 4 latscope analyze DIR`: the processes split the
# rank files, rank 0 prints, and the report is byte for byte the single-process one (text and
# JSON, --hta-compat, critical paths), also with more processes than files, a broken file and a
# directory with two traces of one rank (rank 0 alone then). A named file that cannot be loaded
# ends every process with exit 2 (no hang: each run under `timeout`). Skips without mpirun or an
# MPI build.
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
# Under the sanitizer build: Open MPI's own components (dlopen'd, "unknown module" in the
# report) leave allocations at exit that LeakSanitizer reports; they are not latscope's, so
# leak detection is off here (ASan and UBSan errors still fail the run).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
data=$LATSCOPE_SRCDIR/tests/data
same() { # N ARGS...: mpirun -n N equals one process (--no-stream)
    local n=$1 a b
    shift
    set +e
    "$LATSCOPE" analyze --no-stream "$@" >"$TMPDIR/one" 2>"$TMPDIR/one.err"
    a=$?
    timeout 120 "${MPI[@]}" -n "$n" "$LATSCOPE" -v analyze "$@" >"$TMPDIR/mpi" 2>"$TMPDIR/mpi.err"
    b=$?
    set -e
    [[ $b != 124 ]] || fail "mpirun hung: $*"
    [[ $a == "$b" ]] || { cat "$TMPDIR/mpi.err" >&2; fail "exit $a vs $b under mpirun -n $n: $*"; }
    cmp -s "$TMPDIR/one" "$TMPDIR/mpi" || { diff "$TMPDIR/one" "$TMPDIR/mpi" | head -c 3000 >&2; fail "mpirun -n $n differs: $*"; }
}
same 4 --format json "$data/handmade-ranks-straggler"
grep -q "over 4 MPI processes" "$TMPDIR/mpi.err" || { cat "$TMPDIR/mpi.err" >&2; fail "not split over 4 processes"; }
same 4 "$data/handmade-ranks-straggler"
same 3 --format json --pretty --hta-compat "$data/handmade-ranks-straggler"
# 40 ranks; then a broken file (skipped, listed in "skipped" by rank 0)
mkdir "$TMPDIR/many"
for r in $(seq 0 39); do
    sed "s/\"rank\": [0-9]*, \"world_size\": 4/\"rank\": $r, \"world_size\": 40/" \
        "$data/handmade-ranks-straggler/rank-$((r % 4)).json" >"$TMPDIR/many/r$r.json"
done
same 4 --format json "$TMPDIR/many"
same 4 --format json --critical-path "$TMPDIR/many"
[[ $(jq '.cross_rank.ranks | length' "$TMPDIR/mpi") == 40 ]] || fail "40 ranks"
echo '{"traceEvents": [' >"$TMPDIR/many/zz-broken.json"
same 4 --format json "$TMPDIR/many"
[[ $(jq '.skipped | length' "$TMPDIR/mpi") == 1 ]] || fail "skipped file"
# two traces of rank 5: rank 0 alone, same result
cp "$TMPDIR/many/r5.json" "$TMPDIR/many/zz-dup.json"
same 4 --format json "$TMPDIR/many"
contains "$TMPDIR/mpi.err" "rank 0 analyses the job alone"
[[ $(jq '.skipped | length' "$TMPDIR/mpi") == 2 ]] || fail "duplicate rank skipped"
# a named file that cannot be loaded: exit 2 everywhere, no hang
set +e
timeout 120 "${MPI[@]}" -n 4 "$LATSCOPE" analyze "$data/handmade-ranks-even/rank-0.json" "$TMPDIR/absent.json" >"$TMPDIR/bad" 2>"$TMPDIR/bad.err"
rc=$?
set -e
[[ $rc == 2 ]] || { cat "$TMPDIR/bad.err" >&2; fail "unloadable named file under mpirun: exit $rc, want 2"; }
contains "$TMPDIR/bad.err" "absent.json: cannot open"
[[ ! -s $TMPDIR/bad ]] || fail "output despite the error"
# real traces (HTA's test data): more processes (4) than files (2)
d=$(need_trace hta/tests/data)
same 4 --format json "$d/trace_filter"
same 2 "$d/trace_filter"
exit 0
