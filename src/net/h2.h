/*
 * h2.h - an HTTP/2 client connection (nghttp2) for unary gRPC calls, non-blocking on a
 * lat_loop: many streams per connection, each a POST whose body is one buffer the caller keeps
 * alive until the stream closes.
 *
 * Plain HTTP/2 over TCP (h2c, "prior knowledge": the connection preface first, no Upgrade).
 * Each stream reports its response header and trailer fields, its DATA bytes with their
 * arrival time, and exactly one close with how it ended (enum h2_end): the server's
 * RST_STREAM, the server's GOAWAY (a stream it refused or never finished), the connection
 * failing (connect, reset, EOF) or a protocol error (frames nghttp2 refuses). h2_cancel()
 * resets a stream and detaches it: no callback comes for it after that.
 *
 * Built only with nghttp2 (LAT_HAVE_NGHTTP2); without it h2_conn_new() returns
 * LAT_E_UNSUPPORTED.
 */
#ifndef LAT_NET_H2_H
#define LAT_NET_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "net/conn.h"
#include "net/loop.h"

enum h2_end {
    H2_END_OK = 0,  /* the stream ended in order (END_STREAM from the server) */
    H2_END_RST,     /* the server reset it (RST_STREAM; h2_stream.code) */
    H2_END_GOAWAY,  /* the server's GOAWAY ended it (refused, or the connection closed after) */
    H2_END_CONN,    /* the connection failed: reset, EOF, a write error */
    H2_END_CONNECT, /* the connection never came up */
    H2_END_PROTO,   /* frames that are not valid HTTP/2 (nghttp2 ended the stream or session) */
};

struct h2_conn;

/* One stream: the caller's, embedded in its own state; valid from h2_submit to its close. */
struct h2_stream {
    void *ud;
    const uint8_t *body;
    size_t len, off;
    int32_t id;     /* 0: not open */
    uint32_t code;  /* H2_END_RST: the RST_STREAM error code */
    int err;        /* H2_END_CONN/CONNECT: the connection's -errno (0: EOF or unknown) */
    bool rst_recv;  /* internal */
    lat_ns t_sent;  /* its HEADERS frame went out (0: not yet) */
    lat_ns t_first; /* the first response frame arrived (0: none) */
    struct h2_conn *h;
    struct h2_stream *prev, *next;
};

struct h2_cbs {
    /* A response header (trailer false) or trailer field of s. */
    void (*header)(struct h2_stream *s, bool trailer, const char *name, size_t nl, const char *val,
                   size_t vl);
    void (*data)(struct h2_stream *s, const uint8_t *p, size_t n, lat_ns t);
    /* Once per stream; s is closed (h2 forgets it) before the call. */
    void (*close)(struct h2_stream *s, enum h2_end how, lat_ns t);
};

/* A header field of every request: name and value NUL-terminated, lowercase names. */
struct h2_hdr {
    const char *name, *value;
};

/* A connection to t (connects now, non-blocking) registered on loop. authority: :authority.
 * 0, -ENOMEM, LAT_E_UNSUPPORTED (no nghttp2, TLS), or the connect's -errno. */
int h2_conn_new(struct h2_conn **out, struct lat_loop *loop, const struct conn_target *t,
                const char *authority, const struct h2_cbs *cb);
/* Closes the connection: every open stream closes with H2_END_CONN first. NULL allowed. */
void h2_conn_free(struct h2_conn *h);
/* Starts a POST of path with headers hdrs[0..n) and s->body[0..s->len). 0, or a negative
 * code (the connection cannot take streams: h2_usable() is false). Its first bytes are written
 * at once (outside callbacks): a write failing there closes s, and h may be freed by what its
 * close callbacks do before h2_submit returns 0, so the caller must not use h after. */
int h2_submit(struct h2_conn *h, struct h2_stream *s, const char *path, const struct h2_hdr *hdrs,
              size_t n);
/* Resets s (RST_STREAM CANCEL) and forgets it: no callback comes for it. */
void h2_cancel(struct h2_stream *s);
/* False once the connection failed, was closed or got a GOAWAY: open a new one. */
bool h2_usable(const struct h2_conn *h);
/* Streams open on h now, and the server's SETTINGS_MAX_CONCURRENT_STREAMS (UINT32_MAX: none,
 * or no SETTINGS from it yet). */
unsigned h2_open_streams(const struct h2_conn *h);
uint32_t h2_max_streams(const struct h2_conn *h);

#endif
