/*
 * test-tok-num.c - integer overflow boundaries of the JSON tokenizer's number scan (the first
 * 19 digits are accumulated without an overflow check; see scan_number in src/json/tok.c).
 */
#include "core/err.h"
#include "test.h"
#include "json/tok.h"

#include <stdio.h>
#include <string.h>

/* Tokenizes doc (one JSON value, fed whole or in chunks) and returns its number token. */
static struct json_token num_token(const char *doc, size_t chunk)
{
    struct json_tok t;
    struct json_token tk, got;
    memset(&got, 0, sizeof(got));
    json_tok_init(&t, 0);
    size_t n = strlen(doc), pos = 0;
    int rc, seen = 0;
    for (;;) {
        while ((rc = json_tok_next(&t, &tk)) == 1) {
            if (tk.type == JSON_NUM) {
                got = tk;
                seen++;
            }
            if (tk.type == JSON_END) goto out;
        }
        ASSERT(rc >= 0);
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
    json_tok_fini(&t);
    ASSERT_EQ_I64(seen, 1);
    got.s = NULL;
    return got;
}

struct num_case {
    const char *doc;
    int u64, i64; /* expected flags */
    unsigned long long u;
    long long i;
};

TEST(tok_num_overflow_boundaries)
{
    static const struct num_case cases[] = {
        {"9999999999999999999", 1, 0, 9999999999999999999ull, 0},   /* 19 digits: fast path */
        {"10000000000000000000", 1, 0, 10000000000000000000ull, 0}, /* 20th digit checked */
        {"18446744073709551615", 1, 0, 18446744073709551615ull, 0}, /* UINT64_MAX */
        {"18446744073709551616", 0, 0, 0, 0},                       /* UINT64_MAX + 1 */
        {"18446744073709551620", 0, 0, 0, 0},
        {"99999999999999999999", 0, 0, 0, 0},
        {"184467440737095516150", 0, 0, 0, 0}, /* 21 digits */
        {"9223372036854775807", 1, 1, 9223372036854775807ull, 9223372036854775807ll},
        {"-9223372036854775808", 0, 1, 0, -9223372036854775807ll - 1},
        {"-9223372036854775809", 0, 0, 0, 0},
        {"-18446744073709551616", 0, 0, 0, 0},
        {"1234567890123456789", 1, 1, 1234567890123456789ull, 1234567890123456789ll},
        {"0", 1, 1, 0, 0},
        {"7", 1, 1, 7, 7},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (size_t chunk = 1; chunk <= 32; chunk += 3) {
            char doc[64];
            snprintf(doc, sizeof(doc), "[%s]", cases[c].doc);
            struct json_token tk = num_token(doc, chunk);
            int u = (tk.num_flags & JSON_NUM_U64) != 0, i = (tk.num_flags & JSON_NUM_I64) != 0;
            if (!(tk.num_flags & JSON_NUM_INT) || u != cases[c].u64 || i != cases[c].i64 ||
                (u && tk.u != cases[c].u) || (i && tk.i != cases[c].i))
                FAIL("%s (chunk %zu): flags %x u %llu i %lld", cases[c].doc, chunk, tk.num_flags,
                     (unsigned long long)tk.u, (long long)tk.i);
        }
    }
}
