/*
 * source.c - chunked input for the trace readers (see source.h).
 *
 * Plain input is read() into one reusable buffer: no mmap, so the page cache, not our RSS,
 * holds the file and peak RSS stays the size of the model. Gzip input (magic 1f 8b, any
 * number of members) is inflated in chunks by ISA-L's igzip when built with libisal (about 2x
 * zlib's speed, streaming; LAT_INGEST_ZLIB=1 selects zlib), else by zlib. libdeflate is fast
 * too but has no streaming API: it needs the whole output buffer (the JSON size) at once, which
 * breaks the memory bound. To hide the inflate cost, a second thread inflates into a ring of
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
#if LAT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

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
#if LAT_HAVE_ISAL
    struct inflate_state *isal;                     /* non-NULL: ISA-L inflates instead of zlib */
    unsigned hdr_phase, hdr_cnt, hdr_flg, hdr_xlen; /* our gzip header parser (ISA-L path) */
#endif
    uint64_t raw_done, raw_total, out_done;
    bool first_done; /* plain: the first buffer (read for sniffing) was returned */
    bool peeked;     /* gzip, one thread: s->out holds the peeked first chunk (or its error) */
    size_t peek_len;
    int peek_rc;
    char peek_err[200];
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
static int src_inflate_zlib(struct ingest_src *s, char *buf, size_t cap, size_t *n, char *err,
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

#if LAT_HAVE_ISAL
static const char *src_isal_msg(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
        return "invalid code in the deflate data";
    case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
        return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check (CRC-32 mismatch)";
    default:
        return "inflate failed";
    }
}

/* The gzip member header (RFC 1952) is parsed here, not by ISA-L: igzip 2.30 mis-parses a
 * header whose file name is split across input buffers (wrong output, then a CRC error), which
 * `gzip` output read in small chunks hits. Phases: 0 the fixed 10 bytes, 1 XLEN, 2 the extra
 * field, 3 the file name, 4 the comment, 5 the header CRC (not checked), HDR_DONE. */
#define HDR_DONE 6

static bool src_hdr_has(const struct ingest_src *s, unsigned phase)
{
    switch (phase) {
    case 1:
        return s->hdr_flg & 4;
    case 2:
        return (s->hdr_flg & 4) && s->hdr_xlen > 0;
    case 3:
        return s->hdr_flg & 8;
    case 4:
        return s->hdr_flg & 16;
    case 5:
        return s->hdr_flg & 2;
    default:
        return true;
    }
}

static void src_hdr_advance(struct ingest_src *s)
{
    do
        s->hdr_phase++;
    while (s->hdr_phase < HDR_DONE && !src_hdr_has(s, s->hdr_phase));
    s->hdr_cnt = 0;
}

/* Consumes header bytes: 1 when the header is complete, 0 when it needs more input, LAT_E_GZIP
 * with *msg for an invalid header. */
static int src_isal_hdr(struct ingest_src *s, struct inflate_state *st, const char **msg)
{
    while (s->hdr_phase < HDR_DONE && st->avail_in > 0) {
        unsigned c = *st->next_in;
        switch (s->hdr_phase) {
        case 0:
            if ((s->hdr_cnt == 0 && c != 0x1f) || (s->hdr_cnt == 1 && c != 0x8b)) {
                *msg = "incorrect header check";
                return LAT_E_GZIP;
            }
            if (s->hdr_cnt == 2 && c != 8) {
                *msg = "unknown compression method";
                return LAT_E_GZIP;
            }
            if (s->hdr_cnt == 3) {
                if (c & 0xe0) {
                    *msg = "unknown header flags set";
                    return LAT_E_GZIP;
                }
                s->hdr_flg = c;
            }
            break;
        case 1:
            s->hdr_xlen |= c << (8 * s->hdr_cnt);
            break;
        case 3:
        case 4:
            break;
        default: /* 2, 5: skipped bytes */
            break;
        }
        st->next_in++;
        st->avail_in--;
        s->hdr_cnt++;
        bool end;
        switch (s->hdr_phase) {
        case 0:
            end = s->hdr_cnt == 10;
            break;
        case 1:
        case 5:
            end = s->hdr_cnt == 2;
            break;
        case 2:
            end = s->hdr_cnt == s->hdr_xlen;
            break;
        default: /* 3, 4: zero-terminated */
            end = c == 0;
            break;
        }
        if (end) src_hdr_advance(s);
    }
    return s->hdr_phase == HDR_DONE;
}

