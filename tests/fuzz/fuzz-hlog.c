/* fuzz-hlog.c - libFuzzer target for the HdrHistogram interval-log reader and V2 decoder:
 * reads every entry, queries each decoded histogram, re-encodes it and checks that the
 * re-encoding decodes to the same counts. */
#include "core/buf.h"
#include "hist/hlog.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hlog_reader r;
    struct hlog_entry e;
    hlog_reader_init(&r, (const char *)data, size);
    for (int n = 0; n < 64 && hlog_reader_next(&r, &e) == 1; n++) {
        (void)hist_value_at_percentile(&e.hist, 99.0);
        (void)hist_mean(&e.hist);
        struct lat_buf b = LAT_BUF_INIT;
        if (hlog_encode(&e.hist, &b) == 0) {
            struct lat_hist d;
            if (hlog_decode(b.data, b.len, &d, NULL) != 0) abort();
            if (hist_count(&d) != hist_count(&e.hist) ||
                memcmp(d.counts, e.hist.counts, hist_counts_bytes(&d.cfg)) != 0)
                abort();
            hist_fini(&d);
        }
        buf_fini(&b);
        hist_fini(&e.hist);
    }
    /* The raw input as a single blob, too. */
    struct lat_hist h;
    if (hlog_decode((const char *)data, size, &h, NULL) == 0) hist_fini(&h);
    return 0;
}
