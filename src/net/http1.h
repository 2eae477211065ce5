/*
 * http1.h - HTTP/1.1 client side: request building and an incremental response parser.
 *
 * The parser is fed whatever recv() returned, with the time recv() returned it, and keeps no
 * pointer into the caller's buffer between calls. It never allocates: a response's headers are
 * read one line at a time through a fixed line buffer. Body bytes are handed to on_body as they
 * arrive (chunked framing removed), each call with the arrival time of the bytes, so a
 * streaming consumer (the SSE framer) sees every chunk with its own timestamp.
 */
#ifndef LAT_NET_HTTP1_H
#define LAT_NET_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/clock.h"

#define HTTP1_LINE_MAX    8192        /* longest status/header/chunk-size line */
#define HTTP1_HEADERS_MAX (64 * 1024) /* all header bytes of one response */

struct http1_cb {
    /* Each header (and trailer) field; name as sent, value trimmed. May be NULL. */
    void (*on_header)(void *ud, const char *name, size_t nlen, const char *value, size_t vlen);
    /* Decoded body bytes as they arrive, stamped with their recv() time. May be NULL. */
    void (*on_body)(void *ud, const char *p, size_t n, lat_ns t_recv);
};

enum http1_body_mode {
    HTTP1_BODY_NONE = 0,
    HTTP1_BODY_LENGTH,  /* Content-Length */
    HTTP1_BODY_CHUNKED, /* Transfer-Encoding: chunked */
    HTTP1_BODY_EOF,     /* neither: the body runs until the server closes */
};

struct http1_resp {
    const struct http1_cb *cb;
    void *ud;
    bool head; /* response to HEAD: never has a body */

    /* Results, valid once the headers (status..) or the whole response (done) are in. */
    int status;             /* 100..599 */
    int minor;              /* HTTP/1.minor */
    int64_t content_length; /* -1 when absent */
    enum http1_body_mode mode;
    bool conn_close; /* the connection cannot be reused after this response */
    bool headers_done, done;
    uint64_t body_bytes; /* decoded body bytes delivered so far */
    lat_ns t_first;      /* recv() time of the first response byte */
    lat_ns t_headers;    /* recv() time of the bytes that completed the header block */
    lat_ns t_end;        /* recv() time of the bytes that completed the response */
    const char *error;   /* what was malformed (static string), after LAT_E_HTTP_PARSE */

    /* Parser state. */
    int state;
    uint64_t remaining; /* body or chunk bytes left */
    uint32_t header_bytes, nheaders;
    bool saw_cr;
    uint32_t line_len;
    char line[HTTP1_LINE_MAX];
};

/* Resets r for a new response. cb may be NULL. */
void http1_resp_init(struct http1_resp *r, bool head_request, const struct http1_cb *cb, void *ud);
/*
 * Feeds n bytes received at t_recv. Returns the number of bytes consumed (less than n only when
 * the response completed inside the buffer: the rest is not part of it), or LAT_E_HTTP_PARSE
 * with r->error set. Feeding a done response consumes nothing.
 */
ssize_t http1_resp_feed(struct http1_resp *r, const char *p, size_t n, lat_ns t_recv);
/*
 * The server closed the connection at t. Completes a read-until-close body (returns 0);
 * anything else unfinished is LAT_E_TRUNCATED.
 */
int http1_resp_eof(struct http1_resp *r, lat_ns t);

/*
 * Builds a request into out (appending). headers are "Name: value" strings; Host,
 * Content-Length and User-Agent are added unless given. body may be NULL. 0 or -ENOMEM,
 * LAT_E_USAGE for a header without ':' or containing CR/LF.
 */
int http1_build_request(struct lat_buf *out, const char *method, const char *host, const char *path,
                        const char *const *headers, size_t nheaders, const void *body,
                        size_t body_len);

/* A parsed http://, https:// or grpc:// URL (grpc: plain HTTP/2, default port 8001, Triton's).
 * Returns 0 or LAT_E_USAGE with *why set. */
struct http1_url {
    bool tls;
    bool grpc;
    char host[256]; /* without brackets for IPv6 */
    char port[8];
    char hostport[272]; /* for the Host header: as written, default port omitted */
    char path[2048];    /* path + query, "/" at least */
};
int http1_url_parse(const char *url, struct http1_url *u, const char **why);
/* The same, grpc:// allowed too (bench's URL). */
int http1_url_parse_grpc(const char *url, struct http1_url *u, const char **why);

#endif
