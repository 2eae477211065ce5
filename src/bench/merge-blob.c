/*
 * merge-blob.c - one point's HdrHistogram blob added into a merged histogram (merge.h), for
 * bench merge's base and LLM histograms (merge.c) and the per-part ones (merge-parts.c): below
 * both (tests/e2e/t005-link-graph.sh).
 */
#include "bench/merge.h"

#include "core/err.h"
#include "hist/hlog.h"
#include "json/tok.h"

#include <stdio.h>

int bench_merge_add_blob(const char *d, size_t n, const char *name, struct lat_hist *dst,
                         const char *file, const char *where, char *err, size_t errsz)
{
    char path[160];
    snprintf(path, sizeof(path), "histograms/%s", name);
    struct lat_buf b = LAT_BUF_INIT;
    int rc = json_get_str(d, n, path, &b);
    if (rc || !b.data) { /* null: empty */
        buf_fini(&b);
        return 0;
    }
    struct lat_hist h;
    const char *why = NULL;
    rc = hlog_decode(b.data, b.len, &h, &why);
    buf_fini(&b);
    if (rc) {
        if (err && errsz)
            snprintf(err, errsz, "%s: %s.%s: corrupt histogram (%s)", file, where, path,
                     why ? why : lat_strerror(rc));
        return rc;
    }
    if (!hist_same_layout(&h, dst)) {
        hist_fini(&h);
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: %s.%s: histogram layout is not latscope's default (1 us .. 1 h, 3 "
                     "digits): not written by latscope bench",
                     file, where, path);
        return LAT_E_UNSUPPORTED;
    }
    snprintf(path, sizeof(path), "histogram_extremes_ns/%s/0", name);
    int64_t mn = -1, mx = -1;
    if (json_get_i64(d, n, path, &mn)) mn = -1;
    snprintf(path, sizeof(path), "histogram_extremes_ns/%s/1", name);
    if (json_get_i64(d, n, path, &mx)) mx = -1;
    if (hist_count(&h) && mn >= 0 && mx >= mn && hist_index_of(&h.cfg, mn) >= 0 &&
        hist_lowest_equivalent(&h.cfg, mn) == hist_lowest_equivalent(&h.cfg, h.min) &&
        hist_lowest_equivalent(&h.cfg, mx) == hist_lowest_equivalent(&h.cfg, h.max)) {
        h.min = mn; /* the recorded extremes lie in the extreme buckets: take them */
        h.max = mx;
    }
    rc = hist_add(dst, &h);
    hist_fini(&h);
    return rc;
}
