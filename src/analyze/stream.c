/*
 * stream.c - the wire formats of a streamed (and MPI) analyze run (stream.h).
 */
#include "analyze/stream.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --- after pass 1: the files and the scan ------------------------------------------------------
 */

int an_stream_pass1_pack(struct lat_buf *b, const struct analysis_scan *scan,
                         const struct an_stream_file *files, size_t n)
{
    uint8_t have = scan->have_ts;
    uint32_t ns = (uint32_t)scan->nsteps, nf = (uint32_t)n;
    int rc = buf_append(b, &have, 1);
    if (!rc) rc = buf_append(b, &scan->min_ts, sizeof(scan->min_ts));
    if (!rc) rc = buf_append(b, &ns, sizeof(ns));
    if (!rc && ns) rc = buf_append(b, scan->steps, ns * sizeof(*scan->steps));
    if (!rc) rc = buf_append(b, &nf, sizeof(nf));
    for (size_t i = 0; !rc && i < n; i++) {
        const struct an_stream_file *f = &files[i];
        uint8_t flags = f->loaded ? (uint8_t)(1 | f->timeline << 1 | f->rules << 2) : 0;
        int32_t rank = f->loaded ? f->rank : -1;
        uint32_t wl = (uint32_t)f->reason_len;
        rc = buf_append(b, &f->index, sizeof(f->index));
        if (!rc) rc = buf_append(b, &f->status, 1);
        if (!rc) rc = buf_append(b, &flags, 1);
        if (!rc) rc = buf_append(b, &rank, sizeof(rank));
        if (!rc) rc = buf_append(b, &wl, sizeof(wl));
        if (!rc) rc = buf_append(b, wl ? f->reason : "", wl);
    }
    return rc ? -ENOMEM : 0;
}

struct rd {
    const unsigned char *p;
    size_t n, at;
    bool bad;
};

static void rd_bytes(struct rd *r, void *dst, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, r->p + r->at, n);
    r->at += n;
}

/* One process's files; 0, LAT_E_TRUNCATED or on_file's error. */
static int unpack_files(struct rd *r, size_t nfiles,
                        int (*on_file)(void *ctx, const struct an_stream_file *f), void *ctx)
{
    uint32_t nf;
    rd_bytes(r, &nf, sizeof(nf));
    for (uint32_t q = 0; q < nf && !r->bad; q++) {
        struct an_stream_file f = {0};
        uint32_t wl;
        uint8_t flags;
        rd_bytes(r, &f.index, sizeof(f.index));
        rd_bytes(r, &f.status, 1);
        rd_bytes(r, &flags, 1);
        rd_bytes(r, &f.rank, sizeof(f.rank));
        rd_bytes(r, &wl, sizeof(wl));
        if (r->bad || wl > r->n - r->at || f.index >= nfiles) {
            r->bad = true;
            break;
        }
        f.loaded = flags & 1;
        f.timeline = (flags >> 1) & 1;
        f.rules = (flags >> 2) & 1;
        f.reason = (const char *)r->p + r->at;
        f.reason_len = wl;
        int rc = on_file(ctx, &f);
        if (rc) return rc;
        r->at += wl;
    }
    return r->bad ? LAT_E_TRUNCATED : 0;
}

