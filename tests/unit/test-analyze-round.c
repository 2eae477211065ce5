/* test-analyze-round.c - the µs double HTA rounds on equals what a correctly rounded JSON
 * parser makes of the µs text (strtod), for relative and epoch timestamps. */
#include "test.h"

#include "analyze/internal.h"
#include "ingest/ingest.h"

#include <stdlib.h>

TEST(analyze_us_double_matches_strtod)
{
    static const char *const texts[] = {"26.577",
                                        "0.001",
                                        "1.999",
                                        "123456.789",
                                        "1712195495519689.047",
                                        "1623142623810445.999",
                                        "4503599627370.495"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        int64_t ns = 0;
        const char *p = texts[i];
        for (; *p; p++)
            if (*p != '.') ns = ns * 10 + (*p - '0');
        double want = strtod(texts[i], NULL);
        if (an_us_double(ns) != want) FAIL("%s: %.17g != %.17g", texts[i], an_us_double(ns), want);
        if (ingest_ns_to_us_double(ns) != want)
            FAIL("ingest %s: %.17g != %.17g", texts[i], ingest_ns_to_us_double(ns), want);
    }
    /* every fraction of one small whole µs */
    for (int64_t ns = 26000; ns < 27000; ns++) {
        char t[32];
        snprintf(t, sizeof(t), "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
        ASSERT(an_us_double(ns) == strtod(t, NULL));
    }
}
