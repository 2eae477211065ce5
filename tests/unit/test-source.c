/*
 * test-source.c - the chunked gzip/plain input of the trace readers (src/ingest/source.c), with
 * each inflater built in: ISA-L (when built with libisal) and zlib (LAT_INGEST_ZLIB=1).
 * Round trips over chunk sizes, memory/file, threaded or not, concatenated members; every
 * truncation and corrupt streams give the same clear LAT_E_GZIP errors from both.
 */
#include "test.h"

#include "core/err.h"
#include "ingest/source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *gz_level(const char *data, size_t n, int level, size_t *outn)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    ASSERT_EQ_I64(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = malloc(cap);
    ASSERT(out);
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ASSERT_EQ_I64(deflate(&z, Z_FINISH), Z_STREAM_END);
    *outn = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Kineto-like text with pseudo-random numbers: compresses well, many deflate blocks. */
static char *make_doc(size_t n)
{
    char *d = malloc(n + 1);
    ASSERT(d);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    while (i < n) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        char line[128];
        int k = snprintf(line, sizeof(line),
                         "{\"ph\": \"X\", \"name\": \"aten::op%u\", \"ts\": %llu, \"dur\": %u},\n",
                         (unsigned)(x >> 60), (unsigned long long)(x >> 40), (unsigned)(x >> 54));
        for (int j = 0; j < k && i < n; j++)
            d[i++] = line[j];
    }
    d[n] = 0;
    return d;
}

static const char *backends[2] = {NULL, "1"}; /* default (ISA-L when built in), zlib */

static void use_backend(int b)
{
    if (backends[b])
        setenv("LAT_INGEST_ZLIB", backends[b], 1);
    else
        unsetenv("LAT_INGEST_ZLIB");
}

/* Reads all of s; 0 with the bytes in *out, or the error. */
static int drain(struct ingest_src *s, char **out, size_t *outn, char *err, size_t errsz)
{
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap);
    ASSERT(buf);
    const char *d;
    size_t k;
    int rc;
    while ((rc = src_next(s, &d, &k, err, errsz)) == 1) {
        ASSERT(k > 0);
        while (n + k > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            ASSERT(buf);
        }
        memcpy(buf + n, d, k);
        n += k;
    }
    *out = buf;
    *outn = n;
    return rc;
}

static int read_mem(const void *gz, size_t gzn, size_t chunk, char **out, size_t *outn, char *err,
                    size_t errsz)
{
    struct ingest_src *s;
    int rc = src_open_mem(gz, gzn, chunk, &s, err, errsz);
    if (rc) return rc;
    rc = drain(s, out, outn, err, errsz);
    src_close(s);
    return rc;
}

static int read_file(const char *path, size_t chunk, bool thread, char **out, size_t *outn,
                     char *err, size_t errsz)
{
    struct ingest_src *s;
    int rc = src_open_path(path, chunk, thread, &s, err, errsz);
    if (rc) return rc;
    rc = drain(s, out, outn, err, errsz);
    src_close(s);
    return rc;
}

TEST(source_backend_is_isal_when_built_in)
{
    size_t gzn;
    unsigned char *gz = gz_level("{}", 2, 6, &gzn);
    char err[256];
    for (int b = 0; b < 2; b++) {
        use_backend(b);
        struct ingest_src *s;
        ASSERT_RC(src_open_mem(gz, gzn, 0, &s, err, sizeof(err)));
        ASSERT(src_is_gzip(s));
        const char *want = b == 1 || !LAT_HAVE_ISAL ? "zlib" : "isa-l";
        ASSERT_EQ_STR(src_gzip_backend(s), want);
        src_close(s);
    }
    unsetenv("LAT_INGEST_ZLIB");
    struct ingest_src *s;
    ASSERT_RC(src_open_mem("{}", 2, 0, &s, err, sizeof(err)));
    ASSERT_EQ_STR(src_gzip_backend(s), "none");
    src_close(s);
    free(gz);
}

