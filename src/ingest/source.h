/*
 * source.h - chunked input for the trace readers: a file, stdin or memory, plain or gzip
 * (detected by its magic bytes), inflated on the fly, optionally on a second thread.
 * Internal to src/ingest/.
 */
#ifndef LAT_INGEST_SOURCE_H
#define LAT_INGEST_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ingest_src;

/* Opens path ("-" = stdin). chunk: output chunk size (0 = 1 MiB). thread: inflate gzip on a
 * second thread. 0 or -errno / LAT_E_* with err filled. */
int src_open_path(const char *path, size_t chunk, bool thread, struct ingest_src **out, char *err,
                  size_t errsz);
int src_open_mem(const void *data, size_t n, size_t chunk, struct ingest_src **out, char *err,
                 size_t errsz);
/* Next chunk of (decompressed) bytes: 1 with *data and *n (valid until the next call), 0 at the
 * end, < 0 on error (LAT_E_GZIP for corrupt/truncated gzip, -errno) with err filled. */
int src_next(struct ingest_src *s, const char **data, size_t *n, char *err, size_t errsz);
/* The first chunk of (decompressed) bytes, without consuming it: the next src_next() returns
 * the same bytes. Only before the first src_next(). Same returns as src_next(); an error is
 * reported again by src_next(). */
int src_peek(struct ingest_src *s, const char **data, size_t *n, char *err, size_t errsz);
bool src_is_gzip(const struct ingest_src *s);
/* The inflater of a gzip source: "isa-l" (built with libisal, the default then; the environment
 * variable LAT_INGEST_ZLIB=1 selects zlib), "zlib", or "none" for plain input. */
const char *src_gzip_backend(const struct ingest_src *s);
/* Raw (compressed) bytes read so far and the file size (0 when unknown). */
uint64_t src_raw_done(const struct ingest_src *s);
uint64_t src_raw_total(const struct ingest_src *s);
void src_close(struct ingest_src *s);

#endif
