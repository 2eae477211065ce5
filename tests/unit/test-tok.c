/* test-tok.c - the streaming JSON tokenizer: chunk splits, numbers, strings, errors, lookups. */
#include "core/buf.h"
#include "core/err.h"
#include "test.h"
#include "json/tok.h"

/* Renders the token stream of doc fed in chunks of `chunk` bytes (0 = one piece) into out as
 * one line per token; returns the final rc (1 = reached JSON_END). */
static int tok_dump(const char *doc, size_t n, size_t chunk, unsigned flags, struct lat_buf *out,
                    uint64_t *erroff)
{
    struct json_tok t;
    struct json_token tk;
    int rc = 0;
    size_t pos = 0;
    json_tok_init(&t, flags);
    if (!chunk) chunk = n ? n : 1;
    for (;;) {
        while ((rc = json_tok_next(&t, &tk)) == 1) {
            buf_printf(out, "%d@%llu d%d", (int)tk.type, (unsigned long long)tk.off, tk.depth);
            if (tk.s) {
                buf_puts(out, " '");
                buf_append(out, tk.s, tk.len);
                buf_puts(out, "'");
            }
            if (tk.type == JSON_NUM)
                buf_printf(out, " f%x i%lld u%llu", tk.num_flags,
                           (tk.num_flags & JSON_NUM_I64) ? (long long)tk.i : 0LL,
                           (tk.num_flags & JSON_NUM_U64) ? (unsigned long long)tk.u : 0ULL);
            buf_putc(out, '\n');
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
    if (rc < 0) {
        buf_printf(out, "ERR %d @%llu: %s\n", rc, (unsigned long long)json_tok_erroff(&t),
                   json_tok_errmsg(&t));
        if (erroff) *erroff = json_tok_erroff(&t);
    }
    json_tok_fini(&t);
    return rc;
}

static const char sample[] =
    " {\"traceEvents\": [ {\"ph\":\"X\", \"ts\": 1712195495519689.047, \"dur\": 63.813,"
    " \"name\": \"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\n\", \"pid\": -12, \"tid\": \"stream 7\","
    " \"args\": {\"big\": 18446744073709551615, \"huge\": 123456789012345678901234,"
    " \"neg\": -9223372036854775808, \"e\": 1.5e-3, \"t\": true, \"f\": false, \"n\": null,"
    " \"arr\": [[1,2],[],{}], \"\": \"\"}}], \"x\": 0 } ";

TEST(tok_split_every_byte_same_tokens)
{
    struct lat_buf ref = LAT_BUF_INIT;
    size_t n = sizeof(sample) - 1;
    ASSERT_EQ_I64(tok_dump(sample, n, 0, 0, &ref, NULL), 1);
    /* Sanity on the reference stream itself. */
    ASSERT(strstr(ref.data, "'a\"b\\c\xc3\xa9\xf0\x9f\x98\x80\n'"));
    ASSERT(strstr(ref.data, "'1712195495519689.047'"));
    ASSERT(strstr(ref.data, "u18446744073709551615"));
    ASSERT(strstr(ref.data, "i-9223372036854775808"));
    for (size_t chunk = 1; chunk < 12; chunk++) {
        struct lat_buf got = LAT_BUF_INIT;
        ASSERT_EQ_I64(tok_dump(sample, n, chunk, 0, &got, NULL), 1);
        ASSERT_EQ_STR(got.data, ref.data);
        buf_fini(&got);
    }
    /* Two pieces split at every byte. */
    for (size_t cut = 0; cut <= n; cut++) {
        struct json_tok t;
        struct json_token tk;
        struct lat_buf got = LAT_BUF_INIT;
        int rc;
        json_tok_init(&t, 0);
        json_tok_feed(&t, sample, cut);
        int ntok = 0;
        while ((rc = json_tok_next(&t, &tk)) == 1)
            ntok++;
        ASSERT_EQ_I64(rc, 0);
        json_tok_feed(&t, sample + cut, n - cut);
        while ((rc = json_tok_next(&t, &tk)) == 1)
            ntok++;
        ASSERT_EQ_I64(rc, 0);
        json_tok_finish(&t);
        while ((rc = json_tok_next(&t, &tk)) == 1) {
            ntok++;
            if (tk.type == JSON_END) break;
        }
        ASSERT_EQ_I64(rc, 1);
        ASSERT_EQ_I64(tk.type, JSON_END);
        ASSERT_EQ_I64(ntok, 52);
        json_tok_fini(&t);
        buf_fini(&got);
    }
    buf_fini(&ref);
}

TEST(tok_numbers_exact)
{
    int64_t v;
    bool frac;
    ASSERT_RC(json_num_fixed("1712195495519689.047", 20, 3, &v, &frac));
    ASSERT_EQ_I64(v, 1712195495519689047LL);
    ASSERT(frac);
    ASSERT_RC(json_num_fixed("63.813", 6, 3, &v, &frac));
    ASSERT_EQ_I64(v, 63813);
    ASSERT_RC(json_num_fixed("1623143089861", 13, 3, &v, &frac));
    ASSERT_EQ_I64(v, 1623143089861000LL);
    ASSERT(!frac);
    ASSERT_RC(json_num_fixed("5.000", 5, 3, &v, &frac));
    ASSERT_EQ_I64(v, 5000);
    ASSERT(!frac);
    ASSERT_RC(json_num_fixed("0.0005", 6, 3, &v, &frac)); /* rounds half away from zero */
    ASSERT_EQ_I64(v, 1);
    ASSERT(frac);
    ASSERT_RC(json_num_fixed("-0.0005", 7, 3, &v, NULL));
    ASSERT_EQ_I64(v, -1);
    ASSERT_RC(json_num_fixed("0.0004999", 9, 3, &v, NULL));
    ASSERT_EQ_I64(v, 0);
    ASSERT_RC(json_num_fixed("1.5e3", 5, 3, &v, &frac));
    ASSERT_EQ_I64(v, 1500000);
    ASSERT(!frac);
    ASSERT_RC(json_num_fixed("17121954955196.89047e2", 22, 3, &v, NULL));
    ASSERT_EQ_I64(v, 1712195495519689047LL);
    ASSERT_RC(json_num_fixed("-12", 3, 0, &v, NULL));
    ASSERT_EQ_I64(v, -12);
    ASSERT_RC(json_num_fixed("0", 1, 3, &v, &frac));
    ASSERT_EQ_I64(v, 0);
    ASSERT_RC(json_num_fixed("9223372036854775807", 19, 0, &v, NULL));
    ASSERT_EQ_I64(v, INT64_MAX);
    ASSERT_EQ_I64(json_num_fixed("9223372036854775808", 19, 0, &v, NULL), LAT_E_OVERFLOW);
    ASSERT_EQ_I64(json_num_fixed("1e30", 4, 0, &v, NULL), LAT_E_OVERFLOW);
    ASSERT_EQ_I64(json_num_fixed("12345678901234567890", 20, 3, &v, NULL), LAT_E_OVERFLOW);
    ASSERT_EQ_I64(json_num_fixed("1.", 2, 3, &v, NULL), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(json_num_fixed("abc", 3, 3, &v, NULL), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(json_num_fixed("", 0, 3, &v, NULL), LAT_E_BAD_JSON);
    double d;
    ASSERT_RC(json_num_double("2.5e-1", 6, &d));
    ASSERT_NEAR(d, 0.25, 1e-15);
}

TEST(tok_number_tokens)
{
    struct lat_buf out = LAT_BUF_INIT;
    const char *doc = "[0, -0, 20, 18446744073709551616, -9223372036854775809, 1.0, 1e2]";
    ASSERT_EQ_I64(tok_dump(doc, strlen(doc), 3, 0, &out, NULL), 1);
    /* 2^64 keeps its text but no integer value; -2^63-1 likewise. */
    ASSERT(strstr(out.data, "'18446744073709551616' f1 i0 u0"));
    ASSERT(strstr(out.data, "'-9223372036854775809' f9 i0 u0"));
    ASSERT(strstr(out.data, "'20' f7 i20 u20"));
    ASSERT(strstr(out.data, "'1.0' f10 "));
    ASSERT(strstr(out.data, "'1e2' f20 "));
    buf_fini(&out);
    /* A number at the very end of the input (top-level scalar). */
    struct lat_buf o2 = LAT_BUF_INIT;
    ASSERT_EQ_I64(tok_dump("42", 2, 1, 0, &o2, NULL), 1);
    ASSERT(strstr(o2.data, "'42' f7 i42"));
    buf_fini(&o2);
}

TEST(tok_strings_utf8)
{
    /* Invalid UTF-8 is kept as is by default and rejected in strict mode with its offset. */
    const char doc[] = "[\"ok\xff\xfe\", \"\xc3\xa9\", \"\\ud800x\"]";
    struct lat_buf out = LAT_BUF_INIT;
    uint64_t off = 0;
    ASSERT_EQ_I64(tok_dump(doc, sizeof(doc) - 1, 2, 0, &out, NULL), 1);
    ASSERT(strstr(out.data, "'ok\xff\xfe'"));
    ASSERT(strstr(out.data, "'\xef\xbf\xbdx'")); /* lone surrogate -> U+FFFD */
    buf_fini(&out);
    struct lat_buf o2 = LAT_BUF_INIT;
    ASSERT_EQ_I64(tok_dump(doc, sizeof(doc) - 1, 1, JSON_TOK_STRICT, &o2, &off), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(off, 4);
    ASSERT(strstr(o2.data, "invalid UTF-8"));
    buf_fini(&o2);
    /* A valid multi-byte character split across chunks passes strict mode. */
    struct lat_buf o3 = LAT_BUF_INIT;
    const char ok[] = "[\"\xf0\x9f\x98\x80\xc3\xa9\"]";
    ASSERT_EQ_I64(tok_dump(ok, sizeof(ok) - 1, 1, JSON_TOK_STRICT, &o3, NULL), 1);
    buf_fini(&o3);
    /* Raw control characters: accepted by default, an error when strict. */
    struct lat_buf o4 = LAT_BUF_INIT;
    ASSERT_EQ_I64(tok_dump("[\"a\tb\"]", 7, 0, 0, &o4, NULL), 1);
    ASSERT_EQ_I64(tok_dump("[\"a\tb\"]", 7, 0, JSON_TOK_STRICT, &o4, &off), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(off, 3);
    buf_fini(&o4);
}

TEST(tok_huge_string_chunks)
{
    size_t n = 3u << 20;
    char *doc = malloc(n + 16);
    ASSERT(doc);
    doc[0] = '[';
    doc[1] = '"';
    for (size_t i = 2; i < n; i++)
        doc[i] = (char)('a' + i % 26);
    doc[100] = '\\';
    doc[101] = 'n';
    memcpy(doc + n, "\",1]", 4);
    struct json_tok t;
    struct json_token tk;
    json_tok_init(&t, 0);
    size_t pos = 0, total = n + 4, got_len = 0;
    int rc, nstr = 0;
    while (pos < total) {
        size_t k = total - pos < 65536 ? total - pos : 65536;
        json_tok_feed(&t, doc + pos, k);
        pos += k;
        while ((rc = json_tok_next(&t, &tk)) == 1)
            if (tk.type == JSON_STR) {
                nstr++;
                got_len = tk.len;
                ASSERT(tk.escaped);
                ASSERT_EQ_I64(tk.s[98], '\n');
            }
        ASSERT_EQ_I64(rc, 0);
    }
    json_tok_finish(&t);
    while ((rc = json_tok_next(&t, &tk)) == 1)
        ;
    ASSERT_EQ_I64(rc, 0);
    ASSERT_EQ_I64(nstr, 1);
    ASSERT_EQ_I64(got_len, n - 2 - 1);
    json_tok_fini(&t);
    free(doc);
}

struct err_case {
    const char *doc;
    int rc;
    uint64_t off;
    const char *msg;
};

TEST(tok_errors_with_offsets)
{
    static const struct err_case cases[] = {
        {"", LAT_E_TRUNCATED, 0, "empty input"},
        {"{\"a\" 1}", LAT_E_BAD_JSON, 5, "expected ':'"},
        {"[1 2]", LAT_E_BAD_JSON, 3, "expected ',' or ']'"},
        {"[1,]", LAT_E_BAD_JSON, 3, "expected a value"},
        {"{\"a\":1,}", LAT_E_BAD_JSON, 7, "expected a string key"},
        {"[1}", LAT_E_BAD_JSON, 2, "expected ',' or ']', found '}'"},
        {"[tru]", LAT_E_BAD_JSON, 4, "expected 'true'"},
        {"[\"abc", LAT_E_TRUNCATED, 5, "inside a string that starts at byte 1"},
        {"{\"traceEvents\":[{\"ph\":\"X\"}", LAT_E_TRUNCATED, 26, "expected ',' or the end"},
        {"[1.]", LAT_E_BAD_JSON, 3, "after '.'"},
        {"[01]", LAT_E_BAD_JSON, 2, "expected ',' or ']'"},
        {"[\"\\x\"]", LAT_E_BAD_JSON, 2, "invalid escape"},
        {"[\"\\u12g4\"]", LAT_E_BAD_JSON, 2, "invalid escape"},
        {"{} x", LAT_E_BAD_JSON, 3, "after the end of the JSON value"},
        {"[-]", LAT_E_BAD_JSON, 2, "expected a digit"},
        {"[1e+]", LAT_E_BAD_JSON, 4, "exponent"},
        {"@", LAT_E_BAD_JSON, 0, "expected a value, found '@'"},
        {"[12", LAT_E_TRUNCATED, 3, "expected ',' or the end"},
        {"[nul", LAT_E_TRUNCATED, 4, "inside 'null'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (size_t chunk = 0; chunk < 3; chunk++) {
            struct lat_buf out = LAT_BUF_INIT;
            uint64_t off = 99;
            int rc = tok_dump(cases[i].doc, strlen(cases[i].doc), chunk, 0, &out, &off);
            if (rc != cases[i].rc || off != cases[i].off || !strstr(out.data, cases[i].msg))
                FAIL("case %zu (%s) chunk %zu: rc %d off %llu: %s", i, cases[i].doc, chunk, rc,
                     (unsigned long long)off, out.data);
            buf_fini(&out);
        }
    }
}

TEST(tok_depth_limit)
{
    char doc[2100];
    memset(doc, '[', 1000);
    memset(doc + 1000, ']', 1000);
    struct lat_buf out = LAT_BUF_INIT;
    uint64_t off = 0;
    ASSERT_EQ_I64(tok_dump(doc, 2000, 0, 0, &out, &off), LAT_E_OVERFLOW);
    ASSERT_EQ_I64(off, JSON_TOK_DEFAULT_MAX_DEPTH);
    ASSERT(strstr(out.data, "nesting deeper"));
    buf_fini(&out);
    struct json_tok t;
    struct json_token tk;
    json_tok_init(&t, 0);
    json_tok_set_max_depth(&t, 1000);
    json_tok_feed(&t, doc, 2000);
    json_tok_finish(&t);
    int rc, n = 0;
    while ((rc = json_tok_next(&t, &tk)) == 1 && tk.type != JSON_END)
        n++;
    ASSERT_EQ_I64(rc, 1);
    ASSERT_EQ_I64(n, 2000);
    json_tok_fini(&t);
}

TEST(tok_duplicate_keys_and_multi)
{
    const char *doc = "{\"a\":1,\"a\":{\"b\":[10,20,{\"c\":\"x\\/y\"}]},\"a/b\":3,\"t\":true}";
    size_t n = strlen(doc);
    struct json_val v;
    int64_t i;
    ASSERT_RC(json_find(doc, n, "a/b/1", &v));
    ASSERT_EQ_I64(v.type, JSON_NUM);
    ASSERT_RC(json_get_i64(doc, n, "a/b/1", &i));
    ASSERT_EQ_I64(i, 20);
    ASSERT_RC(json_get_i64(doc, n, "a~1b", &i));
    ASSERT_EQ_I64(i, 3);
    struct lat_buf s = LAT_BUF_INIT;
    ASSERT_RC(json_get_str(doc, n, "/a/b/2/c", &s));
    ASSERT_EQ_STR(s.data, "x/y");
    buf_fini(&s);
    ASSERT_EQ_I64(json_get_i64(doc, n, "a/b/9", &i), LAT_E_NOT_FOUND);
    ASSERT_EQ_I64(json_get_i64(doc, n, "zz", &i), LAT_E_NOT_FOUND);
    ASSERT_EQ_I64(json_get_i64(doc, n, "t", &i), LAT_E_USAGE);
    bool b;
    ASSERT_RC(json_get_bool(doc, n, "t", &b));
    ASSERT(b);
    size_t cnt;
    ASSERT_RC(json_get_count(doc, n, "", &cnt));
    ASSERT_EQ_I64(cnt, 4);
    ASSERT_RC(json_get_count(doc, n, "a/b", &cnt));
    ASSERT_EQ_I64(cnt, 3);
    ASSERT_RC(json_find(doc, n, "a", &v));
    ASSERT_EQ_I64(v.type, JSON_OBJ_BEGIN);
    ASSERT(memcmp(doc + v.off, "{\"b\"", 4) == 0);
    ASSERT_EQ_I64(doc[v.off + v.len - 1], '}');
    double d;
    ASSERT_RC(json_get_double("{\"x\": 2.5}", 10, "x", &d));
    ASSERT_NEAR(d, 2.5, 0);
    ASSERT_EQ_I64(json_find("{\"a\":", 5, "a", &v), LAT_E_TRUNCATED);

    /* JSONL: several values */
    struct lat_buf out = LAT_BUF_INIT;
    ASSERT_EQ_I64(tok_dump("{} [1]\n\"s\"", 10, 1, JSON_TOK_MULTI, &out, NULL), 1);
    ASSERT(strstr(out.data, "'s'"));
    buf_fini(&out);

    uint64_t off;
    char msg[128];
    ASSERT_RC(json_validate("[1, {\"a\": null}]", 16, JSON_TOK_STRICT, &off, msg, sizeof(msg)));
    ASSERT_EQ_I64(json_validate("[1, {\"a\" null}]", 16, 0, &off, msg, sizeof(msg)),
                  LAT_E_BAD_JSON);
    ASSERT_EQ_I64(off, 9);
}

TEST(tok_skip_resumes)
{
    const char *doc = "[{\"a\":[1,2,{\"b\":\"zz\"}],\"c\":3},4]";
    size_t n = strlen(doc);
    for (size_t chunk = 1; chunk < 6; chunk++) {
        struct json_tok t;
        struct json_token tk, first;
        json_tok_init(&t, 0);
        size_t pos = 0;
        int rc, pending = 0, stage = 0;
        int64_t after = -1;
        for (;;) {
            while (1) {
                if (stage == 1) {
                    rc = json_tok_skip(&t, &first, &pending);
                    if (rc == 1) stage = 2;
                    if (rc <= 0) break;
                    continue;
                }
                rc = json_tok_next(&t, &tk);
                if (rc <= 0) break;
                if (stage == 0 && tk.type == JSON_OBJ_BEGIN) {
                    first = tk;
                    stage = 1;
                } else if (stage == 2 && tk.type == JSON_NUM) {
                    after = tk.i;
                    stage = 3;
                }
            }
            ASSERT(rc >= 0);
            if (pos >= n) break;
            size_t k = n - pos < chunk ? n - pos : chunk;
            json_tok_feed(&t, doc + pos, k);
            pos += k;
        }
        ASSERT_EQ_I64(after, 4);
        json_tok_fini(&t);
    }
}

TEST(tok_iter_and_empty_chunks)
{
    const char *doc =
        " { \"a\" : [ ] , \"b\" : { } , \"c\" : [ 1 , \"x\" , [ 2 ] , { \"d\" : null } ] } ";
    size_t n = strlen(doc), cnt = 99;
    ASSERT_RC(json_get_count(doc, n, "a", &cnt));
    ASSERT_EQ_I64(cnt, 0);
    ASSERT_RC(json_get_count(doc, n, "b", &cnt));
    ASSERT_EQ_I64(cnt, 0);
    struct json_val v, e;
    ASSERT_RC(json_find(doc, n, "c", &v));
    struct json_iter it;
    ASSERT_RC(json_iter_init(&it, doc, n, &v));
    static const enum json_type want[] = {JSON_NUM, JSON_STR, JSON_ARR_BEGIN, JSON_OBJ_BEGIN};
    int k = 0, rc;
    while ((rc = json_iter_next(&it, NULL, &e)) == 1) {
        ASSERT(k < 4);
        ASSERT_EQ_I64(e.type, want[k]);
        k++;
    }
    ASSERT_EQ_I64(rc, 0);
    ASSERT_EQ_I64(k, 4);
    ASSERT_RC(json_find(doc, n, "c/2/0", &v));
    ASSERT_EQ_I64(doc[v.off], '2');
    ASSERT_RC(json_find(doc, n, "c/3/d", &v));
    ASSERT_EQ_I64(v.type, JSON_NULL);
    ASSERT_EQ_I64(json_find(doc, n, "c/x", &v), LAT_E_NOT_FOUND);
    ASSERT_EQ_I64(json_find(doc, n, "c/1/z", &v), LAT_E_NOT_FOUND);
    ASSERT_RC(json_find("  7 ", 4, "", &v));
    ASSERT_EQ_I64(v.type, JSON_NUM);
    ASSERT_EQ_I64(v.off, 2);
    ASSERT_EQ_I64(v.len, 1);
    ASSERT_EQ_I64(json_iter_init(&it, doc, n, &v), LAT_E_USAGE);

    /* Empty chunks between real ones change nothing. */
    struct json_tok t;
    struct json_token tk;
    json_tok_init(&t, 0);
    int ntok = 0;
    for (size_t i = 0; i < n; i++) {
        json_tok_feed(&t, doc + i, 0);
        while ((rc = json_tok_next(&t, &tk)) == 1)
            ntok++;
        ASSERT_EQ_I64(rc, 0);
        json_tok_feed(&t, doc + i, 1);
        while ((rc = json_tok_next(&t, &tk)) == 1)
            ntok++;
        ASSERT_EQ_I64(rc, 0);
    }
    json_tok_finish(&t);
    while ((rc = json_tok_next(&t, &tk)) == 1)
        ntok++;
    ASSERT_EQ_I64(rc, 0);
    ASSERT_EQ_I64(ntok, 21); /* 20 tokens + JSON_END */
    ASSERT_EQ_I64(json_tok_offset(&t), n);
    json_tok_fini(&t);
    /* A string decoded by the convenience layer keeps appending (documented). */
    struct lat_buf s = LAT_BUF_INIT;
    ASSERT_RC(json_get_str("{\"k\":\"ab\"}", 10, "k", &s));
    ASSERT_RC(json_get_str("{\"k\":\"cd\"}", 10, "k", &s));
    ASSERT_EQ_STR(s.data, "abcd");
    buf_fini(&s);
}

TEST(tok_byte_order_mark)
{
    const char doc[] = "\xEF\xBB\xBF[1]";
    for (size_t chunk = 0; chunk < 3; chunk++) {
        struct lat_buf out = LAT_BUF_INIT;
        ASSERT_EQ_I64(tok_dump(doc, sizeof(doc) - 1, chunk, 0, &out, NULL), 1);
        ASSERT(strstr(out.data, "'1'"));
        buf_fini(&out);
    }
    struct lat_buf o = LAT_BUF_INIT;
    uint64_t off = 0;
    ASSERT_EQ_I64(tok_dump(doc, sizeof(doc) - 1, 0, JSON_TOK_STRICT, &o, &off), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(tok_dump("[\xEF\xBB\xBF]", 5, 0, 0, &o, &off), LAT_E_BAD_JSON);
    ASSERT_EQ_I64(off, 1);
    ASSERT_EQ_I64(tok_dump("\xEF\xBB[]", 4, 0, 0, &o, &off), LAT_E_BAD_JSON);
    ASSERT(strstr(o.data, "byte order mark"));
    ASSERT_EQ_I64(tok_dump("\xEF", 1, 0, 0, &o, &off), LAT_E_TRUNCATED);
    buf_fini(&o);
}
