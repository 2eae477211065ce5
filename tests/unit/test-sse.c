/* test-sse.c - Server-Sent Events framer: framing rules, timestamps, every split boundary. */
#include "test.h"

#include "core/err.h"
#include "net/sse.h"

#define MAX_EV 64

struct got {
    int n;
    char data[MAX_EV][256];
    char type[MAX_EV][64];
    lat_ns ts[MAX_EV], ts_first[MAX_EV];
    uint32_t comments[MAX_EV];
    bool done[MAX_EV], utf8[MAX_EV];
    size_t end_off[MAX_EV]; /* stream offset just after the event was returned */
    int errors;
};

static void record(struct got *g, const struct sse_event *ev, size_t off)
{
    ASSERT(g->n < MAX_EV);
    ASSERT(ev->data_len < sizeof(g->data[0]));
    ASSERT_EQ_U64(strlen(ev->data), ev->data_len); /* NUL-terminated, no embedded NUL here */
    memcpy(g->data[g->n], ev->data, ev->data_len + 1);
    memcpy(g->type[g->n], ev->type, ev->type_len);
    g->type[g->n][ev->type_len] = '\0';
    g->ts[g->n] = ev->ts;
    g->ts_first[g->n] = ev->ts_first;
    g->comments[g->n] = ev->comments;
    g->done[g->n] = ev->done;
    g->utf8[g->n] = ev->utf8_ok;
    g->end_off[g->n] = off;
    g->n++;
}

/* Feeds `in` cut at the given offsets; piece k is stamped with ts 1000 + k. */
static void feed_split(const char *in, size_t len, const size_t *cuts, int ncuts, struct got *g,
                       bool *pending)
{
    struct sse_parser s;
    sse_init(&s, 0);
    memset(g, 0, sizeof(*g));
    size_t start = 0;
    for (int k = 0; k <= ncuts; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        const char *p = in + start;
        size_t n = end - start;
        struct sse_event ev;
        int rc;
        while ((rc = sse_feed(&s, &p, &n, 1000 + k, &ev)) != 0) {
            if (rc < 0) {
                g->errors++;
                continue;
            }
            record(g, &ev, (size_t)(p - in));
        }
        ASSERT_EQ_U64(n, 0);
        start = end;
    }
    if (pending) *pending = sse_pending(&s);
    sse_fini(&s);
}

static void feed_all(const char *in, struct got *g)
{
    feed_split(in, strlen(in), NULL, 0, g, NULL);
}

TEST(sse_basic_event)
{
    struct got g;
    feed_all("data: hello\n\n", &g);
    ASSERT_EQ_I64(g.n, 1);
    ASSERT_EQ_STR(g.data[0], "hello");
    ASSERT_EQ_STR(g.type[0], "");
    ASSERT(!g.done[0]);
    ASSERT(g.utf8[0]);
}

TEST(sse_several_events_types_comments)
{
    struct got g;
    feed_all(": keep-alive\n\n: ping\ndata: a\n\nevent: error\ndata: {\"e\":1}\n\n"
             "data: [DONE]\n\n",
             &g);
    ASSERT_EQ_I64(g.n, 3);
    ASSERT_EQ_STR(g.data[0], "a");
    ASSERT_EQ_I64(g.comments[0], 2);
    ASSERT_EQ_STR(g.type[1], "error");
    ASSERT_EQ_STR(g.data[1], "{\"e\":1}");
    ASSERT_EQ_I64(g.comments[1], 0);
    ASSERT_EQ_STR(g.type[2], ""); /* the type does not leak into the next event */
    ASSERT(g.done[2]);
}

TEST(sse_multiline_data_and_field_forms)
{
    struct got g;
    feed_all("data: a\ndata:b\ndata:  c\ndata\ndata: \nid: 7\nretry: 10\nfoo: bar\n\n", &g);
    ASSERT_EQ_I64(g.n, 1);
    /* one leading space is stripped, a second is kept; "data" alone and "data: " add "" */
    ASSERT_EQ_STR(g.data[0], "a\nb\n c\n\n");
}

TEST(sse_line_endings)
{
    struct got g;
    feed_all("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n", &g);
    ASSERT_EQ_I64(g.n, 4);
    ASSERT_EQ_STR(g.data[0], "a");
    ASSERT_EQ_STR(g.data[1], "b");
    ASSERT_EQ_STR(g.data[2], "c");
    ASSERT_EQ_STR(g.data[3], "d");
}

