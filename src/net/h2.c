/*
 * h2.c - HTTP/2 client connections over nghttp2 (h2.h).
 *
 * nghttp2 does the framing, HPACK, flow control and the stream states; this file moves its
 * bytes (nghttp2_session_mem_recv / mem_send) through a non-blocking lat_conn on the caller's
 * loop. Callbacks may submit new streams (nghttp2 allows submitting from its callbacks), so
 * bytes are sent only from the outermost call, and a connection freed from inside its own
 * callbacks is freed when that outermost call returns (depth).
 */
#include "net/h2.h"

#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LAT_HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>

#define H2_RBUF       (64 * 1024)
#define H2_WBUF_MAX   (64 * 1024) /* frames gathered into one write */
#define H2_READS      4           /* reads per wake-up, as the engine's BENCH_READS_PER_WAKE */
#define H2_STREAM_WIN (16 << 20)
#define H2_CONN_WIN   (1 << 30)

struct h2_conn {
    struct lat_conn c;
    struct loop_io io;
    struct lat_loop *loop;
    const struct h2_cbs *cb;
    nghttp2_session *s;
    char authority[272];
    bool registered, dead, goaway_recv, free_pending, connected_once, settings_recv;
    unsigned interest, depth, nopen;
    lat_ns t_rx; /* arrival of the bytes being parsed */
    uint8_t *wbuf;
    size_t wlen, wpos, wcap;
    struct h2_stream *streams; /* open ones */
    uint8_t rbuf[H2_RBUF];
};

static void set_interest(struct h2_conn *h, unsigned ev)
{
    if (!h->registered || h->interest == ev) return;
    if (loop_mod(h->loop, &h->io, ev) == 0) h->interest = ev;
}

static void unlink_stream(struct h2_stream *s)
{
    struct h2_conn *h = s->h;
    if (!h) return;
    if (s->prev)
        s->prev->next = s->next;
    else if (h->streams == s)
        h->streams = s->next;
    if (s->next) s->next->prev = s->prev;
    s->prev = s->next = NULL;
    s->h = NULL;
    if (h->nopen) h->nopen--;
}

static void really_free(struct h2_conn *h)
{
    if (h->s) nghttp2_session_del(h->s);
    free(h->wbuf);
    free(h);
}

/* The connection is over: close every open stream with how. */
static void die(struct h2_conn *h, enum h2_end how)
{
    if (h->dead) return;

    h->dead = true;
    if (h->registered) {
        loop_del(h->loop, &h->io);
        h->registered = false;
    }
    conn_close(&h->c);
    if (h->goaway_recv) how = H2_END_GOAWAY;
    if (!h->connected_once) how = H2_END_CONNECT;
    lat_ns t = clock_now_ns();
    h->depth++;
    while (h->streams) {
        struct h2_stream *s = h->streams;
        if (s->id > 0) nghttp2_session_set_stream_user_data(h->s, s->id, NULL);
        unlink_stream(s);
        s->err = h->c.err;
        h->cb->close(s, how, t);
    }
    h->depth--;
}

static void leave(struct h2_conn *h)
{
    if (--h->depth == 0 && h->free_pending) really_free(h);
}

static void flush(struct h2_conn *h)
{
    if (h->dead || !h->c.connected || h->depth > 1) return;
    for (;;) {
        while (h->wpos < h->wlen) {
            size_t n = 0;
            enum lat_io r = conn_write(&h->c, h->wbuf + h->wpos, h->wlen - h->wpos, &n);
            if (r == LAT_IO_RETRY) {
                set_interest(h, LOOP_READ | LOOP_WRITE);
                return;
            }
            if (r == LAT_IO_ERROR) {
                die(h, H2_END_CONN);
                return;
            }
            h->wpos += n;
        }
        h->wlen = h->wpos = 0;
        while (h->wlen < H2_WBUF_MAX) {
            const uint8_t *d;
            ssize_t n = nghttp2_session_mem_send(h->s, &d);
            if (n < 0) {
                die(h, H2_END_PROTO);
                return;
            }
            if (n == 0) break;
            if (LAT_GROW(h->wbuf, h->wcap, h->wlen, (size_t)n, H2_WBUF_MAX) != 0) {
                die(h, H2_END_CONN);
                return;
            }
            memcpy(h->wbuf + h->wlen, d, (size_t)n);
            h->wlen += (size_t)n;
            if (h->wlen >= H2_WBUF_MAX) break;
        }
        if (h->wlen == 0) break;
    }
    if (!nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s)) {
        die(h, h->goaway_recv ? H2_END_GOAWAY : H2_END_PROTO);
        return;
    }
    set_interest(h, LOOP_READ);
}

