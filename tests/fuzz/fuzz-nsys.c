/*
 * fuzz-nsys.c - libFuzzer target for whole Nsight Systems SQLite files (src/ingest/nsys.c):
 * the input is the database file. Random bytes rarely pass SQLite's header check, so the
 * value is in mutating the seed corpus (tests/fuzz/corpus/nsys/: small exports with the
 * tables the reader reads, 512-byte pages), which reaches SQLite's handling of corrupt pages,
 * the reader's column and type handling and the mapping. The reader must load (format
 * "nsys") or fail with a message naming the file; never crash or hang.
 */
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_mem(data, size, "f.sqlite", NULL, &t, err, sizeof(err));
    if (rc) {
        if (t || !strstr(err, "f.sqlite")) abort();
        return 0;
    }
    if (!t || (strcmp(t->format, "nsys") && size >= 16 && !memcmp(data, "SQLite format 3", 16)))
        abort();
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.dur[i] < 0 || t->ev.track[i] >= t->ntracks) abort();
    lat_trace_free(t);
    return 0;
}
