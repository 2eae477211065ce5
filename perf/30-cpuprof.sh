#!/usr/bin/env bash
# 30-cpuprof.sh - overhead of the CPU sampler (`latscope trace --cpu`) on a CPU-bound workload,
# and its cost per sample, side by side with Linux perf (`perf record`) on the same workload.
#
# Workload: tests/progs/hot.c in "rounds" mode (a fixed amount of work: R rounds of three
# spinning functions), built with frame pointers. It reports its own CPU time (user + sys,
# getrusage) at exit: what sampling costs the target (timer interrupts, callchain walks and the
# 8 KiB user-stack copies happen in the target's context). The collector's CPU time (draining,
# symbolizing, DWARF unwinding, all in latscope) is the driver's children time minus the target.
# Each configuration runs 3 times; the median is printed. The machine may be shared: the
# numbers carry that noise (see docs/performance-cpuprof.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${LATSCOPE:=$root/build/latscope}"
run=$(dirname "$LATSCOPE")/cpuprof-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ROUNDS=${CPUPROF_ROUNDS:-40000}
cc -O2 -g -fno-omit-frame-pointer -o "$tmp/hot" "$root/tests/progs/hot.c" -lpthread
[[ -x $run ]] || { echo "cpuprof	SKIPPED		$run not built" ; exit 0; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# cpu_of CMD...: runs CMD, prints "target_cpu_s total_cpu_s samples" (samples from stats).
cpu_of() {
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    local target total samples
    target=$(awk '/^rounds/ { print $4 }' "$tmp/out")
    total=$(awk '{ print $1 + $2 }' "$tmp/time")
    samples=$(grep -Eo '[0-9]+ samples at' "$tmp/err" | awk '{ print $1 }' || true)
    [[ -z $samples ]] && samples=$(grep -Eo '\(([0-9]+) samples\)' "$tmp/err" | grep -Eo '[0-9]+' || true)
    echo "$target $total ${samples:-0}"
}

measure() { # name CMD... -> sets med_target med_total med_samples
    local name=$1
    shift
    : >"$tmp/$name"
    for i in 1 2 3; do cpu_of "$@" >>"$tmp/$name"; done
    med_target=$(awk '{ print $1 }' "$tmp/$name" | median)
    med_total=$(awk '{ print $2 }' "$tmp/$name" | median)
    med_samples=$(awk '{ print $3 }' "$tmp/$name" | median)
}

# CPUPROF_PART=python runs only the Python section at the end.
if [[ ${CPUPROF_PART:-all} != python ]]; then
measure off "$tmp/hot" "$ROUNDS" rounds
base=$med_target
printf 'cpuprof.workload_cpu\t%.3f\ts\t%s rounds of hot.c, no sampling (median of 3)\n' "$base" "$ROUNDS"

for hz in 99 999; do
    measure "lat$hz" "$run" -F "$hz" -- "$tmp/hot" "$ROUNDS" rounds
    ov=$(awk -v a="$med_target" -v b="$base" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
    coll=$(awk -v a="$med_total" -v b="$med_target" 'BEGIN { printf "%.3f", a - b }')
    printf 'cpuprof.overhead_%dhz\t%s\t%%\ttarget CPU time vs off (%s samples; FP + DWARF, kernel stacks, off-CPU)\n' "$hz" "$ov" "$med_samples"
    printf 'cpuprof.collector_cpu_%dhz\t%s\ts\tlatscope-side CPU (drain, symbolize, unwind)\n' "$hz" "$coll"
    if [[ $med_samples -gt 0 ]]; then
        per=$(awk -v a="$med_target" -v b="$base" -v n="$med_samples" 'BEGIN { printf "%.1f", 1e6 * (a - b) / n }')
        perc=$(awk -v a="$coll" -v n="$med_samples" 'BEGIN { printf "%.1f", 1e6 * a / n }')
        printf 'cpuprof.target_cost_per_sample_%dhz\t%s\tus\textra target CPU per sample\n' "$hz" "$per"
        printf 'cpuprof.collector_cost_per_sample_%dhz\t%s\tus\tcollector CPU per sample\n' "$hz" "$perc"
    fi
done

if command -v perf >/dev/null; then
    for mode in fp dwarf; do
        cg=$([[ $mode == fp ]] && echo "-g" || echo "--call-graph=dwarf,8192")
        : >"$tmp/perf$mode"
        for i in 1 2 3; do
            /usr/bin/time -f '%U %S' -o "$tmp/time" perf record -q -e cpu-clock -F 99 $cg \
                -o "$tmp/perf.data" -- "$tmp/hot" "$ROUNDS" rounds >"$tmp/out" 2>"$tmp/err" || continue
            t=$(awk '/^rounds/ { print $4 }' "$tmp/out")
            tot=$(awk '{ print $1 + $2 }' "$tmp/time")
            echo "$t $tot" >>"$tmp/perf$mode"
        done
        [[ -s $tmp/perf$mode ]] || continue
        pt=$(awk '{ print $1 }' "$tmp/perf$mode" | median)
        ptot=$(awk '{ print $2 }' "$tmp/perf$mode" | median)
        ov=$(awk -v a="$pt" -v b="$base" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
        coll=$(awk -v a="$ptot" -v b="$pt" 'BEGIN { printf "%.3f", a - b }')
        printf 'perf_record.%s.overhead_99hz\t%s\t%%\tperf record -e cpu-clock -F 99 %s, same workload\n' "$mode" "$ov" "$cg"
        printf 'perf_record.%s.collector_cpu_99hz\t%s\ts\tperf record process CPU (writes perf.data; no symbolization)\n' "$mode" "$coll"
    done
else
    echo "perf_record	SKIPPED		linux-perf not installed"
fi

fi # CPUPROF_PART

# Python frames: what reading them from outside costs the collector (the target pays nothing).
py=$(command -v python3.11 || command -v python3 || true)
if [[ -n $py ]]; then
    "$run" -F 99 -- "$py" "$root/tests/progs/hot.py" 2 >/dev/null 2>"$tmp/err" || true
    us=$(grep -Eo '\([0-9.]+ us, [0-9.]+ reads per sample\)' "$tmp/err" | grep -Eo '[0-9.]+' | head -1 || true)
    reads=$(grep -Eo '\([0-9.]+ us, [0-9.]+ reads per sample\)' "$tmp/err" | grep -Eo '[0-9.]+' | sed -n 2p || true)
    [[ -n $us ]] && printf 'cpuprof.python_read_per_sample\t%s\tus\tprocess_vm_readv walk of %s (%s reads per sample)\n' "$us" "$($py -V 2>&1)" "$reads"
fi

# A Python program with native phases (tests/progs/phases.py, fixed work): the phase loop's own
# CPU time (thread_time) and wall time (perf_counter), unsampled / `latscope trace --cpu` at
# 99 Hz / py-spy record --native at 100 Hz (when py-spy is installed: /work/venv-pyspy or PATH).
# Median of 3. The loop wall time includes the collector competing for the CPUs.
if [[ -n $py ]] && "$LATSCOPE" trace --help 2>/dev/null | grep -q -- '--folded'; then
    PYROUNDS=${CPUPROF_PYROUNDS:-150}
    pyrun() { # name CMD... (the command writes $tmp/own.json)
        local name=$1
        shift
        : >"$tmp/$name"
        for i in 1 2 3; do
            rm -f "$tmp/own.json"
            "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
            "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cpu_s"], d["loop_wall_s"])' \
                "$tmp/own.json" >>"$tmp/$name"
        done
        pcpu=$(awk '{ print $1 }' "$tmp/$name" | median)
        pwall=$(awk '{ print $2 }' "$tmp/$name" | median)
    }
    prog=("$py" "$root/tests/progs/phases.py" "r$PYROUNDS" "$tmp/own.json")
    pyrun pyoff "${prog[@]}"
    bcpu=$pcpu bwall=$pwall
    printf 'cpuprof.py_loop_cpu\t%.3f\ts\tphases.py r%s loop CPU, no sampling (wall %.3f s)\n' "$bcpu" "$PYROUNDS" "$bwall"
    if pyrun pylat "$LATSCOPE" trace --cpu --freq 99 -o "$tmp/t.json" -- "${prog[@]}"; then
        printf 'cpuprof.py_loop_cpu_overhead_99hz\t%s\t%%\tloop CPU under latscope trace --cpu\n' \
            "$(awk -v a="$pcpu" -v b="$bcpu" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')"
        printf 'cpuprof.py_loop_wall_overhead_99hz\t%s\t%%\tloop wall time under latscope trace --cpu\n' \
            "$(awk -v a="$pwall" -v b="$bwall" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')"
    fi
    spy=$(command -v py-spy || ls /work/venv-pyspy/bin/py-spy 2>/dev/null || true)
    if [[ -n $spy ]] && pyrun pyspy "$spy" record --native -r 100 -f raw -o "$tmp/spy.txt" -- "${prog[@]}"; then
        printf 'pyspy.py_loop_cpu_overhead_100hz\t%s\t%%\tloop CPU under py-spy record --native\n' \
            "$(awk -v a="$pcpu" -v b="$bcpu" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')"
        printf 'pyspy.py_loop_wall_overhead_100hz\t%s\t%%\tloop wall time under py-spy record --native\n' \
            "$(awk -v a="$pwall" -v b="$bwall" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')"
    fi
fi
