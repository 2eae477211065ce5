/*
 * fuzz-http1.c - libFuzzer target for the HTTP/1.1 response parser and the URL parser.
 *
 * The first byte picks split points, so one input exercises the parser both whole and cut
 * into pieces at different offsets; the body callback checks that the decoded body never
 * exceeds the input. Ends with http1_resp_eof, as a closing server would.
 */
#include "net/http1.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
    size_t body;
    size_t limit;
};

static void on_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct fz *f = ud;
    f->body += n;
    if (f->body > f->limit) abort();
}

static void on_header(void *ud, const char *name, size_t nlen, const char *v, size_t vlen)
{
    if (!nlen) abort();
}

static const struct http1_cb cb = {.on_header = on_header, .on_body = on_body};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct http1_resp r;
    if (size == 0) return 0;
    size_t step = (size_t)data[0] + 1;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct fz f = {0, n};
    http1_resp_init(&r, (data[0] & 0x80) != 0, &cb, &f);
    size_t off = 0;
    while (off < n && !r.done) {
        size_t k = n - off < step ? n - off : step;
        ssize_t c = http1_resp_feed(&r, p + off, k, (lat_ns)off + 1);
        if (c < 0) break;
        if ((size_t)c > k) abort();
        off += (size_t)c;
        if ((size_t)c < k && !r.done) abort();
    }
    http1_resp_eof(&r, (lat_ns)n + 1);

    char *s = malloc(n + 1);
    if (!s) return 0;
    memcpy(s, p, n);
    s[n] = '\0';
    struct http1_url u;
    const char *why;
    http1_url_parse(s, &u, &why);
    free(s);
    return 0;
}