TEST(sse_no_dispatch_without_data)
{
    struct got g;
    bool pending;
    const char *in = "event: x\n\n\n\nid: 3\n\ndata: y\n\nevent: z\n";
    feed_split(in, strlen(in), NULL, 0, &g, &pending);
    ASSERT_EQ_I64(g.n, 1);
    ASSERT_EQ_STR(g.data[0], "y");
    ASSERT_EQ_STR(g.type[0], ""); /* "event: x" was discarded by its blank line */
    ASSERT(!pending);             /* a lone event: line would never dispatch */
}

TEST(sse_bom_stripped_once)
{
    struct got g;
    feed_all("\xEF\xBB\xBF"
             "data: a\n\n\xEF\xBB\xBF"
             "data: b\n\n",
             &g);
    ASSERT_EQ_I64(g.n, 1); /* the second BOM makes an unknown field name */
    ASSERT_EQ_STR(g.data[0], "a");
}

TEST(sse_utf8_split_across_reads)
{
    const char *in = "data: h\xC3\xA9llo \xF0\x9F\x98\x80!\n\n";
    size_t len = strlen(in);
    for (size_t cut = 1; cut < len; cut++) {
        struct got g;
        feed_split(in, len, &cut, 1, &g, NULL);
        ASSERT_EQ_I64(g.n, 1);
        ASSERT_EQ_STR(g.data[0], "h\xC3\xA9llo \xF0\x9F\x98\x80!");
        ASSERT(g.utf8[0]);
    }
    struct got g;
    feed_all("data: bad \xC3(\n\ndata: \xED\xA0\x80\n\ndata: \xC0\xAF\n\n", &g);
    ASSERT_EQ_I64(g.n, 3);
    ASSERT(!g.utf8[0]); /* truncated sequence */
    ASSERT(!g.utf8[1]); /* surrogate */
    ASSERT(!g.utf8[2]); /* overlong */
}

TEST(sse_timestamps)
{
    /* Event 1 completes in piece 1 (its blank line arrives there); its first byte in piece 0. */
    const char *in = "data: one\n\ndata: two\n\n";
    size_t cuts[] = {8, 16};
    struct got g;
    feed_split(in, strlen(in), cuts, 2, &g, NULL);
    ASSERT_EQ_I64(g.n, 2);
    ASSERT_EQ_I64(g.ts_first[0], 1000);
    ASSERT_EQ_I64(g.ts[0], 1001);
    ASSERT_EQ_I64(g.ts_first[1], 1001);
    ASSERT_EQ_I64(g.ts[1], 1002);
    /* A comment before data does not move ts_first. */
    const char *in2 = ": ka\ndata: x\n\n";
    size_t cut2 = 5;
    feed_split(in2, strlen(in2), &cut2, 1, &g, NULL);
    ASSERT_EQ_I64(g.n, 1);
    ASSERT_EQ_I64(g.ts_first[0], 1001);
    ASSERT_EQ_I64(g.comments[0], 1);
}

TEST(sse_truncated_stream_is_pending)
{
    const char *in = "data: a\n\ndata: {\"partial";
    struct got g;
    bool pending;
    feed_split(in, strlen(in), NULL, 0, &g, &pending);
    ASSERT_EQ_I64(g.n, 1);
    ASSERT(pending);
    const char *in2 = "data: a\n\ndata: b\n"; /* complete line, no blank line */
    feed_split(in2, strlen(in2), NULL, 0, &g, &pending);
    ASSERT_EQ_I64(g.n, 1);
    ASSERT(pending);
}

TEST(sse_oversize_event_skipped_once)
{
    struct sse_parser s;
    sse_init(&s, 16);
    const char *in = "data: 0123456789abcdefXYZ\ndata: more\n\ndata: ok\n\n";
    const char *p = in;
    size_t n = strlen(in);
    struct sse_event ev;
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 1, &ev), LAT_E_SSE_PARSE);
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 1, &ev), 1);
    ASSERT_EQ_STR(ev.data, "ok");
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 1, &ev), 0);
    /* An oversized line split across reads is detected too. */
    sse_reset(&s);
    const char *a = "data: 0123456789", *b = "abcdefghij\n\ndata: z\n\n";
    p = a, n = strlen(a);
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 1, &ev), 0);
    p = b, n = strlen(b);
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 2, &ev), LAT_E_SSE_PARSE);
    ASSERT_EQ_I64(sse_feed(&s, &p, &n, 2, &ev), 1);
    ASSERT_EQ_STR(ev.data, "z");
    sse_fini(&s);
}

