/* fuzz-bench-merge.c - libFuzzer target for `latscope bench merge`'s reader: the input is split
 * at NUL bytes into up to 4 bench JSON documents (shards) and merged; a merge that succeeds is
 * rendered as JSON and text, and a failure must come with a message. */
#include "bench/merge.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20) return 0;
    const char *docs[4];
    size_t lens[4];
    const char *names[4] = {"s0", "s1", "s2", "s3"};
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= size && n < 4; i++) {
        if (i == size || data[i] == 0) {
            docs[n] = (const char *)data + start;
            lens[n++] = i - start;
            start = i + 1;
        }
    }
    struct bench_merged m;
    char err[512];
    err[0] = '\0';
    int rc = bench_merge_docs(&m, docs, lens, names, n, err, sizeof(err));
    if (rc) {
        if (!err[0] || !memchr(err, 0, sizeof(err))) abort();
    } else {
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            bench_report_json(f, &m.run);
            bench_report_text(f, &m.run);
            bench_report_csv(f, &m.run);
            fclose(f);
        }
        for (size_t i = 0; i < m.run.npoints; i++) {
            const struct bench_point *p = &m.run.points[i];
            uint64_t sum = 0;
            for (size_t k = 0; k < p->nshards; k++)
                sum += p->shards[k].requests;
            if (sum != p->res.ok) abort(); /* merged requests are the shards' sum */
        }
    }
    bench_merged_fini(&m);
    return 0;
}
