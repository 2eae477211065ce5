/*
 * source.c - chunked input for the trace readers (see source.h).
 *
 * Plain input is read() into one reusable buffer: no mmap, so the page cache, not our RSS,
 * holds the file and peak RSS stays the size of the model. Gzip input (magic 1f 8b, any
 * number of members) is inflated by zlib in chunks. libdeflate is faster per byte but has no
 * streaming API: it needs the whole output buffer (the JSON size) at once, which breaks the
 * memory bound, so zlib it is; to hide its cost, a second thread inflates into a ring of
 * chunk buffers while the caller parses (pipelining; see docs/performance-ingest.md).
 * Threading: the inflate thread owns the zlib stream and the fd; the ring slots are handed
 * over under one mutex (a slot is either the producer's or the consumer's).
 */
#include "ingest/source.h"
#include "core/err.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define RING 4

struct ingest_src {
    int fd; /* -1 for memory */
    bool own_fd, gz, eof_raw, z_done, z_init;
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    size_t chunk;
    unsigned char *in; /* raw read buffer (fd input) */
    size_t in_len, in_pos;
    char *out; /* single-thread output buffer */
    z_stream z;
    uint64_t raw_done, raw_total, out_done;
    bool first_done; /* plain: the first buffer (read for sniffing) was returned */
    /* threaded gzip */
    bool threaded;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *slot[RING];
    size_t slot_len[RING];
    unsigned head, tail; /* produced / consumed counts */
    bool held;           /* the consumer holds slot tail % RING */
    bool prod_done, stop;
    int prod_rc;
    char prod_err[200];
};

static int src_fill_raw(struct ingest_src *s)
{
    if (s->fd < 0) return 0;
    if (s->in_pos < s->in_len) return 0;
    ssize_t r;
    do
        r = read(s->fd, s->in, s->chunk);
    while (r < 0 && errno == EINTR);
    if (r < 0) return -errno;
    s->in_len = (size_t)r;
    s->in_pos = 0;
    s->raw_done += (uint64_t)r;
    if (r == 0) s->eof_raw = true;
    return 0;
}

/* Inflates into buf (cap bytes); *n receives the count. 0 ok (n == 0 only at the end), < 0
 * error with msg. */
static int src_inflate(struct ingest_src *s, char *buf, size_t cap, size_t *n, char *err,
                       size_t errsz)
{
    *n = 0;
    while (*n < cap && !s->z_done) {
        if (s->fd >= 0) {
            if (s->z.avail_in == 0) {
                if (s->in_pos >= s->in_len) {
                    int rc = src_fill_raw(s);
                    if (rc) {
                        snprintf(err, errsz, "read error: %s", strerror(-rc));
                        return rc;
                    }
                }
                s->z.next_in = s->in + s->in_pos;
                s->z.avail_in = (uInt)(s->in_len - s->in_pos);
                s->in_pos = s->in_len;
            }
        } else if (s->z.avail_in == 0 && s->mem_pos < s->mem_len) {
            size_t k = s->mem_len - s->mem_pos;
            if (k > (1u << 30)) k = 1u << 30;
            s->z.next_in = (unsigned char *)(uintptr_t)(s->mem + s->mem_pos);
            s->z.avail_in = (uInt)k;
            s->mem_pos += k;
            s->raw_done = s->mem_pos;
        }
        if (s->z.avail_in == 0) {
            snprintf(err, errsz,
                     "truncated gzip data: the compressed stream ends after %llu bytes "
                     "(%llu bytes decompressed) without its end marker",
                     (unsigned long long)s->raw_done, (unsigned long long)(s->out_done + *n));
            return LAT_E_GZIP;
        }
        s->z.next_out = (unsigned char *)buf + *n;
        s->z.avail_out = (uInt)(cap - *n);
        int zr = inflate(&s->z, Z_NO_FLUSH);
        *n = cap - s->z.avail_out;
        if (zr == Z_STREAM_END) {
            /* Another gzip member may follow (concatenated .gz files). */
            bool more;
            if (s->fd >= 0) {
                if (s->z.avail_in == 0 && s->in_pos >= s->in_len) {
                    int rc = src_fill_raw(s);
                    if (rc) return rc;
                    s->z.next_in = s->in;
                    s->z.avail_in = (uInt)s->in_len;
                    s->in_pos = s->in_len;
                }
                more = s->z.avail_in > 0;
            } else {
                more = s->z.avail_in > 0 || s->mem_pos < s->mem_len;
            }
            if (more && s->z.avail_in > 0 && s->z.next_in[0] != 0x1f) more = false;
            if (more)
                inflateReset(&s->z);
            else
                s->z_done = true;
        } else if (zr == Z_BUF_ERROR) {
            if (s->z.avail_out == 0) break;
            /* no progress: needs more input, loop refills or reports truncation */
        } else if (zr != Z_OK) {
            snprintf(err, errsz, "corrupt gzip data near compressed byte %llu: %s",
                     (unsigned long long)(s->raw_done - s->z.avail_in),
                     s->z.msg ? s->z.msg : "inflate failed");
            return LAT_E_GZIP;
        }
    }
    s->out_done += *n;
    return 0;
}

static void *src_thread(void *arg)
{
    struct ingest_src *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->head - s->tail >= RING && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        bool stop = s->stop;
        unsigned idx = s->head % RING;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        size_t n = 0;
        char err[200] = "";
        int rc = src_inflate(s, s->slot[idx], s->chunk, &n, err, sizeof(err));
        pthread_mutex_lock(&s->mu);
        if (rc) {
            s->prod_rc = rc;
            snprintf(s->prod_err, sizeof(s->prod_err), "%s", err);
            s->prod_done = true;
        } else if (n == 0) {
            s->prod_done = true;
        } else {
            s->slot_len[idx] = n;
            s->head++;
        }
        bool done = s->prod_done;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        if (done) break;
    }
    return NULL;
}

