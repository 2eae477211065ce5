/*
 * conn.c - plain TCP and TLS transports for the bench client (see conn.h).
 *
 * Sockets are non-blocking with TCP_NODELAY (a request is one write; Nagle would add up to
 * 40 ms against delayed ACKs). connect() returns EINPROGRESS and completes when the fd is
 * writable; SO_ERROR says how it ended. TLS runs over the same socket: SSL_connect,
 * SSL_read and SSL_write map SSL_ERROR_WANT_READ/WRITE to LAT_IO_RETRY with c->want set, so the
 * caller's switch is identical for both transports. The SSL_CTX is created once per target and
 * shared read-only by all worker threads (OpenSSL 3 allows that); each connection owns its SSL.
 * Nothing here allocates except SSL_new at (re)connect time.
 */
#include "net/conn.h"

#include "core/clock.h"
#include "core/err.h"
#include "net/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

int conn_target_init(struct conn_target *t, const char *host, const char *port, bool tls,
                     bool verify_peer)
{
    memset(t, 0, sizeof(*t));
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) return rc == EAI_SYSTEM ? -errno : LAT_E_NOT_FOUND;
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    snprintf(t->host, sizeof(t->host), "%s", host);
    t->tls = tls;
    if (!tls) return 0;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) return LAT_E_INTERNAL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (verify_peer) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        SSL_CTX_set_default_verify_paths(ctx);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    t->ssl_ctx = ctx;
    return 0;
}

void conn_target_fini(struct conn_target *t)
{
    if (t->ssl_ctx) SSL_CTX_free(t->ssl_ctx);
    t->ssl_ctx = NULL;
}

void conn_init(struct lat_conn *c, const struct conn_target *t)
{
    memset(c, 0, sizeof(*c));
    c->ops = t->tls ? &conn_tls_ops : &conn_tcp_ops;
    c->target = t;
    c->fd = -1;
}

/* Opens the socket and starts connect(); OK when connected, RETRY while in progress. */
static enum lat_io tcp_connect(struct lat_conn *c)
{
    if (c->connected) return LAT_IO_OK;
    if (!c->connecting) {
        c->fd = socket(c->target->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->fd < 0) {
            c->err = -errno;
            return LAT_IO_ERROR;
        }
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (c->target->rx_kernel_time && !c->target->tls)
            c->rx_ts = setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) == 0;
        if (connect(c->fd, (const struct sockaddr *)&c->target->addr, c->target->addrlen) == 0) {
            c->connected = true;
            return LAT_IO_OK;
        }
        if (errno != EINPROGRESS) {
            c->err = -errno;
            return LAT_IO_ERROR;
        }
        c->connecting = true;
        c->want = LOOP_WRITE;
        return LAT_IO_RETRY;
    }
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0) soerr = errno;
    if (soerr == EINPROGRESS || soerr == EALREADY) {
        c->want = LOOP_WRITE;
        return LAT_IO_RETRY;
    }
    if (soerr) {
        c->err = -soerr;
        return LAT_IO_ERROR;
    }
    /* SO_ERROR is 0 both when connected and while still pending; a writable fd means done,
     * and the caller only calls us again on writability. */
    c->connecting = false;
    c->connected = true;
    return LAT_IO_OK;
}

/* recvmsg() with the receive timestamp: the kernel's time (CLOCK_REALTIME) of the last
 * segment whose bytes this read returns, moved to CLOCK_MONOTONIC with the offset between the
 * two clocks read now (clock_realtime_to_mono). A timestamp after now or over a second old
 * (the realtime clock stepped) is dropped. */
static ssize_t recv_stamped(struct lat_conn *c, void *buf, size_t len)
{
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    union {
        char b[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
    ssize_t r = recvmsg(c->fd, &m, 0);
    c->rx_ns = 0;
    if (r <= 0) return r;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(h), sizeof(ts));
        lat_ns mono = clock_realtime_to_mono((lat_ns)ts.tv_sec * LAT_NS_PER_S + ts.tv_nsec);
        lat_ns now = clock_now_ns();
        if (mono <= now && mono > now - LAT_NS_PER_S) c->rx_ns = mono;
    }
    return r;
}

static enum lat_io tcp_read(struct lat_conn *c, void *buf, size_t len, size_t *n)
{
    ssize_t r = c->rx_ts ? recv_stamped(c, buf, len) : recv(c->fd, buf, len, 0);
    if (r >= 0) {
        *n = (size_t)r;
        return LAT_IO_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        c->want = LOOP_READ;
        return LAT_IO_RETRY;
    }
    c->err = -errno;
    return LAT_IO_ERROR;
}

