/*
 * fuzz-rankpack.c - libFuzzer target for analysis_rank_unpack(), the bytes the processes of
 * `mpirun ... latscope analyze` send rank 0: any input is refused or unpacked without a crash,
 * a leak or a read past its end, and what unpacks is accepted by analysis_job_add().
 */
#include "analyze/analysis.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lat_analysis *one = NULL;
    size_t used = 0;
    if (analysis_rank_unpack(data, size, &used, &one)) return 0;
    if (used > size) abort();
    struct analysis_opts o;
    analysis_opts_default(&o);
    struct analysis_job *j = NULL;
    if (!analysis_job_new(&o, &j)) {
        struct lat_analysis *out = NULL;
        if (analysis_job_add(j, one))
            analysis_job_free(j);
        else if (!analysis_job_finish(j, &out)) /* frees j */
            analysis_free(out);
    }
    analysis_free(one);
    return 0;
}
