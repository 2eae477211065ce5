/*
 * buf.h - growable byte buffer (NUL-terminated at all times when allocated).
 */
#ifndef LAT_CORE_BUF_H
#define LAT_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct lat_buf {
    char *data; /* NULL until the first append */
    size_t len, cap;
};

#define LAT_BUF_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Each returns 0 or -ENOMEM; on failure the buffer is unchanged. */
int buf_reserve(struct lat_buf *b, size_t extra);
int buf_append(struct lat_buf *b, const void *p, size_t n);
int buf_puts(struct lat_buf *b, const char *s);
int buf_putc(struct lat_buf *b, char c);
int buf_printf(struct lat_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct lat_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void buf_reset(struct lat_buf *b);
/* Appends the whole file at path, at most max bytes (LAT_E_OVERFLOW beyond: /dev/zero stops
 * there). 0, -errno (read(2)'s own: a directory is EISDIR), -ENOMEM or LAT_E_OVERFLOW; on an
 * error b may hold a part of the file. */
int buf_read_file(struct lat_buf *b, const char *path, uint64_t max);
/* Frees the storage; the buffer is empty and reusable afterwards. */
void buf_fini(struct lat_buf *b);

#endif