static int src_common_init(struct ingest_src *s, size_t chunk, char *err, size_t errsz)
{
    s->chunk = chunk ? chunk : (1u << 20);
    if (s->fd >= 0) {
        s->in = malloc(s->chunk);
        if (!s->in) return -ENOMEM;
        int rc = src_fill_raw(s);
        if (rc) {
            snprintf(err, errsz, "read error: %s", strerror(-rc));
            return rc;
        }
        /* A gzip magic split by a 1-byte chunk: read the second byte too. */
        if (s->in_len == 1 && s->in[0] == 0x1f) {
            unsigned char *grown = realloc(s->in, s->chunk + 1);
            if (!grown) return -ENOMEM;
            s->in = grown;
            ssize_t r;
            do
                r = read(s->fd, s->in + 1, 1);
            while (r < 0 && errno == EINTR);
            if (r > 0) {
                s->in_len = 2;
                s->raw_done++;
            }
        }
        s->gz = s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
    } else {
        s->gz = s->mem_len >= 2 && s->mem[0] == 0x1f && s->mem[1] == 0x8b;
    }
    if (s->gz) {
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) return -ENOMEM;
        s->z_init = true;
        s->out = malloc(s->chunk);
        if (!s->out) return -ENOMEM;
    }
    return 0;
}

int src_open_path(const char *path, size_t chunk, bool thread, struct ingest_src **out, char *err,
                  size_t errsz)
{
    struct ingest_src *s = calloc(1, sizeof(*s));
    int rc;
    if (!s) return -ENOMEM;
    if (strcmp(path, "-") == 0) {
        s->fd = 0;
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            rc = -errno;
            snprintf(err, errsz, "cannot open: %s", strerror(errno));
            free(s);
            return rc;
        }
        s->own_fd = true;
        struct stat st;
        if (fstat(s->fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                snprintf(err, errsz,
                         "is a directory (pass a trace file, or a directory to "
                         "commands that take one)");
                close(s->fd);
                free(s);
                return -EISDIR;
            }
            if (S_ISREG(st.st_mode)) s->raw_total = (uint64_t)st.st_size;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    rc = src_common_init(s, chunk, err, errsz);
    if (rc) goto fail;
    if (s->gz && thread) {
        for (int i = 0; i < RING; i++) {
            s->slot[i] = malloc(s->chunk);
            if (!s->slot[i]) {
                rc = -ENOMEM;
                goto fail;
            }
        }
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        if (pthread_create(&s->th, NULL, src_thread, s) == 0) {
            s->threaded = true;
        } else {
            pthread_mutex_destroy(&s->mu);
            pthread_cond_destroy(&s->cv);
        }
    }
    *out = s;
    return 0;
fail:
    src_close(s);
    return rc;
}

int src_open_mem(const void *data, size_t n, size_t chunk, struct ingest_src **out, char *err,
                 size_t errsz)
{
    struct ingest_src *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    s->fd = -1;
    s->mem = data;
    s->mem_len = n;
    s->raw_total = n;
    int rc = src_common_init(s, chunk, err, errsz);
    if (rc) {
        src_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int src_next(struct ingest_src *s, const char **data, size_t *n, char *err, size_t errsz)
{
    if (s->threaded) {
        pthread_mutex_lock(&s->mu);
        if (s->held) {
            s->tail++;
            s->held = false;
            pthread_cond_broadcast(&s->cv);
        }
        while (s->head == s->tail && !s->prod_done)
            pthread_cond_wait(&s->cv, &s->mu);
        int rc = 0;
        if (s->head != s->tail) {
            unsigned idx = s->tail % RING;
            *data = s->slot[idx];
            *n = s->slot_len[idx];
            s->held = true;
            rc = 1;
        } else if (s->prod_rc) {
            rc = s->prod_rc;
            snprintf(err, errsz, "%s", s->prod_err);
        }
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    if (s->gz) {
        int rc = src_inflate(s, s->out, s->chunk, n, err, errsz);
        if (rc) return rc;
        *data = s->out;
        return *n ? 1 : 0;
    }
    if (s->fd < 0) {
        if (s->mem_pos >= s->mem_len) return 0;
        size_t k = s->mem_len - s->mem_pos;
        if (k > s->chunk) k = s->chunk;
        *data = (const char *)s->mem + s->mem_pos;
        *n = k;
        s->mem_pos += k;
        s->raw_done = s->mem_pos;
        return 1;
    }
    if (s->first_done || s->in_pos >= s->in_len) {
        s->in_pos = s->in_len;
        int rc = src_fill_raw(s);
        if (rc) {
            snprintf(err, errsz, "read error: %s", strerror(-rc));
            return rc;
        }
    }
    s->first_done = true;
    if (s->in_len == 0) return 0;
    *data = (const char *)s->in;
    *n = s->in_len;
    s->in_pos = s->in_len;
    return 1;
}

bool src_is_gzip(const struct ingest_src *s)
{
    return s->gz;
}

uint64_t src_raw_done(const struct ingest_src *s)
{
    return s->raw_done;
}

uint64_t src_raw_total(const struct ingest_src *s)
{
    return s->raw_total;
}

void src_close(struct ingest_src *s)
{
    if (!s) return;
    if (s->threaded) {
        pthread_mutex_lock(&s->mu);
        s->stop = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    for (int i = 0; i < RING; i++)
        free(s->slot[i]);
    if (s->z_init) inflateEnd(&s->z);
    if (s->own_fd) close(s->fd);
    free(s->in);
    free(s->out);
    free(s);
}
