/*
 * fuzz-memraw.c - libFuzzer target for the export_memory_timeline raw-file parser
 * (analyze/memtl.c, `analyze --memory-timeline`). The first byte picks the chunk size (1..16);
 * the rest is the file. The parser must accept it or fail with a message; fed in one piece and
 * in chunks it must give the same points, and an accepted timeline holds one size row per
 * point, times never negative once finished when any positive time exists, and a peak index
 * inside the points.
 */
#include "analyze/memtl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run(struct lat_memraw *m, const uint8_t *p, size_t n, size_t chunk)
{
    lat_memraw_init(m);
    for (size_t i = 0; i < n; i += chunk) {
        int rc = lat_memraw_feed(m, (const char *)p + i, i + chunk <= n ? chunk : n - i);
        if (rc) return rc;
    }
    return lat_memraw_finish(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    size_t chunk = (size_t)(data[0] % 16) + 1;
    struct lat_memraw a, b;
    int ra = run(&a, data + 1, size - 1, size), rb = run(&b, data + 1, size - 1, chunk);
    if (ra != rb) abort();
    if (ra) {
        if (ra == -12) goto out; /* ENOMEM */
        if (!a.err[0] || !b.err[0]) abort();
        goto out;
    }
    if (a.n != b.n || a.rows != b.rows || a.peak_total != b.peak_total) abort();
    if (a.n && memcmp(a.sizes, b.sizes, a.n * sizeof(a.sizes[0]))) abort();
    if (a.n && a.peak_index >= a.n) abort();
    if (a.tmin > 0)
        for (size_t i = 0; i < a.n; i++)
            if (a.times[i] < 0) abort();
out:
    lat_memraw_fini(&a);
    lat_memraw_fini(&b);
    return 0;
}