TEST(source_gzip_round_trip_every_backend_chunk_and_member_layout)
{
    const size_t n = 150000;
    char *doc = make_doc(n);
    /* Three members (stored, fast, best) and an empty one, concatenated. */
    size_t a = n / 5, b = n / 2, g[4];
    unsigned char *m[4] = {gz_level(doc, a, 0, &g[0]), gz_level(doc + a, b - a, 1, &g[1]),
                           gz_level(doc + b, 0, 6, &g[2]), gz_level(doc + b, n - b, 9, &g[3])};
    size_t catn = g[0] + g[1] + g[2] + g[3];
    unsigned char *cat = malloc(catn + 3);
    ASSERT(cat);
    for (size_t i = 0, o = 0; i < 4; o += g[i], i++)
        memcpy(cat + o, m[i], g[i]);
    size_t onen;
    unsigned char *one = gz_level(doc, n, 6, &onen);
    char path1[4096], pathc[4096];
    snprintf(path1, sizeof(path1), "%s", test_write_file("one.json.gz", one, onen));
    snprintf(pathc, sizeof(pathc), "%s", test_write_file("cat.json.gz", cat, catn));
    static const size_t chunks[] = {1, 7, 4096, 0};
    for (int be = 0; be < 2; be++) {
        use_backend(be);
        for (size_t c = 0; c < 4; c++) {
            for (int layout = 0; layout < 2; layout++) {
                const unsigned char *gz = layout ? cat : one;
                size_t gzn = layout ? catn : onen;
                char err[256] = "", *out;
                size_t outn = 0;
                int rc = read_mem(gz, gzn, chunks[c], &out, &outn, err, sizeof(err));
                if (rc || outn != n || memcmp(out, doc, n) != 0)
                    FAIL("backend %d chunk %zu layout %d (mem): rc %d, %zu of %zu bytes: %s", be,
                         chunks[c], layout, rc, outn, n, err);
                free(out);
                for (int th = 0; th < (chunks[c] == 1 ? 1 : 2); th++) { /* 1-byte: slow */
                    rc = read_file(layout ? pathc : path1, chunks[c], th, &out, &outn, err,
                                   sizeof(err));
                    if (rc || outn != n || memcmp(out, doc, n) != 0)
                        FAIL("backend %d chunk %zu layout %d thread %d: rc %d, %zu bytes: %s", be,
                             chunks[c], layout, th, rc, outn, err);
                    free(out);
                }
            }
        }
        /* Zero bytes after the last member are padding (GNU gzip ignores them too). */
        memcpy(cat + catn, "\0\0\0", 3);
        char err[256] = "", *out;
        size_t outn = 0;
        ASSERT_RC(read_mem(cat, catn + 3, 0, &out, &outn, err, sizeof(err)));
        ASSERT_EQ_U64(outn, n);
        ASSERT_MEM_EQ(out, doc, n);
        free(out);
        /* Any other trailing byte is an error that says so (it used to be dropped silently). */
        memcpy(cat + catn, "\0\n\0", 3);
        err[0] = '\0';
        out = NULL;
        ASSERT_EQ_I64(read_mem(cat, catn + 3, 0, &out, &outn, err, sizeof(err)), LAT_E_GZIP);
        if (!strstr(err, "trailing data after the end of the gzip stream: byte 0x0a"))
            FAIL("backend %d: %s", be, err);
        free(out);
    }
    unsetenv("LAT_INGEST_ZLIB");
    for (int i = 0; i < 4; i++)
        free(m[i]);
    free(one);
    free(cat);
    free(doc);
}

TEST(source_gzip_every_truncation_is_a_clean_error)
{
    const size_t n = 20000;
    char *doc = make_doc(n);
    size_t g1, g2;
    unsigned char *m1 = gz_level(doc, n / 2, 6, &g1),
                  *m2 = gz_level(doc + n / 2, n - n / 2, 6, &g2);
    unsigned char *cat = malloc(g1 + g2);
    ASSERT(cat);
    memcpy(cat, m1, g1);
    memcpy(cat + g1, m2, g2);
    for (int be = 0; be < 2; be++) {
        use_backend(be);
        /* Cuts from just past the first header to one byte short of the end, including inside
         * the first member's trailer and inside the second member's header. */
        for (size_t cut = 10; cut < g1 + g2; cut++) {
            if (cut == g1) continue; /* a whole first member is a complete gzip file */
            char err[256] = "", *out = NULL;
            size_t outn = 0;
            int rc = read_mem(cat, cut, cut % 3 ? 0 : 5, &out, &outn, err, sizeof(err));
            if (rc != LAT_E_GZIP || !strstr(err, "truncated gzip data"))
                FAIL("backend %d cut at %zu of %zu: rc %d (%s)", be, cut, g1 + g2, rc, err);
            free(out);
            if (cut % 97 == 0 || cut >= g1 + g2 - 9) {
                char p[4096];
                snprintf(p, sizeof(p), "%s", test_write_file("cut.json.gz", cat, cut));
                out = NULL;
                rc = read_file(p, cut % 2 ? 0 : 3, cut % 4 < 2, &out, &outn, err, sizeof(err));
                if (rc != LAT_E_GZIP || !strstr(err, "truncated gzip data"))
                    FAIL("backend %d file cut at %zu: rc %d (%s)", be, cut, rc, err);
                free(out);
            }
        }
    }
    unsetenv("LAT_INGEST_ZLIB");
    free(cat);
    free(m1);
    free(m2);
    free(doc);
}

