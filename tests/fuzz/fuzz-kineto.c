/*
 * fuzz-kineto.c - libFuzzer target for the trace reader (ingest_mem: gzip detection, chunked
 * tokenizing, event/metadata parsing, model building).
 *
 * The first byte picks the chunk size and the flags; the rest is the file. The reader must
 * either load the input or fail with a message, never crash, leak or hang; when it loads,
 * every event must reference a valid track, args range and string.
 */
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    struct lat_ingest_opts o;
    memset(&o, 0, sizeof(o));
    o.chunk_bytes = (size_t)(data[0] & 0x1f) + 1;
    if (data[0] & 0x20) o.flags |= LAT_INGEST_ARGS_ALL;
    if (data[0] & 0x40) o.flags |= LAT_INGEST_NO_ARGS;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(data + 1, size - 1, "fuzz", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.track[i] >= t->ntracks) abort();
        if ((size_t)t->ev.args[i] + t->ev.nargs[i] > t->nargs) abort();
        if (t->ev.name[i] >= t->strs.count || t->ev.cat[i] >= t->strs.count) abort();
    }
    for (size_t i = 0; i < t->nargs; i++)
        if (t->args[i].key >= t->strs.count || t->args[i].str >= t->strs.count) abort();
    for (size_t i = 0; i < t->nmeta; i++)
        (void)ingest_meta_display(t, i);
    lat_trace_free(t);
    return 0;
}