static void src_isal_member_init(struct ingest_src *s)
{
    s->isal->crc_flag = ISAL_GZIP_NO_HDR_VER; /* checks the CRC-32 and length trailer */
    s->hdr_phase = s->hdr_cnt = s->hdr_flg = s->hdr_xlen = 0;
}

/* src_inflate with ISA-L (igzip): same contract and the same messages. ISA-L buffers input
 * bits and output bytes inside its state, so an empty input buffer alone does not mean the end:
 * at the end of the raw input it is called once more and only a call that makes no progress
 * means a truncated stream. */
static int src_inflate_isal(struct ingest_src *s, char *buf, size_t cap, size_t *n, char *err,
                            size_t errsz)
{
    struct inflate_state *st = s->isal;
    *n = 0;
    while (*n < cap && !s->z_done) {
        if (st->avail_in == 0) {
            if (s->fd >= 0) {
                if (s->in_pos >= s->in_len) {
                    int rc = src_fill_raw(s);
                    if (rc) {
                        snprintf(err, errsz, "read error: %s", strerror(-rc));
                        return rc;
                    }
                }
                st->next_in = s->in + s->in_pos;
                st->avail_in = (uint32_t)(s->in_len - s->in_pos);
                s->in_pos = s->in_len;
            } else if (s->mem_pos < s->mem_len) {
                size_t k = s->mem_len - s->mem_pos;
                if (k > (1u << 30)) k = 1u << 30;
                st->next_in = (uint8_t *)(uintptr_t)(s->mem + s->mem_pos);
                st->avail_in = (uint32_t)k;
                s->mem_pos += k;
                s->raw_done = s->mem_pos;
            }
        }
        bool at_end = st->avail_in == 0;
        if (s->hdr_phase != HDR_DONE) {
            const char *msg = NULL;
            int h = at_end ? 0 : src_isal_hdr(s, st, &msg);
            if (h < 0) {
                snprintf(err, errsz, "corrupt gzip data near compressed byte %llu: %s",
                         (unsigned long long)(s->raw_done - st->avail_in), msg);
                return LAT_E_GZIP;
            }
            if (h == 0 && at_end) {
                snprintf(err, errsz,
                         "truncated gzip data: the compressed stream ends after %llu bytes "
                         "(%llu bytes decompressed) without its end marker",
                         (unsigned long long)s->raw_done, (unsigned long long)(s->out_done + *n));
                return LAT_E_GZIP;
            }
            if (h == 0) continue; /* the header continues in the next input buffer */
        }
        uint32_t in_before = st->avail_in;
        st->next_out = (uint8_t *)buf + *n;
        st->avail_out = (uint32_t)(cap - *n);
        int r = isal_inflate(st);
        size_t made = (cap - *n) - st->avail_out;
        *n += made;
        if (r < 0) {
            snprintf(err, errsz, "corrupt gzip data near compressed byte %llu: %s",
                     (unsigned long long)(s->raw_done - st->avail_in), src_isal_msg(r));
            return LAT_E_GZIP;
        }
        if (st->block_state == ISAL_BLOCK_FINISH) {
            /* Another gzip member may follow (concatenated .gz files). */
            bool more;
            if (s->fd >= 0) {
                if (st->avail_in == 0 && s->in_pos >= s->in_len) {
                    int rc = src_fill_raw(s);
                    if (rc) return rc;
                    st->next_in = s->in;
                    st->avail_in = (uint32_t)s->in_len;
                    s->in_pos = s->in_len;
                }
                more = st->avail_in > 0;
            } else {
                more = st->avail_in > 0 || s->mem_pos < s->mem_len;
            }
            if (more && st->avail_in > 0 && st->next_in[0] != 0x1f) more = false;
            if (more) {
                uint8_t *next_in = st->next_in;
                uint32_t avail_in = st->avail_in;
                isal_inflate_reset(st);
                src_isal_member_init(s);
                st->next_in = next_in;
                st->avail_in = avail_in;
            } else {
                s->z_done = true;
            }
        } else if (at_end && made == 0 && st->avail_in == in_before) {
            snprintf(err, errsz,
                     "truncated gzip data: the compressed stream ends after %llu bytes "
                     "(%llu bytes decompressed) without its end marker",
                     (unsigned long long)s->raw_done, (unsigned long long)(s->out_done + *n));
            return LAT_E_GZIP;
        }
    }
    s->out_done += *n;
    return 0;
}
#endif