TEST(source_gzip_corrupt_streams_are_clean_errors)
{
    const size_t n = 50000;
    char *doc = make_doc(n);
    size_t gzn;
    unsigned char *gz = gz_level(doc, n, 6, &gzn);
    unsigned char *bad = malloc(2 * gzn);
    ASSERT(bad);
    for (int be = 0; be < 2; be++) {
        use_backend(be);
        /* A flipped byte in the deflate data, a wrong CRC-32, a wrong length, a bad method and
         * a corrupt second member: each an LAT_E_GZIP error naming corrupt gzip data. */
        const size_t at[] = {gzn / 2, gzn - 6, gzn - 2, 2, gzn + gzn / 3};
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
            memcpy(bad, gz, gzn);
            memcpy(bad + gzn, gz, gzn);
            bad[at[i]] ^= 0x55;
            char err[256] = "", *out = NULL;
            size_t outn = 0;
            int rc = read_mem(bad, 2 * gzn, i % 2 ? 4096 : 0, &out, &outn, err, sizeof(err));
            if (rc != LAT_E_GZIP || !strstr(err, "corrupt gzip data near compressed byte"))
                FAIL("backend %d corrupt byte %zu of %zu: rc %d (%s)", be, at[i], 2 * gzn, rc, err);
            free(out);
            char p[4096];
            snprintf(p, sizeof(p), "%s", test_write_file("bad.json.gz", bad, 2 * gzn));
            out = NULL;
            rc = read_file(p, 0, i % 2, &out, &outn, err, sizeof(err));
            if (rc != LAT_E_GZIP || !strstr(err, "corrupt gzip data"))
                FAIL("backend %d file corrupt byte %zu: rc %d (%s)", be, at[i], rc, err);
            free(out);
        }
    }
    unsetenv("LAT_INGEST_ZLIB");
    free(bad);
    free(gz);
    free(doc);
}

TEST(source_gzip_header_fields_split_anywhere)
{
    /* `gzip` writes the file name; others add an extra field, a comment or a header CRC. Every
     * optional field, read in chunks that split it anywhere, by both inflaters. */
    const size_t n = 30000;
    char *doc = make_doc(n);
    size_t gzn;
    unsigned char *gz = gz_level(doc, n, 6, &gzn); /* zlib writes a bare 10-byte header */
    unsigned char hdr[64] = {0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 1, 2, 3, 4, 0, 3};
    size_t h = 10;
    hdr[h++] = 5;
    hdr[h++] = 0;
    memcpy(hdr + h, "AB\0CD", 5);
    h += 5;
    memcpy(hdr + h, "trace.pt.trace.json", 20);
    h += 20;
    memcpy(hdr + h, "c", 2);
    h += 2;
    uLong crc = crc32(0L, hdr, (uInt)h);
    hdr[h++] = (unsigned char)(crc & 0xff);
    hdr[h++] = (unsigned char)((crc >> 8) & 0xff);
    unsigned char *full = malloc(h + gzn - 10);
    ASSERT(full);
    memcpy(full, hdr, h);
    memcpy(full + h, gz + 10, gzn - 10);
    size_t fulln = h + gzn - 10;
    for (int be = 0; be < 2; be++) {
        use_backend(be);
        for (size_t chunk = 1; chunk <= 13; chunk++) {
            char err[256] = "", *out = NULL;
            size_t outn = 0;
            int rc = read_mem(full, fulln, chunk, &out, &outn, err, sizeof(err));
            if (rc || outn != n || memcmp(out, doc, n) != 0)
                FAIL("backend %d chunk %zu: rc %d, %zu bytes: %s", be, chunk, rc, outn, err);
            free(out);
        }
        /* Cut inside the optional fields: truncated, not corrupt. */
        for (size_t cut = 10; cut < h; cut++) {
            char err[256] = "", *out = NULL;
            size_t outn = 0;
            int rc = read_mem(full, cut, 3, &out, &outn, err, sizeof(err));
            if (rc != LAT_E_GZIP || !strstr(err, "truncated gzip data"))
                FAIL("backend %d header cut at %zu: rc %d (%s)", be, cut, rc, err);
            free(out);
        }
        /* Reserved flag bits and a bad method are corrupt headers. */
        for (int k = 0; k < 2; k++) {
            unsigned char save = full[2 + k];
            full[2 + k] = k ? 0xe0 : 7;
            char err[256] = "", *out = NULL;
            size_t outn = 0;
            int rc = read_mem(full, fulln, 0, &out, &outn, err, sizeof(err));
            if (rc != LAT_E_GZIP || !strstr(err, "corrupt gzip data near compressed byte"))
                FAIL("backend %d bad header byte %d: rc %d (%s)", be, 2 + k, rc, err);
            free(out);
            full[2 + k] = save;
        }
    }
    unsetenv("LAT_INGEST_ZLIB");
    free(full);
    free(gz);
    free(doc);
}