static int on_header(nghttp2_session *ss, const nghttp2_frame *f, const uint8_t *name, size_t nl,
                     const uint8_t *val, size_t vl, uint8_t flags, void *ud)
{
    struct h2_conn *h = ud;
    struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, f->hd.stream_id);
    if (!s || f->hd.type != NGHTTP2_HEADERS) return 0;
    bool trailer = f->headers.cat == NGHTTP2_HCAT_HEADERS;
    h->cb->header(s, trailer, (const char *)name, nl, (const char *)val, vl);
    return 0;
}

static int on_begin_headers(nghttp2_session *ss, const nghttp2_frame *f, void *ud)
{
    struct h2_conn *h = ud;
    struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, f->hd.stream_id);
    if (s && !s->t_first) s->t_first = h->t_rx;
    return 0;
}

static int on_data(nghttp2_session *ss, uint8_t flags, int32_t sid, const uint8_t *p, size_t n,
                   void *ud)
{
    struct h2_conn *h = ud;
    struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, sid);
    if (!s) return 0;
    if (!s->t_first) s->t_first = h->t_rx;
    h->cb->data(s, p, n, h->t_rx);
    return 0;
}

static int on_frame_recv(nghttp2_session *ss, const nghttp2_frame *f, void *ud)
{
    struct h2_conn *h = ud;
    if (f->hd.type == NGHTTP2_GOAWAY) h->goaway_recv = true;
    if (f->hd.type == NGHTTP2_SETTINGS && !(f->hd.flags & NGHTTP2_FLAG_ACK))
        h->settings_recv = true;
    if (f->hd.type == NGHTTP2_RST_STREAM) {
        struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, f->hd.stream_id);
        if (s) {
            s->rst_recv = true;
            s->code = f->rst_stream.error_code;
        }
    }
    return 0;
}

static int on_frame_send(nghttp2_session *ss, const nghttp2_frame *f, void *ud)
{
    if (f->hd.type != NGHTTP2_HEADERS) return 0;
    struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, f->hd.stream_id);
    if (s && !s->t_sent) s->t_sent = clock_now_ns();
    return 0;
}

static int on_close(nghttp2_session *ss, int32_t sid, uint32_t code, void *ud)
{
    struct h2_conn *h = ud;
    struct h2_stream *s = nghttp2_session_get_stream_user_data(ss, sid);
    if (!s) return 0;
    nghttp2_session_set_stream_user_data(ss, sid, NULL);
    enum h2_end how = H2_END_OK;
    if (s->rst_recv)
        how = H2_END_RST;
    else if (code && h->goaway_recv)
        how = H2_END_GOAWAY;
    else if (code)
        how = H2_END_PROTO;
    unlink_stream(s);
    h->cb->close(s, how, h->t_rx ? h->t_rx : clock_now_ns());
    return 0;
}

static ssize_t read_body(nghttp2_session *ss, int32_t sid, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *ud)
{
    struct h2_stream *s = src->ptr;
    size_t k = s->len - s->off < len ? s->len - s->off : len;
    if (k) memcpy(buf, s->body + s->off, k);
    s->off += k;
    if (s->off == s->len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)k;
}

static void do_read(struct h2_conn *h)
{
    for (int i = 0; i < H2_READS && !h->dead; i++) {
        size_t n = 0;
        enum lat_io r = conn_read(&h->c, h->rbuf, sizeof(h->rbuf), &n);
        h->t_rx = clock_now_ns();
        if (r == LAT_IO_RETRY) break;
        if (r == LAT_IO_ERROR || n == 0) {
            die(h, H2_END_CONN);
            return;
        }
        ssize_t k = nghttp2_session_mem_recv(h->s, h->rbuf, n);
        if (k < 0) {
            die(h, H2_END_PROTO);
            return;
        }
        if (n < sizeof(h->rbuf)) break;
    }
    h->t_rx = 0;
}

static void on_io(struct lat_loop *l, int fd, unsigned ev, void *data)
{
    struct h2_conn *h = data;
    h->depth++;
    if (!h->c.connected) {
        enum lat_io r = conn_connect(&h->c);
        if (r == LAT_IO_ERROR) {
            die(h, H2_END_CONNECT);
        } else if (r == LAT_IO_RETRY) {
            set_interest(h, h->c.want);
        } else {
            h->connected_once = true;
            flush(h);
        }
        leave(h);
        return;
    }
    if (ev & (LOOP_READ | LOOP_ERROR)) do_read(h);
    if (!h->dead) flush(h);
    leave(h);
}

