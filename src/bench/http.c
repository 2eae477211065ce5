/*
 * http.c - `latscope bench --target http` (the default): the same request every time.
 *
 * The request is -X METHOD (GET, or POST with a body) to the URL's path with the -H headers and
 * the -d body; a body without a -H Content-Type goes out as application/json (issue 17 item 5).
 * No options of its own: -X, -H and -d are the bench's common options.
 */
#include "bench/target.h"

#include "core/err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct http_state {
    struct lat_buf req, body;
};

static void *http_create(void)
{
    return calloc(1, sizeof(struct http_state));
}

/* The -H headers, plus "Content-Type: application/json" when a body is sent and no -H gives a
 * Content-Type. *hdrs is allocated (NULL when out of memory); free it. */
static size_t body_headers(const struct bench_setup *s, bool have_body, const char ***hdrs)
{
    bool have_ct = false;
    *hdrs = calloc(s->nheaders + 1, sizeof(**hdrs));
    if (!*hdrs) return 0;
    for (size_t i = 0; i < s->nheaders; i++) {
        if (strncasecmp(s->headers[i], "content-type:", 13) == 0) have_ct = true;
        (*hdrs)[i] = s->headers[i];
    }
    size_t n = s->nheaders;
    if (have_body && !have_ct) (*hdrs)[n++] = "Content-Type: application/json";
    return n;
}

static int http_setup(void *st, const struct bench_setup *s, struct bench_target *t, char *why,
                      size_t whylen)
{
    struct http_state *h = st;
    bool have_body = s->body_arg != NULL;
    int rc = bench_read_body(s, &h->body, why, whylen);
    if (rc) return rc;
    const char *method = s->method ? s->method : have_body ? "POST" : "GET";
    const char **hdrs;
    size_t nh = body_headers(s, have_body, &hdrs);
    if (!hdrs) return -ENOMEM;
    rc = http1_build_request(&h->req, method, t->url.hostport, t->url.path, hdrs, nh,
                             have_body ? (h->body.data ? h->body.data : "") : NULL, h->body.len);
    free(hdrs);
    if (rc < 0) {
        snprintf(why, whylen, "cannot build the request: %s", lat_strerror(rc));
        return rc == -ENOMEM ? LAT_E_USAGE : rc;
    }
    t->head = strcmp(method, "HEAD") == 0;
    t->request = h->req.data;
    t->request_len = h->req.len;
    return 0;
}

static void http_describe(void *st, const struct bench_target *t, char *out, size_t cap)
{
    bench_describe_request(out, cap, "http", t->request, t->request ? t->request_len : 0);
}

static void http_destroy(void *st)
{
    struct http_state *h = st;
    if (!h) return;
    buf_fini(&h->req);
    buf_fini(&h->body);
    free(h);
}

const struct bench_target_ops bench_target_http = {
    .name = "http",
    .create = http_create,
    .setup = http_setup,
    .describe = http_describe,
    .destroy = http_destroy,
};
