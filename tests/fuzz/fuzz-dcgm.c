/* fuzz-dcgm.c - libFuzzer target for the DCGM exposition reader of bench GPU telemetry
 * (src/bench/telemetry.c: gpu_from_prom, prom_key_label) on top of the Prometheus parser. */
#include "bench/telemetry.h"
#include "llm/prom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prom_set set = {0};
    unsigned long line = 0;
    prom_parse((const char *)data, size, &set, &line);
    struct gpu_point *p = calloc(1, sizeof(*p));
    if (!p) abort();
    size_t cap = 0;
    for (int round = 0; round < 2; round++) {
        int found = gpu_from_prom(&set, round, p->dev, &p->ndev, &p->s, &p->n, &cap);
        if (found < 0 || (size_t)found > p->ndev || p->ndev > GPU_TELEM_MAX_GPUS) abort();
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->s[i].dev >= p->ndev) abort();
    gpu_point_stats(p, 0, 0, p->st);
    for (size_t d = 0; d < p->ndev; d++)
        for (int f = 0; f < GPU_F__N; f++) {
            const struct gpu_stat *st = &p->st[d].f[f];
            if (st->n && !(st->min <= st->max)) {
                /* NaN values compare false: allowed, nothing else */
                if (st->min == st->min && st->max == st->max) abort();
            }
        }
    char v[16];
    for (size_t i = 0; i < set.n; i++) {
        if (prom_key_label(set.s[i].key, "gpu", v, sizeof(v)) && strlen(v) >= sizeof(v)) abort();
        prom_key_label(set.s[i].key, "UUID", v, 1);
    }
    free(p->s);
    free(p);
    prom_set_fini(&set);
    return 0;
}