static enum lat_io tcp_write(struct lat_conn *c, const void *buf, size_t len, size_t *n)
{
    ssize_t r = send(c->fd, buf, len, MSG_NOSIGNAL);
    if (r >= 0) {
        *n = (size_t)r;
        return LAT_IO_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        c->want = LOOP_WRITE;
        return LAT_IO_RETRY;
    }
    c->err = -errno;
    return LAT_IO_ERROR;
}

static size_t tcp_pending(struct lat_conn *c)
{
    return 0;
}

static void tcp_close(struct lat_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->connected = c->connecting = false;
}

long conn_unacked(const struct lat_conn *c)
{
    int n = 0;
    if (c->fd < 0 || ioctl(c->fd, SIOCOUTQ, &n) < 0 || n < 0) return -1;
    return n;
}

const struct conn_ops conn_tcp_ops = {
    .name = "tcp",
    .connect = tcp_connect,
    .read = tcp_read,
    .write = tcp_write,
    .pending = tcp_pending,
    .close = tcp_close,
};

/* Maps an SSL_get_error() result to the three-valued status. */
static enum lat_io tls_status(struct lat_conn *c, int ret)
{
    int e = SSL_get_error(c->ssl, ret);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        c->want = LOOP_READ;
        return LAT_IO_RETRY;
    case SSL_ERROR_WANT_WRITE:
        c->want = LOOP_WRITE;
        return LAT_IO_RETRY;
    case SSL_ERROR_SYSCALL:
        c->err = errno ? -errno : -ECONNRESET;
        break;
    default:
        c->err = -EPROTO;
        break;
    }
    unsigned long q = ERR_get_error();
    if (q) ERR_error_string_n(q, c->ssl_err, sizeof(c->ssl_err));
    ERR_clear_error();
    return LAT_IO_ERROR;
}

static enum lat_io tls_connect(struct lat_conn *c)
{
    if (c->connected && c->ssl && SSL_is_init_finished(c->ssl)) return LAT_IO_OK;
    if (!c->connected) {
        /* TCP first: the same non-blocking connect as the plain transport. */
        enum lat_io s = tcp_connect(c);
        if (s != LAT_IO_OK) return s;
    }
    if (!c->ssl) {
        c->ssl = SSL_new(c->target->ssl_ctx);
        if (!c->ssl) {
            c->err = -ENOMEM;
            return LAT_IO_ERROR;
        }
        SSL_set_fd(c->ssl, c->fd);
        /* The macro casts away const; OpenSSL keeps its own copy of the name. */
        char sni[sizeof(c->target->host)];
        memcpy(sni, c->target->host, sizeof(sni));
        SSL_set_tlsext_host_name(c->ssl, sni);
        if (SSL_CTX_get_verify_mode(c->target->ssl_ctx) & SSL_VERIFY_PEER)
            SSL_set1_host(c->ssl, c->target->host);
    }
    ERR_clear_error();
    int r = SSL_connect(c->ssl);
    if (r == 1) return LAT_IO_OK;
    return tls_status(c, r);
}

static enum lat_io tls_read(struct lat_conn *c, void *buf, size_t len, size_t *n)
{
    size_t got = 0;
    ERR_clear_error();
    int r = SSL_read_ex(c->ssl, buf, len, &got);
    *n = got;
    if (r == 1) return LAT_IO_OK;
    if (SSL_get_error(c->ssl, r) == SSL_ERROR_ZERO_RETURN) {
        *n = 0; /* close_notify: orderly EOF */
        return LAT_IO_OK;
    }
    return tls_status(c, r);
}

static enum lat_io tls_write(struct lat_conn *c, const void *buf, size_t len, size_t *n)
{
    size_t put = 0;
    ERR_clear_error();
    int r = SSL_write_ex(c->ssl, buf, len, &put);
    *n = put;
    if (r == 1) return LAT_IO_OK;
    return tls_status(c, r);
}

static size_t tls_pending(struct lat_conn *c)
{
    return c->ssl ? (size_t)SSL_pending(c->ssl) : 0;
}

static void tls_close(struct lat_conn *c)
{
    if (c->ssl) {
        SSL_free(c->ssl); /* no close_notify round trip: we are dropping the connection */
        c->ssl = NULL;
    }
    tcp_close(c);
}

const struct conn_ops conn_tls_ops = {
    .name = "tls",
    .connect = tls_connect,
    .read = tls_read,
    .write = tls_write,
    .pending = tls_pending,
    .close = tls_close,
};
