/*
 * conn.h - client transports behind one vtable: plain TCP and TLS (OpenSSL), non-blocking.
 *
 * Every call returns LAT_IO_OK, LAT_IO_ERROR or LAT_IO_RETRY (wrk's shape), so EAGAIN and
 * SSL_ERROR_WANT_READ/WRITE look the same to the caller; on RETRY, c->want tells which
 * readiness (LOOP_READ or LOOP_WRITE) to wait for. On ERROR, c->err holds -errno or a LAT_E_*
 * code and c->ssl_err a short OpenSSL reason when there is one.
 */
#ifndef LAT_NET_CONN_H
#define LAT_NET_CONN_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum lat_io { LAT_IO_OK = 0, LAT_IO_ERROR, LAT_IO_RETRY };

struct lat_conn;

struct conn_ops {
    const char *name;
    /* Drives the connect (and TLS handshake) to completion; call again on RETRY. */
    enum lat_io (*connect)(struct lat_conn *c);
    /* Reads up to len bytes into buf; *n = bytes read. OK with *n == 0 means orderly EOF. */
    enum lat_io (*read)(struct lat_conn *c, void *buf, size_t len, size_t *n);
    /* Writes up to len bytes; *n = bytes written (may be short: call again). */
    enum lat_io (*write)(struct lat_conn *c, const void *buf, size_t len, size_t *n);
    /* Bytes already decrypted and buffered (TLS), readable without waiting for the fd. */
    size_t (*pending)(struct lat_conn *c);
    void (*close)(struct lat_conn *c);
};

/* A resolved endpoint and the TLS settings shared by every connection to it. */
struct conn_target {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    bool tls;
    /* Plain TCP: ask the kernel for the receive time of the bytes each read returns
     * (SO_TIMESTAMPNS; lat_conn.rx_ns). Off by default; TLS never has it. */
    bool rx_kernel_time;
    void *ssl_ctx;  /* SSL_CTX *, shared, read-only after conn_target_init */
    char host[256]; /* for SNI and certificate checks */
};

struct lat_conn {
    const struct conn_ops *ops;
    const struct conn_target *target;
    int fd;
    unsigned want; /* LOOP_READ / LOOP_WRITE after RETRY */
    int err;       /* -errno or LAT_E_* after ERROR */
    bool connected;
    bool connecting; /* connect() issued, not yet completed */
    void *ssl;       /* SSL *, TLS only */
    char ssl_err[96];
    /* With target->rx_kernel_time: when the kernel received the last bytes the latest read
     * returned (CLOCK_MONOTONIC ns, from the socket's software receive timestamp); 0 when the
     * read gave no timestamp. */
    int64_t rx_ns;
    bool rx_ts; /* SO_TIMESTAMPNS is on for this socket */
};

/*
 * Resolves host:port (numeric or by name) and, with tls, builds the shared SSL_CTX
 * (verify_peer: check the certificate against the system store and the host name).
 * Returns 0, -errno or LAT_E_* (EAI failures become LAT_E_NOT_FOUND).
 */
int conn_target_init(struct conn_target *t, const char *host, const char *port, bool tls,
                     bool verify_peer);
void conn_target_fini(struct conn_target *t);

/* Prepares c for target (no I/O yet). The first ops->connect() opens the socket. */
void conn_init(struct lat_conn *c, const struct conn_target *t);

static inline enum lat_io conn_connect(struct lat_conn *c)
{
    return c->ops->connect(c);
}
static inline enum lat_io conn_read(struct lat_conn *c, void *buf, size_t len, size_t *n)
{
    return c->ops->read(c, buf, len, n);
}
static inline enum lat_io conn_write(struct lat_conn *c, const void *buf, size_t len, size_t *n)
{
    return c->ops->write(c, buf, len, n);
}
static inline size_t conn_pending(struct lat_conn *c)
{
    return c->ops->pending(c);
}
/* Closes the socket (and TLS session); c can connect again afterwards. */
static inline void conn_close(struct lat_conn *c)
{
    c->ops->close(c);
}

/*
 * Bytes written to c's socket that the peer's TCP has not acknowledged yet (SIOCOUTQ: the
 * kernel's write_seq - snd_una, still readable after a FIN or a reset arrived, before
 * conn_close), or -1 when the socket cannot say. With TLS these are ciphertext bytes. The bench
 * engine uses it to prove that a server never received a request it dropped (issue 31).
 */
long conn_unacked(const struct lat_conn *c);

extern const struct conn_ops conn_tcp_ops;
extern const struct conn_ops conn_tls_ops;

#endif
