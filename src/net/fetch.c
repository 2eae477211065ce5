/*
 * fetch.c - a blocking request/response over the non-blocking transports, driven by poll().
 *
 * Used before and after load points (metadata, server statistics), where simplicity matters
 * more than throughput. It reuses conn.c and http1.c, so TLS and chunked responses behave
 * exactly as in the measured path. The connection is closed afterwards.
 */
#include "net/fetch.h"

#include "core/err.h"
#include "net/http1.h"
#include "net/loop.h"

#include <errno.h>
#include <poll.h>

#define FETCH_MAX_BODY (16u << 20)

struct fetch_state {
    struct lat_buf *body;
    int err;
};

static void fetch_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct fetch_state *s = ud;
    if (s->err) return;
    if (s->body->len + n > FETCH_MAX_BODY)
        s->err = -EFBIG;
    else if (buf_append(s->body, p, n) < 0)
        s->err = -ENOMEM;
}

static int wait_fd(int fd, unsigned want, lat_ns deadline)
{
    lat_ns left = deadline - clock_now_ns();
    if (left <= 0) return -ETIMEDOUT;
    struct pollfd pfd = {
        .fd = fd,
        .events = (short)((want & LOOP_WRITE ? POLLOUT : 0) | (want & LOOP_READ ? POLLIN : 0))};
    int ms = (int)((left + LAT_NS_PER_MS - 1) / LAT_NS_PER_MS);
    int r = poll(&pfd, 1, ms);
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (r == 0) return -ETIMEDOUT;
    return 0;
}

int http_fetch(const struct conn_target *t, const char *req, size_t len, lat_ns timeout_ns,
               int *status, struct lat_buf *body)
{
    struct lat_conn c;
    struct http1_resp *r = NULL;
    struct fetch_state st = {.body = body};
    static const struct http1_cb cb = {.on_body = fetch_body};
    lat_ns deadline = clock_now_ns() + timeout_ns;
    int rc = 0;
    char buf[16384];

    conn_init(&c, t);
    for (;;) {
        enum lat_io s = conn_connect(&c);
        if (s == LAT_IO_OK) break;
        if (s == LAT_IO_ERROR) {
            rc = c.err ? c.err : -ECONNREFUSED;
            goto out;
        }
        if ((rc = wait_fd(c.fd, c.want, deadline)) < 0) goto out;
    }
    for (size_t off = 0; off < len;) {
        size_t n = 0;
        enum lat_io s = conn_write(&c, req + off, len - off, &n);
        if (s == LAT_IO_ERROR) {
            rc = c.err ? c.err : -EPIPE;
            goto out;
        }
        if (s == LAT_IO_RETRY && (rc = wait_fd(c.fd, c.want, deadline)) < 0) goto out;
        off += n;
    }
    /* The parser carries an 8 KiB line buffer: keep it off this small stack frame. */
    static _Thread_local struct http1_resp resp;
    r = &resp;
    http1_resp_init(r, false, &cb, &st);
    for (;;) {
        size_t n = 0;
        enum lat_io s = conn_read(&c, buf, sizeof(buf), &n);
        lat_ns now = clock_now_ns();
        if (s == LAT_IO_ERROR) {
            rc = c.err ? c.err : -ECONNRESET;
            goto out;
        }
        if (s == LAT_IO_RETRY) {
            if ((rc = wait_fd(c.fd, c.want, deadline)) < 0) goto out;
            continue;
        }
        if (n == 0) {
            rc = http1_resp_eof(r, now);
            goto out;
        }
        ssize_t k = http1_resp_feed(r, buf, n, now);
        if (k < 0) {
            rc = (int)k;
            goto out;
        }
        if (st.err) {
            rc = st.err;
            goto out;
        }
        if (r->done) break;
    }
out:
    if (r) *status = r->status;
    conn_close(&c);
    return rc;
}
