/* fuzz-diff-bench.c - libFuzzer target for `latscope diff`'s bench-result readers: the input is
 * read as a bench JSON, as an HDR log and as bench --records JSONL; whatever loads is compared with
 * itself (every metric, bootstrap included) and must find no significant change. */
#include "diff/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20) return 0;
    for (int k = 0; k < 3; k++) {
        enum diff_kind kind = k == 0   ? DIFF_KIND_BENCH
                              : k == 1 ? DIFF_KIND_HLOG
                                       : DIFF_KIND_RECORDS;
        struct diff_run *r = NULL;
        char err[512];
        if (diff_run_parse("fuzz", kind, (const char *)data, size, &r, err, sizeof(err)) != 0) {
            if (r) abort();
            if (!memchr(err, 0, sizeof(err))) abort();
            continue;
        }
        struct diff_bench_opts o;
        diff_bench_opts_default(&o);
        o.resamples = 100;
        struct diff_bench_result res;
        if (diff_bench_compare(&r, 1, &r, 1, &o, &res, err, sizeof(err)) == 0) {
            for (size_t i = 0; i < res.nrows; i++)
                if (res.rows[i].verdict == DIFF_V_REGRESSION ||
                    res.rows[i].verdict == DIFF_V_IMPROVEMENT)
                    abort(); /* a run against itself cannot differ */
            diff_bench_result_fini(&res);
        }
        diff_run_free(r);
    }
    return 0;
}
