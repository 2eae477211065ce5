#!/usr/bin/env bash
# 13-analyze-many-ranks.sh - `latscope analyze` on a job of many rank files (issue 21): a
# directory of $RANKS_N (default 512) synthetic rank traces of $RANK_MB MB of JSON each
# (perf/gen-kineto-trace.py --rank=R), analysed in memory (--no-stream), streamed
# (the default for directories of more than 16 files: a batch of traces in memory at a time),
# and with `mpirun -n 4` (the rank files split across 4 processes, reduced on rank 0) when
# Open MPI and an MPI build are there. Peak RSS per process (/usr/bin/time %M; with mpirun each
# process's own), wall time, and whether the outputs are identical. Also the streamed peak at
# $RANKS_SMALL (64) ranks: bounded memory means the two peaks are close.
# Prints name<TAB>value<TAB>unit<TAB>note.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_SRCDIR:?}"
n=${RANKS_N:-512}
small=${RANKS_SMALL:-64}
mb=${RANK_MB:-0.5}
[[ -x /usr/bin/time ]] || { echo "analyze.ranks	skipped		/usr/bin/time missing"; exit 0; }
command -v python3 >/dev/null || { echo "analyze.ranks	skipped		python3 missing"; exit 0; }
tmp=$(mktemp -d /tmp/latscope-perf-ranks.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# $RANKS_BASE (8) distinct traces from the generator (seeded by rank), each copied to every
# rank r with r % 8 == its rank and its distributedInfo rank set to r (the generator writes
# about 5 MB/s: 512 of its own would take minutes)
base=${RANKS_BASE:-8}
mkdir -p "$tmp/base"
seq 0 $((base - 1)) | xargs -P "$(nproc)" -I{} python3 "$LATSCOPE_SRCDIR/perf/gen-kineto-trace.py" \
    "$mb" "$tmp/base/rank-{}.json" --rank={} --world=1
gen() { # DIR COUNT
    mkdir -p "$1"
    for ((r = 0; r < $2; r++)); do
        sed "s/\"rank\": [0-9]*, \"world_size\": 1}/\"rank\": $r, \"world_size\": $2}/" \
            "$tmp/base/rank-$((r % base)).json" >"$1/rank-$r.json"
    done
}
gen "$tmp/big" "$n"
gen "$tmp/small" "$small"
bytes=$(du -sb "$tmp/big" | cut -f1)
echo "analyze.ranks.input	$((bytes / 1000000))	MB	$n rank files of $mb MB JSON"

# run NAME OUT CMD...: wall and peak RSS of one run
run() {
    local name=$1 out=$2 line w m
    shift 2
    line=$(/usr/bin/time -f '%e %M' "$@" 2>&1 >"$out" | tail -1)
    read -r w m <<<"$line"
    echo "$name.wall	$w	s	"
    echo "$name.peak_rss	$((m / 1024))	MiB	max resident set of the process"
}
run analyze.ranks$n.in_memory "$tmp/mem.json" "$LATSCOPE" analyze --format json --no-stream "$tmp/big"
run analyze.ranks$n.streamed "$tmp/str.json" "$LATSCOPE" analyze --format json --stream "$tmp/big"
run analyze.ranks$small.streamed "$tmp/small.json" "$LATSCOPE" analyze --format json --stream "$tmp/small"
run analyze.ranks$small.in_memory "$tmp/small-mem.json" "$LATSCOPE" analyze --format json --no-stream "$tmp/small"
run doctor.ranks$n.streamed "$tmp/doc.json" "$LATSCOPE" doctor --format json "$tmp/big"
command -v jq >/dev/null &&
    echo "analyze.ranks$n.ranks_in_report	$(jq '.ranks | length' "$tmp/mem.json")		distinct ranks analysed"
if cmp -s "$tmp/mem.json" "$tmp/str.json"; then
    echo "analyze.ranks$n.streamed_identical	yes		byte for byte"
else
    echo "analyze.ranks$n.streamed_identical	NO		outputs differ"
fi
if command -v mpirun >/dev/null && "$LATSCOPE" analyze --help | grep -q -- "mpirun"; then
    mpi=(mpirun --oversubscribe -n 4)
    [[ $(id -u) -eq 0 ]] && mpi+=(--allow-run-as-root)
    export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader} OMPI_MCA_btl_vader_single_copy_mechanism=none
    t0=$(date +%s.%N)
    # each process under its own /usr/bin/time, its report named by its MPI rank
    "${mpi[@]}" sh -c 'exec /usr/bin/time -f "rss %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$tmp/rss" \
        "$LATSCOPE" analyze --format json "$tmp/big" >"$tmp/mpi.json" 2>"$tmp/mpi.err" || true
    t1=$(date +%s.%N)
    echo "analyze.ranks$n.mpi4.wall	$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')	s	mpirun -n 4, with the launcher"
    for r in 0 1 2 3; do
        m=$(awk '/rss/{print $2}' "$tmp/rss.$r" 2>/dev/null || echo 0)
        echo "analyze.ranks$n.mpi4.rank$r.peak_rss	$((m / 1024))	MiB	process of MPI rank $r"
    done
    if cmp -s "$tmp/mem.json" "$tmp/mpi.json"; then
        echo "analyze.ranks$n.mpi4_identical	yes		byte for byte"
    else
        echo "analyze.ranks$n.mpi4_identical	NO		outputs differ"
    fi
else
    echo "analyze.ranks$n.mpi4	skipped		no mpirun or no MPI build"
fi
