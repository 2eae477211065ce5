/*
 * fuzz-analyze.c - libFuzzer target for the analyses: any trace the reader accepts must
 * analyse without a crash, a leak, signed overflow or a hang, in both modes, and satisfy the
 * invariants the corpus tests check (temporal parts add up, step parts add up, every GPU row
 * correlated or counted as uncorrelated).
 *
 * The first byte picks options (HTA compat, rounding, last step, thresholds); the rest is the
 * trace text given to ingest_mem().
 */
#include "analyze/analysis.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(data + 1, size - 1, "fuzz", NULL, &t, err, sizeof(err))) return 0;
    struct analysis_opts o;
    analysis_opts_default(&o);
    o.hta_compat = data[0] & 1;
    o.ns_rounding = !(data[0] & 2);
    o.include_last_step = data[0] & 4;
    o.top_n = (size_t)(data[0] >> 5) + 1;
    o.num_kernels = (size_t)((data[0] >> 3) & 3);
    if (data[0] & 0x10) o.max_queue_length = 1;
    struct lat_analysis *a = NULL;
    if (analysis_run(&t, 1, &o, &a) == 0) {
        for (size_t r = 0; r < a->nranks; r++) {
            const struct lat_an_rank *x = &a->ranks[r];
            const struct lat_an_temporal *tb = &x->temporal;
            if (tb->valid && tb->compute + tb->idle + tb->non_compute != tb->kernel_time) abort();
            if (x->launch.correlated_gpu + x->launch.uncorrelated_gpu != x->launch.gpu_rows)
                abort();
            for (size_t s = 0; s < x->nsteps; s++) {
                const struct lat_an_step *st = &x->steps[s];
                if (st->gpu_compute + st->comm + st->copies + st->gpu_other + st->cpu_only +
                        st->idle !=
                    st->dur)
                    abort();
            }
            if (x->ntop_ops > o.top_n || x->ntop_kernels > o.top_n) abort();
            /* key_averages tables: never a negative time; CPU step parts add up */
            const struct lat_an_op *tabs[] = {x->top_ops, x->top_ops_self, x->ops_by_shape,
                                              x->py_funcs, x->top_ops_mem};
            const size_t ntabs[] = {x->ntop_ops, x->ntop_ops_self, x->nops_by_shape, x->npy_funcs,
                                    x->ntop_ops_mem};
            for (int q = 0; q < 5; q++)
                for (size_t k = 0; k < ntabs[q]; k++)
                    if (tabs[q][k].self < 0 || tabs[q][k].total < 0 || ntabs[q] > o.top_n) abort();
            for (size_t s = 0; s < x->nsteps; s++) {
                const struct lat_an_step *st = &x->steps[s];
                lat_ns c = st->cpu_dataloader + st->cpu_ops + st->cpu_python + st->cpu_other;
                if (c != st->dur && !(c == 0 && st->dur == 0)) abort();
            }
            for (size_t k = 0; k < x->nthreads; k++)
                if (x->threads[k].busy < 0 || x->threads[k].self < 0) abort();
        }
        analysis_free(a);
    }
    lat_trace_free(t);
    return 0;
}