int an_stream_pass1_unpack(const char *all, const size_t *offs, int nproc, size_t nfiles,
                           struct analysis_scan *scan,
                           int (*on_file)(void *ctx, const struct an_stream_file *f), void *ctx)
{
    analysis_scan_fini(scan);
    int64_t *steps = NULL;
    size_t nsteps = 0, scap = 0;
    int rc = 0;
    for (int p = 0; p < nproc && !rc; p++) {
        struct rd r = {(const unsigned char *)all + offs[p], offs[p + 1] - offs[p], 0, false};
        uint8_t have;
        int64_t mn;
        uint32_t ns;
        rd_bytes(&r, &have, 1);
        rd_bytes(&r, &mn, sizeof(mn));
        rd_bytes(&r, &ns, sizeof(ns));
        if (have && (!scan->have_ts || mn < scan->min_ts)) scan->min_ts = mn;
        scan->have_ts |= have;
        if (!r.bad && ns > (r.n - r.at) / sizeof(int64_t)) r.bad = true;
        if (!r.bad && ns) {
            if (LAT_GROW(steps, scap, nsteps, ns, 64)) {
                rc = -ENOMEM;
                break;
            }
            rd_bytes(&r, steps + nsteps, ns * sizeof(*steps));
            nsteps += ns;
        }
        rc = r.bad ? LAT_E_TRUNCATED : unpack_files(&r, nfiles, on_file, ctx);
    }
    if (rc) {
        free(steps);
        return rc;
    }
    if (nsteps) qsort(steps, nsteps, sizeof(*steps), lat_cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nsteps; i++)
        if (!u || steps[i] != steps[u - 1]) steps[u++] = steps[i];
    scan->steps = steps;
    scan->nsteps = scan->cap = u;
    return 0;
}

/* --- after pass 2: the ranks' records -----------------------------------------------------------
 */

int an_stream_record_put(struct lat_buf *out, uint32_t index, int32_t rank, const void *frag,
                         size_t flen, const struct lat_analysis *one, size_t *start)
{
    uint64_t fl = flen, reclen = 0;
    size_t at = out->len;
    *start = at + sizeof(reclen);
    if (buf_append(out, &reclen, sizeof(reclen)) || buf_append(out, &index, sizeof(index)) ||
        buf_append(out, &rank, sizeof(rank)) || buf_append(out, &fl, sizeof(fl)) ||
        buf_append(out, flen ? frag : "", flen))
        return -ENOMEM;
    int rc = analysis_rank_pack(one, out);
    if (rc) return rc;
    /* the record's length before it: the printing process splits a buffer */
    reclen = out->len - *start;
    memcpy(out->data + at, &reclen, sizeof(reclen));
    return 0;
}

int an_stream_record_read(const void *p, size_t n, struct an_stream_record *r)
{
    const unsigned char *b = p;
    uint64_t flen;
    const size_t hdr = sizeof(r->index) + sizeof(r->rank) + sizeof(flen);
    memset(r, 0, sizeof(*r));
    if (n < hdr) return LAT_E_TRUNCATED;
    memcpy(&r->index, b, sizeof(r->index));
    memcpy(&r->rank, b + sizeof(r->index), sizeof(r->rank));
    memcpy(&flen, b + sizeof(r->index) + sizeof(r->rank), sizeof(flen));
    if (flen > n - hdr) return LAT_E_TRUNCATED;
    r->frag = (const char *)b + hdr;
    r->flen = (size_t)flen;
    size_t bl = 0;
    int rc = analysis_rank_unpack(b + hdr + flen, n - hdr - (size_t)flen, &bl, &r->one);
    if (rc) return rc;
    r->used = hdr + (size_t)flen + bl;
    return 0;
}

int an_stream_split(const char *all, size_t total, struct an_stream_span **spans, size_t *n)
{
    struct an_stream_span *s = NULL;
    size_t k = 0, cap = 0;
    for (size_t at = 0; at + sizeof(uint64_t) + sizeof(uint32_t) <= total;) {
        uint64_t len;
        uint32_t idx;
        memcpy(&len, all + at, sizeof(len));
        if (len > total - at - sizeof(len)) break;
        memcpy(&idx, all + at + sizeof(len), sizeof(idx));
        if (LAT_GROW(s, cap, k, 1, 64)) {
            free(s);
            return -ENOMEM;
        }
        s[k++] = (struct an_stream_span){idx, at + sizeof(len), (size_t)len};
        at += sizeof(len) + (size_t)len;
    }
    for (size_t i = 1; i < k; i++) /* insertion sort by file index (nearly sorted per process) */
        for (size_t j = i; j > 0 && s[j - 1].index > s[j].index; j--) {
            struct an_stream_span t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    *spans = s;
    *n = k;
    return 0;
}
