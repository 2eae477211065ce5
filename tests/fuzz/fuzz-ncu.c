/*
 * fuzz-ncu.c - libFuzzer target for the Nsight Compute `ncu --csv` reader (ingest/ncu.c, its CSV
 * tokenizer ingest/csv.c, through ingest_mem's sniffing) and analyze's Nsight Compute section
 * (analyze/ncu.c).
 *
 * The first byte picks the chunk size (the header must still be in the first chunk for the
 * sniff, so sizes are 256.. bytes) and the number parser's input; the rest is the file. The
 * reader must load it or fail with a message; on an ncu trace every event holds the model's
 * bounds, launches are in ID order end to end, and the summary's percentages and speedups are
 * finite or NaN, never negative durations; the tokenizer is also fed the same bytes in 1-byte
 * chunks and must give the same records as in one piece.
 */
#include "analyze/ncu.h"
#include "ingest/csv.h"
#include "ingest/ingest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sum {
    uint64_t h, n;
};

static int count(void *ctx, const struct csv_rec *r)
{
    struct sum *s = ctx;
    s->n++;
    for (size_t i = 0; i < r->n; i++) {
        for (size_t k = 0; k < r->f[i].n; k++)
            s->h = s->h * 131 + (unsigned char)r->f[i].s[k];
        s->h = s->h * 7 + 1 + r->raw;
    }
    return 0;
}

static bool ncu_hdr(const char *l, size_t n)
{
    return n >= 4 && !memcmp(l, "\"ID\"", 4);
}

static int tok(const uint8_t *d, size_t n, size_t chunk, struct sum *s)
{
    struct csv_rd r;
    memset(s, 0, sizeof(*s));
    csv_init(&r, count, s);
    r.is_header = ncu_hdr;
    r.raw_prefix = "==";
    r.max_record = 4096;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i += chunk)
        rc = csv_feed(&r, (const char *)d + i, n - i < chunk ? n - i : chunk);
    if (!rc) rc = csv_end(&r);
    csv_fini(&r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    struct sum a, b;
    int ra = tok(data + 1, size - 1, size, &a), rb = tok(data + 1, size - 1, 1, &b);
    if (ra != rb || (!ra && (a.n != b.n || a.h != b.h))) abort();
    double d;
    bool is_int;
    int64_t iv;
    size_t nn = size - 1 < 40 ? size - 1 : 40;
    if (csv_number((const char *)data + 1, nn, data[0] & 1 ? CSV_DEC_COMMA : CSV_DEC_DOT, &d,
                   &is_int, &iv) &&
        !isfinite(d))
        abort();
    struct lat_ingest_opts o;
    memset(&o, 0, sizeof(o));
    o.chunk_bytes = 256 + (size_t)data[0] * 3;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(data + 1, size - 1, "r.csv", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (lat_ncu_is(t)) {
        lat_ns end = 0;
        for (size_t i = 0; i < t->ev.n; i++) {
            if (t->ev.dur[i] < 0 || t->ev.dur[i] > LAT_DUR_MAX || t->ev.ts[i] < 0 ||
                t->ev.ts[i] > LAT_TS_MAX)
                abort();
            if (t->ev.kind[i] == LAT_EV_KERNEL) {
                if (t->ev.ts[i] < end) abort();
                end = t->ev.ts[i] + t->ev.dur[i];
            }
        }
        struct lat_ncu_summary s;
        if (lat_ncu_summarize(t, &s) == 0) {
            for (size_t i = 0; i < s.nlaunches; i++) {
                const struct lat_ncu_launch *l = &s.launches[i];
                if (!l->kernel || l->dur < 0 || isinf(l->sm_pct) || isinf(l->max_speedup_pct))
                    abort();
                if (i && s.launches[i - 1].id >= l->id) abort();
                for (size_t q = 1; q < l->nrules; q++)
                    if (!isnan(l->rules[q].speedup_pct) &&
                        (isnan(l->rules[q - 1].speedup_pct) ||
                         l->rules[q - 1].speedup_pct < l->rules[q].speedup_pct))
                        abort();
                (void)lat_ncu_find(&s, l->kernel);
            }
            lat_ncu_summary_fini(&s);
        }
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            lat_ncu_section_text(f, t, 5);
            fclose(f);
        }
    }
    lat_trace_free(t);
    return 0;
}
