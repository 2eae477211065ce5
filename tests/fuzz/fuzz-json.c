/*
 * fuzz-json.c - libFuzzer target for the streaming JSON tokenizer and the in-memory lookups.
 *
 * The input is tokenized twice: in one piece and in chunks whose sizes come from the first
 * byte. Both runs must agree on the outcome (the chunk boundaries must never matter); then
 * the convenience layer (json_find / json_iter) walks the same bytes.
 */
#include "core/buf.h"
#include "json/tok.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run(const char *doc, size_t n, size_t chunk, unsigned flags, uint64_t *ntok,
               uint64_t *erroff)
{
    struct json_tok t;
    struct json_token tk;
    size_t pos = 0;
    int rc;
    json_tok_init(&t, flags);
    json_tok_set_max_depth(&t, 64);
    *ntok = 0;
    for (;;) {
        while ((rc = json_tok_next(&t, &tk)) == 1) {
            ++*ntok;
            if (tk.type == JSON_END) goto out;
        }
        if (rc < 0) break;
        if (pos >= n) {
            if (t.eof) break;
            json_tok_finish(&t);
            continue;
        }
        size_t k = n - pos < chunk ? n - pos : chunk;
        json_tok_feed(&t, doc + pos, k);
        pos += k;
    }
out:
    *erroff = rc < 0 ? json_tok_erroff(&t) : 0;
    json_tok_fini(&t);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t chunk = (size_t)(data[0] % 17) + 1;
    unsigned flags = data[0] & 0x80 ? JSON_TOK_STRICT : 0;
    const char *doc = (const char *)data + 1;
    size_t n = size - 1;
    uint64_t n1, n2, e1, e2;
    int r1 = run(doc, n, n ? n : 1, flags, &n1, &e1);
    int r2 = run(doc, n, chunk, flags, &n2, &e2);
    if (r1 != r2 || n1 != n2 || e1 != e2) abort();

    struct json_val v;
    if (json_find(doc, n, "", &v) == 0 && (v.type == JSON_OBJ_BEGIN || v.type == JSON_ARR_BEGIN)) {
        struct json_iter it;
        struct lat_buf key = LAT_BUF_INIT;
        struct json_val e;
        if (json_iter_init(&it, doc, n, &v) == 0)
            while (json_iter_next(&it, &key, &e) == 1)
                if (e.off + e.len > n) abort();
        buf_fini(&key);
    }
    int64_t i;
    json_get_i64(doc, n, "traceEvents/0/ts", &i);
    return 0;
}