int h2_conn_new(struct h2_conn **out, struct lat_loop *loop, const struct conn_target *t,
                const char *authority, const struct h2_cbs *cb)
{
    *out = NULL;
    if (t->tls) return LAT_E_UNSUPPORTED;
    struct h2_conn *h = calloc(1, sizeof(*h));
    if (!h) return -ENOMEM;
    nghttp2_session_callbacks *cbs = NULL;
    if (nghttp2_session_callbacks_new(&cbs) != 0) {
        free(h);
        return -ENOMEM;
    }
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_close);
    int rv = nghttp2_session_client_new(&h->s, cbs, h);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) {
        free(h);
        return -ENOMEM;
    }
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                   {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WIN}};
    nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, sizeof(iv) / sizeof(iv[0]));
    nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0, H2_CONN_WIN);
    snprintf(h->authority, sizeof(h->authority), "%s", authority);
    h->loop = loop;
    h->cb = cb;
    conn_init(&h->c, t);
    enum lat_io r = conn_connect(&h->c);
    if (r == LAT_IO_ERROR) {
        int err = h->c.err ? h->c.err : -ECONNREFUSED;
        conn_close(&h->c);
        really_free(h);
        return err;
    }
    h->io = (struct loop_io){.fn = on_io, .data = h, .fd = h->c.fd};
    unsigned ev = r == LAT_IO_RETRY ? h->c.want : LOOP_READ;
    if ((rv = loop_add(loop, &h->io, ev)) < 0) {
        conn_close(&h->c);
        really_free(h);
        return rv;
    }
    h->registered = true;
    h->interest = ev;
    if (r == LAT_IO_OK) {
        h->connected_once = true;
        h->depth++;
        flush(h);
        leave(h);
    }
    *out = h;
    return 0;
}

void h2_conn_free(struct h2_conn *h)
{
    if (!h || h->free_pending) return;
    h->depth++;
    die(h, H2_END_CONN);
    h->free_pending = true;
    leave(h);
}

static nghttp2_nv nv(const char *name, const char *value)
{
    nghttp2_nv v = {(uint8_t *)(uintptr_t)name, (uint8_t *)(uintptr_t)value, strlen(name),
                    strlen(value), NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
    return v;
}

int h2_submit(struct h2_conn *h, struct h2_stream *s, const char *path, const struct h2_hdr *hdrs,
              size_t n)
{
    if (!h2_usable(h)) return LAT_E_UNSUPPORTED;
    nghttp2_nv va[6 + 64];
    size_t k = 0;
    va[k++] = nv(":method", "POST");
    va[k++] = nv(":scheme", "http");
    va[k++] = nv(":path", path);
    va[k++] = nv(":authority", h->authority);
    va[k++] = nv("content-type", "application/grpc");
    va[k++] = nv("te", "trailers");
    for (size_t i = 0; i < n && i < 64; i++)
        va[k++] = nv(hdrs[i].name, hdrs[i].value);
    s->off = 0;
    s->t_sent = s->t_first = 0;
    s->rst_recv = false;
    s->code = 0;
    s->err = 0;
    nghttp2_data_provider dp = {.source = {.ptr = s}, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(h->s, NULL, va, k, &dp, s);
    if (id < 0) return id == NGHTTP2_ERR_NOMEM ? -ENOMEM : LAT_E_UNSUPPORTED;
    s->id = id;
    s->h = h;
    s->prev = NULL;
    s->next = h->streams;
    if (h->streams) h->streams->prev = s;
    h->streams = s;
    h->nopen++;
    h->depth++;
    flush(h);
    leave(h);
    return 0;
}

void h2_cancel(struct h2_stream *s)
{
    struct h2_conn *h = s->h;
    if (!h) return;
    if (s->id > 0) {
        nghttp2_session_set_stream_user_data(h->s, s->id, NULL);
        if (!h->dead) nghttp2_submit_rst_stream(h->s, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
    }
    unlink_stream(s);
    h->depth++;
    flush(h);
    leave(h);
}

bool h2_usable(const struct h2_conn *h)
{
    return h && !h->dead && !h->free_pending && !h->goaway_recv;
}

unsigned h2_open_streams(const struct h2_conn *h)
{
    return h ? h->nopen : 0;
}

uint32_t h2_max_streams(const struct h2_conn *h)
{
    return h && h->s && h->settings_recv
               ? nghttp2_session_get_remote_settings(h->s, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
               : UINT32_MAX;
}

#else /* !LAT_HAVE_NGHTTP2 */

int h2_conn_new(struct h2_conn **out, struct lat_loop *loop, const struct conn_target *t,
                const char *authority, const struct h2_cbs *cb)
{
    *out = NULL;
    return LAT_E_UNSUPPORTED;
}
void h2_conn_free(struct h2_conn *h)
{
}
int h2_submit(struct h2_conn *h, struct h2_stream *s, const char *path, const struct h2_hdr *hdrs,
              size_t n)
{
    return LAT_E_UNSUPPORTED;
}
void h2_cancel(struct h2_stream *s)
{
}
bool h2_usable(const struct h2_conn *h)
{
    return false;
}
unsigned h2_open_streams(const struct h2_conn *h)
{
    return 0;
}
uint32_t h2_max_streams(const struct h2_conn *h)
{
    return 0;
}
#endif
