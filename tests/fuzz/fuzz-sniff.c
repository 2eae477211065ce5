/*
 * fuzz-sniff.c - libFuzzer target for the format sniffers of src/ingest/ingest.c (the first
 * bytes and the file name decide the formats[] row), with heads of any length (fuzz-kineto's
 * chunk sizes give them at most 32 bytes).
 *
 * The first byte picks a file name suffix; the rest is the head. ingest_sniff() must return a
 * row name and never read outside the head. Then ingest_mem() must load or fail with a message
 * that names the input (a recognised format is never loaded as something else).
 */
#include "ingest/ingest.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {NULL,         "t.json",   "t.json.gz", "x.xplane.pb",
                                        "r.nsys-rep", "m.onnx",   "r.csv",     "p.pb.gz",
                                        "a.qdrep",    "x.SQLITE", "-",         "t.csv.gz",
                                        "",           "x.xplane", "m.onnx.gz", "y.xspace"};
    if (size < 1) return 0;
    const char *path = names[data[0] & 15];
    /* a heap copy of exactly the head: ASan catches a read past it */
    uint8_t *head = malloc(size - 1 ? size - 1 : 1);
    if (!head) return 0;
    memcpy(head, data + 1, size - 1);
    struct lat_ingest_opts o = {.chunk_bytes = 1u << 16};
    /* ingest_mem() sniffs its first chunk: the same bytes here */
    size_t hn = size - 1 < o.chunk_bytes ? size - 1 : o.chunk_bytes;
    const char *fmt = ingest_sniff(head, hn, path);
    if (!fmt || !fmt[0]) abort();
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_mem(head, size - 1, path ? path : "fuzz", &o, &t, err, sizeof(err));
    if (rc) {
        if (t || !err[0]) abort();
    } else {
        /* only a row with its own reader loads (ingest_sniff_reads: nsys exports, TensorRT's
         * files and log, ncu and nsys CSV, xplane, the CPU stack files, ...) or the JSON rows; a
         * recognised-but-unreadable row (nsys-rep, onnx-model, csv, text) never does, and the CPU
         * stack files load as the format sniffed (a trtexec log once loaded here as "tensorrt":
         * a row the earlier hand-kept list of this check did not know) */
        bool stackfmt = !strcmp(fmt, "perf-script") || !strcmp(fmt, "speedscope") ||
                        !strcmp(fmt, "collapsed-stacks");
        if (stackfmt && strcmp(t->format, fmt)) abort();
        if (strcmp(fmt, "kineto") && strcmp(fmt, "ort") && !ingest_sniff_reads(head, hn, path))
            abort();
        lat_trace_free(t);
    }
    free(head);
    return 0;
}
