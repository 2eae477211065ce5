/* test-http1.c - HTTP/1.1 response parser (every split point), request builder, URL parser. */
#include "test.h"

#include "core/err.h"
#include "net/http1.h"

struct capture {
    char body[4096];
    size_t len;
    int calls;
    lat_ns last_t;
    char hdrs[1024];
    size_t hlen;
};

static void cap_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct capture *c = ud;
    if (c->len + n < sizeof(c->body)) memcpy(c->body + c->len, p, n);
    c->len += n;
    c->calls++;
    c->last_t = t;
}

static void cap_header(void *ud, const char *name, size_t nlen, const char *v, size_t vlen)
{
    struct capture *c = ud;
    c->hlen += (size_t)snprintf(c->hdrs + c->hlen, sizeof(c->hdrs) - c->hlen, "%.*s=%.*s;",
                                (int)nlen, name, (int)vlen, v);
}

static const struct http1_cb cap_cb = {.on_header = cap_header, .on_body = cap_body};

/* Feeds msg whole; returns the final rc (bytes consumed or error). */
static ssize_t feed_all(struct http1_resp *r, struct capture *c, const char *msg, size_t n,
                        bool head)
{
    memset(c, 0, sizeof(*c));
    http1_resp_init(r, head, &cap_cb, c);
    return http1_resp_feed(r, msg, n, 100);
}

/*
 * Feeds msg split in two at every byte position (and byte-by-byte) and checks that the
 * status, body and completion agree with the whole-buffer parse. Timestamps: the first part
 * arrives at t=1, the second at t=2, so t_first and t_end must say which recv they came from.
 */
static void check_splits(const char *msg, int status, const char *body, bool head)
{
    static struct http1_resp r;
    struct capture c;
    size_t n = strlen(msg);
    ssize_t k = feed_all(&r, &c, msg, n, head);
    ASSERT_OP_I64(k, >, 0);
    ASSERT(r.done);
    ASSERT_EQ_I64(r.status, status);
    ASSERT_EQ_U64(c.len, strlen(body));
    ASSERT_MEM_EQ(c.body, body, c.len);
    for (size_t cut = 0; cut <= n; cut++) {
        memset(&c, 0, sizeof(c));
        http1_resp_init(&r, head, &cap_cb, &c);
        ssize_t a = http1_resp_feed(&r, msg, cut, 1);
        ASSERT_OP_I64(a, >=, 0);
        ssize_t b = 0;
        if (!r.done) b = http1_resp_feed(&r, msg + a, n - (size_t)a, 2);
        ASSERT_OP_I64(b, >=, 0);
        if (!r.done) FAIL("split at %zu: response not complete", cut);
        ASSERT_EQ_I64(r.status, status);
        ASSERT_EQ_U64(c.len, strlen(body));
        ASSERT_MEM_EQ(c.body, body, c.len);
        ASSERT_EQ_I64(r.t_first, cut ? 1 : 2);
        ASSERT_EQ_I64(r.t_end, cut == n ? 1 : 2);
    }
    memset(&c, 0, sizeof(c));
    http1_resp_init(&r, head, &cap_cb, &c);
    for (size_t i = 0; i < n && !r.done; i++) {
        ssize_t a = http1_resp_feed(&r, msg + i, 1, (lat_ns)i + 10);
        ASSERT_EQ_I64(a, 1);
    }
    ASSERT(r.done);
    ASSERT_EQ_I64(r.t_first, 10);
    ASSERT_EQ_I64(r.t_end, (lat_ns)n + 9);
    ASSERT_EQ_U64(c.len, strlen(body));
    ASSERT_MEM_EQ(c.body, body, c.len);
}

TEST(http1_content_length_splits)
{
    check_splits("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello", 200, "hello",
                 false);
}

TEST(http1_chunked_splits)
{
    check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "5\r\nhello\r\n"
                 "1;ext=1\r\n \r\n"
                 "A  ; name=\"v\"\r\n0123456789\r\n"
                 "0\r\nX-Trailer: t\r\nOther: u\r\n\r\n",
                 200, "hello 0123456789", false);
}

TEST(http1_chunked_uppercase_hex_and_lf_only)
{
    check_splits("HTTP/1.1 201 Created\nTransfer-Encoding: gzip, Chunked\n\n"
                 "1a\n"
                 "abcdefghijklmnopqrstuvwxyz\n"
                 "0\n\n",
                 201, "abcdefghijklmnopqrstuvwxyz", false);
}

