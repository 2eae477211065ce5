/*
 * fuzz-folded.c - libFuzzer target for the reader of collapsed stacks (ingest/folded.c), through
 * ingest_mem's sniffing (the input is named handmade.folded, so the name routes even a 0-byte or
 * garbage input to that reader), and analyze's CPU summary (analyze/cpu.h) of what it loaded.
 *
 * The first byte picks the chunk size; the rest is the file. The reader must load the input or
 * fail with a message; a loaded trace holds only CPU samples, each with a one-line "stack", and
 * the summary counts every one of them with self/total within the sample count.
 */
#include "analyze/cpu.h"
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
    o.chunk_bytes = (size_t)(data[0] & 0x3f) + 1;
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(data + 1, size - 1, "handmade.folded", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (strcmp(t->format, "kineto") && strcmp(t->format, "chrome")) { /* a stack file */
        uint64_t weights = 0; /* the samples: one event per record, of its weight */
        uint32_t kw = strtab_find(&t->strs, "weight", 6);
        for (size_t i = 0; i < t->ev.n; i++) {
            if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) abort();
            weights += lat_sample_weight(t, i, kw);
            const struct lat_arg *a = lat_trace_arg(t, i, "stack");
            if (!a || a->type != LAT_ARG_STR || strchr(lat_trace_str(t, a->str), '\n')) abort();
        }
        struct lat_cpu_summary s;
        if (lat_cpu_summarize(t, NULL, &s) == 0) {
            if (s.samples != weights) abort();
            for (size_t i = 0; i < s.nfuncs; i++)
                if (s.funcs[i].self > s.funcs[i].total || s.funcs[i].total > s.samples) abort();
            lat_cpu_summary_fini(&s);
        }
    }
    lat_trace_free(t);
    return 0;
}