static int src_inflate(struct ingest_src *s, char *buf, size_t cap, size_t *n, char *err,
                       size_t errsz)
{
#if LAT_HAVE_ISAL
    if (s->isal) return src_inflate_isal(s, buf, cap, n, err, errsz);
#endif
    return src_inflate_zlib(s, buf, cap, n, err, errsz);
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
#if LAT_HAVE_ISAL
        const char *force_zlib = getenv("LAT_INGEST_ZLIB");
        if (!force_zlib || !*force_zlib || strcmp(force_zlib, "0") == 0) {
            s->isal = calloc(1, sizeof(*s->isal)); /* isal_inflate_init leaves fields unset */
            if (!s->isal) return -ENOMEM;
            isal_inflate_init(s->isal);
            src_isal_member_init(s);
        }
        if (!s->isal) {
            if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) return -ENOMEM;
            s->z_init = true;
        }
#else
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) return -ENOMEM;
        s->z_init = true;
#endif
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

int src_peek(struct ingest_src *s, const char **data, size_t *n, char *err, size_t errsz)
{
    *data = NULL;
    *n = 0;
    if (s->threaded) {
        /* the first slot, not taken: src_next() returns it again (the producer never writes
         * the slot at tail while it is produced and unconsumed) */
        pthread_mutex_lock(&s->mu);
        while (s->head == s->tail && !s->prod_done)
            pthread_cond_wait(&s->cv, &s->mu);
        int rc = 0;
        if (s->head != s->tail) {
            *data = s->slot[s->tail % RING];
            *n = s->slot_len[s->tail % RING];
            rc = 1;
        } else if (s->prod_rc) {
            rc = s->prod_rc; /* sticky: src_next() reports it again */
            snprintf(err, errsz, "%s", s->prod_err);
        }
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    if (s->gz) {
        if (!s->peeked) {
            s->peeked = true;
            s->peek_rc =
                src_inflate(s, s->out, s->chunk, &s->peek_len, s->peek_err, sizeof(s->peek_err));
        }
        if (s->peek_rc) {
            snprintf(err, errsz, "%s", s->peek_err);
            return s->peek_rc;
        }
        *data = s->out;
        *n = s->peek_len;
        return *n ? 1 : 0;
    }
    if (s->fd < 0) {
        size_t k = s->mem_len - s->mem_pos;
        if (k > s->chunk) k = s->chunk;
        *data = (const char *)s->mem + s->mem_pos;
        *n = k;
        return k ? 1 : 0;
    }
    if (s->first_done) return 0; /* only before the first src_next() */
    *data = (const char *)s->in;
    *n = s->in_len;
    return s->in_len ? 1 : 0;
}

int src_next(struct ingest_src *s, const char **data, size_t *n, char *err, size_t errsz)
{
    if (s->peeked) {
        s->peeked = false;
        if (s->peek_rc) {
            snprintf(err, errsz, "%s", s->peek_err);
            return s->peek_rc;
        }
        *data = s->out;
        *n = s->peek_len;
        return *n ? 1 : 0;
    }
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

const char *src_gzip_backend(const struct ingest_src *s)
{
#if LAT_HAVE_ISAL
    if (s->isal) return "isa-l";
#endif
    return s->gz ? "zlib" : "none";
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
#if LAT_HAVE_ISAL
    free(s->isal);
#endif
    if (s->own_fd) close(s->fd);
    free(s->in);
    free(s->out);
    free(s);
}
