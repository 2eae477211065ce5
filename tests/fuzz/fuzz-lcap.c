/* fuzz-lcap.c - libFuzzer target for the capture-file reader (collect_buffer: capfile
 * iteration, clock alignment, correlation, NVTX pairing) and the Kineto writer on its result. */
#include "capture/collect.h"
#include "export/kineto_write.h"
#include "model/events.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lat_trace *t;
    struct collect_stats st;
    struct collect_opts o = {.origin_ns = 1000, .gpu_annotations = true};
    memset(&st, 0, sizeof(st));
    if (lat_trace_new(&t)) return 0;
    if (collect_buffer(t, data, size, 0, &o, &st) == 0 && t->ev.n) {
        char *s = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&s, &n);
        if (f) {
            lat_trace_sort(t);
            kineto_write_stream(t, f, NULL);
            fclose(f);
        }
        free(s);
    }
    lat_trace_free(t);
    return 0;
}