/* Index of the byte whose arrival dispatched an event ending at offset e (CRLF: the CR). */
static size_t dispatch_byte(const char *in, size_t e)
{
    if (e >= 2 && in[e - 1] == '\n' && in[e - 2] == '\r') return e - 2;
    return e - 1;
}

static lat_ns piece_of(size_t byte, const size_t *cuts, int ncuts)
{
    int k = 0;
    while (k < ncuts && byte >= cuts[k])
        k++;
    return 1000 + k;
}

static void check_same(const char *in, const struct got *ref, const struct got *g,
                       const size_t *cuts, int ncuts)
{
    ASSERT_EQ_I64(g->n, ref->n);
    ASSERT_EQ_I64(g->errors, 0);
    for (int i = 0; i < g->n; i++) {
        ASSERT_EQ_STR(g->data[i], ref->data[i]);
        ASSERT_EQ_STR(g->type[i], ref->type[i]);
        ASSERT_EQ_I64(g->comments[i], ref->comments[i]);
        ASSERT_EQ_I64(g->done[i], ref->done[i]);
        ASSERT_EQ_I64(g->utf8[i], ref->utf8[i]);
        ASSERT_EQ_I64(g->ts[i], piece_of(dispatch_byte(in, ref->end_off[i]), cuts, ncuts));
    }
}

/* Every one- and two-cut split of a stream mixing every feature gives the same events, each
 * stamped with the piece that delivered its dispatching byte. */
TEST_TIMEOUT(sse_every_split_boundary, 60)
{
    const char *in = "\xEF\xBB\xBF: hi\r\ndata: {\"a\":\"\xC3\xA9\"}\r\n\r\n"
                     "event: error\rdata: x\rdata:y\r\r"
                     ":ka\n\ndata\ndata: [DONE]\n\n"
                     "data: \xF0\x9F\x98\x80\r\n\n";
    size_t len = strlen(in);
    struct got ref, g;
    feed_split(in, len, NULL, 0, &ref, NULL);
    ASSERT_EQ_I64(ref.n, 4);
    ASSERT_EQ_STR(ref.data[0], "{\"a\":\"\xC3\xA9\"}");
    ASSERT_EQ_STR(ref.type[1], "error");
    ASSERT_EQ_STR(ref.data[1], "x\ny");
    ASSERT_EQ_STR(ref.data[2], "\n[DONE]"); /* not the sentinel: two data lines */
    ASSERT(!ref.done[2]);
    ASSERT_EQ_STR(ref.data[3], "\xF0\x9F\x98\x80");
    ASSERT_EQ_I64(ref.comments[0], 1);
    ASSERT_EQ_I64(ref.comments[2], 1);
    /* The last event ends with "\r\n\n": the CRLF is the data line's end, LF the blank line. */
    for (size_t i = 1; i < len; i++) {
        feed_split(in, len, &i, 1, &g, NULL);
        check_same(in, &ref, &g, &i, 1);
        for (size_t j = i + 1; j < len; j++) {
            size_t cuts[2] = {i, j};
            feed_split(in, len, cuts, 2, &g, NULL);
            check_same(in, &ref, &g, cuts, 2);
        }
    }
    /* Byte at a time. */
    size_t cuts[256];
    ASSERT(len - 1 <= 256);
    for (size_t i = 1; i < len; i++)
        cuts[i - 1] = i;
    feed_split(in, len, cuts, (int)(len - 1), &g, NULL);
    check_same(in, &ref, &g, cuts, (int)(len - 1));
}

TEST(sse_reset_reuses_storage)
{
    struct sse_parser s;
    sse_init(&s, 0);
    const char *in = "data: abc\n\n";
    for (int i = 0; i < 3; i++) {
        const char *p = in;
        size_t n = strlen(in);
        struct sse_event ev;
        ASSERT_EQ_I64(sse_feed(&s, &p, &n, i, &ev), 1);
        ASSERT_EQ_STR(ev.data, "abc");
        ASSERT_EQ_I64(ev.ts, i);
        sse_reset(&s);
    }
    ASSERT(!sse_pending(&s));
    sse_fini(&s);
}
