/*
 * buf.c - growable byte buffer. Doubling growth; data is always NUL-terminated so it can be
 * handed to printf-style consumers. Returns -ENOMEM rather than dying: core/ is also linked
 * into the capture library.
 */
#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int buf_reserve(struct lat_buf *b, size_t extra)
{
    /* room for len + extra bytes and the NUL; a size that does not fit is -ENOMEM, as always */
    return LAT_GROW(b->data, b->cap, b->len + 1, extra, 64) ? -ENOMEM : 0;
}

int buf_append(struct lat_buf *b, const void *p, size_t n)
{
    int rc = buf_reserve(b, n);
    if (rc) return rc;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int buf_puts(struct lat_buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_putc(struct lat_buf *b, char c)
{
    return buf_append(b, &c, 1);
}

int buf_vprintf(struct lat_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return -EINVAL;
    int rc = buf_reserve(b, (size_t)n);
    if (rc) return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int buf_printf(struct lat_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void buf_reset(struct lat_buf *b)
{
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

void buf_fini(struct lat_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int buf_read_file(struct lat_buf *b, const char *path, uint64_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    char tmp[65536];
    int rc = 0;
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, tmp, sizeof(tmp));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0) break;
        total += (uint64_t)n;
        if (total > max) {
            rc = LAT_E_OVERFLOW;
            break;
        }
        if ((rc = buf_append(b, tmp, (size_t)n)) < 0) break;
    }
    close(fd);
    return rc;
}