TEST(http1_1xx_then_final)
{
    check_splits("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n"
                 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                 200, "ok", false);
}

TEST(http1_no_body_cases)
{
    check_splits("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 204, "", false);
    check_splits("HTTP/1.1 304 Not Modified\r\n\r\n", 304, "", false);
    check_splits("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 200, "", true); /* HEAD */
    check_splits("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, "", false);
}

TEST(http1_headers_and_keepalive)
{
    static struct http1_resp r;
    struct capture c;
    const char *m = "HTTP/1.1 404 Not Found\r\nConnection:  close \r\nX-A:\tv v \r\n"
                    "Content-Length: 3\r\n\r\nabc";
    ASSERT_EQ_I64(feed_all(&r, &c, m, strlen(m), false), (int64_t)strlen(m));
    ASSERT(r.conn_close);
    ASSERT_EQ_I64(r.status, 404);
    ASSERT_EQ_STR(c.hdrs, "Connection=close;X-A=v v;Content-Length=3;");
    m = "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx";
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT(r.done && r.conn_close && r.minor == 0);
    m = "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx";
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT(r.done && !r.conn_close);
    m = "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx"; /* no reason phrase */
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT(r.done && r.status == 200 && !r.conn_close);
}

TEST(http1_body_until_eof)
{
    static struct http1_resp r;
    struct capture c;
    const char *m = "HTTP/1.1 200 OK\r\n\r\npartial body";
    ASSERT_EQ_I64(feed_all(&r, &c, m, strlen(m), false), (int64_t)strlen(m));
    ASSERT(!r.done);
    ASSERT(r.conn_close);
    ASSERT_EQ_I64(http1_resp_eof(&r, 555), 0);
    ASSERT(r.done);
    ASSERT_EQ_I64(r.t_end, 555);
    ASSERT_EQ_U64(c.len, 12);
    /* An unknown transfer coding also means "until close". */
    m = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nabcdef";
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT(!r.done);
    ASSERT_EQ_I64(http1_resp_eof(&r, 1), 0);
    ASSERT_EQ_U64(c.len, 6);
}

TEST(http1_truncated_is_error)
{
    static struct http1_resp r;
    struct capture c;
    const char *m = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT(!r.done);
    ASSERT_EQ_I64(http1_resp_eof(&r, 1), LAT_E_TRUNCATED);
    http1_resp_init(&r, false, NULL, NULL);
    ASSERT_EQ_I64(http1_resp_eof(&r, 1), LAT_E_TRUNCATED);
    m = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab";
    feed_all(&r, &c, m, strlen(m), false);
    ASSERT_EQ_I64(http1_resp_eof(&r, 1), LAT_E_TRUNCATED);
}

TEST(http1_extra_bytes_not_consumed)
{
    static struct http1_resp r;
    struct capture c;
    const char *m = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA";
    ASSERT_EQ_I64(feed_all(&r, &c, m, strlen(m), false), (int64_t)strlen(m) - 5);
    ASSERT(r.done);
    ASSERT_EQ_I64(http1_resp_feed(&r, "x", 1, 1), 0);
}

static void expect_bad(const char *m)
{
    static struct http1_resp r;
    struct capture c;
    ssize_t k = feed_all(&r, &c, m, strlen(m), false);
    if (k != LAT_E_HTTP_PARSE) FAIL("expected a parse error for %s, got %zd", m, k);
    ASSERT(r.error != NULL);
}

TEST(http1_malformed)
{
    expect_bad("GARBAGE\r\n\r\n");
    expect_bad("\x01\x02\x03");
    expect_bad("HTTP/2 200 OK\r\n\r\n");
    expect_bad("HTTP/1.1 20 OK\r\n\r\n");
    expect_bad("HTTP/1.1 2000 OK\r\n\r\n");
    expect_bad("HTTP/1.1 099 OK\r\n\r\n");
    expect_bad("HTTP/1.1 600 OK\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n");
    expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n");
    expect_bad("HTTP/1.1 101 Switching Protocols\r\n\r\n");
}

TEST(http1_limits)
{
    static struct http1_resp r;
    static char big[HTTP1_LINE_MAX + 64];
    memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
    memset(big + 20, 'a', sizeof(big) - 21);
    big[sizeof(big) - 1] = '\0';
    http1_resp_init(&r, false, NULL, NULL);
    ASSERT_EQ_I64(http1_resp_feed(&r, big, strlen(big), 1), LAT_E_HTTP_PARSE);
    /* Many small headers: the total header limit applies. */
    http1_resp_init(&r, false, NULL, NULL);
    ASSERT_EQ_I64(http1_resp_feed(&r, "HTTP/1.1 200 OK\r\n", 17, 1), 17);
    ssize_t rc = 0;
    for (int i = 0; i < 10000 && rc >= 0; i++)
        rc = http1_resp_feed(&r, "A: b\r\n", 6, 1);
    ASSERT_EQ_I64(rc, LAT_E_HTTP_PARSE);
}

TEST(http1_body_timestamps_per_chunk)
{
    static struct http1_resp r;
    struct capture c;
    memset(&c, 0, sizeof(c));
    http1_resp_init(&r, false, &cap_cb, &c);
    const char *a = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n";
    ASSERT_EQ_I64(http1_resp_feed(&r, a, strlen(a), 7), (int64_t)strlen(a));
    ASSERT_EQ_I64(c.last_t, 7);
    ASSERT_EQ_I64(r.t_headers, 7);
    ASSERT_EQ_I64(http1_resp_feed(&r, "2\r\nde\r\n", 7, 9), 7);
    ASSERT_EQ_I64(c.last_t, 9);
    ASSERT(!r.done);
    ASSERT_EQ_I64(http1_resp_feed(&r, "0\r\n\r\n", 5, 11), 5);
    ASSERT(r.done);
    ASSERT_EQ_I64(r.t_first, 7);
    ASSERT_EQ_I64(r.t_end, 11);
    ASSERT_EQ_U64(r.body_bytes, 5);
}

TEST(http1_build_request)
{
    struct lat_buf b = LAT_BUF_INIT;
    const char *h[] = {"X-Test: 1", "user-agent: me"};
    ASSERT_RC(http1_build_request(&b, "POST", "h:80", "/p?q=1", h, 2, "abc", 3));
    ASSERT_EQ_STR(b.data, "POST /p?q=1 HTTP/1.1\r\nHost: h:80\r\nX-Test: 1\r\nuser-agent: me\r\n"
                          "Content-Length: 3\r\n\r\nabc");
    buf_reset(&b);
    ASSERT_RC(http1_build_request(&b, "GET", "h", "/", NULL, 0, NULL, 0));
    ASSERT_EQ_STR(b.data, "GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: latscope\r\n\r\n");
    buf_reset(&b);
    const char *bad[] = {"NoColon"};
    ASSERT_EQ_I64(http1_build_request(&b, "GET", "h", "/", bad, 1, NULL, 0), LAT_E_USAGE);
    const char *crlf[] = {"A: b\r\nInjected: 1"};
    ASSERT_EQ_I64(http1_build_request(&b, "GET", "h", "/", crlf, 1, NULL, 0), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_build_request(&b, "G T", "h", "/", NULL, 0, NULL, 0), LAT_E_USAGE);
    buf_fini(&b);
}

TEST(http1_url_parse)
{
    struct http1_url u;
    const char *why = NULL;
    ASSERT_RC(http1_url_parse("http://127.0.0.1:8080/v2/models/m/infer?x=1", &u, &why));
    ASSERT(!u.tls);
    ASSERT_EQ_STR(u.host, "127.0.0.1");
    ASSERT_EQ_STR(u.port, "8080");
    ASSERT_EQ_STR(u.hostport, "127.0.0.1:8080");
    ASSERT_EQ_STR(u.path, "/v2/models/m/infer?x=1");
    ASSERT_RC(http1_url_parse("https://example.com", &u, &why));
    ASSERT(u.tls);
    ASSERT_EQ_STR(u.port, "443");
    ASSERT_EQ_STR(u.path, "/");
    ASSERT_EQ_STR(u.hostport, "example.com");
    ASSERT_RC(http1_url_parse("http://[::1]:9/x", &u, &why));
    ASSERT_EQ_STR(u.host, "::1");
    ASSERT_EQ_STR(u.hostport, "[::1]:9");
    ASSERT_RC(http1_url_parse("http://h?q", &u, &why));
    ASSERT_EQ_STR(u.path, "/?q");
    ASSERT_EQ_I64(http1_url_parse("ftp://h/", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http:///x", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http://h:0/", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http://h:70000/", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http://h:80x/", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http://[::1/", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_I64(http1_url_parse("http://h/a b", &u, &why), LAT_E_USAGE);
    /* a long digit run: rejected without signed overflow (UBSan found one here) */
    ASSERT_EQ_I64(http1_url_parse("http://h:99999999999999999999999/x", &u, &why), LAT_E_USAGE);
    ASSERT_EQ_STR(why, "invalid port in URL");
}
