#!/usr/bin/env bash
# gen-handmade-ranks.sh - writes the hand-made multi-rank directories (run once; output
# committed): tests/data/handmade-ranks-straggler/ (4 ranks of a synchronous data-parallel job,
# rank 2 computes 2 ms longer per step and 3 ms longer in step #3; the other ranks wait for it in
# the all-reduce) and tests/data/handmade-ranks-even/ (the same job, every rank within 0.1 ms).
# Per step (10 ms apart): aten::mm -> gemm kernel (WORK us) on stream 7, then ncclAllReduce ->
# all-reduce kernel on stream 20 that ends when the slowest rank arrives (+300 us transfer).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen() { # DIR RANK WORK1 WORK2 ... (one per step, us)
    local dir=$1 rank=$2
    shift 2
    local works=("$@") nsteps=$# maxw f="$dir/rank$2.json"
    f="$dir/rank-$rank.json"
    {
        printf '{"schemaVersion": 1, "comment": "hand-made for latscope tests; not from a real program",\n'
        printf '"deviceProperties": [{"id": 0, "name": "Hand-made GPU", "computeMajor": 8, "computeMinor": 0, "numSms": 108, "totalGlobalMem": 42949672960}],\n'
        printf '"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 4},\n' "$rank"
        printf '"traceEvents": [\n'
        local s corr=1 sep=""
        for ((s = 0; s < nsteps; s++)); do
            local t0=$((s * 10000)) w=${works[$s]} end
            end=$(eval echo "\${MAXW_$s}")
            printf '%s{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":100,"tid":100,"ts":%d,"dur":9900}' "$sep" $((s + 1)) $t0
            sep=$',\n'
            printf '%s{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":%d,"dur":40}' "$sep" $((t0 + 10))
            printf '%s{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":%d,"dur":20,"args":{"correlation":%d,"cbid":211}}' "$sep" $((t0 + 15)) $corr
            printf '%s{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_tn","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7,"correlation":%d,"grid":[216,1,1],"block":[256,1,1]}}' "$sep" $((t0 + 50)) "$w" $corr
            corr=$((corr + 1))
            printf '%s{"ph":"X","cat":"cpu_op","name":"c10d::allreduce_","pid":100,"tid":100,"ts":%d,"dur":40}' "$sep" $((t0 + 60))
            printf '%s{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":%d,"dur":20,"args":{"correlation":%d,"cbid":211}}' "$sep" $((t0 + 65)) $corr
            # the all-reduce starts when this rank's gemm ends and ends when the slowest arrives
            local a=$((t0 + 50 + w)) b=$((t0 + 50 + end + 300))
            printf '%s{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":20,"ts":%d,"dur":%d,"args":{"device":0,"stream":20,"correlation":%d,"grid":[2,1,1],"block":[512,1,1]}}' "$sep" $a $((b - a)) $corr
            corr=$((corr + 1))
        done
        printf '\n]}\n'
    } >"$f"
}
job() { # DIR, then the WORK arrays of ranks 0..3 as "w1 w2 ..." strings
    local dir=$here/$1
    shift
    rm -rf "$dir"
    mkdir -p "$dir"
    local -a r0=($1) r1=($2) r2=($3) r3=($4)
    local s
    for ((s = 0; s < ${#r0[@]}; s++)); do
        local m=${r0[$s]}
        for v in ${r1[$s]} ${r2[$s]} ${r3[$s]}; do ((v > m)) && m=$v; done
        eval "MAXW_$s=$m"
    done
    gen "$dir" 0 "${r0[@]}"
    gen "$dir" 1 "${r1[@]}"
    gen "$dir" 2 "${r2[@]}"
    gen "$dir" 3 "${r3[@]}"
}
job handmade-ranks-straggler "6000 6000 6000 6000 6000" "6050 6000 6100 6000 6050" \
    "8000 8000 9000 8000 8000" "5950 6000 6000 6050 6000"
job handmade-ranks-even "6000 6000 6000 6000 6000" "6050 6000 6100 6000 6050" \
    "6000 6100 6000 6000 6050" "5950 6000 6000 6050 6000"
