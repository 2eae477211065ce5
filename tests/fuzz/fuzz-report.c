/*
 * fuzz-report.c - libFuzzer target for the report's timeline and page writer: any trace
 * ingest_mem loads is binned (src/report/timeline.c), written as JSON, made script-safe
 * (rep_json_for_script) and laid into the page. Never a crash, leak or hang; the script-safe
 * JSON never holds '<', and every bin's busy time stays within its width.
 */
#include "ingest/ingest.h"
#include "report/html.h"
#include "report/timeline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(data, size, "fuzz", NULL, &t, err, sizeof(err))) return 0;
    struct rep_tl *tl = NULL;
    if (rep_tl_build(t, &tl) == 0) {
        for (size_t l = 0; l < tl->nlevels; l++)
            for (size_t i = 0; i < tl->nlanes; i++)
                for (size_t k = 0; k < tl->levels[l].lanes[i].n; k++) {
                    const struct rep_tl_bin *bn = &tl->levels[l].lanes[i].b[k];
                    if (bn->busy < 0 || bn->busy > tl->levels[l].w) abort();
                }
        struct jsonw w;
        jsonw_init(&w, NULL, false);
        rep_tl_write_json(&w, tl);
        if (jsonw_finish(&w) == 0 && w.buf.len) {
            struct lat_buf b = LAT_BUF_INIT;
            if (rep_json_for_script(&b, w.buf.data, w.buf.len) == 0 && memchr(b.data, '<', b.len))
                abort();
            buf_fini(&b);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                (void)rep_page_write(f, "fuzz", w.buf.data, w.buf.len);
                fclose(f);
            }
        }
        jsonw_fini(&w);
        rep_tl_free(tl);
    }
    lat_trace_free(t);
    return 0;
}
