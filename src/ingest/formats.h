/*
 * formats.h - the readers behind ingest.c's format table. Internal to src/ingest/.
 *
 * A reader takes an opened source (ingest/source.h: plain or inflated bytes, first chunk
 * peekable) and owns it from then on (closes it on every path). It fills *out or returns
 * -errno / LAT_E_* with err = "NAME: why".
 */
#ifndef LAT_INGEST_FORMATS_H
#define LAT_INGEST_FORMATS_H

#include "ingest/ingest.h"
#include "ingest/source.h"

typedef int (*ingest_load_fn)(struct ingest_src *src, const char *name,
                              const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                              size_t errsz);

/* kineto.c: Kineto / PyTorch profiler / Chrome trace-event JSON (and ONNX Runtime profiles). */
int ingest_kineto_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz);

/* nsys.c: Nsight Systems `nsys export --type sqlite` files (needs LAT_HAVE_SQLITE3; without it
 * the reader fails saying so). */
int ingest_nsys_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                     struct lat_trace **out, char *err, size_t errsz);
/* nsys.c: `nsys stats --format csv` reports: named (which report), never read. */
const char *ingest_nsys_csv_kind(const unsigned char *head, size_t n);
int ingest_nsys_csv_load(struct ingest_src *src, const char *name,
                         const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                         size_t errsz);

#endif
